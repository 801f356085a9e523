"""``anonstudio-cli sweep``: one method over a grid of parameter values (and seeds), one table row per cell."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ...formatting import number
from ..datasets import add_dataset_arguments
from ..errors import CliError

NAME = "sweep"
HELP = "run one method over a grid of parameter values (and seeds) and tabulate every cell's summary"
DESCRIPTION = (
    "Run METHOD on DATASET once per combination of the --grid values (and per seed with --seeds), every cell a "
    "complete run with its own independent check, and write one row per cell: the values, the status and the "
    "run's summary measures. Cells run one after another here (each using the thread budget, see "
    "ANONSTUDIO_THREADS), side by side with --jobs, or on a Dask cluster with --scheduler; the numbers are the "
    "same either way.")
EPILOG = ("exit status: 0 every cell done; 2 bad input, parameters or outputs (nothing run); 3 some cell's guarantee "
          "was not met or the cell failed (named on stderr; the files are written); 130 stopped by Ctrl-C (the "
          "finished cells are written, the other cells are marked 'not run' and the JSON says \"complete\": false).")

#: How many summary measures the stdout table shows (the files hold all of them).
TABLE_MEASURES = 4


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.add_argument("method", metavar="METHOD", help="the method to sweep (e.g. kmanon; anonstudio-cli --help "
                                                         "lists them)")
    add_dataset_arguments(parser)
    parser.add_argument("--grid", action="append", required=True, metavar="NAME=VALUES",
                        help="a parameter and its values: k=5,10,20 · a range of whole numbers m=1-5 · "
                             "start:stop:count such as sigma=0.9:0.99:4; repeat for more axes (every combination "
                             "runs)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="fixed",
                        help="fix a parameter for every cell (e.g. --set trials=3); repeatable")
    parser.add_argument("--seeds", type=int, default=1, metavar="N",
                        help="run every cell with N seeds: the base seed, +1, ... (default 1)")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="run the cells on the Dask cluster of this scheduler (tcp://host:8786; default: the "
                             "ANONSTUDIO_SCHEDULER environment variable, else this machine). Needs "
                             "pip install anonstudio[cluster] here and on the workers")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="cells at once on this machine, even when ANONSTUDIO_SCHEDULER is set (default 1: one "
                             "after another, each with the whole thread budget; N splits the budget between N "
                             "cells)")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE",
                        help="the table as CSV, one row per cell (cells a stop left out: status 'not run')")
    parser.add_argument("--json", type=Path, metavar="FILE",
                        help="the sweep as JSON: method, dataset with SHA-256, base parameters, axes, every cell's "
                             "status and summary, and whether the sweep finished")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (the table still goes to stdout)")


def _pairs(items: list[str], flag: str) -> list[tuple[str, str]]:
    out = []
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise CliError(f"{flag} {item!r}: write NAME=VALUE")
        out.append((name.strip().replace("-", "_"), value))
    return out


def _unknown(flag: str, name: str, method: str, valid: list[str]) -> CliError:
    return CliError(f"{flag} {name}: not a parameter of {method}; valid: {', '.join(valid)}")


def _base_params(spec: Any, fixed: list[tuple[str, str]]) -> Any:
    from ...params import ParameterError, coerce, from_dict, specs

    by_name = {p.name: p for p in specs(spec.params)}
    values = {}
    for name, text in fixed:
        if name not in by_name:
            raise _unknown("--set", name, spec.name, sorted(by_name))
        try:
            values[name] = coerce(by_name[name], text)
        except ParameterError as exc:
            raise CliError(f"--set {name}: {exc.problem}") from None
    try:
        return from_dict(spec.params, values)
    except ParameterError as exc:
        raise CliError(f"--set: {exc}") from None


def _axes(spec: Any, grid: list[tuple[str, str]], seeds: int) -> list:
    from ...methods.sweep import parse_axis
    from ...params import ParameterError, specs

    sweepable = [p.name for p in specs(spec.params) if p.kind in ("int", "float", "choice", "bool")]
    axes, seen = [], set()
    for name, text in grid:
        if name not in sweepable:
            raise _unknown("--grid", name, spec.name, sweepable)
        if name in seen:
            raise CliError(f"--grid {name}: given twice; put every value in one --grid")
        if name == "seed" and seeds > 1:
            raise CliError("--grid seed and --seeds both vary the seed; use one of them")
        seen.add(name)
        try:
            axes.append(parse_axis(spec.params, name, text))
        except (ParameterError, ValueError) as exc:
            raise CliError(f"--grid {name}={text}: {getattr(exc, 'problem', None) or exc}") from None
    return axes


def _check_outputs(args: argparse.Namespace, data: Any = None) -> None:
    from ...data.io.atomic import check_output_path

    inputs = []
    if data is not None and getattr(data, "source", None) is not None:
        inputs.append(Path(data.source))
    elif Path(args.dataset).is_file():
        inputs.append(Path(args.dataset))
    if args.json is not None and Path(args.json).expanduser().resolve() == Path(args.out).expanduser().resolve():
        raise CliError("--out and --json name the same file")
    for path in (args.out, args.json):
        if path is not None:
            check_output_path(path, inputs=tuple(inputs))


def _measures(spec: Any, result: Any) -> list[str]:
    """The measures the stdout table shows: the family's preferred ones first, then the others, a few."""
    found = [m for m in result.measures() if not m.startswith("check_")]
    preferred = [m for preset in spec.sweeps for m in preset.measures if m in found]
    ordered = list(dict.fromkeys(preferred + found))
    return ordered[:TABLE_MEASURES]


def _cell_text(value: Any) -> str:
    """A cell as the studio's sweep table shows it: numbers as :func:`~anonstudio.formatting.number`."""
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number(value)
    return str(value)


def table_lines(spec: Any, result: Any) -> list[str]:
    """The short stdout table: axis values (and seed), status and a few measures per cell, in grid order."""
    from ...methods.sweep import NOT_RUN

    keys = [a.name for a in result.axes]
    if any("seed" in c.values for c in result.cells) and "seed" not in keys:
        keys.append("seed")
    measures = _measures(spec, result)
    header = keys + ["status", "independent check"] + measures
    rows = []
    for cell in result.cells:
        r = result.results.get(cell.index)
        # The check column reads passed / FAILED / incomplete: the verdict's own words without its prefix.
        check = r.check.removeprefix("Independent check ") if r and r.check else ""
        row = {**cell.values, "status": r.status if r else NOT_RUN, "independent check": check,
               **(r.summary if r else {})}
        rows.append([_cell_text(row.get(k)) for k in header])
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(header, widths))]
    lines += ["  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in rows]
    return lines


def run(args: argparse.Namespace) -> int:
    from ... import __version__
    from ...data.io import OutputSet
    from ...data.io.jsonfile import dumps
    from ...methods.contract import dataset_ref, discover_methods, prepare
    from ...methods.sweep import make_grid, run_sweep
    from ...parallel import ExecutionError, check_address, executor_for, is_cluster, scheduler_address
    from ...params import ParameterError, to_dict
    from ..datasets import load_dataset_argument
    from ..progress import TqdmProgress

    methods = discover_methods()
    spec = methods.get(args.method)
    if spec is None:
        raise CliError(f"no method named {args.method!r}; valid: {', '.join(sorted(methods))}")
    if args.seeds < 1:
        raise CliError(f"--seeds {args.seeds}: give at least 1")
    if args.jobs is not None and args.jobs < 1:
        raise CliError(f"--jobs {args.jobs}: give at least 1")
    if args.scheduler and args.jobs is not None:
        raise CliError("--jobs sets the cells at once on this machine; with --scheduler the cluster's workers do "
                       "(leave out one of them)")
    # An explicit --jobs means this machine, whatever ANONSTUDIO_SCHEDULER says.
    scheduler = args.scheduler or (scheduler_address() if args.jobs is None else None)
    if scheduler:
        try:
            scheduler = check_address(scheduler)  # a typo is reported now, not after the data is loaded
        except ExecutionError as exc:
            raise CliError(str(exc)) from None
    base = _base_params(spec, _pairs(args.fixed, "--set"))
    axes = _axes(spec, _pairs(args.grid, "--grid"), args.seeds)
    try:
        cells = make_grid(base, axes, args.seeds)
    except ParameterError as exc:
        raise CliError(str(exc)) from None
    _check_outputs(args)
    data = load_dataset_argument(args.dataset, format=args.format, encoding=args.encoding, columns=args.columns,
                                 kinds=spec.data_kinds, opener=spec.open_dataset)
    _check_outputs(args, data)
    # Every cell is checked against the data before any runs (k above the records, a missing file...).
    for cell in cells:
        try:
            prepare(spec, data, cell.params)
        except ParameterError as exc:
            raise CliError(f"the cell {cell.label()} cannot run: {exc}") from None
    try:
        executor = executor_for(scheduler, jobs=args.jobs) if scheduler or (args.jobs or 1) > 1 else None
    except ExecutionError as exc:
        raise CliError(str(exc)) from None
    try:
        with TqdmProgress(f"sweep {spec.name}", disable=args.quiet) as progress:
            result = run_sweep(spec, data, cells, progress, axes=axes, executor=executor)
    finally:
        if is_cluster(executor):
            executor.close()
        elif executor is not None:
            # A stopped sweep does not start cells it will not record (the running ones saw the cancel).
            executor.shutdown(wait=True, cancel_futures=True)
    doc = {"anonstudio": __version__, **result.to_json(), "input": dataset_ref(data).to_json(),
           "base_params": to_dict(base), "seeds": args.seeds}
    with OutputSet() as outputs:
        with outputs.open(args.out) as fh:
            fh.write(result.to_csv_text(all_cells=True))
        if args.json is not None:
            with outputs.open(args.json) as fh:
                fh.write(dumps(doc))
    for line in table_lines(spec, result):
        print(line)
    if not result.complete:
        print(f"sweep: stopped after {result.done} of {len(cells)} cells; the files hold the finished cells and say "
              "the sweep is incomplete", file=sys.stderr)
        return 130
    broken = [r for r in result.ordered() if r.status in ("not-met", "failed", "cancelled")]
    if broken:
        for r in broken:
            why = r.error or {"not-met": "the independent check found the promise broken",
                              "cancelled": "the run did not finish"}.get(r.status, r.status)
            print(f"sweep: {r.cell.label()}: {r.status}: {why}", file=sys.stderr)
        print(f"sweep: the guarantee was not met in {len(broken)} of {len(cells)} cells", file=sys.stderr)
        return 3
    return 0
