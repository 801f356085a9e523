"""``anonstudio-cli convert``: rewrite a dataset in another file format."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..datasets import add_dataset_arguments, dataset_options, load_dataset_argument

NAME = "convert"
HELP = "convert a dataset between formats (FIMI, SPMF, CSV long/sets, check-ins, Parquet, CSV tables)"
DESCRIPTION = (
    "Read IN (a file, or a bundled sample name) and write it to OUT. Formats are sniffed from the "
    "content of IN and chosen from the name of OUT (.dat FIMI, .csv record,item pairs, .sets.csv one "
    "row per record, .tsv check-ins, .seq SPMF sequences, .parquet) unless --from/--to say otherwise. "
    "Tables stay tables (.csv or .parquet). OUT is replaced atomically and always written as UTF-8, "
    "so --encoding turns a Latin-1 or Windows file into one every anonstudio command reads."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_dataset_arguments(parser, name="input", metavar="IN")
    parser.add_argument("output", metavar="OUT", type=Path, help="file to write")
    parser.add_argument("--from", dest="from_format", default=None, metavar="FMT",
                        help="input format (default: sniffed; the same as --format)")
    parser.add_argument("--to", dest="to_format", default=None, metavar="FMT",
                        help="output format (default: from OUT's extension)")


def run(args: argparse.Namespace) -> int:
    from ...data.io import check_output_path, formats, get_format, load_report, save_table, save_transactions
    from ...data.io.registry import format_for_extension
    from ...data.table import Table
    from ...outputs import check_distinct, labelled
    from ..errors import USER_ERRORS, CliError

    check_distinct([labelled("OUT", args.output)], [(f"the input {args.input}", Path(args.input))])
    check_output_path(args.output, inputs=(Path(args.input),))
    data = load_dataset_argument(args.input, **{**dataset_options(args), "format": args.from_format or args.format})
    kind = "table" if isinstance(data, Table) else "transactions"
    if args.to_format is not None:
        try:
            fmt = get_format(args.to_format, kind)
        except ValueError:
            names = ", ".join(f.name for f in formats(kind))
            raise CliError(f"--to {args.to_format}: not a format for {kind}; use one of {names}") from None
        to_name = fmt.name
    else:
        fmt = format_for_extension(args.output, kind)
        if fmt is None:
            names = ", ".join(f.name for f in formats(kind))
            raise CliError(f"cannot tell the output format from {args.output.name!r} for {kind}; "
                           f"use --to with one of {names}")
        to_name = fmt.name
    try:
        if kind == "table":
            save_table(data, args.output, format=to_name)
        else:
            save_transactions(data, args.output, format=to_name)
    except (ValueError, *USER_ERRORS) as exc:
        raise CliError(str(exc)) from None
    count = f"{data.n_rows:,} rows" if kind == "table" else f"{data.n_records:,} records"
    print(f"wrote {count} to {args.output} (read as {load_report(data).format or 'sample'})")
    for warning in load_report(data).warnings:
        print(f"warning: {warning}")
    return 0
