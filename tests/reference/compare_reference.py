"""Slow, obvious reference for the comparison's Pareto front (``anonstudio.studio.compare.pareto_2d``)."""
from __future__ import annotations

import math


def pareto_front_brute(points: list[tuple[float, float]]) -> set[int]:
    """Every point no other point dominates (lower is better on both coordinates), by comparing all pairs.

    ``b`` dominates ``a`` when b is at most a on both coordinates and smaller on one. Points with a
    coordinate that is not a finite number are left out (and dominate nothing).
    """
    ok = [i for i, (x, y) in enumerate(points) if x is not None and y is not None and math.isfinite(x)
          and math.isfinite(y)]
    front = set()
    for i in ok:
        ax, ay = points[i]
        beaten = False
        for j in ok:
            bx, by = points[j]
            if j != i and bx <= ax and by <= ay and (bx < ax or by < ay):
                beaten = True
                break
        if not beaten:
            front.add(i)
    return front
