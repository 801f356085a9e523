"""The RT family's comparison sweep: the three merge heuristics over the loss bound δ (Figs. 4 and 6).

SECRETA's comparison mode, which the paper's experiments follow: one run per
δ and merge heuristic (R, T, RT), the query errors (ARE of relational, item
and mixed workloads), the two losses (Rum = NCP, Tum = UL) and the largest
cluster drawn against δ, one curve per heuristic.

The useful δ range depends on the data (note 003, §5): a Rum-bound run is
infeasible below Cluster's Rum, so the grid starts just above it and ends at
0.95; a Tum-bound run cannot go below the UL of one cluster of everybody nor
gains anything above the UL right after Cluster, so the grid spans
:data:`TUM_FLOOR` up to that UL.
"""
from __future__ import annotations

import math

from ..sweep import Axis, SweepPreset

__all__ = ["HEURISTICS", "MEASURES", "delta_grid", "coarse_to_fine", "TUM_FLOOR"]

#: What the comparison draws, in the order a comparison table lists it.
MEASURES = ("are_R2", "are_T2", "are_R1T2", "rum", "tum", "max_cluster_size")

#: The preset of the Compare tab (and of any front end that lists a family's sweeps). Its δ values suit
#: data whose Cluster already costs less than 0.5 of the demographics; the RT tab replaces them with
#: :func:`delta_grid` of the data at hand.
HEURISTICS = SweepPreset("Merge heuristics R, T and RT vs δ (Figs. 4 and 6)",
                         (Axis("delta", (0.5, 0.6, 0.65, 0.7, 0.8, 0.9, 0.95)), Axis("merge", ("r", "t", "rt"))),
                         ("are_T2", "are_R2", "rum", "tum", "max_cluster_size"), group="merge")

#: Lowest δ of a Tum-bound grid (below it nearly every cluster would have to merge into one).
TUM_FLOOR = 0.1
#: Highest δ of a Rum-bound grid: at 1 every merge is allowed, which says nothing about the heuristics.
RUM_CEILING = 0.95
#: Grid steps are whole multiples of this.
STEP = 0.05


def _ceil_to(x: float, step: float) -> float:
    return math.ceil(round(x / step, 9)) * step


def delta_grid(bound: str, initial_rum: float | None, initial_tum: float | None, *, points: int = 6,
               include: float | None = None) -> tuple[float, ...]:
    """δ values worth comparing on this data, in increasing order.

    Parameters
    ----------
    bound
        ``"rum"`` or ``"tum"``.
    initial_rum, initial_tum
        Rum and Tum right after Cluster (a run's ``initial_rum`` /
        ``initial_tum``); None when unknown (the preset's values are used).
    points
        About how many values (steps are multiples of 0.05).
    include
        A δ to add (the one of the run shown); grid values within 0.01 of it are dropped.
    """
    if bound == "rum":
        lo = None if initial_rum is None else _ceil_to(initial_rum + 0.01, STEP)
        hi = RUM_CEILING
    else:
        lo = TUM_FLOOR
        hi = None if initial_tum is None else min(math.floor(round(initial_tum / STEP, 9)) * STEP, RUM_CEILING)
    if lo is None or hi is None:
        values = list(HEURISTICS.axes[0].values)
    elif lo > hi:
        # Rum-bound: Cluster alone costs more than 0.95, only δ near 1 is feasible; Tum-bound: Cluster's
        # UL is already below the floor, every δ above it is met at once.
        values = [min(lo, 1.0), 1.0] if bound == "rum" else [hi]
    else:
        step = max(STEP, _ceil_to((hi - lo) / max(points - 1, 1), STEP))
        values = [lo + i * step for i in range(int(round((hi - lo) / step, 9)) + 1)]
        if values[-1] < hi - 1e-9:
            values.append(hi)
    values = sorted({round(v, 4) for v in values})
    if include is not None and 0.0 <= include <= 1.0:
        # The δ of the run shown replaces grid values within 0.01 of it.
        include = round(include, 4)
        values = sorted([v for v in values if abs(v - include) >= 0.01 - 1e-9] + [include])
    return tuple(values)


def coarse_to_fine(values: tuple[float, ...]) -> tuple[float, ...]:
    """The same values ordered so that the first few already span the range (ends, middle, then the rest).

    A live sweep run in this order draws a rough curve early and refines it.
    """
    n = len(values)
    if n <= 2:
        return tuple(values)
    order = [0, n - 1]
    queue = [(0, n - 1)]
    while queue:
        nxt = []
        for a, b in queue:
            if b - a > 1:
                mid = (a + b) // 2
                order.append(mid)
                nxt.extend([(a, mid), (mid, b)])
        queue = nxt
    seen: dict[int, None] = dict.fromkeys(order)
    return tuple(values[i] for i in seen) + tuple(values[i] for i in range(n) if i not in seen)
