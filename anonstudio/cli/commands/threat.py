"""``anonstudio-cli threat``: relative privacy threat of a group-anonymized table (Boreale et al. 2020)."""
from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from ..errors import USER_ERRORS, CliError
from ..progress import TqdmProgress

NAME = "threat"
HELP = "measure what an attacker learns from a group-anonymized table beyond what it teaches about everyone"
DESCRIPTION = (
    "Learn the population model from the anonymized table by MCMC and compare, row by row, the learner's "
    "prediction of the sensitive value (p_L) with an attacker who also knows the victim is in the table (p_A, "
    "Lemma 1) and with random worlds (p_RW). Prints the threat and faithfulness measures. Lines of the "
    "anonymized CSV follow the cleartext rows in order, or --id-column names each line's row."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--original", required=True, type=Path, help="the cleartext table (CSV or Parquet), or a bundled sample name such as adult")
    parser.add_argument("--anonymized", required=True, type=Path,
                        help="the group-anonymized CSV (horizontal cells, or Anatomy multisets)")
    parser.add_argument("--sensitive", required=True, help="the sensitive column")
    parser.add_argument("--qi", default=None,
                        help="comma-separated quasi-identifiers (default: every anonymized column except the "
                             "sensitive, id and group columns)")
    parser.add_argument("--id-column", default=None, help="column naming each line's cleartext row")
    parser.add_argument("--group-column", default="gid", help="group column of the anonymized CSV (default gid)")
    parser.add_argument("--domains", type=Path, default=None,
                        help="domain file (CSV column,value): the values a mask such as 4550* stands for")
    parser.add_argument("--columns", default=None, help="column names for an original CSV without a header row")
    parser.add_argument("--drop-incomplete", action="store_true",
                        help="drop cleartext rows missing a value in the anonymized table's columns first, as "
                             "group-anonymize does, so that the two tables line up (rows are then numbered "
                             "among the rows kept)")
    parser.add_argument("--iterations", type=int, default=20_000, help="sweeps per chain, burn-in included")
    parser.add_argument("--burn-in", type=int, default=10_000, help="sweeps discarded at the start of each chain")
    parser.add_argument("--thinning", type=int, default=10, help="keep one sweep in this many (default 10)")
    parser.add_argument("--chains", type=int, default=2, help="independent chains, run in parallel (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--prior-alpha", type=float, default=1.0, help="Dirichlet prior of sensitive values")
    parser.add_argument("--prior-beta", type=float, default=1.0, help="Dirichlet prior of attribute values")
    parser.add_argument("--known", default="", help="quasi-identifiers the attacker knows (default: all)")
    parser.add_argument("--learner", default="predictive", choices=("predictive", "average"),
                        help="p_L as the conditional of the learned joint (default) or the chain average of "
                             "f(s | r, pi)")
    parser.add_argument("--proposal", default="swap", choices=("swap", "permutation"),
                        help="Anatomy Metropolis proposal (default swap)")
    parser.add_argument("--victim", type=int, default=None, metavar="ROW",
                        help="print the three distributions of the victim in cleartext row ROW (0-based)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="measures and per-row distributions as JSON")
    parser.add_argument("--rows-out", type=Path, metavar="CSV", help="per-row p_A(s), p_L(s), Ti and flags")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _load(args):
    from ...data.io import load_table
    from ...data.samples import load_sample
    from ...methods.group_anon.published_csv import import_release

    options = {"header": False, "names": [c.strip() for c in args.columns.split(",")]} if args.columns else {}
    try:
        if not options and _is_sample(args.original):
            table = load_sample(str(args.original))
        else:
            table = load_table(args.original, **options)
        if args.drop_incomplete:
            table = _complete_rows(table, args)
        else:
            _suggest_drop_incomplete(table, args)
        release = import_release(args.anonymized, table, qi=args.qi, sensitive=args.sensitive,
                                 gid_column=args.group_column, id_column=args.id_column, domain_path=args.domains)
    except USER_ERRORS as exc:
        raise CliError(str(exc)) from None
    return table, release


def _is_sample(spec: Path) -> bool:
    """A bundled sample name (e.g. ``adult``) that is not also a file here."""
    from ...data.samples import list_samples

    return not Path(spec).exists() and str(spec) in {s.name for s in list_samples()}


def _suggest_drop_incomplete(table, args) -> None:
    """Fail with the fix when the anonymized rows are exactly the cleartext rows without missing values."""
    with open(args.anonymized, newline="", encoding="utf-8-sig") as fh:
        published = sum(1 for _ in csv.reader(fh)) - 1
    if published == table.n_rows:
        return
    kept = _complete_rows(table, args).n_rows
    if published == kept:
        raise CliError(f"{args.anonymized.name} has {published:,} rows: the {table.n_rows:,} cleartext rows less the "
                       f"{table.n_rows - kept:,} with a missing value; add --drop-incomplete to line them up")


def _complete_rows(table, args):
    from ...methods.group_anon.domains import complete_rows

    with open(args.anonymized, newline="", encoding="utf-8-sig") as fh:
        header = [h.strip() for h in next(csv.reader(fh), [])]
    skip = {args.id_column, args.group_column}
    columns = [c for c in header if c in table.frame.columns and c not in skip]
    return complete_rows(table, columns)


def _params(args):
    from ...methods.threat import ThreatParams
    from ...methods.threat.params import check_params

    try:
        return check_params(ThreatParams(
            iterations=args.iterations, burn_in=args.burn_in, thinning=args.thinning, chains=args.chains,
            seed=args.seed, prior_alpha=args.prior_alpha, prior_beta=args.prior_beta, known_qi=args.known,
            learner=args.learner, proposal=args.proposal))
    except USER_ERRORS as exc:
        raise CliError(str(exc)) from None


def _print_victim(result, row: int) -> None:
    victim = result.victim(row)
    names = list(victim["p_L"])
    width = max(len(n) for n in names + ["value"])
    print(f"victim: row {row}, true sensitive value {victim['s']}")
    print(f"{'value':<{width}}  {'p_L':>7}  {'p_A':>7}  {'p_RW':>7}")
    for n in names:
        print(f"{n:<{width}}  {victim['p_L'][n]:7.3f}  {victim['p_A'][n]:7.3f}  {victim['p_RW'][n]:7.3f}")


def run(args: argparse.Namespace) -> int:
    from ...data.io import atomic_write
    from ...methods.threat import analyze_threat
    from ...methods.threat.export import write_rows_csv

    params = _params(args)
    table, release = _load(args)
    if args.victim is not None and not 0 <= args.victim < table.n_rows:
        raise CliError(f"--victim {args.victim} is outside the table's rows 0..{table.n_rows - 1}")
    with TqdmProgress("threat", disable=args.quiet) as progress:
        try:
            result = analyze_threat(table, release, params, progress)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    if not result.complete:
        print("warning: sampling was interrupted; estimates use the samples kept so far", file=sys.stderr)
    for name, value in result.measures.items():
        print(f"{name:>30} = {value:.6g}")
    if args.victim is not None:
        _print_victim(result, args.victim)
    if args.json:
        with atomic_write(args.json) as fh:
            json.dump(result.to_json(), fh, indent=1)
    if args.rows_out:
        write_rows_csv(result, release.row_group, args.rows_out)
    return 0
