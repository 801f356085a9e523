"""Generalization graphs and assignment extraction (paper §2.2, §4.2, §4.4).

* :func:`ring_graph`: record ``order[t]`` matches slots ``order[t .. t + m - 1]``
  (cyclically); slot ``j`` is the unified-view slot of record ``j``.
* :func:`extract_assignments`: ``m`` rounds of the random closed walk
  (Alg. 1), each a perfect matching inside the graph, disjoint from the others.
* :func:`greedy_assignments`: Alg. 1 with Alg. 2's greedyPick over the
  complete graph; the union of its ``l`` rounds is the paper's l-regular graph.

Alg. 1 reading (T7): line 8's ``u'_i`` is the slot ``u0`` currently holds;
``visited`` holds (record, slot) pairs taken by the current walk; the cycle
applied is the last-exit chain from that slot (deviant cycles drop out).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ...data.transactions import TransactionData
from ...jobs import ChunkSizer, NullProgress, Progress, derive_seed
from ...kernels import read_only
from ...kernels.nonreciprocal_walk import (
    DONE,
    STUCK,
    RoundState,
    greedy_round,
    retire_edges,
    walk_round,
)
from ...kernels.rng import make_state

__all__ = ["Extraction", "ring_graph", "extract_assignments", "greedy_assignments", "GreedyStuck"]


class GreedyStuck(RuntimeError):
    """The greedy walk found no admissible slot ``restarts`` times in one round."""

    def __init__(self, round_: int, restarts: int):
        super().__init__(f"greedy extraction stuck {restarts} times in round {round_ + 1}")
        self.round = round_
        self.restarts = restarts


@dataclass
class Extraction:
    """Assignments extracted so far.

    Attributes
    ----------
    assignments
        ``(rounds, n)`` int64: ``assignments[r, i]`` is record ``i``'s slot in round ``r``.
    steps
        Walk steps (slots picked) per round.
    walks
        Walks started per round (abandoned greedy walks included).
    complete
        False when cancelled before the last round finished.
    """

    assignments: np.ndarray
    steps: list[int] = field(default_factory=list)
    walks: list[int] = field(default_factory=list)
    abandoned: list[int] = field(default_factory=list)
    complete: bool = True
    seconds: float = 0.0

    @property
    def rounds(self) -> int:
        return int(self.assignments.shape[0])

    @property
    def total_steps(self) -> int:
        return int(sum(self.steps))


def ring_graph(order: np.ndarray, m: int) -> np.ndarray:
    """``nbr[x, d]`` = slot of record ``x``'s ``d``-th edge: ``order[pos(x) + d]`` (mod n); needs ``m <= n``."""
    order = np.asarray(order, dtype=np.int64)
    n = len(order)
    if not 1 <= m <= n:
        raise ValueError(f"a ring of degree {m} needs at least {m} records (got {n})")
    shifts = (np.arange(n)[:, None] + np.arange(m)[None, :]) % n
    nbr = np.empty((n, m), dtype=np.int64)
    nbr[order] = order[shifts]
    return nbr


def extract_assignments(nbr: np.ndarray, seed: int, progress: Progress | None = None, *,
                        stream: str = "walk", order: np.ndarray | None = None) -> Extraction:
    """``m`` disjoint perfect matchings inside the regular graph ``nbr`` by random closed walks.

    With ``order`` (record ids by rank), the walk runs on ranks instead of
    record ids: a ring's edges then join nearby ranks, so the walk's memory
    accesses stay local (several times faster on large data); the matchings
    are mapped back to record ids. Cancel is checked between chunks of walks
    (about 0.1 s each); a cancelled extraction keeps its finished rounds.
    """
    if order is not None:
        order = np.asarray(order, dtype=np.int64)
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        ext = extract_assignments(rank[np.asarray(nbr)[order]], seed, progress, stream=stream)
        ext.assignments = order[ext.assignments[:, rank]] if ext.rounds else ext.assignments
        return ext
    progress = progress or NullProgress()
    t0 = time.perf_counter()
    nbr = np.ascontiguousarray(nbr, dtype=np.int64)
    n, m = nbr.shape
    free = np.tile(np.arange(m, dtype=np.int64), (n, 1))  # edges unused by earlier rounds, first nfree[x]
    nfree = np.full(n, m, dtype=np.int64)
    visit = np.zeros((n, m), dtype=np.int64)
    fresh = np.zeros(m, dtype=np.int64)
    seen = np.zeros(m, dtype=np.int64)
    out = Extraction(np.zeros((0, n), dtype=np.int64))
    rounds = []
    sizer = ChunkSizer(initial=4 * n + 16)
    for r in range(m):
        st = RoundState(n)
        state = make_state(derive_seed(seed, stream, r))
        status = None
        while status != DONE:
            if progress.cancelled():
                out.assignments = np.array(rounds, dtype=np.int64).reshape(len(rounds), n)
                out.complete = False
                out.seconds = time.perf_counter() - t0
                return out
            chunk = sizer.next_size()
            before = st.steps
            # the visit stamps are walk ids of this round: clear them per round
            status = walk_round(nbr, free, nfree, st.post, st.post_edge, st.owner, st.todo, st.todo_pos, st.meta,
                                st.entered, st.child, st.child_edge, st.chain, st.movers, visit, fresh, seen, state,
                                chunk)
            sizer.done(max(st.steps - before, 1))
            if status == STUCK:
                raise RuntimeError("closed walk stuck: the graph is not regular")
            progress.set((r + 1 - st.remaining / max(n, 1)) / m, f"round {r + 1} of {m}")
        retire_edges(free, nfree, st.post_edge)
        visit[:] = 0
        rounds.append(st.post.copy())
        out.steps.append(st.steps)
        out.walks.append(int(st.meta[1]))
        out.abandoned.append(0)
    out.assignments = np.array(rounds, dtype=np.int64).reshape(len(rounds), n)
    out.seconds = time.perf_counter() - t0
    return out


def greedy_assignments(data: TransactionData, order: np.ndarray, labels: np.ndarray | None, l: int, seed: int,
                       restarts: int, progress: Progress | None = None) -> Extraction:
    """Alg. 2's greedy extraction of ``l`` assignments from the complete graph.

    Round 1 is the identity. A walk that finds no admissible slot is
    abandoned and restarted from another random record; after ``restarts``
    abandoned walks in one round, :class:`GreedyStuck` is raised (never an
    endless loop). A walk longer than ``8 n + 64`` steps counts as stuck.
    """
    progress = progress or NullProgress()
    t0 = time.perf_counter()
    order = np.ascontiguousarray(order, dtype=np.int64)
    n = len(order)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    # Read-only either way (label codes are): one compiled variant of greedy_round, the one warm_up loads.
    codes = read_only(np.ascontiguousarray(labels, dtype=np.int64) if labels is not None
                      else np.zeros(0, dtype=np.int64))
    prev = np.zeros((n, l), dtype=np.int64)
    cap = 8 * n + 64
    vhead = np.full(n, -1, dtype=np.int64)
    vstamp = np.zeros(n, dtype=np.int64)
    vnext = np.zeros(cap, dtype=np.int64)
    vslot = np.zeros(cap, dtype=np.int64)
    out = Extraction(np.zeros((0, n), dtype=np.int64))
    sizer = ChunkSizer(initial=4 * n + 16)
    for r in range(l):
        st = RoundState(n)
        state = make_state(derive_seed(seed, "greedy", r))
        vstamp[:] = 0
        status = None
        while status != DONE:
            if progress.cancelled():
                out.assignments = prev[:, :r].T.copy()
                out.complete = False
                out.seconds = time.perf_counter() - t0
                return out
            chunk = sizer.next_size()
            before = st.steps
            status = greedy_round(r, order, rank, data.indptr, data.indices, prev, codes, st.post, st.post_edge,
                                  st.owner, st.todo, st.todo_pos, st.meta, st.entered, st.child, st.child_edge,
                                  st.chain, st.movers, vhead, vstamp, vnext, vslot, state, chunk, cap)
            sizer.done(max(st.steps - before, 1))
            if status == STUCK and st.abandoned >= restarts:
                raise GreedyStuck(r, st.abandoned)
            progress.set((r + 1 - st.remaining / max(n, 1)) / l, f"greedy round {r + 1} of {l}")
        prev[:, r] = st.post
        out.steps.append(st.steps)
        out.walks.append(int(st.meta[1]))
        out.abandoned.append(st.abandoned)
    out.assignments = prev.T.copy()
    out.seconds = time.perf_counter() - t0
    return out
