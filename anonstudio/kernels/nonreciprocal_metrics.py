"""Error rate and query counts of a release (``methods/nonreciprocal/metrics.py``).

Slow reference: tests/reference/nonreciprocal_reference.py::error_rate
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import read_only
from .nonreciprocal_order import hamming_between

__all__ = ["error_rate", "query_counts", "warm_up"]


@njit(nogil=True, cache=True)
def error_rate(indptr, indices, base_indptr, base_items, alpha):
    """Mean over non-empty records of ``H(r_i, base_alpha(i)) / |r_i|``, and the number of empty records."""
    n = alpha.shape[0]
    total = 0.0
    empty = 0
    for i in range(n):
        li = indptr[i + 1] - indptr[i]
        if li == 0:
            empty += 1
            continue
        h = hamming_between(indptr, indices, i, base_indptr, base_items, alpha[i])
        total += h / li
    if n - empty == 0:
        return 0.0, empty
    return total / (n - empty), empty


@njit(nogil=True, cache=True)
def query_counts(post_indptr, post_records, n_records, queries, disjoint):
    """Per query row: records holding all its items (``disjoint=False``, Type I) or none of them (Type II)."""
    q = queries.shape[0]
    size = queries.shape[1]
    out = np.zeros(q, dtype=np.int64)
    hits = np.zeros(n_records, dtype=np.int64)
    for r in range(q):
        for c in range(size):
            it = queries[r, c]
            for p in range(post_indptr[it], post_indptr[it + 1]):
                hits[post_records[p]] += 1
        total = 0
        for c in range(size):
            it = queries[r, c]
            for p in range(post_indptr[it], post_indptr[it + 1]):
                u = post_records[p]
                if hits[u] > 0:
                    if disjoint:
                        total += 1  # counted once, then cleared
                    elif hits[u] == size:
                        total += 1
                    hits[u] = 0
        out[r] = n_records - total if disjoint else total
    return out


def warm_up() -> None:
    """Compile the kernels above on tiny inputs.

    Data arrays are read-only, as a dataset's are (``kernels.read_only``).
    """
    indptr = read_only(np.array([0, 2, 3], dtype=np.int64))
    indices = read_only(np.array([0, 1, 1], dtype=np.int32))
    # The original may be read-only (loaded); the published records are always built in memory.
    error_rate(indptr, indices, indptr.copy(), indices.copy(), np.array([1, 0], dtype=np.int64))
    post_indptr = np.array([0, 1, 3], dtype=np.int64)
    post_records = np.array([0, 0, 1], dtype=np.int64)
    queries = np.array([[0, 1]], dtype=np.int64)
    query_counts(post_indptr, post_records, 2, queries, False)
    query_counts(post_indptr, post_records, 2, queries, True)

