"""``anonstudio-cli samples``: the bundled sample datasets, by name."""
from __future__ import annotations

import argparse

NAME = "samples"
HELP = "list the bundled sample datasets (their names work wherever a command takes a DATASET)"
DESCRIPTION = HELP + "."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--long", action="store_true", help="also print each sample's description and license")


def run(args: argparse.Namespace) -> int:
    from ...data.samples import list_samples

    samples = list_samples()
    width = max((len(s.name) for s in samples), default=4)
    for sample in samples:
        print(f"{sample.name:<{width}}  {sample.kind:<12}  {sample.title}")
        if args.long:
            print(f"{'':<{width}}  {sample.description}")
            print(f"{'':<{width}}  license: {sample.license}")
    return 0
