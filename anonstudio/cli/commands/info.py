"""``anonstudio-cli info``: what is in a dataset (records, items, lengths, columns, load warnings)."""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ...formatting import integer, percent
from ..datasets import add_dataset_arguments, dataset_options, load_dataset_argument

NAME = "info"
HELP = "summarise a dataset: records, distinct items, record lengths, top items (or a table's columns)"
DESCRIPTION = (
    "Load a dataset (a file in any supported format, or the name of a bundled sample such as 'chess') "
    "and print its headline numbers, the most frequent items and record-length quantiles; for a "
    "relational table the rows, columns, their types and missing values. Problems noticed while "
    "loading (duplicate items, empty records, missing values) are listed as warnings."
)

QUANTILES = (0.0, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0)
#: Most frequent items ``--top`` may list.
MAX_TOP = 1_000_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_dataset_arguments(parser)
    parser.add_argument("--top", type=int, default=10, metavar="N", help="how many frequent items to list (default 10)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write the summary as JSON")


def transactions_info(data, top: int) -> dict[str, Any]:
    """Summary, top items and length quantiles of a TransactionData."""
    import numpy as np

    summary = data.summary()
    freq = data.item_frequencies
    order = np.argsort(-freq, kind="stable")[:max(top, 0)]
    n = max(data.n_records, 1)
    lengths = data.lengths
    quantiles = {f"{q:g}": float(np.quantile(lengths, q)) if len(lengths) else 0.0 for q in QUANTILES}
    info = {
        "kind": "transactions",
        "name": summary.name,
        "records": summary.records,
        "items": summary.items,
        "vocabulary": data.n_items,
        "occurrences": summary.occurrences,
        "mean_length": summary.mean_length,
        "min_length": summary.min_length,
        "max_length": summary.max_length,
        "empty_records": summary.empty_records,
        "has_coordinates": summary.has_coordinates,
        "top_items": [{"item": data.vocab[i], "records": int(freq[i]), "share": float(freq[i] / n)}
                      for i in order if freq[i] > 0],
        "length_quantiles": quantiles,
        "_lines": summary.lines(),
    }
    if data.coords is not None and data.n_items:
        width, height = (data.coords.max(axis=0) - data.coords.min(axis=0)).tolist()
        info["coordinate_extent_m"] = [width, height]
        info["_lines"].append(f"coordinate extent: {width / 1000:.2f} km x {height / 1000:.2f} km")
    return info


def table_info(table) -> dict[str, Any]:
    """Rows, and per column its type, distinct values, missing count and role (as the studio shows them)."""
    from ...data.summary import column_summaries

    columns = [c.to_json() for c in column_summaries(table, top=0)]
    return {"kind": "table", "name": table.name, "rows": int(table.n_rows), "columns": columns}


def _print_transactions(info: dict[str, Any]) -> None:
    for line in info["_lines"]:
        print(line)
    q = info["length_quantiles"]
    print("record length quantiles: " + ", ".join(f"{float(k) * 100:g}% {v:g}" for k, v in q.items()))
    if info["top_items"]:
        print(f"top {len(info['top_items'])} items (records containing):")
        width = max(len(t["item"]) for t in info["top_items"])
        for t in info["top_items"]:
            print(f"  {t['item']:<{width}}  {integer(t['records']):>9}  {percent(t['share'], 2):>8}")


def _print_table(info: dict[str, Any]) -> None:
    print(f"table: {info['name']}")
    print(f"rows: {info['rows']:,}")
    print(f"columns: {len(info['columns'])}")
    width = max((len(c["name"]) for c in info["columns"]), default=4)
    print(f"  {'column':<{width}}  {'type':<7}  {'distinct':>8}  {'missing':>8}  role")
    for c in info["columns"]:
        print(f"  {c['name']:<{width}}  {c['type']:<7}  {c['distinct']:>8,}  {c['missing']:>8,}  {c['role']}")


def run(args: argparse.Namespace) -> int:
    from ...data.io import atomic_write, check_output_path, load_report
    from ...data.table import Table
    from ...outputs import check_distinct, labelled
    from ..errors import CliError

    if not 0 <= args.top <= MAX_TOP:
        raise CliError(f"--top must be in 0..{MAX_TOP:,} (got {args.top})")
    if args.json is not None:
        check_distinct([labelled("--json", args.json)], [("the dataset " + args.dataset, Path(args.dataset))])
        check_output_path(args.json, inputs=(Path(args.dataset),))
    data = load_dataset_argument(args.dataset, **dataset_options(args))
    count = data.n_rows if isinstance(data, Table) else data.n_records
    if count == 0:  # a header alone, or a file of comments: nothing to describe as a dataset
        raise CliError(f"{args.dataset}: holds no {'row' if isinstance(data, Table) else 'record'} (a header or "
                       "comments only); not a dataset")
    report = load_report(data)
    info = table_info(data) if isinstance(data, Table) else transactions_info(data, args.top)
    info["warnings"] = list(report.warnings)
    info["format"] = report.format
    info["load_seconds"] = report.seconds
    if args.json is not None:
        # Written before printing, so that output piped into `head` cannot cut it short.
        with atomic_write(args.json) as fh:
            json.dump({k: v for k, v in info.items() if not k.startswith("_")}, fh, indent=2)
    if isinstance(data, Table):
        _print_table(info)
    else:
        _print_transactions(info)
    for warning in report.warnings:
        print(f"warning: {warning}")
    return 0
