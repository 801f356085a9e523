"""Comparison sweeps: one method run over a grid of parameter values (and seeds), cell by cell.

A sweep is a list of :class:`Cell` s, each a complete params object (the base
params with some fields replaced), run through
:func:`~anonstudio.methods.contract.run_and_verify` independently. Cells are
seeded through their params, so a cell gives the same summary whatever runs
it: in order on this machine, on a thread pool, or on a Dask cluster (any
executor with ``submit(fn, *args)`` returning futures).

:class:`SweepResult` holds every finished cell's ``summary()`` and status;
:meth:`SweepResult.series` aggregates a measure over seeds for plots (mean
and spread, one series per value of a grouping field), :meth:`SweepResult.pareto`
marks the cells no other cell beats on two measures at once.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..jobs import CancelOnly, NullProgress, Progress, SubProgress
from ..limits import LIMITS, large_work_allowed
from ..params import ParameterError, coerce, spec_of, to_dict, validate
from .contract import MethodSpec, run_and_verify, verdict_head

# numpy and the executors (anonstudio.parallel) are imported where used: the specs declare their sweeps, and
# --help imports the specs.
if TYPE_CHECKING:
    import numpy as np

__all__ = ["Axis", "Cell", "CellResult", "SweepResult", "SweepPreset", "make_grid", "run_sweep", "run_cell",
           "parse_axis", "pareto_front", "grid_size", "check_grid_size", "NOT_RUN", "REASON", "MAX_CELLS",
           "SWEEPABLE_KINDS"]

#: Status of a cell a stopped sweep never ran (in its CSV and JSON).
NOT_RUN = "not run"
#: Column of the one-line error that stopped a cell.
REASON = "reason"
#: Most cells (values of every axis multiplied, times seeds) a sweep runs unless the caller raises the limit
#: explicitly (``--max-cells``, or ``--allow-large-work`` as for every limit): an absurd grid is refused before
#: any work, with its size. The shared work-size guard's limit, so ``sweep`` and ``run`` agree.
MAX_CELLS = LIMITS["cells"]
#: Parameter kinds a sweep can vary (``str`` for parameters written as text, such as ρ's exact fractions).
SWEEPABLE_KINDS = ("int", "float", "choice", "bool", "str")
#: Seconds a cancelled sweep waits for the cells running on a cluster to see the cancel and stop.
CANCEL_GRACE = 10.0


@dataclass(frozen=True)
class Axis:
    """One parameter and the values a sweep gives it."""

    name: str
    values: tuple


@dataclass(frozen=True)
class SweepPreset:
    """A sweep a family offers by default (the paper's figures): axes, the measures to plot, the grouping."""

    title: str
    axes: tuple[Axis, ...]
    measures: tuple[str, ...]
    group: str | None = None
    seeds: int = 1


@dataclass(frozen=True)
class Cell:
    """One point of the grid: the values it sets (axis name -> value) and the full params."""

    index: int
    values: dict
    params: Any

    def label(self) -> str:
        return ", ".join(f"{k} = {_text(v)}" for k, v in self.values.items())


def _text(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


@dataclass
class CellResult:
    """What one cell gave: its status and summary scalars, or the one-line error that stopped it."""

    cell: Cell
    status: str
    summary: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0
    error: str = ""
    run: Any = None
    #: The verdict of the cell's independent check (:func:`~anonstudio.methods.contract.verdict_head`), "" for a
    #: measurement or a cell that failed before it ran.
    check: str = ""

    @classmethod
    def of_run(cls, cell: Cell, run: Any, keep_run: bool = False) -> CellResult:
        """The cell's result from its finished :class:`~anonstudio.methods.contract.MethodRun`."""
        return cls(cell, run.status, {k: v for k, v in run.summary().items() if k != "seconds"}, run.seconds,
                   run=run if keep_run else None, check=verdict_head(run))

    def to_row(self) -> dict[str, Any]:
        # The one-line error goes under "reason": "error" is a measure of some methods (σ-k^m's loss).
        return {**self.cell.values, "status": self.status, "check": self.check, **self.summary,
                REASON: self.error}


@dataclass
class SweepResult:
    """Finished cells of a sweep (``results`` by cell index); ``complete`` once every cell ran."""

    method: str
    axes: tuple[Axis, ...]
    cells: tuple[Cell, ...]
    results: dict[int, CellResult] = field(default_factory=dict)
    complete: bool = False
    seconds: float = 0.0

    @property
    def done(self) -> int:
        return len(self.results)

    def measures(self) -> list[str]:
        """Every summary key some finished cell reported, in first-seen order."""
        seen: dict[str, None] = {}
        for r in self.ordered():
            for key in r.summary:
                seen.setdefault(key, None)
        return list(seen)

    def ordered(self) -> list[CellResult]:
        return [self.results[c.index] for c in self.cells if c.index in self.results]

    def rows(self) -> list[dict[str, Any]]:
        """One dict per finished cell: its axis values, status, summary and the reason it failed (``reason``)."""
        return [r.to_row() for r in self.ordered()]

    def to_csv_text(self, all_cells: bool = False) -> str:
        """The table as CSV: axis values (and seed), status, every measure, error.

        ``all_cells`` adds a row for each cell that did not run, with status
        ``not run``: a stopped sweep's file then says itself that it is incomplete.
        """
        import csv
        import io

        rows = self.rows()
        if all_cells:
            rows = [self.results[c.index].to_row() if c.index in self.results else
                    {**c.values, "status": NOT_RUN, REASON: ""} for c in self.cells]
        seed = ["seed"] if any("seed" in c.values for c in self.cells) and "seed" not in \
            [a.name for a in self.axes] else []
        keys = [a.name for a in self.axes] + seed + ["status", "check"] + self.measures() + [REASON]
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=keys, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if v is None else (repr(v) if isinstance(v, float) else v))
                             for k, v in row.items()})
        return out.getvalue()

    def to_json(self) -> dict:
        """Every cell (those that did not run with status ``not run``), the axes and whether the sweep finished."""
        from ..data.io.jsonfile import strict_json

        cells = []
        for c in self.cells:
            r = self.results.get(c.index)
            cells.append({"index": c.index, "values": c.values, "status": r.status if r else NOT_RUN,
                          "check": r.check if r else "",
                          "summary": r.summary if r else {}, "seconds": round(r.seconds, 4) if r else None,
                          REASON: r.error if r else ""})
        return strict_json({"method": self.method, "complete": self.complete, "cells_done": self.done,
                            "cells_total": len(self.cells), "seconds": round(self.seconds, 4),
                            "axes": [{"name": a.name, "values": list(a.values)} for a in self.axes],
                            "cells": cells})

    def series(self, x: str, y: str, group: str | None = None) -> dict[Any, tuple[np.ndarray, np.ndarray,
                                                                                   np.ndarray, np.ndarray]]:
        """``{group value: (x, mean y, min y, max y)}`` over the finished cells, seeds pooled per x.

        Cells whose run did not finish (or lack the measure) are left out.
        """
        import numpy as np

        buckets: dict[Any, dict[Any, list[float]]] = {}
        for r in self.ordered():
            if r.status not in ("done", "unverified") or y not in r.summary:
                continue
            value = r.summary[y]
            if value is None or not math.isfinite(float(value)):
                continue
            g = r.cell.values.get(group) if group else None
            buckets.setdefault(g, {}).setdefault(r.cell.values.get(x), []).append(float(value))
        out = {}
        for g, by_x in buckets.items():
            xs = sorted(by_x, key=lambda v: (isinstance(v, str), v))
            ys = [by_x[v] for v in xs]
            out[g] = (np.asarray(xs, dtype=object if any(isinstance(v, str) for v in xs) else float),
                      np.array([np.mean(v) for v in ys]), np.array([np.min(v) for v in ys]),
                      np.array([np.max(v) for v in ys]))
        return out

    def pareto(self, lower_is_better: dict[str, bool]) -> list[int]:
        """Indices of finished cells no other cell beats on every named measure (ties kept).

        ``lower_is_better`` maps two or more summary keys to their direction,
        e.g. ``{"error": True, "k": False}``; axis values count as measures too.
        """
        rows = {r.cell.index: {**r.cell.values, **r.summary} for r in self.ordered()
                if r.status in ("done", "unverified")}
        return pareto_front(rows, lower_is_better)


def pareto_front(rows: dict[Any, dict[str, Any]], lower_is_better: dict[str, bool]) -> list[Any]:
    """Keys of the rows no other row beats on every measure of ``lower_is_better`` at once (and strictly on one).

    Rows missing a measure, or with a value that is not a finite number, take no part.
    """
    points = []
    for key, row in rows.items():
        try:
            vector = [float(row[k]) if lower else -float(row[k]) for k, lower in lower_is_better.items()]
        except (KeyError, TypeError, ValueError):
            continue
        if all(math.isfinite(v) for v in vector):
            points.append((key, vector))
    front = []
    for i, a in points:
        dominated = any(all(bv <= av for av, bv in zip(a, b)) and any(bv < av for av, bv in zip(a, b))
                        for j, b in points if j != i)
        if not dominated:
            front.append(i)
    return front


def parse_axis(params_cls: type, name: str, text: str | Sequence, max_values: int = MAX_CELLS) -> Axis:
    """An axis from CLI/GUI text: ``"5,10,20"``, a range ``"1-5"`` (whole numbers) or ``"0.5:0.9:5"``
    (start:stop:count, evenly spaced); values are checked against the field's kind and range.

    ``max_values`` bounds the values (a range or count beyond it is refused before any value is made).

    Raises
    ------
    ParameterError
        Unknown field, an empty value (``5,,10``), too many values or a value the field does not accept.
    """
    try:
        spec = spec_of(params_cls, name)
    except KeyError:
        raise ParameterError(f"--grid {name}: not a parameter of this method") from None
    too_many = (f"--grid {name}={text if isinstance(text, str) else ''}: {{n}} values, more than the limit of "
                f"{max_values:,} cells (raise it explicitly with --max-cells)")
    if isinstance(text, str):
        text = text.strip()
        if spec.kind in ("int", "float") and ":" in text:
            parts = [t.strip() for t in text.split(":")]
            if len(parts) != 3:
                raise ParameterError(f"--grid {name}={text}: write start:stop:count")
            try:
                start, stop, count = float(parts[0]), float(parts[1]), int(parts[2])
            except ValueError:
                raise ParameterError(f"--grid {name}={text}: start:stop:count needs two numbers and a whole "
                                     "number of values") from None
            if not (math.isfinite(start) and math.isfinite(stop)) or count < 1:
                raise ParameterError(f"--grid {name}={text}: give finite ends and at least one value")
            if count > max_values:
                raise ParameterError(too_many.format(n=f"{count:,}"))
            import numpy as np

            values = list(np.linspace(start, stop, count))
            raw = [int(round(v)) if spec.kind == "int" else float(v) for v in values]
        elif spec.kind == "int" and "-" in text.lstrip("-") and "," not in text:
            lo, hi = text.split("-", 1)
            try:
                lo_i, hi_i = int(lo), int(hi)
            except ValueError:
                raise ParameterError(f"--grid {name}={text}: a range is two whole numbers, such as 1-5") from None
            if hi_i - lo_i + 1 > max_values:
                raise ParameterError(too_many.format(n=f"{hi_i - lo_i + 1:,}"))
            raw = list(range(lo_i, hi_i + 1))
        else:
            raw = [t.strip() for t in text.split(",")]
            if len(raw) > 1 and any(not t for t in raw):
                raise ParameterError(f"--grid {name}={text}: an empty value between commas")
            raw = [t for t in raw if t]
            if len(raw) > max_values:
                raise ParameterError(too_many.format(n=f"{len(raw):,}"))
    else:
        raw = list(text)
    if not raw:
        raise ParameterError(f"--grid {name}: give at least one value")
    return Axis(name, tuple(coerce(spec, v) for v in raw))


def grid_size(axes: Sequence[Axis], seeds: int = 1) -> int:
    """How many cells the axes and seeds make (the product of the axes' lengths, times the seeds)."""
    n = max(int(seeds), 1)
    for axis in axes:
        n *= len(axis.values)
    return n


def check_grid_size(axes: Sequence[Axis], seeds: int = 1, max_cells: int = MAX_CELLS,
                    hint: str = "raise the limit explicitly with --max-cells") -> int:
    """The number of cells, or a ParameterError saying it is beyond ``max_cells`` (and ``hint``: how to raise it)."""
    n = grid_size(axes, seeds)
    if n > max_cells and not large_work_allowed():
        parts = [f"{len(a.values):,} value{'' if len(a.values) == 1 else 's'} of {a.name}" for a in axes]
        if seeds > 1:
            parts.append(f"{seeds:,} seeds")
        raise ParameterError(f"the sweep has {n:,} cells ({' × '.join(parts) or 'one cell'}), more than the limit "
                             f"of {max_cells:,}; nothing was run ({hint})")
    return n


def make_grid(base: Any, axes: Sequence[Axis], seeds: int = 1, max_cells: int = MAX_CELLS) -> list[Cell]:
    """Every combination of the axes' values (and ``seeds`` seeds from the base seed on), as validated params.

    A grid of more than ``max_cells`` cells is refused (:func:`check_grid_size`) before any cell is made.
    """
    check_grid_size(axes, seeds if "seed" in to_dict(base) else 1, max_cells)
    names = [a.name for a in axes]
    has_seed = "seed" in to_dict(base)
    seed_values = [base.seed + i for i in range(max(seeds, 1))] if has_seed and seeds > 1 else [None]
    cells = []
    for combo in itertools.product(*[a.values for a in axes]):
        for seed in seed_values:
            values = dict(zip(names, combo))
            if seed is not None:
                values["seed"] = seed
            params = dataclasses.replace(base, **values)
            try:
                validate(params)
            except ParameterError as exc:
                label = ", ".join(f"{k} = {_text(v)}" for k, v in values.items())
                raise ParameterError(f"the cell {label} is not valid: {exc}") from None
            cells.append(Cell(len(cells), values, params))
    return cells


#: Share of a cell's progress bar its run takes when an ``after`` step (an evaluation) follows it.
RUN_SHARE = 0.7


def run_cell(spec: MethodSpec, data: Any, cell: Cell, progress: Progress | None = None,
             keep_run: bool = False, after: Callable[..., dict] | None = None) -> CellResult:
    """One cell through the pipeline; a user error becomes the cell's status instead of stopping the sweep.

    ``after(spec, data, cell, run, progress) -> dict`` runs where the cell ran, once its run finished (not
    cancelled); its measures join the cell's summary (e.g. the independent evaluator's columns). It must be
    picklable to run on a cluster (a module-level function or a dataclass instance).
    """
    t0 = time.perf_counter()
    progress = progress or NullProgress()
    run_progress = SubProgress(progress, 0.0, RUN_SHARE, partials=False) if after is not None else progress
    try:
        run = run_and_verify(spec, data, cell.params, run_progress)
    except (ParameterError, ValueError) as exc:
        return CellResult(cell, "failed", seconds=time.perf_counter() - t0, error=" ".join(str(exc).split()))
    result = CellResult.of_run(cell, run, keep_run)
    if after is not None and run.status != "cancelled" and run.result is not None:
        try:
            extra = after(spec, data, cell, run, SubProgress(progress, RUN_SHARE, 1.0, "evaluating: ",
                                                             partials=False))
        except (ParameterError, ValueError) as exc:
            result.error = "evaluation: " + " ".join(str(exc).split())
        else:
            if not extra and progress.cancelled():
                # Stopped while it was being measured: not a finished cell (a cancel leaves it out, as it does a
                # cancelled run), rather than a release shown without its measures.
                result.status = "cancelled"
            result.summary.update(extra)
        result.seconds = time.perf_counter() - t0
    return result


def _remote_cell(spec_name: str, data: Any, cell: Cell, stop: Any = None, after: Any = None) -> CellResult:
    """A cell on a worker process (Dask): the spec is found again by name there; the cell uses the worker's
    threads and sends nothing further to the cluster. ``stop`` (a :class:`~anonstudio.parallel.ClusterFlag`)
    is the sweep's cancel, read between the run's chunks."""
    from ..parallel import on_worker
    from .contract import get_method

    with on_worker():
        return run_cell(get_method(spec_name), data, cell, CancelOnly(stop.is_set) if stop is not None else None,
                        after=after)


def run_sweep(spec: MethodSpec, data: Any, cells: Sequence[Cell], progress: Progress | None = None, *,
              axes: Sequence[Axis] = (), executor: Any = None, keep_runs: bool = False,
              cached: Callable[[Cell], CellResult | None] | None = None,
              on_cell: Callable[[CellResult], None] | None = None,
              after: Callable[..., dict] | None = None) -> SweepResult:
    """Run every cell; publish a partial :class:`SweepResult` after each one; stop between cells on cancel.

    Parameters
    ----------
    executor
        None: the cells run one after the other here (each method uses its own
        threads). Otherwise anything with ``submit(fn, *args) -> future`` (a
        ``concurrent.futures`` pool or a ``dask.distributed.Client``): cells run
        there, results arrive as they finish. The summaries do not depend on it.
    cached
        ``cached(cell)`` returns a stored result for a cell (not recomputed) or None.
    on_cell
        Called with each new result (e.g. to store it in a cache).
    after
        Run after each cell's run, where the cell ran; its measures join the summary (see :func:`run_cell`).
    """
    progress = progress or NullProgress()
    result = SweepResult(spec.name, tuple(axes), tuple(cells))
    t0 = time.perf_counter()
    todo = []
    for cell in cells:
        stored = cached(cell) if cached is not None else None
        if stored is not None:
            result.results[cell.index] = stored
        else:
            todo.append(cell)
    n = max(len(cells), 1)

    def publish(status: str) -> None:
        result.seconds = time.perf_counter() - t0
        progress.set(result.done / n, status)
        progress.partial(dataclasses.replace(result, results=dict(result.results)))

    def record(cell_result: CellResult) -> None:
        result.results[cell_result.cell.index] = cell_result
        if on_cell is not None:
            on_cell(cell_result)
        publish(f"{result.done} of {len(cells)} cells ({cell_result.cell.label()}: {cell_result.status})")

    if result.done:
        publish(f"{result.done} cells from the cache")
    if executor is None:
        for cell in todo:
            if progress.cancelled():
                break
            start = result.done / n
            cell_progress = SubProgress(progress, start, start + 1 / n, f"{cell.label()}: ", partials=False)
            cell_result = run_cell(spec, data, cell, cell_progress, keep_runs, after)
            if cell_result.status == "cancelled" and progress.cancelled():
                break  # stopped by the cancel, not finished: left out, as on a pool or a cluster
            record(cell_result)
    else:
        _run_on(executor, spec, data, todo, progress, record, keep_runs, after)
    result.complete = result.done == len(cells) and not progress.cancelled()
    result.seconds = time.perf_counter() - t0
    progress.set(1.0, "sweep done" if result.complete else "sweep stopped")
    return result


def _run_on(executor: Any, spec: MethodSpec, data: Any, cells: Iterable[Cell], progress: Progress,
            record: Callable[[CellResult], None], keep_runs: bool = False,
            after: Callable[..., dict] | None = None) -> None:
    """Submit cells to ``executor`` and record them as they finish; on cancel, drop the ones not started and
    stop the running ones."""
    from concurrent.futures import Future

    from ..parallel import ClusterFlag, is_cluster

    lock = threading.Lock()
    # Running cells see the sweep's cancel too, so they stop instead of finishing for nothing (a stopped sweep
    # keeps the cells that finished before the cancel): through the progress here, through a flag on the
    # scheduler on a cluster. A task Dask has started runs to its end even when its future is cancelled, so
    # on a cluster the sweep waits (CANCEL_GRACE at most) for the flag to reach the cells it sent.
    stop = None
    if is_cluster(executor):
        stop = ClusterFlag(executor)
        data_ref = executor.scatter(data, broadcast=True)  # to the workers once, not per cell
        pending = [executor.submit(_remote_cell, spec.name, data_ref, cell, stop, after, pure=False)
                   for cell in cells]
    else:
        pending = [executor.submit(run_cell, spec, data, cell, CancelOnly(progress.cancelled), keep_runs, after)
                   for cell in cells]
    cancelled_at: float | None = None
    try:
        while pending:
            if cancelled_at is None and progress.cancelled():
                if stop is None:
                    return
                stop.set()
                cancelled_at = time.monotonic()
            if cancelled_at is not None and time.monotonic() - cancelled_at > CANCEL_GRACE:
                return
            finished = [f for f in pending if f.done()]
            for f in finished:
                pending.remove(f)
                if isinstance(f, Future) and f.cancelled():
                    continue
                cell_result = f.result()
                if cell_result.status == "cancelled" and progress.cancelled():
                    continue  # stopped by this cancel, not finished: the cell did not run
                with lock:
                    record(cell_result)
            if not finished:
                time.sleep(0.05)
    finally:
        for f in pending:
            f.cancel()
        if stop is not None:
            stop.clear()
