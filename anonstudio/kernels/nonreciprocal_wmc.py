"""Backtracking cycle extraction, the WMC baseline of Fig. 7 (``methods/nonreciprocal/wmc.py``).

Like the closed walk, a round starts from the identity and repeatedly closes
a cycle of slots through ``target`` (the slot a random ``u0`` in ``L``
holds), then moves the owners along it. Unlike it, the search never enters a
slot twice: it is a depth-first search for a *simple* cycle that backtracks
at dead ends. Two variants (implementation note, T14):

* ``KEEP_MARKS``: a slot stays marked after the search retreats from it, so
  the search is a plain DFS (linear in the edges of the round);
* ``UNMARK``: retreating un-marks the slot, so every simple path may be
  tried; exponential in the worst case, hence a step budget.

A step is one edge tried forward or one retreat. Edges are tried in a
random order (seeded).

Slow reference: tests/reference/nonreciprocal_reference.py::is_perfect_matching
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .nonreciprocal_walk import DONE, META_LSIZE, META_STEPS, MORE, RoundState, apply_cycle, begin_walk, leave
from .rng import make_state, randbelow

__all__ = ["KEEP_MARKS", "UNMARK", "OVER_BUDGET", "backtrack_round", "warm_up"]

KEEP_MARKS = 0
UNMARK = 1
#: Status: the step budget of the whole run was exhausted.
OVER_BUDGET = 2


@njit(nogil=True, cache=True, inline="always")
def _shuffled_frame(stack_order, depth, m, state):
    """Frame ``depth`` tries its owner's edges in a random order (Fisher-Yates)."""
    for c in range(m):
        stack_order[depth, c] = c
    for c in range(m - 1, 0, -1):
        j = randbelow(state, c + 1)
        t = stack_order[depth, c]
        stack_order[depth, c] = stack_order[depth, j]
        stack_order[depth, j] = t


@njit(nogil=True, cache=True)
def backtrack_round(nbr, edge_round, post, post_edge, owner, todo, todo_pos, meta, entered, child, child_edge,
                    chain, movers, stack_slot, stack_order, stack_next, state, variant, max_steps, budget):
    """DFS cycle extraction over the regular graph ``nbr`` (same state arrays as ``walk_round``).

    ``stack_*`` hold the DFS frames (depth at most ``n``): the slot, a random
    order of its owner's edges and the next one to try. ``entered`` marks the
    slots on (or, with KEEP_MARKS, once on) the current search. Stops with
    OVER_BUDGET once ``meta[2]`` reaches ``budget``.
    """
    m = nbr.shape[1]
    taken = 0
    while meta[META_LSIZE] > 0:
        if taken >= max_steps:
            return MORE
        wid, u0, target = begin_walk(todo, post, meta, state)
        depth = 0
        stack_slot[0] = target
        _shuffled_frame(stack_order, 0, m, state)
        stack_next[0] = 0
        closed = False
        while depth >= 0:
            if meta[META_STEPS] >= budget:
                return OVER_BUDGET
            s = stack_slot[depth]
            x = u0 if depth == 0 else owner[s]
            advanced = False
            while stack_next[depth] < m:
                c = stack_order[depth, stack_next[depth]]
                stack_next[depth] += 1
                if edge_round[x, c] >= 0:
                    continue
                y = nbr[x, c]
                if y != target and entered[y] == wid:
                    continue
                taken += 1
                leave(child, child_edge, meta, s, y, c)
                if y == target:
                    closed = True
                    break
                entered[y] = wid
                depth += 1
                stack_slot[depth] = y
                _shuffled_frame(stack_order, depth, m, state)
                stack_next[depth] = 0
                advanced = True
                break
            if closed:
                break
            if not advanced:
                # dead end: retreat
                if variant == UNMARK and depth > 0:
                    entered[s] = 0
                depth -= 1
                taken += 1
                meta[META_STEPS] += 1
        if not closed:
            return -1  # no cycle through target: not a regular residual graph
        apply_cycle(target, post, post_edge, owner, todo, todo_pos, meta, child, child_edge, chain, movers)
    return DONE


def warm_up() -> None:
    """Compile the kernel on a tiny ring."""
    n, m = 6, 2
    nbr = np.array([[x, (x + 1) % n] for x in range(n)], dtype=np.int64)
    edge_round = np.full((n, m), -1, dtype=np.int32)
    st = RoundState(n)
    stack_slot = np.zeros(n + 1, dtype=np.int64)
    stack_order = np.zeros((n + 1, m), dtype=np.int64)
    stack_next = np.zeros(n + 1, dtype=np.int64)
    backtrack_round(nbr, edge_round, st.post, st.post_edge, st.owner, st.todo, st.todo_pos, st.meta, st.entered,
                    st.child, st.child_edge, st.chain, st.movers, stack_slot, stack_order, stack_next,
                    make_state(1), KEEP_MARKS, 1 << 30, 1 << 40)
