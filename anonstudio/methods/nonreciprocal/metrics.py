"""Utility of a release: error rate (§5.1) and query error (§5.2).

* ER: the mean over non-empty records of ``H(r_i, base_α(i)) / |r_i|``, the
  bits flipped in the base of the record's *true* slot (T9); empty records
  are skipped and counted.
* QE: ``|C_o - C_a| / n`` averaged over random count queries. Type I counts
  records holding every item of ``In``, Type II records holding none of
  ``Ex``; ``C_a`` is counted on the base bitmaps (the paper is silent, T10).
  Items are drawn uniformly from the items that occur. Default sizes: (3, 4)
  on dense data (mean record length at least a tenth of the items, like
  chess and mushroom), (1, 5) on sparse data, as the paper's (|In|, |Ex|) for
  Chess and Pumsb.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...data.transactions import TransactionData
from ...jobs import derive_seed
from ...kernels.nonreciprocal_metrics import error_rate as _error_rate
from ...kernels.nonreciprocal_metrics import query_counts
from .publish import Published

__all__ = ["QueryError", "error_rate", "query_sizes", "query_error", "DENSE_FRACTION"]

#: Mean record length / items at or above which data counts as dense.
DENSE_FRACTION = 0.1


@dataclass(frozen=True)
class QueryError:
    type1: float
    type2: float
    in_size: int
    ex_size: int
    queries: int

    def to_json(self) -> dict:
        return {"type1": self.type1, "type2": self.type2, "in_size": self.in_size, "ex_size": self.ex_size,
                "queries": self.queries}


def error_rate(data: TransactionData, published: Published, alpha: np.ndarray) -> tuple[float, int]:
    """(ER, number of empty records skipped)."""
    er, empty = _error_rate(data.indptr, data.indices, published.base_indptr, published.base_items,
                            np.ascontiguousarray(alpha, dtype=np.int64))
    return float(er), int(empty)


def query_sizes(data: TransactionData, qe_in: int | None, qe_ex: int | None) -> tuple[int, int]:
    """(|In|, |Ex|): the given sizes, or the defaults for dense / sparse data, capped at the items present."""
    present = int(np.count_nonzero(data.item_frequencies))
    mean = float(data.lengths.mean()) if data.n_records else 0.0
    dense = present > 0 and mean >= DENSE_FRACTION * present
    a = qe_in if qe_in is not None else (3 if dense else 1)
    b = qe_ex if qe_ex is not None else (4 if dense else 5)
    return max(1, min(a, present)), max(1, min(b, present))


def _postings(indptr: np.ndarray, items: np.ndarray, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    n = len(indptr) - 1
    owners = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    order = np.argsort(items, kind="stable")
    post_indptr = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(np.bincount(items, minlength=n_items), out=post_indptr[1:])
    return post_indptr, np.ascontiguousarray(owners[order])


def query_error(data: TransactionData, published: Published, in_size: int, ex_size: int, queries: int,
                seed: int) -> QueryError:
    """Mean |C_o - C_a| / n of Type I and Type II queries (seeded)."""
    n = data.n_records
    present = np.flatnonzero(data.item_frequencies).astype(np.int64)
    if n == 0 or len(present) == 0:
        return QueryError(0.0, 0.0, in_size, ex_size, queries)
    rng = np.random.default_rng(derive_seed(seed, "qe"))
    q_in = np.array([rng.choice(present, size=in_size, replace=False) for _ in range(queries)], dtype=np.int64)
    q_ex = np.array([rng.choice(present, size=ex_size, replace=False) for _ in range(queries)], dtype=np.int64)
    orig = _postings(data.indptr, data.indices, data.n_items)
    anon = _postings(published.base_indptr, published.base_items, data.n_items)
    errs = []
    for qs, disjoint in ((q_in, False), (q_ex, True)):
        c_o = query_counts(orig[0], orig[1], n, qs, disjoint)
        c_a = query_counts(anon[0], anon[1], n, qs, disjoint)
        errs.append(float(np.mean(np.abs(c_o - c_a)) / n))
    return QueryError(errs[0], errs[1], in_size, ex_size, queries)
