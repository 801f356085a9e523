"""CAHD, the paper's reciprocal baseline for ℓ-diversity, published with the same bit vote (§5.1).

CAHD (Ghinita, Kalnis, Tao, TKDE 2011) forms groups of records close in a
Gray-type order whose sensitive labels satisfy privacy degree ``p = 1/ℓ``.
Here, as in the paper's experiments, each record carries one label and the
groups are published like nonreciprocal slots: every member of a group
matches every slot of the group, so each slot's base, distance bitmap and
threshold come from the group's bit vote (:mod:`.publish`). The true
assignment is a random permutation inside each group.

Reading: the partners of a group's seed are the candidates nearest to it by
Hamming distance (CAHD scores by shared items; Hamming is what the bit vote
loses, so it is the stronger baseline here). The order is the same Gray or
Gray-TSP order the nonreciprocal run uses.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...data.io.record_labels import RecordLabels
from ...data.transactions import TransactionData
from ...jobs import derive_seed
from ...kernels.nonreciprocal_cahd import cahd_groups
from .diversity import check_eligible
from .metrics import QueryError, error_rate, query_error, query_sizes
from .publish import Published, group_preimages, publish

__all__ = ["CahdResult", "cahd", "CANDIDATE_FACTOR"]

#: Candidates per side of a seed: this many times ℓ - 1 (CAHD's alpha).
CANDIDATE_FACTOR = 3


@dataclass(frozen=True, eq=False)
class CahdResult:
    """Groups, their publication, the chosen assignment and the utility measures."""

    l: int
    group: np.ndarray
    n_groups: int
    published: Published
    pre_indptr: np.ndarray
    pre: np.ndarray
    alpha: np.ndarray
    slot_labels: np.ndarray
    error_rate: float
    empty_records: int
    query_error: QueryError
    seconds: float

    def group_sizes(self) -> np.ndarray:
        return np.bincount(self.group, minlength=self.n_groups)

    def summary(self) -> dict[str, float]:
        sizes = self.group_sizes()
        return {"l": self.l, "groups": self.n_groups, "largest_group": int(sizes.max()) if len(sizes) else 0,
                "error_rate": self.error_rate, "qe_type1": self.query_error.type1,
                "qe_type2": self.query_error.type2, "seconds": round(self.seconds, 4)}


def cahd(data: TransactionData, labels: RecordLabels, l: int, order: np.ndarray, seed: int, *,
         qe_in: int | None = None, qe_ex: int | None = None, queries: int = 500) -> CahdResult:
    """Group ``data`` by CAHD along ``order`` and publish the groups by bit vote.

    Raises :class:`~.diversity.NotEligibleError` when a label holds more than
    ``1/ℓ`` of the records.
    """
    t0 = time.perf_counter()
    check_eligible(labels, l, "cahd")
    order = np.ascontiguousarray(order, dtype=np.int64)
    group, n_groups = cahd_groups(order, labels.codes, labels.n_labels, int(l), CANDIDATE_FACTOR, data.indptr,
                                  data.indices)
    pre_indptr, pre = group_preimages(group)
    published = publish(data, pre_indptr, pre)
    rng = np.random.default_rng(derive_seed(seed, "cahd-alpha"))
    alpha = np.empty(data.n_records, dtype=np.int64)
    members = np.argsort(group, kind="stable")
    starts = np.concatenate([[0], np.cumsum(np.bincount(group, minlength=n_groups))])
    for g in range(n_groups):
        mem = members[starts[g]:starts[g + 1]]
        alpha[mem] = rng.permutation(mem)
    slot_labels = np.empty(data.n_records, dtype=np.int64)
    slot_labels[alpha] = labels.codes
    er, empty = error_rate(data, published, alpha)
    a, b = query_sizes(data, qe_in, qe_ex)
    qe = query_error(data, published, a, b, queries, seed)
    return CahdResult(int(l), group, int(n_groups), published, pre_indptr, pre, alpha, slot_labels, er, empty, qe,
                      time.perf_counter() - t0)
