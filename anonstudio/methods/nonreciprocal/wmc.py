"""The WMC backtracking baseline of Fig. 7 (Wong, Mamoulis, Cheung, SIGMOD 2010), for runtime comparison.

Extracts ``m`` disjoint assignments from a regular graph like the closed walk
(:func:`.walk.extract_assignments`), but closes each cycle by a depth-first
search for a *simple* cycle that backtracks at dead ends. The ratio to the
closed walk depends on how backtracking is defined (implementation note,
T14), so both variants are offered: ``"keep-marks"`` (a slot once left stays
marked: a linear DFS) and ``"unmark"`` (retreating frees the slot: all simple
paths may be tried, exponential in the worst case; bounded by ``budget``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...jobs import derive_seed
from ...kernels.nonreciprocal_walk import DONE, RoundState, edge_rounds_from
from ...kernels.nonreciprocal_wmc import KEEP_MARKS, OVER_BUDGET, UNMARK, backtrack_round
from ...kernels.rng import make_state

__all__ = ["Backtracking", "backtrack_assignments", "VARIANTS"]

VARIANTS = {"keep-marks": KEEP_MARKS, "unmark": UNMARK}


@dataclass(frozen=True)
class Backtracking:
    """Outcome of a backtracking extraction: the rounds finished, the steps taken, whether the budget ran out."""

    variant: str
    assignments: np.ndarray
    steps: int
    over_budget: bool
    seconds: float


def backtrack_assignments(nbr: np.ndarray, seed: int, variant: str = "keep-marks",
                          budget: int = 10**9) -> Backtracking:
    """``m`` disjoint perfect matchings of the regular graph ``nbr`` by backtracking DFS (at most ``budget`` steps)."""
    t0 = time.perf_counter()
    code = VARIANTS[variant]
    nbr = np.ascontiguousarray(nbr, dtype=np.int64)
    n, m = nbr.shape
    edge_round = np.full((n, m), -1, dtype=np.int32)
    stack_slot = np.zeros(n + 1, dtype=np.int64)
    stack_order = np.zeros((n + 1, m), dtype=np.int64)
    stack_next = np.zeros(n + 1, dtype=np.int64)
    rounds = []
    steps = 0
    over = False
    for r in range(m):
        st = RoundState(n)
        st.meta[2] = steps  # the budget counts the whole run
        status = backtrack_round(nbr, edge_round, st.post, st.post_edge, st.owner, st.todo, st.todo_pos, st.meta,
                                 st.entered, st.child, st.child_edge, st.chain, st.movers, stack_slot, stack_order,
                                 stack_next, make_state(derive_seed(seed, "wmc", r)), code, 1 << 62, budget)
        steps = st.steps
        if status == OVER_BUDGET:
            over = True
            break
        if status != DONE:
            raise RuntimeError("backtracking found no cycle: the graph is not regular")
        edge_rounds_from(nbr, st.post_edge, edge_round, r)
        rounds.append(st.post.copy())
    return Backtracking(variant, np.array(rounds, dtype=np.int64).reshape(len(rounds), n), steps, over,
                        time.perf_counter() - t0)
