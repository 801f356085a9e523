"""Compare methods on one dataset: several families, a grid each, every release measured on one scale.

Each family's grid runs through the sweep machinery
(:func:`~anonstudio.methods.sweep.run_sweep`, here or on a Dask cluster), and
every cell's release is written to a private temporary folder and measured by
the independent evaluator (:func:`anonstudio.evaluate.evaluate`) where the
cell ran: prosecutor risk, share at risk and attribute disclosure at one m,
count-query error and frequency distortion. So releases of different paradigms
(generalization, suppression, nonreciprocal recoding, group schemes) land on
the same risk–utility plane, whose Pareto front (:func:`pareto_2d`) is the set
of releases no other release beats on both risk and error.

Qt-free: the CLI's ``sweep --method A --grid ... --method B ...`` and the
studio's Tools › Compare methods both use it.
"""
from __future__ import annotations

import dataclasses
import math
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..data.table import RTData, Table
from ..data.transactions import TransactionData
from ..jobs import NullProgress, Progress, SubProgress
from ..methods.contract import MethodSpec, discover_methods, get_method
from ..methods.sweep import NOT_RUN, REASON, Axis, Cell, CellResult, SweepResult, make_grid, run_sweep
from ..params import to_dict

__all__ = ["EVAL_MEASURES", "RISK_MEASURES", "UTILITY_MEASURES", "release_families", "EvaluateRelease", "FamilyGrid",
           "Comparison", "run_comparison", "proposed_grids", "pareto_2d", "evaluation_columns", "release_files"]

#: The evaluator's columns every compared cell gets (summary keys), in table order.
RISK_MEASURES = ("prosecutor_risk", "share_at_risk", "attribute_disclosure")
UTILITY_MEASURES = ("count_query_error", "frequency_distortion")
#: ``risk_counted``: 1 when the risk figures were counted exactly, 0 when sampled (with the evaluator's interval).
EVAL_MEASURES = RISK_MEASURES + ("prosecutor_risk_high", "share_at_risk_high", "risk_counted") + UTILITY_MEASURES


def release_families() -> tuple[str, ...]:
    """The families whose releases the evaluator reads (a :attr:`release_kind`; measurements such as uniqueness
    and threat make none), in discovery order."""
    return tuple(name for name, spec in discover_methods().items() if spec.release_kind)


# ----------------------------------------------------------------------------------------- evaluation
def release_files(spec: MethodSpec, run: Any, folder: Path) -> tuple[str, Path, Any]:
    """Write ``run``'s release (and the side files the evaluator needs) into ``folder``.

    Returns the release kind the evaluator should read (the family's
    :attr:`~anonstudio.methods.contract.MethodSpec.release_kind`), the release's path and its
    :class:`~anonstudio.evaluate.SideFiles`. The release is written even when the run's own check did not
    confirm it: it is measured here, never published.
    """
    if not spec.release_kind:
        raise ValueError(f"{spec.title} makes no release the evaluator reads")
    release, side = spec.write_for_evaluation(run, folder)
    return spec.release_kind, release, side


def evaluation_columns(ev: Any, m: int) -> dict[str, float]:
    """The evaluator's columns of one :class:`~anonstudio.evaluate.Evaluation` at ``m`` (NaN where not measured)."""
    nan = float("nan")
    level = next((lv for lv in ev.levels if lv.m == m), None)
    out = dict.fromkeys(EVAL_MEASURES, nan)
    if level is not None:
        out["prosecutor_risk"] = float(level.prosecutor_risk.value)
        out["prosecutor_risk_high"] = float(level.prosecutor_risk.high)
        out["share_at_risk"] = float(level.share_at_risk.value)
        out["share_at_risk_high"] = float(level.share_at_risk.high)
        out["risk_counted"] = 1.0 if level.method == "exact" else 0.0
        if level.attribute_disclosure is not None:
            out["attribute_disclosure"] = float(level.attribute_disclosure.value)
    for key in UTILITY_MEASURES:
        value = (getattr(ev, key) or {}).get("value")
        if value is not None:
            out[key] = float(value)
    return out


@dataclass(frozen=True)
class EvaluateRelease:
    """The ``after`` step of a compared cell: write the release to a temporary folder and evaluate it.

    A picklable instance (it runs where the cell ran, a Dask worker included). The
    evaluation is seeded by ``options.seed`` alone, so a cell's columns are the same
    bytes at any thread count and on any executor.
    """

    options: Any  # anonstudio.evaluate.EvaluateOptions

    def __call__(self, spec: MethodSpec, data: Any, cell: Cell, run: Any, progress: Progress) -> dict:
        from ..evaluate import evaluate

        with tempfile.TemporaryDirectory(prefix="anonstudio-compare-") as tmp:
            kind, release, side = release_files(spec, run, Path(tmp))
            ev = evaluate(data, release, kind=kind, side=side, options=self.options,
                          progress=progress, original_name=getattr(data, "name", None))
        if not ev.complete:
            return {}
        return evaluation_columns(ev, self.options.m)


# ----------------------------------------------------------------------------------------- grids
@dataclass(frozen=True)
class FamilyGrid:
    """One family's part of a comparison: its base params and the axes of its grid."""

    method: str
    base: Any
    axes: tuple[Axis, ...]
    seeds: int = 1

    @property
    def spec(self) -> MethodSpec:
        return get_method(self.method)

    def cells(self, max_cells: int | None = None) -> list[Cell]:
        from ..methods.sweep import MAX_CELLS

        return make_grid(self.base, self.axes, self.seeds, MAX_CELLS if max_cells is None else max_cells)

    def label(self) -> str:
        return f"{self.spec.title}: " + "; ".join(f"{a.name} ∈ {{{', '.join(_text(v) for v in a.values)}}}"
                                                 for a in self.axes)


def _text(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _records(data: Any) -> int:
    for attr in ("n_records", "n_rows"):
        n = getattr(data, attr, None)
        if isinstance(n, int):
            return n
    return len(data) if hasattr(data, "__len__") else 0


def _set_column(table: Table) -> str | None:
    """A column of ``a;b;c`` item sets (RT data: demographics and items), if the table has one."""
    for column in table.frame.columns:
        values = table.frame[column].dropna().astype(str).head(500)
        if len(values) and values.str.contains(";", regex=False).mean() >= 0.05:
            return str(column)
    return None


def proposed_grids(data: Any, m: int = 2) -> list[FamilyGrid]:
    """The families that fit ``data``'s kind, each with a grid proposed from the data.

    Set-valued data: σ-k^m k ∈ {5, 10, 20} × m ∈ {2, 3}, nonreciprocal k ∈ {5, 10, 20},
    ρ-uncertainty ρ ∈ {0.3, 0.5, 0.7} (at the attacker's ``m``). Tables with
    quasi-identifiers: group k-anonymity k ∈ {5, 10, 20}, and ℓ ∈ {2, 3} at the smallest k (distinct
    ℓ-diversity, a second grid) where a sensitive column exists. RT data: (k, k^m) with
    k ∈ {5, 10, 20} × m ∈ {2, 3}. Values above the number of records are left out.
    """
    from ..params import spec_of

    n = max(_records(data), 1)
    ks = tuple(k for k in (5, 10, 20) if k <= n) or (min(2, n),)
    out: list[FamilyGrid] = []

    def grid(method: str, base_changes: dict, **axes: Sequence) -> None:
        spec = get_method(method)
        if not isinstance(data, spec.data_kinds):
            return
        base = dataclasses.replace(spec.params(), **base_changes)
        made = []
        for name, values in axes.items():
            spec_of(spec.params, name)  # a misspelt axis fails here, not later
            made.append(Axis(name, tuple(values)))
        out.append(FamilyGrid(method, base, tuple(made)))

    if isinstance(data, TransactionData):
        grid("kmanon", {"sigma": 1.0, "trials": 1}, k=ks, m=(2, 3))
        grid("nonreciprocal", {}, k=ks)
        # ρ draws round(fraction × items) sensitive items and refuses a setting that draws none (it would promise
        # nothing): on a small vocabulary the default fraction is raised to draw at least one.
        held = max(int((data.item_frequencies > 0).sum()), 1)
        fraction = max(get_method("rho").params().sensitive_fraction, 1.0 / held)
        grid("rho", {"m": m, "sensitive_fraction": fraction}, rho=("0.3", "0.5", "0.7"))
    elif isinstance(data, RTData):
        grid("rt", {"qi": tuple(data.table.quasi_identifiers)}, k=ks, m=(2, 3))
    elif isinstance(data, Table):
        items = _set_column(data)
        qi = tuple(c for c in data.quasi_identifiers if c != items)
        sensitive = [c for c in data.sensitive if c != items]
        if items and qi:
            grid("rt", {"qi": qi, "items_column": items}, k=ks, m=(2, 3))
        elif qi:
            base = {"qi": qi, "sensitive": sensitive[0] if sensitive else ""}
            grid("group-anonymize", base, k=ks)
            if sensitive:
                grid("group-anonymize", {**base, "k": ks[0]}, l=(2, 3))
    return out


# ----------------------------------------------------------------------------------------- results
@dataclass
class Comparison:
    """What a comparison gave: one :class:`~anonstudio.methods.sweep.SweepResult` per family grid."""

    grids: tuple[FamilyGrid, ...]
    results: list[SweepResult] = field(default_factory=list)
    m: int = 2
    complete: bool = False
    seconds: float = 0.0

    @property
    def cells_total(self) -> int:
        return sum(len(r.cells) for r in self.results) if self.results else 0

    @property
    def done(self) -> int:
        return sum(r.done for r in self.results)

    def points(self) -> list[tuple[int, CellResult]]:
        """``(grid index, cell result)`` of every finished cell, grid by grid in grid order."""
        return [(g, r) for g, result in enumerate(self.results) for r in result.ordered()]

    def family_measures(self) -> list[str]:
        """The families' own summary measures (a measure named as an axis gets ``_measure`` appended)."""
        axes = set(self.axis_names())
        seen: dict[str, None] = {}
        for result in self.results:
            for key in result.measures():
                if key not in EVAL_MEASURES:
                    seen.setdefault(f"{key}_measure" if key in axes else key, None)
        return list(seen)

    def axis_names(self) -> list[str]:
        seen: dict[str, None] = {}
        for grid in self.grids:
            for axis in grid.axes:
                seen.setdefault(axis.name, None)
        if any("seed" in c.values for r in self.results for c in r.cells):
            seen.setdefault("seed", None)
        return list(seen)

    def columns(self) -> list[str]:
        return (["method", "settings"] + self.axis_names() + ["status", "check"] + list(EVAL_MEASURES)
                + self.family_measures() + [REASON])

    def rows(self, all_cells: bool = False) -> list[dict[str, Any]]:
        """One dict per cell: method, its settings in words, the axis values, status, the evaluator's columns,
        the family's own measures and the reason a cell failed (cells not run: status ``not run``)."""
        axes = set(self.axis_names())
        out = []
        for g, result in enumerate(self.results):
            method = self.grids[g].method
            for cell in result.cells:
                r = result.results.get(cell.index)
                if r is None and not all_cells:
                    continue
                row: dict[str, Any] = {"method": method, "settings": cell.label(), **cell.values}
                if r is None:
                    row.update({"status": NOT_RUN, REASON: ""})
                else:
                    row.update({"status": r.status, "check": r.check, REASON: r.error})
                    # A family's measure named as some family's axis (nonreciprocal's m) keeps its own column.
                    row.update({f"{k}_measure" if k in axes else k: v for k, v in r.summary.items()})
                out.append(row)
        return out

    def to_csv_text(self, all_cells: bool = True) -> str:
        import csv
        import io

        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=self.columns(), lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        for row in self.rows(all_cells):
            writer.writerow({k: ("" if v is None or (isinstance(v, float) and math.isnan(v)) else
                                 (repr(v) if isinstance(v, float) else v)) for k, v in row.items()})
        return out.getvalue()

    def to_json(self) -> dict:
        from ..data.io.jsonfile import strict_json

        sweeps = []
        for grid, result in zip(self.grids, self.results):
            doc = result.to_json()
            doc["base_params"] = to_dict(grid.base)
            doc["seeds"] = grid.seeds
            sweeps.append(doc)
        return strict_json({"complete": self.complete, "cells_done": self.done, "cells_total": self.cells_total,
                            "m": self.m, "seconds": round(self.seconds, 4), "sweeps": sweeps})

    def pareto(self, risk: str = "prosecutor_risk", error: str = "count_query_error") -> list[tuple[int, int]]:
        """``(grid index, cell index)`` of the finished cells no other cell beats on both ``risk`` and ``error``."""
        keys, points = [], []
        for g, r in self.points():
            if r.status in ("done", "not-met", "unverified"):
                keys.append((g, r.cell.index))
                points.append((r.summary.get(risk, math.nan), r.summary.get(error, math.nan)))
        return [keys[i] for i in pareto_2d(points)]


def pareto_2d(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indices of the points no other point dominates, lower being better on both coordinates.

    A point is dominated when another is at most as large on both and smaller on one;
    equal points do not dominate each other (both stay). Points with a coordinate that
    is not a finite number take no part. Sorted by x then y, one pass: O(n log n).
    Returned in increasing x (the front drawn left to right).
    """
    finite = [(float(x), float(y), i) for i, (x, y) in enumerate(points)
              if x is not None and y is not None and math.isfinite(float(x)) and math.isfinite(float(y))]
    finite.sort()
    front: list[int] = []
    best_y = math.inf  # the smallest y among points of strictly smaller x
    i = 0
    while i < len(finite):
        # Points of one x: only those with that x's smallest y can be undominated, and only if below best_y
        # (a point of equal x and larger y is dominated by the smaller y).
        j = i
        while j < len(finite) and finite[j][0] == finite[i][0]:
            j += 1
        y_min = finite[i][1]
        if y_min < best_y:
            front.extend(idx for x, y, idx in finite[i:j] if y == y_min)
            best_y = y_min
        i = j
    return front


# ----------------------------------------------------------------------------------------- running
def run_comparison(data: Any, grids: Sequence[FamilyGrid], options: Any, progress: Progress | None = None, *,
                   executor: Any = None, keep_runs: bool = False, max_cells: int | None = None,
                   evaluate: bool = True,
                   on_cell: Callable[[int, CellResult], None] | None = None) -> Comparison:
    """Run every family's grid on ``data`` and evaluate every release (``options``: EvaluateOptions).

    Progress is shared by the grids in proportion to their cells; after each cell a
    partial :class:`Comparison` is published (``progress.partial``). On cancel the
    finished cells are kept and ``complete`` is False. ``evaluate=False`` leaves out the
    evaluator's columns (the runs' own measures only).
    """
    from ..methods.sweep import MAX_CELLS, check_grid_size

    progress = progress or NullProgress()
    limit = MAX_CELLS if max_cells is None else max_cells
    cells = [g.cells(limit) for g in grids]
    total = sum(len(c) for c in cells)
    if total > limit:
        check_grid_size([Axis("cell", tuple(range(total)))], 1, limit)
    comparison = Comparison(tuple(grids), [SweepResult(g.method, g.axes, tuple(c)) for g, c in zip(grids, cells)],
                            m=getattr(options, "m", 2))
    after = EvaluateRelease(options) if evaluate else None
    t0 = time.perf_counter()
    start = 0

    class _Relay(SubProgress):
        """Publishes the whole comparison (not the one sweep) as the partial result."""

        def __init__(self, index: int, lo: float, hi: float):
            super().__init__(progress, lo, hi, f"{grids[index].spec.title}: ")
            self.index = index

        def partial(self, result: Any) -> None:
            if isinstance(result, SweepResult):
                comparison.results[self.index] = result
                comparison.seconds = time.perf_counter() - t0
                progress.partial(dataclasses.replace(comparison, results=list(comparison.results)))

    for g, (grid, grid_cells) in enumerate(zip(grids, cells)):
        if progress.cancelled():
            break
        lo, hi = start / max(total, 1), (start + len(grid_cells)) / max(total, 1)
        hook = (lambda r, g=g: on_cell(g, r)) if on_cell is not None else None
        comparison.results[g] = run_sweep(grid.spec, data, grid_cells, _Relay(g, lo, hi), axes=grid.axes,
                                          executor=executor, keep_runs=keep_runs, on_cell=hook, after=after)
        start += len(grid_cells)
    comparison.complete = all(r.complete for r in comparison.results) and not progress.cancelled()
    comparison.seconds = time.perf_counter() - t0
    progress.set(1.0, "comparison done" if comparison.complete else "comparison stopped")
    return comparison
