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
from ...kernels.rt_cluster import assign_leftovers, build_summaries, cluster_seeds, summary_ncp_all
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
        return float(self.sizes @ self.ncp / n) if n else 0.0


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
    ncp = summary_ncp_all(summaries.arrays(), rel, np.empty(len(summaries)))
    return Clustering(assignment, summaries, ncp)


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


def cluster(problem: RTProblem, k: int, seed: int, progress: Progress | None = None) -> Clustering:
    """Run Cluster (module docstring). Needs at least ``k`` records."""
    progress = progress or NullProgress()
    n = problem.n
    if n < k:
        raise ValueError(f"k = {k} is larger than the {n} records")
    positions = seed_positions(n, k, seed)
    alive = np.arange(n, dtype=np.int64)
    assignment = np.full(n, -1, dtype=np.int64)
    sr = problem.records.arrays()
    rel = problem.rel()
    sizer = ChunkSizer(initial=4, minimum=1)
    done = 0
    n_alive = n
    complete = True
    while done < len(positions):
        if progress.cancelled():
            complete = False
            break
        size = min(sizer.next_size(), len(positions) - done)
        n_alive = cluster_seeds(positions[done:done + size], alive, n_alive, assignment, done, k, sr, rel)
        done += size
        sizer.done(size)
        progress.set(done / max(len(positions), 1), f"Cluster: {done:,} of {len(positions):,} clusters")
    n_clusters = done
    if not complete:
        # The records not reached yet (at least k of them) form one cluster: a valid partial result.
        assignment[alive[:n_alive]] = n_clusters
        n_clusters += 1
        n_alive = 0
    left = alive[:n_alive].copy()
    placed = assignment >= 0
    order = np.argsort(np.where(placed, assignment, n_clusters), kind="stable")[: int(placed.sum())]
    indptr = np.zeros(n_clusters + 1, dtype=np.int64)
    np.cumsum(np.bincount(assignment[placed], minlength=n_clusters), out=indptr[1:])
    summaries = Summaries.empty(n_clusters, problem.records)
    build_summaries(indptr, order, sr, summaries.arrays(), rel)
    if len(left):
        assign_leftovers(left, sr, summaries.arrays(), n_clusters, assignment, rel)
    assignment, summaries = _join_identical(assignment, summaries)
    ncp = summary_ncp_all(summaries.arrays(), rel, np.empty(len(summaries)))
    return Clustering(assignment, summaries, ncp, complete)
