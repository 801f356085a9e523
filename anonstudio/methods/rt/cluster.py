"""Cluster: k-member clusters of similar demographics (the paper's initial cluster formation).

1. While at least ``k`` records are left, draw a seed record at random and
   group it with the ``k - 1`` records of lowest NCP(G({seed, r})); ties go to
   the lower row.
2. Put each of the fewer than ``k`` records left into the cluster whose tuple
   it widens least (ties: the older cluster).
3. Generalize each cluster's tuple (ranges, common ancestors, value sets).
4. Join clusters whose generalized tuples are identical.

Seeds come from one seeded stream; all seed positions are drawn up front
(the number of records left before the t-th seed is ``n - t k``), so the
chunking of the work never changes which records are drawn.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...jobs import ChunkSizer, NullProgress, Progress, derive_seed
from ...kernels.rt_cluster import build_summaries, merge_into, merged_extents, summary_extents
from ...metrics.ncp import weighted_total
from ...params import ParameterError
from .prepare import RTProblem, Summaries

__all__ = ["Clustering", "cluster", "clusters_from_assignment", "seed_positions"]


@dataclass
class Clustering:
    """Clusters of records and their generalized tuples.

    Attributes
    ----------
    assignment
        int64 cluster id of every record, ids ``0..n_clusters - 1``.
    summaries
        Generalized tuple of each cluster.
    ncp
        NCP of each cluster's tuple.
    complete
        False when Cluster was cancelled: the records not yet clustered then
        form one last cluster (still at least ``k`` records).
    """

    assignment: np.ndarray
    summaries: Summaries
    ncp: np.ndarray
    complete: bool = True

    @property
    def n_clusters(self) -> int:
        return len(self.summaries)

    @property
    def sizes(self) -> np.ndarray:
        return np.bincount(self.assignment, minlength=self.n_clusters)

    def rum(self) -> float:
        """Mean NCP over records."""
        n = len(self.assignment)
        return weighted_total(self.sizes, self.ncp) / n if n else 0.0


def seed_positions(n: int, k: int, seed: int) -> np.ndarray:
    """Position of each seed among the records still alive (``n - t k`` of them before seed ``t``)."""
    n_seeds = n // k
    rng = np.random.default_rng(derive_seed(seed, "rt-cluster"))
    highs = n - np.arange(n_seeds, dtype=np.int64) * k
    return rng.integers(0, highs).astype(np.int64) if n_seeds else np.zeros(0, np.int64)


def clusters_from_assignment(problem: RTProblem, assignment: np.ndarray, *, join: bool = False) -> Clustering:
    """Summaries and NCPs of given clusters (ids ``0..C-1``); ``join`` merges identical tuples (step 4)."""
    assignment = np.asarray(assignment, dtype=np.int64)
    n_clusters = int(assignment.max()) + 1 if len(assignment) else 0
    order = np.argsort(assignment, kind="stable")
    indptr = np.zeros(n_clusters + 1, dtype=np.int64)
    np.cumsum(np.bincount(assignment, minlength=n_clusters), out=indptr[1:])
    summaries = Summaries.empty(n_clusters, problem.records)
    rel = problem.rel()
    build_summaries(indptr, order, problem.records.arrays(), summaries.arrays(), rel)
    if join:
        assignment, summaries = _join_identical(assignment, summaries)
    return Clustering(assignment, summaries, summary_ncp(problem, summaries))


def _join_identical(assignment: np.ndarray, summaries: Summaries) -> tuple[np.ndarray, Summaries]:
    """Clusters with the same generalized tuple become one (ids in order of first appearance)."""
    keys: dict[bytes, int] = {}
    new_id = np.empty(len(summaries), dtype=np.int64)
    for c in range(len(summaries)):
        key = b"".join(a[c].tobytes() for a in summaries.arrays())
        new_id[c] = keys.setdefault(key, len(keys))
    if len(keys) == len(summaries):
        return assignment, summaries
    first = np.unique(new_id, return_index=True)[1]
    return new_id[assignment], summaries.take(first)


def summary_ncp(problem: RTProblem, summaries: Summaries) -> np.ndarray:
    """NCP of every summary's generalized tuple."""
    return problem.ncp(summary_extents(summaries.arrays(), problem.rel(), np.empty((len(summaries), problem.v))))


def _nearest(problem: RTProblem, sr: tuple, rel: tuple, alive: np.ndarray, pos: int, need: int) -> np.ndarray:
    """Positions in ``alive`` of the ``need`` records of lowest NCP(G({seed, r})); ties: the lower row."""
    ext = merged_extents(sr, int(alive[pos]), sr, alive, rel, np.empty((len(alive), problem.v)))
    dist = problem.ncp(ext)
    dist[pos] = np.inf
    if need <= 0:
        return np.zeros(0, dtype=np.int64)
    threshold = dist[np.argpartition(dist, need - 1)[:need]].max()
    below = np.flatnonzero(dist < threshold)
    equal = np.flatnonzero(dist == threshold)[: need - len(below)]
    return np.concatenate([below, equal])


def cluster(problem: RTProblem, k: int, seed: int, progress: Progress | None = None) -> Clustering:
    """Run Cluster (module docstring). Needs at least ``k`` records."""
    progress = progress or NullProgress()
    n = problem.n
    if n < k:
        raise ParameterError(f"k = {k} is larger than the {n:,} records", name="k")
    positions = seed_positions(n, k, seed)
    alive = np.arange(n, dtype=np.int64)
    assignment = np.full(n, -1, dtype=np.int64)
    sr = problem.records.arrays()
    rel = problem.rel()
    sizer = ChunkSizer(initial=4, minimum=1)
    done = 0
    complete = True
    while done < len(positions):
        if progress.cancelled():
            complete = False
            break
        size = min(sizer.next_size(), len(positions) - done)
        for t in range(done, done + size):
            pos = int(positions[t])
            chosen = _nearest(problem, sr, rel, alive, pos, k - 1)
            assignment[alive[chosen]] = t
            assignment[alive[pos]] = t
            alive = alive[assignment[alive] < 0]
        done += size
        sizer.done(size)
        progress.set(done / max(len(positions), 1), f"{done:,} of {len(positions):,} clusters formed")
    n_clusters = done
    if not complete:
        # The records not reached yet (at least k of them) form one cluster: a valid partial result.
        assignment[alive] = n_clusters
        n_clusters += 1
        alive = alive[:0]
    placed = assignment >= 0
    order = np.argsort(np.where(placed, assignment, n_clusters), kind="stable")[: int(placed.sum())]
    indptr = np.zeros(n_clusters + 1, dtype=np.int64)
    np.cumsum(np.bincount(assignment[placed], minlength=n_clusters), out=indptr[1:])
    summaries = Summaries.empty(n_clusters, problem.records)
    sc = summaries.arrays()
    build_summaries(indptr, order, sr, sc, rel)
    candidates = np.arange(n_clusters, dtype=np.int64)
    for r in alive.tolist():
        # Phase 2: the cluster whose tuple this record widens least (ties: the older cluster).
        ext = merged_extents(sr, r, sc, candidates, rel, np.empty((n_clusters, problem.v)))
        best = int(np.argmin(problem.ncp(ext)))
        assignment[r] = best
        merge_into(sc, best, sr, r, rel)
    assignment, summaries = _join_identical(assignment, summaries)
    return Clustering(assignment, summaries, summary_ncp(problem, summaries), complete)
