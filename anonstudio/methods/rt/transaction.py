"""T: the transaction generalization applied to each cluster on its own.

* With an item hierarchy: Apriori Anonymization (AA, Terrovitis et al., VLDB J
  2011), and its ℓ^m version when ℓ is set. Each cluster gets its own cut.
* Without one: a set-based generalization (as in the paper's worked example):
  items are merged into free sets such as ``(B,C,F)``.

Both resolve every itemset of at most m published items with support in
``[1, k)`` (and every ℓ^m violation) by the move of lowest cluster UL; see
:mod:`anonstudio.kernels.rt_transaction`. Sensitive items are never
generalized and never counted as attacker knowledge.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...kernels.rt_transaction import AA, SET, generalize_cluster
from ...params import ParameterError
from .prepare import RTProblem

__all__ = ["ClusterT", "Generalizer", "TFunction"]


@dataclass(frozen=True)
class ClusterT:
    """The generalized items of one cluster.

    Attributes
    ----------
    items
        The cluster's non-sensitive item ids (sorted).
    head
        Per item, the id of the first item of its group: items with the
        same head are published as one generalized item.
    size
        Per item, ``|ũ|`` of its generalized item (dataset items it stands for).
    node
        Per item, the item-hierarchy node published (AA), or -1 (sets).
    ul_sum
        Sum of UL over the cluster's records.
    ok
        Whether the cluster is k^m-anonymous (ℓ^m-diverse) under this mapping.
    """

    items: np.ndarray
    head: np.ndarray
    size: np.ndarray
    node: np.ndarray
    ul_sum: float
    ok: bool


#: What a merge algorithm needs from T: rows of a cluster -> its ClusterT.
TFunction = Callable[[np.ndarray], ClusterT]


class Generalizer:
    """T for one problem: AA over the item hierarchy, or sets when there is none.

    Parameters
    ----------
    problem
        The encoded data.
    k, m
        Every published itemset of up to m non-sensitive items needs support
        0 or at least k inside the cluster.
    l
        ℓ of (k, ℓ^m)-diversity, or None.
    """

    def __init__(self, problem: RTProblem, k: int, m: int, l: int | None = None):
        self.problem = problem
        self.k, self.m, self.l = int(k), int(m), int(l or 0)
        data = problem.transactions
        sens_items = np.flatnonzero(problem.sensitive)
        self.sens_id = np.full(data.n_items, -1, dtype=np.int32)
        self.sens_id[sens_items] = np.arange(len(sens_items), dtype=np.int32)
        self.n_sens = len(sens_items) if self.l else 0
        h = problem.item_hierarchy
        if h is not None:
            self.strategy = AA
            self.item_leaf = problem.item_leaf.astype(np.int64)
            self.item_pos = h.leaf_spans[np.maximum(self.item_leaf, 0), 0].astype(np.int64)
            self.parent = h.parent.astype(np.int64)
            self.span_lo = np.ascontiguousarray(h.leaf_spans[:, 0], dtype=np.int64)
            self.span_hi = np.ascontiguousarray(h.leaf_spans[:, 1], dtype=np.int64)
            self.node_items = problem.node_items.astype(np.float64)
            self.root = h.root
        else:
            self.strategy = SET
            self.item_leaf = np.zeros(data.n_items, dtype=np.int64)
            self.item_pos = np.zeros(data.n_items, dtype=np.int64)
            self.parent = np.full(1, -1, dtype=np.int64)
            self.span_lo = np.zeros(1, dtype=np.int64)
            self.span_hi = np.ones(1, dtype=np.int64)
            self.node_items = np.ones(1, dtype=np.float64)
            self.root = 0
        self._check_key_space(int(np.count_nonzero(data.item_frequencies)))

    def _check_key_space(self, n_items: int) -> None:
        # Itemsets are counted under 64-bit keys packing m item ids (kernels.enumerate).
        if self.m * max(int(n_items - 1).bit_length(), 1) > 64:
            raise ParameterError(f"m = {self.m} is too large for {n_items:,} items (itemset keys would overflow)",
                                 name="m")

    def __call__(self, rows: np.ndarray, *, coarsest: bool = False) -> ClusterT:
        """Generalize the items of the records ``rows`` (sorted or not)."""
        data = self.problem.transactions
        rows = np.asarray(rows, dtype=np.int64)
        items, group, gnode, gsize, ul_sum, ok = generalize_cluster(
            rows, data.indptr, data.indices, self.sens_id, self.n_sens, self.strategy, self.item_leaf,
            self.item_pos, self.parent, self.span_lo, self.span_hi, self.node_items, self.root,
            self.k, self.m, self.l, coarsest)
        head = items[group]
        node = gnode[group] if self.strategy == AA else np.full(len(items), -1, dtype=np.int64)
        return ClusterT(items.astype(np.int64), head.astype(np.int64), gsize[group].astype(np.float64),
                        node.astype(np.int64), float(ul_sum), bool(ok))
