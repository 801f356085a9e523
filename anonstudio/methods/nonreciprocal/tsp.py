"""Gray-TSP order: each segment's interior reordered by a fixed-end TSP (paper §4.1).

The paper uses a genetic algorithm, which is random and may return a worse
order than its start (T5). Instead: exact Held-Karp on segments of at most
``EXACT_MAX`` records, a seeded 2-opt + Or-opt descent with double-bridge
kicks on larger ones; both ends of every segment stay in place and no
segment ever gets longer than in the Gray order.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...data.transactions import TransactionData
from ...jobs import NullProgress, Progress, kernel_seeds
from ...kernels.nonreciprocal_tsp import EXACT_MAX, improve_segments
from ...parallel import budget

__all__ = ["TspOutcome", "improve_order", "EXACT_MAX"]


@dataclass(frozen=True)
class TspOutcome:
    """The improved order and what the TSP step did.

    ``complete`` is False when cancelled; ``order`` is then the input order
    with only the finished segments improved (still a valid order).
    """

    order: np.ndarray
    path_before: int  # sum of the segments' linear path lengths in the input order
    path_after: int
    segments_done: int
    complete: bool
    seconds: float


def improve_order(data: TransactionData, order: np.ndarray, bounds: np.ndarray, seed: int, kicks: int,
                  threads: int | None = None, progress: Progress | None = None) -> TspOutcome:
    """Reorder each segment of ``order`` (boundaries ``bounds``) between its fixed ends.

    Segments are processed in batches on up to ``threads`` threads of the
    thread budget (None: the whole budget); every segment has its own seed, so
    the result does not depend on batching or threads. Cancel is checked
    between batches.
    """
    progress = progress or NullProgress()
    threads = budget.workers(threads or budget.available())
    t0 = time.perf_counter()
    order = np.ascontiguousarray(order, dtype=np.int64)
    bounds = np.ascontiguousarray(bounds, dtype=np.int64)
    n_seg = len(bounds) - 1
    out = order.copy()
    before = np.zeros(max(n_seg, 0), dtype=np.int64)
    after = np.zeros(max(n_seg, 0), dtype=np.int64)
    if n_seg <= 0:
        return TspOutcome(out, 0, 0, 0, True, time.perf_counter() - t0)
    seeds = kernel_seeds(seed, n_seg, "tsp")
    batch = max(1, min(16, n_seg // (8 * max(threads, 1)) or 1))
    starts = list(range(0, n_seg, batch))
    done = 0

    def work(first: int) -> int:
        last = min(first + batch, n_seg)
        improve_segments(data.indptr, data.indices, order, bounds, first, last, seeds, int(kicks),
                         data.n_items, out, before, after)
        return last - first

    complete = True
    if threads <= 1 or len(starts) == 1:
        for first in starts:
            if progress.cancelled():
                complete = False
                break
            done += work(first)
            progress.set(done / n_seg, f"{done:,} of {n_seg:,} segments")
    else:
        with budget.pool(threads, "nonreciprocal-tsp") as pool:
            pending = []
            it = iter(starts)
            for first in it:
                pending.append(pool.submit(work, first))
                if len(pending) >= 2 * threads:
                    break
            while pending:
                done += pending.pop(0).result()
                progress.set(done / n_seg, f"{done:,} of {n_seg:,} segments")
                if progress.cancelled():
                    complete = False
                    for f in pending:
                        done += f.result()
                    pending = []
                    break
                nxt = next(it, None)
                if nxt is not None:
                    pending.append(pool.submit(work, nxt))
    # unfinished segments (after a cancel) keep the input order: out started as its copy
    return TspOutcome(out, int(before.sum()), int(after.sum()), done, complete, time.perf_counter() - t0)
