"""``anonstudio-cli uniqueness``: how unique are the m-itemsets (or people) of a dataset?"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

NAME = "uniqueness"
HELP = "uniqueness of m-itemsets for m = 1..M (exact or MCMC estimate with a confidence interval)"
DESCRIPTION = (
    "Share of the m-item combinations occurring in the data that occur in exactly one record "
    "(Acs, Achara, Castelluccia 2015). Counted exactly when cheap, else estimated from a uniform "
    "MCMC sample of ceil(ln(2/delta)/(2 eps^2)) itemsets. With --person: the record-first unicity "
    "(chance that a person is unique given m of their items). "
    "JSON: 'samples' is the number of random draws (0 for exact points), 'itemsets' the number of "
    "distinct m-itemsets counted (exact points only), 'precision_met' false where the interval is "
    "wider than +-epsilon (reason in 'warnings'), 'complete' false after Ctrl-C (finished m only; exit 130)."
)

#: Parameter field -> the flag that sets it, so errors name what the user typed.
FLAGS = {
    "min_m": "--m", "max_m": "--m", "epsilon": "--epsilon", "delta": "--delta", "seed": "--seed",
    "method": "--method", "exact_budget": "--exact-budget", "proposal": "--proposal",
    "max_memory_gib": "--max-memory", "max_sample_factor": "--max-sample-factor",
}

#: Marker after the interval of a point whose requested precision was not reached.
IMPRECISE = "*"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", metavar="DATASET", help="transactions file, or the name of a bundled sample")
    parser.add_argument("--format", default=None, help="input format if it cannot be sniffed (e.g. fimi)")
    parser.add_argument("--m", default="1-5", metavar="RANGE", help="itemset sizes, 'A-B' or 'B' (default 1-5)")
    parser.add_argument("--epsilon", type=float, default=0.01, help="error of sampled estimates (default 0.01)")
    parser.add_argument("--delta", type=float, default=0.01, help="chance an estimate misses by more (default 0.01)")
    parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    parser.add_argument("--method", choices=("auto", "exact", "mcmc"), default="auto",
                        help="exact enumeration, MCMC sampling, or auto (exact when cheap; default)")
    parser.add_argument("--exact-budget", type=float, default=None,
                        help="auto counts exactly up to this many m-item combinations (default 1e8)")
    parser.add_argument("--max-memory", type=float, default=None, metavar="GIB",
                        help="memory exact counting may use, in GiB (default: a quarter of this machine's)")
    parser.add_argument("--max-sample-factor", type=float, default=None, metavar="X",
                        help="draw at most X times the Hoeffding sample size while samples are correlated "
                             "(default 8); points that still miss +-epsilon are marked " + IMPRECISE)
    parser.add_argument("--proposal", choices=("size-weighted", "uniform-record"), default=None,
                        help="sampler proposal (default size-weighted; uniform-record = Algorithm 1 as printed)")
    parser.add_argument("--person", action="store_true",
                        help="person-level unicity (record-first sampling) instead of itemset uniqueness")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the curve as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def parse_m_range(text: str) -> tuple[int, int]:
    """``"1-5"`` -> (1, 5); ``"3"`` -> (1, 3)."""
    from ..errors import CliError

    try:
        if "-" in text:
            lo, hi = (int(x) for x in text.split("-", 1))
        else:
            lo, hi = 1, int(text)
    except ValueError:
        raise CliError(f"--m must look like 1-5 or 5 (got {text!r})") from None
    if lo < 1 or hi < lo:
        raise CliError(f"--m range must satisfy 1 <= A <= B (got {text!r})")
    return lo, hi


def load_dataset(spec: str, fmt: str | None):
    """A TransactionData from a path or a bundled sample's name."""
    from ...data.io import load_transactions
    from ...data.samples import get_sample, load_sample
    from ...data.transactions import TransactionData
    from ..errors import USER_ERRORS, CliError

    path = Path(spec)
    try:
        if not path.exists():
            try:
                data = load_sample(get_sample(spec))
            except KeyError:
                raise CliError(f"{spec}: no such file or bundled sample") from None
        else:
            data = load_transactions(path, format=fmt)
    except USER_ERRORS as exc:
        raise CliError(str(exc)) from None
    if not isinstance(data, TransactionData):
        raise CliError(f"{spec}: not set-valued data (one set of items per person)")
    return data


def format_table(result) -> list[str]:
    """The curve as aligned text rows, plus a footnote for points that missed the requested precision.

    ``samples`` is the number of random draws ("-" for exact counts); ``itemsets``
    the number of distinct m-itemsets an exact count found ("-" when sampled).
    """
    head = (f"{'m':>3}  {'uniqueness':>10}  {'ci_low':>8}  {'ci_high':>9}  {'method':>8}  {'samples':>9}  "
            f"{'itemsets':>12}  {'seconds':>8}")
    rows = [head]
    missed = []
    for p in result.points:
        u = "n/a" if math.isnan(p.uniqueness) else f"{p.uniqueness:.4f}"
        lo = "n/a" if math.isnan(p.ci_low) else f"{p.ci_low:.4f}"
        hi = "n/a" if math.isnan(p.ci_high) else f"{p.ci_high:.4f}"
        if not p.precision_met:
            hi += IMPRECISE
            missed.append(p)
        else:
            hi += " "
        samples = f"{p.samples:,}" if p.samples else "-"
        itemsets = f"{p.itemsets:,}" if p.itemsets is not None else "-"
        rows.append(f"{p.m:>3}  {u:>10}  {lo:>8}  {hi:>9}  {p.method:>8}  {samples:>9}  {itemsets:>12}  "
                    f"{p.seconds:>8.2f}")
    for p in missed:
        rows.append(f"{IMPRECISE} m={p.m}: {p.warning}")
    return rows


def parameter_message(exc) -> str:
    """A :class:`~anonstudio.params.ParameterError` worded with the CLI flag instead of the GUI label."""
    flag = FLAGS.get(getattr(exc, "name", None) or "")
    return f"{flag} {exc.problem}" if flag and exc.problem != str(exc) else str(exc)


def run(args: argparse.Namespace) -> int:
    from ...data.io import atomic_write
    from ...methods.risk.uniqueness import UniquenessParams, person_unicity_curve, uniqueness_curve
    from ...params import ParameterError
    from ..errors import CliError
    from ..progress import TqdmProgress

    lo, hi = parse_m_range(args.m)
    if args.json is not None and not args.json.parent.exists():
        raise CliError(f"folder {args.json.parent} does not exist")
    data = load_dataset(args.dataset, args.format)
    optional = {"exact_budget": args.exact_budget, "proposal": args.proposal, "max_memory_gib": args.max_memory,
                "max_sample_factor": args.max_sample_factor}
    params = UniquenessParams(min_m=lo, max_m=hi, epsilon=args.epsilon, delta=args.delta, seed=args.seed,
                              method=args.method, **{k: v for k, v in optional.items() if v is not None})
    curve = person_unicity_curve if args.person else uniqueness_curve
    with TqdmProgress("person unicity" if args.person else "uniqueness", disable=args.quiet) as progress:
        try:
            result = curve(data, params, progress)
        except ParameterError as exc:
            raise CliError(parameter_message(exc)) from None
    print(f"{'person unicity' if args.person else 'itemset uniqueness'} of {data.name} "
          f"({data.n_records:,} records), eps={args.epsilon:g}, delta={args.delta:g}, seed={args.seed}")
    for row in format_table(result):
        print(row)
    if not result.complete:
        print("incomplete: cancelled before the last m; the rows above are the finished ones")
    if args.json is not None:
        doc = result.to_json()
        doc["dataset"] = data.name
        with atomic_write(args.json) as fh:
            json.dump(doc, fh, indent=2, allow_nan=False)
            fh.write("\n")
    # 130 is the shell's code for "stopped by Ctrl-C"; the finished rows are kept above.
    return 0 if result.complete else 130
