"""``anonstudio-cli sweep``: one method over a grid of parameter values (and seeds), one table row per cell."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ...formatting import number
from ..datasets import add_dataset_arguments, dataset_options
from ..errors import CliError

NAME = "sweep"
HELP = ("run one method (or several, each with its own grid) over parameter values and seeds; every release "
        "measured by the independent evaluator")
DESCRIPTION = (
    "Run METHOD on DATASET once per combination of the --grid values (and per seed with --seeds), every cell a "
    "complete run with its own independent check, and write one row per cell: the values, the status, the run's "
    "summary measures and the independent evaluator's columns (prosecutor risk, share at risk and attribute "
    "disclosure at --eval-m known items, count-query error, frequency distortion; docs/evaluate.md), so releases "
    "of different methods compare on one scale. Several methods: anonstudio-cli sweep DATASET --method kmanon "
    "--grid k=5,10 --method rho --grid rho=0.3,0.5 (each --grid and --set belongs to the --method before it). "
    "Cells run one after another here (each using the thread budget, see ANONSTUDIO_THREADS), side by side with "
    "--jobs, or on a Dask cluster with --scheduler; the numbers are the same either way.")
EPILOG = ("exit status: 0 every cell done; 2 bad input, parameters or outputs, or a grid above --max-cells (nothing "
          "run); 3 some cell's guarantee was not met or the cell failed (named on stderr; the files are written); "
          "130 stopped by Ctrl-C (the finished cells are written, the other cells are marked 'not run' and the JSON "
          "says \"complete\": false).")

#: How many summary measures the stdout table shows (the files hold all of them).
TABLE_MEASURES = 4
#: The evaluator's columns the stdout table shows (the files hold all of them).
TABLE_EVAL = ("prosecutor_risk", "share_at_risk", "count_query_error")


class _Ordered(argparse.Action):
    """--method, --grid and --set in the order given: a --grid or --set belongs to the --method before it."""

    def __call__(self, parser, namespace, values, option_string=None):
        plan = list(getattr(namespace, "plan", None) or [])
        plan.append((self.dest, values))
        namespace.plan = plan


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ...methods.sweep import MAX_CELLS

    parser.epilog = EPILOG
    parser.set_defaults(plan=[])
    parser.add_argument("method", metavar="METHOD", nargs="?", default=None,
                        help="the method to sweep (e.g. kmanon; anonstudio-cli --help lists them); leave it out "
                             "and name methods with --method to compare several")
    add_dataset_arguments(parser)
    parser.add_argument("--method", action=_Ordered, dest="method_opt", metavar="METHOD",
                        help="a method to compare; the --grid and --set options after it are its own (repeat "
                             "for more methods)")
    parser.add_argument("--grid", action=_Ordered, dest="grid", metavar="NAME=VALUES",
                        help="a parameter and its values: k=5,10,20 · a range of whole numbers m=1-5 · "
                             "start:stop:count such as sigma=0.9:0.99:4; repeat for more axes (every combination "
                             "runs)")
    parser.add_argument("--set", action=_Ordered, dest="fixed", metavar="NAME=VALUE",
                        help="fix a parameter for every cell (e.g. --set trials=3); repeatable")
    parser.add_argument("--seeds", type=int, default=1, metavar="N",
                        help="run every cell with N seeds: the base seed, +1, ... (default 1)")
    parser.add_argument("--max-cells", type=int, default=MAX_CELLS, metavar="N",
                        help=f"refuse a sweep of more than N cells (all methods, seeds included) before any work "
                             f"(default {MAX_CELLS:,})")
    ev = parser.add_argument_group("the independent evaluator's columns (docs/evaluate.md)")
    ev.add_argument("--eval-m", type=int, default=2, metavar="M",
                    help="the attacker knows M items of a person (and a table's quasi-identifiers) (default 2)")
    ev.add_argument("--eval-k", type=int, default=5, metavar="K",
                    help="share at risk: a person with fewer than K candidates (default 5)")
    ev.add_argument("--eval-rho", type=float, default=0.5, metavar="X",
                    help="attribute disclosure: a sensitive value held by more than this share of the candidates "
                         "(default 0.5)")
    ev.add_argument("--eval-queries", type=int, default=1000, metavar="N",
                    help="count queries in the shared workload (default 1000)")
    ev.add_argument("--eval-seed", type=int, default=1, metavar="S",
                    help="seed of the evaluator's sampling and queries, 0..2147483647 (default 1): the same seed "
                         "gives the same columns at any thread count")
    ev.add_argument("--no-evaluate", action="store_true",
                    help="leave out the evaluator's columns (the runs' own measures only; faster)")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="run the cells on the Dask cluster of this scheduler (tcp://host:8786; default: the "
                             "ANONSTUDIO_SCHEDULER environment variable, else this machine). Needs "
                             "pip install anonstudio[cluster] here and on the workers")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="cells at once on this machine, even when ANONSTUDIO_SCHEDULER is set (default 1: one "
                             "after another, each with the whole thread budget; N splits the budget between N "
                             "cells)")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE",
                        help="the table as CSV, one row per cell (cells a stop left out: status 'not run'); with "
                             "several methods a 'method' and a 'settings' column come first")
    parser.add_argument("--json", type=Path, metavar="FILE",
                        help="the sweep as JSON: method(s), dataset with SHA-256, base parameters, axes, every cell's "
                             "status and summary, the evaluator's settings, and whether the sweep finished")
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
    """The params every cell starts from: the defaults and the --set values, each checked against its range.

    The rules between fields (``check()``) are left to the cells, which hold the grid's values too:
    ``nonreciprocal --grid k=3,5`` sets k in every cell, so a base without k is no error.
    """
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
        return from_dict(spec.params, values, check=False)
    except ParameterError as exc:
        raise CliError(f"--set: {exc}") from None


def _axes(spec: Any, grid: list[tuple[str, str]], seeds: int, max_cells: int) -> list:
    from ...methods.sweep import SWEEPABLE_KINDS, parse_axis
    from ...params import ParameterError, specs

    sweepable = [p.name for p in specs(spec.params) if p.kind in SWEEPABLE_KINDS]
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
            axes.append(parse_axis(spec.params, name, text, max_cells))
        except ParameterError as exc:
            message = str(exc)
            raise CliError(message if message.startswith(f"--grid {name}") else
                           f"--grid {name}={text}: {exc.problem or exc}") from None
        except ValueError as exc:
            raise CliError(f"--grid {name}={text}: {exc}") from None
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
    """The measures the stdout table shows: the family's preferred ones first, then the others, a few (the
    evaluator's columns are shown apart)."""
    from ...studio.compare import EVAL_MEASURES

    found = [m for m in result.measures() if not m.startswith("check_") and m not in EVAL_MEASURES]
    preferred = [m for preset in spec.sweeps for m in preset.measures if m in found]
    ordered = list(dict.fromkeys(preferred + found))
    evaluated = [m for m in TABLE_EVAL if m in result.measures()]
    return ordered[:TABLE_MEASURES] + evaluated


def _cell_text(value: Any) -> str:
    """A cell as the studio's sweep table shows it: numbers as :func:`~anonstudio.formatting.number`."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number(value)
    return str(value)


def _aligned(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(header)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(header, widths))]
    lines += ["  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in rows]
    return lines


def _check_word(r: Any) -> str:
    # The check column reads passed / FAILED / incomplete: the verdict's own words without its prefix.
    return r.check.removeprefix("Independent check ") if r and r.check else ""


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
        row = {**(r.summary if r else {}), **cell.values, "status": r.status if r else NOT_RUN,
               "independent check": _check_word(r)}
        rows.append([_cell_text(row.get(k)) for k in header])
    return _aligned(header, rows)


def comparison_lines(comparison: Any) -> list[str]:
    """The stdout table of several methods: method, settings, status, check and the evaluator's columns."""
    from ...methods.sweep import NOT_RUN

    measures = [m for m in TABLE_EVAL if any(m in r.summary for _g, r in comparison.points())]
    header = ["method", "settings", "status", "independent check"] + measures
    rows = []
    for grid, result in zip(comparison.grids, comparison.results):
        for cell in result.cells:
            r = result.results.get(cell.index)
            row = {"method": grid.method, "settings": cell.label(), "status": r.status if r else NOT_RUN,
                   "independent check": _check_word(r), **(r.summary if r else {})}
            rows.append([_cell_text(row.get(k)) for k in header])
    return [line.rstrip() for line in _aligned(header, rows)]


def _plan(args: argparse.Namespace) -> list[tuple[str, list[tuple[str, str]], list[tuple[str, str]]]]:
    """``[(method, grid pairs, set pairs)]`` from the positional METHOD and the ordered --method/--grid/--set."""
    groups: list[list] = []
    current = [args.method, [], []] if args.method is not None else None
    if current is not None:
        groups.append(current)
    for dest, value in args.plan:
        if dest == "method_opt":
            current = [value, [], []]
            groups.append(current)
        elif current is None:
            flag = "--grid" if dest == "grid" else "--set"
            raise CliError(f"{flag} {value}: name the method first (sweep METHOD DATASET --grid ..., or "
                           "sweep DATASET --method METHOD --grid ...)")
        else:
            current[1 if dest == "grid" else 2].append(value)
    if not groups:
        raise CliError("name a method: sweep METHOD DATASET --grid ..., or sweep DATASET --method A --grid ... "
                       "--method B --grid ...")
    for method, grid, _fixed in groups:
        if not grid:
            raise CliError(f"{method}: give at least one --grid NAME=VALUES")
    return [(m, _pairs(g, "--grid"), _pairs(f, "--set")) for m, g, f in groups]


def _evaluate_options(args: argparse.Namespace) -> Any:
    from ...evaluate import EvaluateOptions
    from ...params import ParameterError

    options = EvaluateOptions(m=args.eval_m, k=args.eval_k, rho=args.eval_rho, queries=args.eval_queries,
                              seed=args.eval_seed)
    try:
        options.check()
    except ParameterError as exc:
        raise CliError(str(exc).replace("--", "--eval-", 1)) from None
    return options


def run(args: argparse.Namespace) -> int:
    from ... import __version__
    from ...data.io import OutputSet
    from ...data.io.jsonfile import dumps
    from ...data.kinds import kind_words
    from ...methods.contract import dataset_ref, discover_methods, prepare
    from ...methods.sweep import check_grid_size
    from ...parallel import ExecutionError, check_address, executor_for, is_cluster, scheduler_address
    from ...params import ParameterError, to_dict
    from ...studio.compare import FamilyGrid, run_comparison
    from ..datasets import load_dataset_argument
    from ..progress import TqdmProgress

    methods = discover_methods()
    plan = _plan(args)
    for name, _grid, _fixed in plan:
        if name not in methods:
            raise CliError(f"no method named {name!r}; valid: {', '.join(sorted(methods))}")
    if args.seeds < 1:
        raise CliError(f"--seeds {args.seeds}: give at least 1")
    if args.max_cells < 1:
        raise CliError(f"--max-cells {args.max_cells}: give at least 1")
    if args.jobs is not None and args.jobs < 1:
        raise CliError(f"--jobs {args.jobs}: give at least 1")
    if args.scheduler and args.jobs is not None:
        raise CliError("--jobs sets the cells at once on this machine; with --scheduler the cluster's workers do "
                       "(leave out one of them)")
    options = None if args.no_evaluate else _evaluate_options(args)
    if options is not None:
        measured = [name for name, _g, _f in plan if not methods[name].release_kind]
        if measured:
            raise CliError(f"{measured[0]} makes no release the evaluator can measure; add --no-evaluate")
    # An explicit --jobs means this machine, whatever ANONSTUDIO_SCHEDULER says.
    scheduler = args.scheduler or (scheduler_address() if args.jobs is None else None)
    if scheduler:
        try:
            scheduler = check_address(scheduler)  # a typo is reported now, not after the data is loaded
        except ExecutionError as exc:
            raise CliError(str(exc)) from None
    grids, all_cells, total = [], [], 0
    for name, grid, fixed in plan:
        spec = methods[name]
        base = _base_params(spec, fixed)
        axes = _axes(spec, grid, args.seeds, args.max_cells)
        seeds = args.seeds if "seed" in to_dict(base) else 1
        # The size is known before a cell is made: an absurd sweep is refused at once, with its size.
        try:
            total += check_grid_size(axes, seeds, args.max_cells)
            if total > args.max_cells:
                raise ParameterError(f"the sweep has {total:,} cells (all methods together), more than the limit of "
                                     f"{args.max_cells:,}; nothing was run (raise the limit explicitly with "
                                     "--max-cells)")
            from ...methods.sweep import make_grid

            cells = make_grid(base, axes, args.seeds, args.max_cells)
        except ParameterError as exc:
            raise CliError(f"{name}: {exc}" if len(plan) > 1 else str(exc)) from None
        grids.append(FamilyGrid(name, base, tuple(axes), seeds))
        all_cells.append(cells)
    first = methods[plan[0][0]]
    _check_outputs(args)
    # Every reading option (--sep, --header, --roles, --sheet, --table, --query, --items-query...), as a single run.
    data = load_dataset_argument(args.dataset, **dataset_options(args), kinds=first.data_kinds,
                                 opener=first.open_dataset, quiet=args.quiet)
    _check_outputs(args, data)
    for grid in grids:
        spec = methods[grid.method]
        if not isinstance(data, spec.data_kinds):
            raise CliError(f"{grid.method} does not take {kind_words(type(data))} "
                           f"({getattr(data, 'name', args.dataset)})")
    # Every cell is checked against the data before any runs (k above the records, a missing file...).
    with TqdmProgress("checking the cells", disable=args.quiet or total < 200) as checking:
        done = 0
        for grid, cells in zip(grids, all_cells):
            spec = methods[grid.method]
            for cell in cells:
                if checking.cancelled():
                    return 130
                try:
                    prepare(spec, data, cell.params)
                except ParameterError as exc:
                    where = f"{grid.method}: " if len(grids) > 1 else ""
                    raise CliError(f"{where}the cell {cell.label()} cannot run: {exc}") from None
                done += 1
                checking.set(done / max(total, 1), f"{done} of {total} cells")
    try:
        executor = executor_for(scheduler, jobs=args.jobs) if scheduler or (args.jobs or 1) > 1 else None
    except ExecutionError as exc:
        raise CliError(str(exc)) from None
    title = f"sweep {grids[0].method}" if len(grids) == 1 else f"compare {len(grids)} methods"
    try:
        with TqdmProgress(title, disable=args.quiet) as progress:
            comparison = run_comparison(data, grids, options, progress, executor=executor,
                                        max_cells=args.max_cells, evaluate=options is not None)
    finally:
        if is_cluster(executor):
            executor.close()
        elif executor is not None:
            # A stopped sweep does not start cells it will not record (the running ones saw the cancel).
            executor.shutdown(wait=True, cancel_futures=True)
    evaluation = None if options is None else {k: v for k, v in options.to_json().items() if k != "claims"}
    if len(grids) == 1:
        result = comparison.results[0]
        doc = {"anonstudio": __version__, **result.to_json(), "input": dataset_ref(data).to_json(),
               "base_params": to_dict(grids[0].base), "seeds": args.seeds, "evaluation": evaluation}
        csv_text = result.to_csv_text(all_cells=True)
        lines = table_lines(methods[grids[0].method], result)
    else:
        doc = {"anonstudio": __version__, "methods": [g.method for g in grids], **comparison.to_json(),
               "input": dataset_ref(data).to_json(), "evaluation": evaluation}
        csv_text = comparison.to_csv_text(all_cells=True)
        lines = comparison_lines(comparison)
    with OutputSet() as outputs:
        with outputs.open(args.out) as fh:
            fh.write(csv_text)
        if args.json is not None:
            with outputs.open(args.json) as fh:
                fh.write(dumps(doc))
    for line in lines:
        print(line)
    total_cells = sum(len(c) for c in all_cells)
    if not comparison.complete:
        print(f"sweep: stopped after {comparison.done} of {total_cells} cells; the files hold the finished cells "
              "and say the sweep is incomplete", file=sys.stderr)
        return 130
    broken = [(g, r) for g, r in comparison.points() if r.status in ("not-met", "failed", "cancelled")]
    where = (lambda g: f"{grids[g].method}: ") if len(grids) > 1 else (lambda g: "")
    for g, r in comparison.points():
        if r.error and r.status == "done":
            print(f"sweep: {where(g)}{r.cell.label()}: {r.error}", file=sys.stderr)
    if broken:
        for g, r in broken:
            why = r.error or {"not-met": "the independent check found the promise broken",
                              "cancelled": "the run did not finish"}.get(r.status, r.status)
            print(f"sweep: {where(g)}{r.cell.label()}: {r.status}: {why}", file=sys.stderr)
        print(f"sweep: the guarantee was not met in {len(broken)} of {total_cells} cells", file=sys.stderr)
        return 3
    return 0
