"""The paper's trade-off figures as small sweeps (Qt-free): which cells to run and how to read them back.

Nakagawa et al. (2018) compare fixed with personalized sensitive items
(Figs. 1-2) and fixed+ with personalized+ (Figs. 3-4), and plot util_info,
util_dist, util_mining and runtime against ρ (Figs. 3, 5), the share of
sensitive items (Figs. 4, 6), m (Fig. 7) and ε = δ (Fig. 8), Algorithm 1 on
random 10 % samples of the records with at most 5 items. The workbench reruns
such a figure on a sample of the loaded data (:func:`sweep_sample`), with the
parameters of the shown run as the base (:func:`figure_cells`), through
:func:`anonstudio.methods.sweep.run_sweep`.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ....data.transactions import TransactionData
from ....jobs import derive_seed
from ....methods.rho.params import RhoParams
from ....methods.sweep import Cell, SweepResult

__all__ = ["Figure", "FIGURES", "PAIRS", "MEASURES", "SweepSample", "sweep_sample", "figure_cells", "curves",
           "run_point", "SAMPLE_RECORDS", "SHORT_RECORD", "SEEDS"]

#: Records a figure's sweep runs on (a random sample of the loaded data).
SAMPLE_RECORDS = 2000
#: The paper's primed datasets keep records of at most this many items.
SHORT_RECORD = 5
#: Repetitions of every cell (seeds base, base + 1, ...): the curves show the mean, the bars the range.
SEEDS = 2
#: m used for the sampled algorithm (vs ε = δ) when the shown run sets none.
DEFAULT_M = 3


@dataclass(frozen=True)
class Figure:
    """One x axis of the paper's figures."""

    key: str
    label: str
    x_label: str
    paper: str
    values: tuple


FIGURES = {
    "rho": Figure("rho", "ρ", "ρ (most confidence allowed)", "Figs. 3, 5",
                  (Fraction(3, 10), Fraction(2, 5), Fraction(1, 2), Fraction(3, 5), Fraction(7, 10))),
    "fraction": Figure("fraction", "sensitive share", "sensitive share of items", "Figs. 4, 6",
                       (0.05, 0.1, 0.2, 0.3, 0.4)),
    "m": Figure("m", "m", "m (items an attacker knows)", "Fig. 7", (1, 2, 3, 4, 5)),
    "epsilon": Figure("epsilon", "ε = δ", "ε = δ (sampled algorithm)", "Fig. 8", (0.01, 0.02, 0.05, 0.1)),
}

#: The two comparisons of the paper: the plain settings (Figs. 1-2) and the "+" ones (Figs. 3-4).
PAIRS = {"plain": ("fixed", "personalized"), "plus": ("fixed+", "personalized+")}

#: Measures drawn (summary keys, and "runtime": the suppressor's seconds).
MEASURES = ("util_info", "util_dist", "util_mining", "runtime")


@dataclass(frozen=True)
class SweepSample:
    """The records a figure runs on and how to say so."""

    data: TransactionData
    text: str
    whole: bool
    short: str = ""


def sweep_sample(data: TransactionData, seed: int | None, size: int = SAMPLE_RECORDS) -> SweepSample:
    """At most ``size`` random records of at most :data:`SHORT_RECORD` items (like the paper's samples).

    Records of any length are used when fewer than half of the records (or
    200) are short; the whole dataset when it is that small already.
    """
    n = data.n_records
    short = np.flatnonzero(data.lengths <= SHORT_RECORD)
    use_short = len(short) >= min(200, max(n // 2, 1)) and len(short) < n
    pool = short if use_short else np.arange(n)
    if len(pool) == n and n <= size:
        return SweepSample(data, f"the whole dataset ({n:,} records)", True, f"all {n:,} records")
    rng = np.random.default_rng(derive_seed(0 if seed is None else seed, "sweep-sample"))
    rows = np.sort(rng.choice(pool, size=min(size, len(pool)), replace=False))
    which = f"of ≤ {SHORT_RECORD} items " if use_short else ""
    return SweepSample(data.subset(rows), f"{len(rows):,} random records {which}of {n:,}", False,
                       f"sample: {len(rows):,} records" + (f" of ≤ {SHORT_RECORD} items" if use_short else ""))


def _x_of(figure: str, params: RhoParams) -> float | None:
    """The run's value on a figure's axis (None: the run has no point there)."""
    if params.sensitive is not None and figure == "fraction":
        return None
    if figure == "rho":
        return float(params.rho_fraction)
    if figure == "fraction":
        return float(params.sensitive_fraction)
    if figure == "m":
        return None if params.m is None else float(params.m)
    if params.sampled and params.epsilon == params.delta:
        return float(params.epsilon)
    return None


def base_params(params: RhoParams, figure: str, sample: TransactionData) -> tuple[RhoParams, list[str]]:
    """The shown run's params made ready for a figure, and notes on what was changed."""
    notes = []
    base = params
    if params.sensitive is not None:
        base = dataclasses.replace(base, sensitive=None)
        notes.append("sensitive items drawn in each setting (the run's file is not used)")
    longest = int(sample.lengths.max()) if sample.n_records else 0
    if figure != "m" and not base.sampled and base.m is None and longest > SHORT_RECORD:
        base = dataclasses.replace(base, m=DEFAULT_M)
        notes.append(f"m = {DEFAULT_M} (records are long)")
    if figure == "epsilon" and base.m is None:
        base = dataclasses.replace(base, m=min(DEFAULT_M, max(longest, 1)))
        notes.append(f"m = {base.m}")
    if figure == "m" and base.sampled:
        notes.append(f"sampled algorithm, ε = {base.epsilon:g}, δ = {base.delta:g}")
    return base, notes


def _rho_text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}" if value.denominator not in (1, 2, 4, 5, 10, 20, 100) \
        else f"{float(value):g}"


def figure_cells(params: RhoParams, figure: str, pair: str, sample: TransactionData,
                 seeds: int = SEEDS) -> tuple[list[Cell], list[str]]:
    """The cells of one figure (every x value × the pair's two settings × seeds) and notes for its caption.

    The shown run's own value is added to the axis, so the run has a point on
    the curve. Seeds come first in the order (all x values of the first seed,
    then the next seed), so the curves span the whole axis early.
    """
    base, notes = base_params(params, figure, sample)
    spec = FIGURES[figure]
    values = list(spec.values)
    mine = _x_of(figure, params)
    if figure == "rho":
        values = sorted(set(values) | {params.rho_fraction})
    elif mine is not None and (figure != "m" or mine <= max(values)):
        values = sorted(set(values) | {int(mine) if figure == "m" else mine})
    if figure == "m":
        longest = int(sample.lengths.max()) if sample.n_records else 1
        values = [v for v in values if v <= max(longest, 1)] or [1]
    cells = []
    first_seed = base.seed if base.seed is not None else 0
    for s in range(max(seeds, 1)):
        for setting in PAIRS[pair]:
            for v in values:
                change: dict = {"setting": setting, "seed": first_seed + s}
                if figure == "rho":
                    change["rho"] = params.rho if v == params.rho_fraction else _rho_text(v)
                    x = float(v)
                elif figure == "fraction":
                    change["sensitive_fraction"] = float(v)
                    x = float(v)
                elif figure == "m":
                    change["m"] = int(v)
                    x = float(v)
                else:
                    change["epsilon"] = change["delta"] = float(v)
                    x = float(v)
                cell_params = dataclasses.replace(base, **change)
                cells.append(Cell(len(cells), {figure: x, "setting": setting, "seed": first_seed + s},
                                  cell_params))
    return cells, notes


def _measure(result, measure: str) -> float | None:
    if measure == "runtime":
        run = result.run
        return None if run is None or run.result is None else float(run.result.suppression.seconds)
    value = result.summary.get(measure)
    return None if value is None else float(value)


def curves(sweep: SweepResult, figure: str, measure: str) -> dict[str, tuple[np.ndarray, ...]]:
    """``{setting: (x, mean, lowest, highest)}`` over the finished cells (seeds pooled per x)."""
    buckets: dict[str, dict[float, list[float]]] = {}
    for r in sweep.ordered():
        if r.status not in ("done", "unverified"):
            continue
        value = _measure(r, measure)
        if value is None or not np.isfinite(value):
            continue
        buckets.setdefault(r.cell.values["setting"], {}).setdefault(r.cell.values[figure], []).append(value)
    out = {}
    for setting, by_x in buckets.items():
        xs = sorted(by_x)
        ys = [by_x[x] for x in xs]
        out[setting] = (np.asarray(xs, dtype=float), np.array([np.mean(v) for v in ys]),
                        np.array([np.min(v) for v in ys]), np.array([np.max(v) for v in ys]))
    return out


def run_point(params: RhoParams, figure: str) -> tuple[str, float] | None:
    """Where the shown run sits on a figure: (its setting, x), or None when it has no point there."""
    x = _x_of(figure, params)
    if x is None or params.sensitive is not None:
        return None
    return params.setting, x
