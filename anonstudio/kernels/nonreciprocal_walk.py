"""Assignment extraction by closed walk (Alg. 1) and greedy extraction (Alg. 2): ``methods/nonreciprocal/walk.py``.

One *round* extracts one assignment (a perfect matching of originals to
slots) disjoint from the earlier rounds. The round starts from the identity
(record ``x`` holds slot ``x``, an edge that may be invalid) and a list ``L``
of all records. Each walk starts at a random ``u0`` in ``L``; ``target`` is
the slot ``u0`` holds. The current owner of the last slot entered picks the
next slot along an edge not used in earlier rounds and not yet taken in this
walk, preferring slots this walk has not entered; ``child[slot]`` keeps the
*last* exit from every slot. On entering ``target`` the walk stops and the
loop-erased cycle (follow ``child`` from ``target``) is applied: every owner
on it moves to the slot its last exit chose, and leaves ``L``.

In a round the graph minus the earlier rounds' edges has equal in- and
out-degree at every slot (Theorem 4.1), so a walk that never reuses an edge
can only stop at ``target``: the random walk never gets stuck. The greedy
picker of Alg. 2 adds label constraints that break this balance, so a greedy
walk may find no admissible slot; it is then abandoned (the assignment is
untouched) and the driver restarts it from another ``u0``.

State of a round lives in arrays owned by the caller, so a round can be run
in chunks of walks (``max_steps``) with the same random numbers whatever the
chunk size: a chunk always ends between walks.

Slow reference: tests/reference/nonreciprocal_reference.py::closed_walk_reference
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import read_only
from .nonreciprocal_order import hamming
from .rng import make_state, randbelow

__all__ = [
    "RoundState", "walk_round", "greedy_round", "retire_edges", "edge_rounds_from", "warm_up",
    "DONE", "MORE", "STUCK", "META_LSIZE", "META_WALK", "META_STEPS", "META_ABANDONED",
]

#: Status codes of a chunk of walks.
DONE = 0
MORE = 1
STUCK = -1

#: Fields of a round's ``meta`` array (shared with the weighted walks of :mod:`.nonreciprocal_wmc`).
META_LSIZE = 0
META_WALK = 1
META_STEPS = 2
META_ABANDONED = 3


class RoundState:
    """The arrays of one round in progress (owned by the Python driver between chunks)."""

    def __init__(self, n: int):
        self.post = np.arange(n, dtype=np.int64)  # slot held by each record
        self.post_edge = np.full(n, -1, dtype=np.int64)  # its edge index (-1: identity, not yet valid)
        self.owner = np.arange(n, dtype=np.int64)  # record holding each slot
        self.todo = np.arange(n, dtype=np.int64)  # L, unordered
        self.todo_pos = np.arange(n, dtype=np.int64)  # position in todo, -1 once removed
        self.meta = np.zeros(4, dtype=np.int64)
        self.meta[META_LSIZE] = n
        self.entered = np.zeros(n, dtype=np.int64)  # walk id that last entered each slot
        self.child = np.zeros(n, dtype=np.int64)
        self.child_edge = np.zeros(n, dtype=np.int64)
        self.chain = np.zeros(n, dtype=np.int64)
        self.movers = np.zeros(n, dtype=np.int64)

    @property
    def remaining(self) -> int:
        return int(self.meta[META_LSIZE])

    @property
    def steps(self) -> int:
        return int(self.meta[META_STEPS])

    @property
    def abandoned(self) -> int:
        return int(self.meta[META_ABANDONED])


@njit(nogil=True, cache=True, inline="always")
def _remove(todo, todo_pos, meta, x):
    p = todo_pos[x]
    if p < 0:
        return
    last = todo[meta[META_LSIZE] - 1]
    todo[p] = last
    todo_pos[last] = p
    todo_pos[x] = -1
    meta[META_LSIZE] -= 1


@njit(nogil=True, cache=True)
def apply_cycle(target, post, post_edge, owner, todo, todo_pos, meta, child, child_edge, chain, movers):
    """Move every owner on the loop-erased cycle through ``target`` to the slot its last exit chose.

    Returns the cycle's length. Shared by the closed walk, the greedy walk and
    the backtracking baselines: all of them close a cycle of slots the same way.
    """
    k = 0
    s = target
    while True:
        chain[k] = s
        movers[k] = owner[s]
        k += 1
        s = child[s]
        if s == target:
            break
    for i in range(k):
        x = movers[i]
        y = child[chain[i]]
        post[x] = y
        post_edge[x] = child_edge[chain[i]]
        owner[y] = x
        _remove(todo, todo_pos, meta, x)
    return k


@njit(nogil=True, cache=True, inline="always")
def begin_walk(todo, post, meta, state):
    """Start a walk: a new walk id, a random ``u0`` in ``L`` and the slot it holds (the walk's target)."""
    meta[META_WALK] += 1
    u0 = todo[randbelow(state, meta[META_LSIZE])]
    return meta[META_WALK], u0, post[u0]


@njit(nogil=True, cache=True, inline="always")
def leave(child, child_edge, meta, cur, y, edge):
    """Record the exit from slot ``cur`` to ``y`` (the last exit wins) and count the step."""
    child[cur] = y
    child_edge[cur] = edge
    meta[META_STEPS] += 1


@njit(nogil=True, cache=True)
def walk_round(nbr, free, nfree, post, post_edge, owner, todo, todo_pos, meta, entered, child, child_edge,
               chain, movers, visit, fresh, seen, state, max_steps):
    """Random closed walks over the regular graph ``nbr`` until ``L`` is empty or ``max_steps`` were taken.

    ``nbr[x, c]`` is the slot of record ``x``'s edge ``c``; ``free[x, :nfree[x]]``
    the edges of ``x`` no earlier round used (see :func:`retire_edges`).
    ``visit`` (same shape as ``nbr``) stamps the edges taken by the current
    walk. Candidates are listed in the order of ``free[x]``. Returns DONE,
    MORE or STUCK (STUCK would mean the residual graph is not balanced: not a
    regular graph).
    """
    taken = 0
    while meta[META_LSIZE] > 0:
        if taken >= max_steps:
            return MORE
        wid, u0, target = begin_walk(todo, post, meta, state)
        cur = target
        x = u0
        while True:
            nf = 0
            ns = 0
            for q in range(nfree[x]):
                c = free[x, q]
                if visit[x, c] == wid:
                    continue
                if entered[nbr[x, c]] == wid:
                    seen[ns] = c
                    ns += 1
                else:
                    fresh[nf] = c
                    nf += 1
            if nf > 0:
                c = fresh[randbelow(state, nf)]
            elif ns > 0:
                c = seen[randbelow(state, ns)]
            else:
                return STUCK
            visit[x, c] = wid
            y = nbr[x, c]
            leave(child, child_edge, meta, cur, y, c)
            taken += 1
            if y == target:
                break
            entered[y] = wid
            cur = y
            x = owner[y]
        apply_cycle(target, post, post_edge, owner, todo, todo_pos, meta, child, child_edge, chain, movers)
    return DONE


@njit(nogil=True, cache=True)
def _visited(vhead, vstamp, vnext, vslot, wid, x, y):
    if vstamp[x] != wid:
        return False
    e = vhead[x]
    while e >= 0:
        if vslot[e] == y:
            return True
        e = vnext[e]
    return False


@njit(nogil=True, cache=True)
def _admissible(x, y, r, prev, labels, vhead, vstamp, vnext, vslot, wid):
    """Alg. 2's filters: edge unused in earlier rounds, not taken in this walk, index label new to ``x``."""
    for q in range(r):
        if prev[x, q] == y:
            return False
    if _visited(vhead, vstamp, vnext, vslot, wid, x, y):
        return False
    if labels.shape[0] > 0:
        ly = labels[y]
        for q in range(r):
            if labels[prev[x, q]] == ly:
                return False
    return True


@njit(nogil=True, cache=True)
def greedy_pick(x, r, order, rank, indptr, indices, prev, labels, entered, wid, vhead, vstamp, vnext, vslot):
    """Alg. 2 (greedyPick) with the fixes of the implementation note (T8).

    Candidates are the slots at Gray-TSP ranks ``i + j`` and ``i - j`` for
    ``j = 0, 1, ...``; a slot not yet entered by this walk wins at the first
    ``j`` where one is admissible (the nearer by ``H(r_slot, r_x)``, ``i + j``
    on ties). Entered slots are only a last resort: the first ``j`` with an
    admissible one keeps its nearer. ``H`` compares the records whose slots
    these are (the paper's ``H(u'_p, u)`` compares a slot without a bitmap).
    Returns -1 when no slot is admissible.
    """
    n = order.shape[0]
    i = rank[x]
    last = -1
    for j in range(n // 2 + 1):
        a = order[(i + j) % n]
        b = order[(i - j) % n]
        best_fresh = -1
        best_fresh_h = 0
        best_seen = -1
        best_seen_h = 0
        for side in range(2):
            y = a if side == 0 else b
            if side == 1 and b == a:
                break
            if not _admissible(x, y, r, prev, labels, vhead, vstamp, vnext, vslot, wid):
                continue
            h = hamming(indptr, indices, y, x)
            if entered[y] != wid:
                if best_fresh < 0 or h < best_fresh_h:
                    best_fresh = y
                    best_fresh_h = h
            elif best_seen < 0 or h < best_seen_h:
                best_seen = y
                best_seen_h = h
        if best_fresh >= 0:
            return best_fresh
        if last < 0 and best_seen >= 0:
            last = best_seen
    return last


@njit(nogil=True, cache=True)
def greedy_round(r, order, rank, indptr, indices, prev, labels, post, post_edge, owner, todo, todo_pos, meta,
                 entered, child, child_edge, chain, movers, vhead, vstamp, vnext, vslot, state, max_steps,
                 walk_cap):
    """Greedy closed walks over the complete graph (Alg. 1 with Alg. 2's picker) for round ``r``.

    ``prev[x, q]`` is the slot of ``x`` in round ``q < r``; ``labels`` the
    label code of each record (empty: no labels). A walk that finds no
    admissible slot, or runs longer than ``walk_cap`` steps, is abandoned
    (``meta[3]`` counts them) and STUCK is returned so the driver can decide
    whether to restart. ``vhead``/``vstamp``/``vnext``/``vslot`` hold the
    (record, slot) pairs taken by the current walk (``walk_cap`` entries).
    """
    taken = 0
    while meta[META_LSIZE] > 0:
        if taken >= max_steps:
            return MORE
        wid, u0, target = begin_walk(todo, post, meta, state)
        cur = target
        x = u0
        used = 0
        while True:
            y = -1
            if used < walk_cap:
                y = greedy_pick(x, r, order, rank, indptr, indices, prev, labels, entered, wid,
                                vhead, vstamp, vnext, vslot)
            if y < 0:
                meta[META_ABANDONED] += 1
                return STUCK
            if vstamp[x] != wid:
                vstamp[x] = wid
                vhead[x] = -1
            vslot[used] = y
            vnext[used] = vhead[x]
            vhead[x] = used
            used += 1
            leave(child, child_edge, meta, cur, y, y)
            taken += 1
            if y == target:
                break
            entered[y] = wid
            cur = y
            x = owner[y]
        apply_cycle(target, post, post_edge, owner, todo, todo_pos, meta, child, child_edge, chain, movers)
    return DONE


@njit(nogil=True, cache=True)
def retire_edges(free, nfree, post_edge):
    """Drop each record's edge of the finished round from its free list (swap with the last free one)."""
    for x in range(free.shape[0]):
        c = post_edge[x]
        k = nfree[x]
        for q in range(k):
            if free[x, q] == c:
                free[x, q] = free[x, k - 1]
                free[x, k - 1] = c
                nfree[x] = k - 1
                break


@njit(nogil=True, cache=True)
def edge_rounds_from(nbr, post_edge, edge_round, r):
    """Mark each record's edge in the finished round ``r``."""
    for x in range(nbr.shape[0]):
        edge_round[x, post_edge[x]] = r


def warm_up() -> None:
    """Compile the kernels above on a tiny ring and a tiny greedy round."""
    n, m = 6, 2
    nbr = np.array([[x, (x + 1) % n] for x in range(n)], dtype=np.int64)
    edge_round = np.full((n, m), -1, dtype=np.int32)
    free = np.tile(np.arange(m, dtype=np.int64), (n, 1))
    nfree = np.full(n, m, dtype=np.int64)
    st = RoundState(n)
    visit = np.zeros((n, m), dtype=np.int64)
    fresh = np.zeros(m, dtype=np.int64)
    seen = np.zeros(m, dtype=np.int64)
    walk_round(nbr, free, nfree, st.post, st.post_edge, st.owner, st.todo, st.todo_pos, st.meta, st.entered,
               st.child, st.child_edge, st.chain, st.movers, visit, fresh, seen, make_state(1), 1 << 30)
    retire_edges(free, nfree, st.post_edge)
    edge_rounds_from(nbr, st.post_edge, edge_round, 0)
    order = np.arange(n, dtype=np.int64)
    # The data's arrays and the label codes are read-only in a real run (methods.nonreciprocal.walk).
    indptr = read_only(np.arange(n + 1, dtype=np.int64))
    indices = read_only(np.arange(n, dtype=np.int32))
    prev = np.zeros((n, 2), dtype=np.int64)
    labels = read_only(np.arange(n, dtype=np.int64) % 3)
    g = RoundState(n)
    cap = 8 * n + 64
    vhead = np.full(n, -1, dtype=np.int64)
    vstamp = np.zeros(n, dtype=np.int64)
    vnext = np.zeros(cap, dtype=np.int64)
    vslot = np.zeros(cap, dtype=np.int64)
    greedy_round(0, order, order.copy(), indptr, indices, prev, labels, g.post, g.post_edge, g.owner, g.todo,
                 g.todo_pos, g.meta, g.entered, g.child, g.child_edge, g.chain, g.movers, vhead, vstamp, vnext,
                 vslot, make_state(2), 1 << 30, cap)
