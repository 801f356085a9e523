"""``anonstudio-cli attack``: reveal a person's items one by one until they are singled out."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

NAME = "attack"
HELP = "linkage attack on one person: records still matching after each revealed item"
DESCRIPTION = (
    "Reveal the items of one record (a given record number or a random person) one at a time, "
    "in random order or rarest first, and print how many records still contain every item "
    "revealed so far, until only the target is left."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", metavar="DATASET", help="transactions file, or the name of a bundled sample")
    parser.add_argument("--format", default=None, help="input format if it cannot be sniffed (e.g. fimi)")
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--person", type=int, metavar="N", help="record number of the target (0-based)")
    who.add_argument("--random", action="store_true", help="pick the target at random")
    parser.add_argument("--min-items", type=int, default=1, help="with --random: target has at least this many items")
    parser.add_argument("--order", choices=("random", "rarest"), default="random",
                        help="order in which the attacker learns the items (default random)")
    parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the trace as JSON")


def run(args: argparse.Namespace) -> int:
    from ...data.io import atomic_write
    from ...methods.risk.linkage_attack import linkage_attack, random_person
    from ..errors import CliError
    from .uniqueness import load_dataset

    if args.json is not None and not args.json.parent.exists():
        raise CliError(f"folder {args.json.parent} does not exist")
    data = load_dataset(args.dataset, args.format)
    try:
        person = random_person(data, args.seed, args.min_items) if args.random else args.person
        trace = linkage_attack(data, person, args.order, args.seed)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    for line in trace.lines():
        print(line)
    if args.json is not None:
        with atomic_write(args.json) as fh:
            json.dump(trace.to_json(), fh, indent=2)
            fh.write("\n")
    return 0
