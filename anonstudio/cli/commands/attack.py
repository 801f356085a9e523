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
    "revealed so far, until only the target is left."
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


def run(args: argparse.Namespace) -> int:
    from ...data.io import check_output_path, write_json
    from ...data.transactions import TransactionData
    from ...methods.uniqueness.linkage_attack import linkage_attack, random_person
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
    if args.json is not None:
        check_distinct([labelled("--json", args.json)], [(f"the dataset {args.dataset}", Path(args.dataset))])
        check_output_path(args.json, inputs=(Path(args.dataset),))
    data = load_dataset_argument(args.dataset, **dataset_options(args), kinds=(TransactionData,))
    if args.record is not None and args.record > data.n_records:
        raise CliError(f"--record {args.record} is beyond the {data.n_records:,} records (1..{data.n_records:,})")
    try:
        index = random_person(data, args.seed, args.min_items) if args.random else args.record - 1
        trace = linkage_attack(data, index, args.order, args.seed)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    for line in trace.lines():
        print(line)
    if args.json is not None:
        write_json(args.json, trace.to_json())
    return 0
