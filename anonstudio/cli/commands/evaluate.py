"""``anonstudio-cli evaluate``: measure any release against its original on one scale, and audit claims."""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from ..datasets import add_dataset_arguments, dataset_options

NAME = "evaluate"
HELP = "measure a release (made by anonstudio or elsewhere) against its original; audit claims such as k=5,m=2"
DESCRIPTION = (
    "Read the ORIGINAL and a release of any kind (plain or suppressed set-valued data, generalized set-valued data "
    "with its --map or --item-hierarchy, a nonreciprocal release, an RT table, a group-anonymized table such as "
    "ARX's output) and measure both on one scale: for m = 1..M known items (plus the quasi-identifiers of tables), "
    "the prosecutor risk, the share of people at risk (fewer than k candidates) and the attribute disclosure at "
    "rho, exact where affordable and otherwise sampled with 95 % intervals; and the utility: the mean relative "
    "error of one shared workload of count queries and the total variation between item (or value) frequencies. "
    "With --claim the evaluation is an audit: a false claim exits with status 3 and a counterexample (a person, "
    "numbered from 1, the known set and the candidates). docs/evaluate.md defines every measure."
)


def _hierarchy(text: str) -> tuple[str, Path]:
    column, eq, path = text.partition("=")
    if not eq or not column.strip() or not path.strip():
        raise argparse.ArgumentTypeError(f"expected COL=FILE (got {text!r})")
    return column.strip(), Path(path.strip())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_dataset_arguments(parser, name="original", metavar="ORIGINAL",
                          help="the original data: a file, or the name of a bundled sample")
    parser.add_argument("--release", type=Path, required=True, metavar="FILE", help="the release to evaluate")
    parser.add_argument("--kind", default="auto",
                        choices=("auto", "plain", "generalized", "nonreciprocal", "rt", "table"),
                        help="what the release is (default: sniffed from the files)")
    side = parser.add_argument_group("side files of the release")
    side.add_argument("--map", type=Path, metavar="FILE",
                      help="item,partition: the published item of every original item (σ-k^m's partition map)")
    side.add_argument("--item-hierarchy", type=Path, metavar="FILE",
                      help="the item hierarchy whose nodes the release publishes (leaf;parent;...;root)")
    side.add_argument("--hierarchy", type=_hierarchy, action="append", default=[], metavar="COL=FILE",
                      help="a hierarchy for a table column whose cells name its nodes (repeatable)")
    side.add_argument("--sensitive", type=Path, metavar="FILE",
                      help="sensitive items: record,item pairs (records numbered from 1, '*' for everyone; rho's "
                           "E file) or one item per line for everyone (RT's list)")
    side.add_argument("--sensitive-column", metavar="COL",
                      help="the table's sensitive column (default: the one the original marks sensitive)")
    side.add_argument("--qi", metavar="COLS",
                      help="the quasi-identifier columns a table attacker knows (default: the original's "
                           "quasi-identifiers the release publishes)")
    side.add_argument("--items-column", metavar="COL",
                      help="the original's column holding a;b;c items, for RT tables (default: sniffed)")
    what = parser.add_argument_group("what to measure")
    what.add_argument("--m", type=int, required=True, metavar="M", help="measure for 1..M known items")
    what.add_argument("--k", type=int, required=True, metavar="K",
                      help="a person is at risk with fewer than K candidates")
    what.add_argument("--rho", type=float, default=0.5, metavar="X",
                      help="attribute disclosure: a sensitive value held by more than this share of the candidates "
                           "(default 0.5)")
    what.add_argument("--known", choices=("all", "non-sensitive"), default="all",
                      help="which of a person's items the attacker may know (default all)")
    what.add_argument("--queries", type=int, default=1000, metavar="N",
                      help="count queries in the shared workload (default 1000)")
    what.add_argument("--min-support", type=int, default=None, metavar="N",
                      help="support an item or value needs to be queried (default 0.1 %% of the people)")
    what.add_argument("--method", choices=("auto", "exact", "sampled"), default="auto",
                      help="count every (person, known set) or sample them (default auto: exact up to "
                           "--exact-budget known sets)")
    what.add_argument("--exact-budget", type=int, default=2_000_000, metavar="N",
                      help="count exactly up to this many known sets per m (default 2,000,000)")
    what.add_argument("--claim-budget", type=int, default=50_000_000, metavar="N",
                      help="for an m a claim is about, count exactly up to this many (default 50,000,000)")
    what.add_argument("--epsilon", type=float, default=0.01, metavar="X",
                      help="sampled measures: half-width of the interval (default 0.01)")
    what.add_argument("--delta", type=float, default=0.05, metavar="X",
                      help="sampled measures: 1 - confidence of the interval (default 0.05: 95 %%)")
    what.add_argument("--seed", type=int, default=1, metavar="S", help="random seed, 0..2147483647 (default 1)")
    what.add_argument("--claim", action="append", default=[], metavar="CLAIM",
                      help="audit a claim: k=5,m=2 (nobody has fewer than 5 candidates for 2 known items), "
                           "rho=0.5,m=2 (nobody's sensitive value is inferred with more than 0.5 confidence from "
                           "up to 2 known items) or l=3 (tables: at least 3 sensitive values among anyone's "
                           "candidates); repeatable; a false claim exits with status 3")
    out = parser.add_argument_group("outputs")
    out.add_argument("--json", type=Path, required=True, metavar="OUT", help="the evaluation as JSON")
    out.add_argument("--csv", type=Path, metavar="OUT", help="one row of measures per m")
    out.add_argument("--quiet", action="store_true", help="no progress bar")


def evaluation_inputs(args: argparse.Namespace) -> tuple:
    """The evaluator's ``(EvaluateOptions, SideFiles)`` from the parsed flags (the library's ``an.evaluate``
    fills the same namespace from its keyword arguments).

    Raises
    ------
    ParameterError
        For a claim that cannot be read or a value out of range, naming the option.
    """
    from ...evaluate import EvaluateOptions, SideFiles, parse_claim
    from ...params import ParameterError

    try:
        claims = tuple(parse_claim(text) for text in args.claim)
    except ValueError as exc:
        raise ParameterError(str(exc), name="claim") from None
    options = EvaluateOptions(m=args.m, k=args.k, rho=args.rho, queries=args.queries, seed=args.seed,
                              method=args.method, exact_budget=args.exact_budget, claim_budget=args.claim_budget,
                              epsilon=args.epsilon, delta=args.delta, min_support=args.min_support, claims=claims)
    options.check()
    side = SideFiles(map=args.map, item_hierarchy=args.item_hierarchy, hierarchies=dict(args.hierarchy),
                     sensitive=args.sensitive, sensitive_column=args.sensitive_column,
                     qi=[c.strip() for c in args.qi.split(",") if c.strip()] if args.qi else None,
                     items_column=args.items_column, known=args.known)
    return options, side


def write_evaluation(ev, json_path: Path | None, csv_path: Path | None = None, *, timings: bool = True) -> None:
    """The evaluation's ``--json`` and ``--csv`` files (each written atomically)."""
    from ...data.io import atomic_write, write_json

    if json_path is not None:
        write_json(json_path, ev.to_json(timings))
    if csv_path is not None:
        with atomic_write(csv_path) as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(ev.CSV_HEADER)
            writer.writerows(ev.csv_rows())


def run(args: argparse.Namespace) -> int:
    from ...data.io import check_output_path
    from ...evaluate import evaluate
    from ...outputs import check_distinct, labelled
    from ...params import ParameterError
    from ..datasets import load_dataset_argument
    from ..errors import CliError
    from ..progress import TqdmProgress

    try:
        options, side = evaluation_inputs(args)
    except ParameterError as exc:
        raise CliError(str(exc)) from None
    inputs = [Path(args.original), args.release, *side.files().values()]
    for path in [args.release, *side.files().values()]:
        if not path.is_file():
            raise CliError(f"{path}: no such file")
    check_distinct([labelled("--json", args.json), labelled("--csv", args.csv)],
                   [(f"the original {args.original}", Path(args.original)), labelled("the release", args.release),
                    *(labelled(f"the {name} file", path) for name, path in side.files().items())])
    for target in (args.json, args.csv):
        if target is not None:
            check_output_path(target, inputs=tuple(inputs))
    original = load_dataset_argument(args.original, **dataset_options(args), quiet=args.quiet)
    with TqdmProgress(NAME, disable=args.quiet) as progress:
        try:
            ev = evaluate(original, args.release, kind=None if args.kind == "auto" else args.kind, side=side,
                          options=options, progress=progress, original_name=getattr(original, "name", None))
        except ParameterError as exc:
            raise CliError(str(exc)) from None
    for line in ev.lines():
        print(line)
    write_evaluation(ev, args.json, args.csv)
    if not ev.complete:
        print(f"{NAME}: cancelled: the JSON holds the m values finished (marked incomplete)", file=sys.stderr)
    return ev.exit_code
