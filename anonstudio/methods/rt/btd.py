"""Bit-vector transaction distance (BTD) between clusters, kept as matrices updated per merge.

BTD(C) is the largest BTD of two records of C, and
BTD(C ∪ C′) = max(BTD(C), BTD(C′), largest cross pair). ``intra[c]`` holds
BTD(C) and ``cross[c, d]`` the largest cross pair, so after a merge only the
merged cluster's row and column change (O(clusters)). Reading of the printed
formula (which shows ∨ three times): (|b1 ⊕ b2| + 1)/(|b1 ∧ b2| + 1) · |b1 ∨ b2|
over the non-sensitive items; it reproduces the worked example (12 against 30).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...jobs import ChunkSizer, NullProgress, Progress
from ...kernels.rt_btd import btd_rows, merge_rows, union_btd
from .prepare import RTProblem

__all__ = ["BTDMatrix"]


class BTDMatrix:
    """BTD of every cluster and every pair's cross maximum.

    ``complete`` is False if the build was cancelled (the matrix is then unusable).
    Memory: ``8 · clusters²`` bytes (9 MB for 1,070 clusters).
    """

    def __init__(self, problem: RTProblem, members: Sequence[np.ndarray], progress: Progress | None = None):
        progress = progress or NullProgress()
        lengths = np.diff(problem.ns_indptr)
        n = len(members)
        ordered = [m[np.argsort(-lengths[m], kind="stable")] for m in members]
        cl_ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum([len(m) for m in ordered], out=cl_ptr[1:])
        cl_rows = np.concatenate(ordered).astype(np.int64) if n else np.zeros(0, np.int64)
        self.cross = np.full((n, n), -1.0)
        self.intra = np.zeros(n)
        self.complete = True
        sizer = ChunkSizer(initial=16)
        start = 0
        while start < n:
            if progress.cancelled():
                self.complete = False
                return
            stop = min(n, start + sizer.next_size())
            btd_rows(start, stop, cl_ptr, cl_rows, problem.ns_indptr, problem.ns_indices, lengths, self.cross,
                     self.intra)
            sizer.done(stop - start)
            start = stop
            # Row c costs about n - c pair bounds: report the share of the triangle done.
            progress.set(1.0 - ((n - start) / max(n, 1)) ** 2, f"{start:,} of {n:,} clusters")

    def union(self, seed: int, cands: np.ndarray) -> np.ndarray:
        """BTD(seed ∪ c) for every candidate cluster."""
        return union_btd(self.cross, self.intra, int(seed), np.asarray(cands, dtype=np.int64),
                         np.empty(len(cands)))

    def merge(self, keep: int, gone: int) -> None:
        merge_rows(self.cross, self.intra, int(keep), int(gone))
