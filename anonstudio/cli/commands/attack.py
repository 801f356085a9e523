"""``anonstudio-cli attack``: reveal a person's items one by one until they are singled out."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..datasets import add_dataset_arguments, dataset_options

NAME = "attack"
HELP = "linkage attack on one person: records still matching after each revealed item"
DESCRIPTION = (
    "Reveal the items of one record (a given record number, counted from 1, or a random person) one at a time, "
    "in random order or rarest first, and print how many records still contain every item "
    "revealed so far, until only the target is left. With --release FILE (and its side files) the same target and "
    "the same revealed items are then tried on that release, and both counts are printed side by side: the "
    "release's candidates are the independent evaluator's (docs/evaluate.md), so a class sees the attack that "
    "worked on the original stop working on the release."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_dataset_arguments(parser, columns=False)
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--record", type=int, metavar="N",
                     help="record number of the target, counted from 1 (the first record of the file is 1)")
    # The previous release's spellings, both counted from 0: --record-index N (as --record counted) and the older
    # --person N (which now means "person-level" in other commands). They work for one more release, with a notice.
    who.add_argument("--record-index", dest="old_index", type=int, metavar="N", help=argparse.SUPPRESS)
    who.add_argument("--person", dest="old_person", type=int, metavar="N", help=argparse.SUPPRESS)
    who.add_argument("--random", action="store_true", help="pick the target at random")
    parser.add_argument("--min-items", type=int, default=1, help="with --random: target has at least this many items")
    parser.add_argument("--order", choices=("random", "rarest"), default="random",
                        help="order in which the attacker learns the items (default random)")
    parser.add_argument("--seed", type=int, default=1, help="random seed, 0..2147483647 (default 1)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the trace as JSON")
    release = parser.add_argument_group("the same attack on a release (before/after)")
    release.add_argument("--release", type=Path, metavar="FILE",
                         help="a release of the dataset: replay the attack on it and print both counts")
    release.add_argument("--kind", default="auto", choices=("auto", "plain", "generalized", "nonreciprocal"),
                         help="what the release is (default: sniffed, as anonstudio-cli evaluate does)")
    release.add_argument("--map", type=Path, metavar="FILE",
                         help="item,partition: the published item of every original item (σ-k^m's partition map)")
    release.add_argument("--item-hierarchy", type=Path, metavar="FILE",
                         help="the item hierarchy whose nodes the release publishes (leaf;parent;...;root)")
    release.add_argument("--sensitive", type=Path, metavar="FILE",
                         help="sensitive items of the release (record,item pairs or one item per line)")


def run(args: argparse.Namespace) -> int:
    from ...data.io import check_output_path, write_json
    from ...data.transactions import TransactionData
    from ...evaluate import SideFiles
    from ...methods.uniqueness.linkage_attack import attack_release, linkage_attack, random_person
    from ...outputs import check_distinct, labelled
    from ...params import SEED_MAX
    from ..datasets import load_dataset_argument
    from ..errors import CliError

    for flag, old in (("--record-index", args.old_index), ("--person", args.old_person)):
        if old is not None:
            print(f"anonstudio-cli attack: note: {flag} {old} counts records from 0 and is deprecated; it is "
                  f"--record {old + 1} (records are numbered from 1)", file=sys.stderr)
            if old < 0:
                raise CliError(f"{flag} must be a record index from 0 (got {old})")
            args.record = old + 1
    if not 0 <= args.seed <= SEED_MAX:
        raise CliError(f"--seed must be in 0..{SEED_MAX} (got {args.seed})")
    if args.min_items != 1 and not args.random:
        raise CliError("--min-items only applies with --random (the target of --record is given)")
    if args.min_items < 0:
        raise CliError(f"--min-items must be at least 0 (got {args.min_items})")
    if args.record is not None and args.record < 1:
        raise CliError(f"--record counts records from 1 (the first record is 1; got {args.record})")
    side = SideFiles(map=args.map, item_hierarchy=args.item_hierarchy, sensitive=args.sensitive)
    if args.release is None and (side.files() or args.kind != "auto"):
        raise CliError("--kind, --map, --item-hierarchy and --sensitive describe a release: give --release FILE")
    for path in ([args.release] if args.release is not None else []) + list(side.files().values()):
        if not path.is_file():
            raise CliError(f"{path}: no such file")
    if args.json is not None:
        release_inputs = [*([labelled("the release", args.release)] if args.release else []),
                          *(labelled(f"the {kind} file", path) for kind, path in side.files().items())]
        check_distinct([labelled("--json", args.json)],
                       [(f"the dataset {args.dataset}", Path(args.dataset)), *release_inputs])
        check_output_path(args.json, inputs=(Path(args.dataset), *(path for _, path in release_inputs)))
    data = load_dataset_argument(args.dataset, **dataset_options(args), kinds=(TransactionData,))
    if args.record is not None and args.record > data.n_records:
        raise CliError(f"--record {args.record} is beyond the {data.n_records:,} records (1..{data.n_records:,})")
    try:
        index = random_person(data, args.seed, args.min_items) if args.random else args.record - 1
        trace = linkage_attack(data, index, args.order, args.seed)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.release is None:
        for line in trace.lines():
            print(line)
        if args.json is not None:
            write_json(args.json, trace.to_json())
        return 0
    # A release the evaluator cannot read raises DataFormatError: the CLI's one error path prints its line.
    after = attack_release(data, trace, args.release, None if args.kind == "auto" else args.kind, side)
    for line in after.lines():
        print(line)
    if args.json is not None:
        write_json(args.json, {**trace.to_json(), "release": after.to_json()})
    return 0
