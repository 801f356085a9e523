"""``anonstudio-cli group-anonymize``: k-anonymity / l-diversity (Mondrian, global recoding) and Anatomy."""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from ..errors import USER_ERRORS, CliError
from ..progress import TqdmProgress

NAME = "group-anonymize"
HELP = "group-anonymize a table (Mondrian, global recoding or Anatomy) and verify the result"
DESCRIPTION = (
    "Partition the rows of a table into groups of at least k people with at least l distinct sensitive values, "
    "by Mondrian local recoding, optimal global recoding over hierarchies, or Anatomy (exact quasi-identifiers, "
    "sensitive values published per group). Rows with a missing quasi-identifier or sensitive value are dropped "
    "first. The result is checked by an independent verifier whose report is printed. With --published, an "
    "existing anonymized CSV is imported and verified instead."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", help="table file (CSV or Parquet) or a bundled sample name such as 'adult'")
    parser.add_argument("--scheme", default="mondrian", choices=("mondrian", "global", "anatomy"),
                        help="anonymization scheme (default mondrian)")
    parser.add_argument("--k", type=int, default=4, help="smallest group size (default 4)")
    parser.add_argument("--l", type=int, default=None,
                        help="distinct sensitive values per group (default: none; Anatomy: k)")
    parser.add_argument("--qi", required=True, help="comma-separated quasi-identifier columns")
    parser.add_argument("--sensitive", required=True, help="the sensitive column")
    parser.add_argument("--hierarchy", action="append", default=[], metavar="COL=FILE",
                        help="generalization hierarchy CSV for a column (global recoding climbs it; Mondrian cuts "
                             "categories in its leaf order); repeatable")
    parser.add_argument("--max-suppression", type=float, default=0.0, metavar="SHARE",
                        help="global recoding: share of rows that may be suppressed (published as all '*'; "
                             "default 0)")
    parser.add_argument("--columns", default=None,
                        help="comma-separated column names for a CSV without a header row")
    parser.add_argument("--seed", type=int, default=1, help="random seed (Anatomy; default 1)")
    parser.add_argument("--out", type=Path, help="anonymized table CSV (gid column + published cells)")
    parser.add_argument("--gid-column", default="gid", help="name of the group column (default gid)")
    parser.add_argument("--id-column", default=None,
                        help="write (or, with --published, read) this column to name each line's cleartext row")
    parser.add_argument("--published", type=Path, default=None,
                        help="verify this anonymized CSV against TABLE instead of anonymizing")
    parser.add_argument("--domains", type=Path, default=None,
                        help="with --published: domain file (CSV column,value) for masks and ranges")
    parser.add_argument("--json", type=Path, metavar="OUT", help="summary and verifier report as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _load_table(args):
    from ...data.io import load_table
    from ...data.samples import load_path_or_sample

    options = {}
    if args.columns:
        options = {"header": False, "names": [c.strip() for c in args.columns.split(",")]}
    path = Path(args.table)
    try:
        if path.exists():
            return load_table(path, **options)
        table = load_path_or_sample(args.table)
    except KeyError as exc:
        raise CliError(str(exc.args[0]) if exc.args else str(exc)) from None
    except USER_ERRORS as exc:
        raise CliError(str(exc)) from None
    if not hasattr(table, "frame"):
        raise CliError(f"{args.table} is set-valued data, not a table")
    return table


def _hierarchies(args) -> dict:
    from ...data.io import load_hierarchy

    out = {}
    for spec in args.hierarchy:
        column, sep, file = spec.partition("=")
        if not sep or not column or not file:
            raise CliError(f"--hierarchy expects COL=FILE, got {spec!r}")
        try:
            out[column.strip()] = load_hierarchy(Path(file))
        except USER_ERRORS as exc:
            raise CliError(str(exc)) from None
    return out


def _write_json(path: Path, doc: dict) -> None:
    from ...data.io import atomic_write

    with atomic_write(path) as fh:
        json.dump(doc, fh, indent=2, default=str)
        fh.write("\n")


def run(args: argparse.Namespace) -> int:
    from ...data.table import Role
    from ...methods.group_anon.api import GroupAnonParams, anonymize
    from ...methods.group_anon.domains import complete_rows
    from ...methods.group_anon.published_csv import export_release, import_release
    from ...verifiers.group_privacy import verify_group_release
    from ...params import ParameterError, validate

    for path in (args.out, args.json):
        if path is not None and not path.parent.exists():
            raise CliError(f"{path}: the folder does not exist")
    table = _load_table(args)
    qi = [c.strip() for c in args.qi.split(",") if c.strip()]
    missing = [c for c in [*qi, args.sensitive] if c not in table.frame.columns]
    if missing:
        raise CliError(f"unknown column(s) {', '.join(missing)}; the table has {', '.join(map(str, table.frame.columns))}")
    n_all = table.n_rows
    table = complete_rows(table, [*qi, args.sensitive]).with_roles(**{args.sensitive: Role.SENSITIVE})
    dropped = n_all - table.n_rows
    l_value = args.l if args.l is not None or args.scheme != "anatomy" else args.k
    summary = {"table": str(args.table), "rows": table.n_rows, "dropped_incomplete_rows": dropped,
               "qi": qi, "sensitive": args.sensitive, "k": args.k, "l": l_value}

    if args.published is not None:
        try:
            release = import_release(args.published, table, qi=qi, sensitive=args.sensitive,
                                     gid_column=args.gid_column, id_column=args.id_column, domain_path=args.domains)
        except USER_ERRORS as exc:
            raise CliError(str(exc)) from None
        summary.update({"published": str(args.published), "scheme": release.scheme})
    else:
        try:
            params = validate(GroupAnonParams(scheme=args.scheme, k=args.k, l=l_value, qi=",".join(qi),
                                              sensitive=args.sensitive, seed=args.seed,
                                              max_suppression=args.max_suppression))
        except ParameterError as exc:
            raise CliError(str(exc)) from None
        if args.hierarchy and args.scheme == "anatomy":
            raise CliError("--hierarchy is used by --scheme global or mondrian only")
        if args.max_suppression and args.scheme != "global":
            raise CliError("--max-suppression is used by --scheme global only")
        hierarchies = _hierarchies(args)
        start = time.perf_counter()
        try:
            with TqdmProgress(f"group-anonymize ({args.scheme})", disable=args.quiet) as progress:
                result = anonymize(table, params, progress, hierarchies=hierarchies)
        except ValueError as exc:
            raise CliError(str(exc)) from None
        if result.release is None:
            raise CliError("cancelled before a valid release was complete")
        release = result.release
        summary.update({"scheme": args.scheme, "seed": args.seed, "seconds": round(time.perf_counter() - start, 4),
                        "complete": result.complete, "info": result.info})
        if args.out is not None:
            export_release(release, table, args.out, gid_column=args.gid_column, id_column=args.id_column)
            summary["out"] = str(args.out)
    report = verify_group_release(table, release, k=args.k, l=l_value)
    summary["groups"] = release.n_groups
    summary["verifier"] = report.to_json()
    if dropped:
        print(f"dropped {dropped} rows with a missing quasi-identifier or sensitive value")
    if "seconds" in summary:
        print(f"{args.scheme}: {release.n_groups} groups in {summary['seconds']:.2f} s"
              + ("" if summary["complete"] else " (cancelled: coarser release)"))
    print(report.format())
    if args.json is not None:
        _write_json(args.json, summary)
    return 0 if report.ok else 1
