"""Generalization hierarchy: valid generalizations are horizontal cuts.

Partitions are the items under the nodes of a cut. The neighbour move at a
partition lifts its cut node to the parent: every partition under the parent
merges into it (paper Section V, Figure 1). A parent that covers no further
item of the data would not change the generalization (hamming distance 0), so
the lift continues to the lowest ancestor that covers more items.

Exact levels (sigma = 1) end with an un-generalization pass
(:meth:`_HierarchyRun.exact_relax`): cut nodes are split back into their
children, largest NCP saving first, wherever every itemset of the level keeps
k records. The repairs lift one violating itemset at a time, so a lift made
early can become unnecessary once later lifts are in place; Apriori
Anonymization (Terrovitis, Mamoulis, Kalnis, VLDB 2008) keeps such lifts too.

Error: NCP (normalized certainty penalty). An occurrence of an item released
as node ``v`` loses ``(leaves(v) - 1) / (leaves(root) - 1)``; the error is the
average over all item occurrences (0: nothing generalized, 1: all items
released as the root).
"""
from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence

import numpy as np

from ....data.hierarchy import Hierarchy
from ....kernels.generalized_support import key_bits, unpack_key
from ....kernels.hierarchy_split import itemset_support, new_itemset_keys, smallest_run
from ....metrics.ncp import categorical_ncp, weighted_total
from ..partition_state import PartitionState
from .base import Constraint, ConstraintRun, ConstraintStateError, ErrorFunction, ErrorRun, Move

__all__ = ["HierarchyCut", "HierarchyNcpError", "leaf_of_items"]

_EXTRA = "hierarchy-cut"


def leaf_of_items(hierarchy: Hierarchy, vocab: Sequence[str]) -> np.ndarray:
    """Leaf node of every item label; raises ValueError naming the first missing label."""
    out = np.empty(len(vocab), dtype=np.int64)
    for i, label in enumerate(vocab):
        try:
            out[i] = hierarchy.leaf(label)
        except KeyError:
            raise ValueError(f"item {label!r} is not a leaf of hierarchy {hierarchy.name!r}") from None
    if len(np.unique(out)) != len(out):
        raise ValueError("two items map to the same hierarchy leaf")
    return out


class _HierarchyRun(ConstraintRun):
    def __init__(self, state: PartitionState, spec: HierarchyCut):
        super().__init__(state)
        self.h = spec.hierarchy
        self.leaf = spec.leaf_of_item
        self.cut: dict[int, int] = {i: int(self.leaf[i]) for i in range(state.n_items)}
        # Data items in depth-first leaf order: the items under a node are a slice.
        pos = self.h.leaf_spans[self.leaf, 0]
        self.item_order = np.argsort(pos, kind="stable")
        self.sorted_pos = pos[self.item_order]
        self.target: dict[Move, int] = {}
        self._groups: dict[int, list[tuple[int, np.ndarray]]] = {}
        # Per node: items whose generalized itemset kept its last split from k records.
        self._witness: dict[int, np.ndarray] = {}
        self._keys = np.empty(1 << 16, dtype=np.uint64)  # the split tests' key buffer, grown on demand
        state.extras[_EXTRA] = self

    def items_under(self, node: int) -> np.ndarray:
        lo, hi = self.h.leaf_spans[node]
        a, b = np.searchsorted(self.sorted_pos, [lo, hi])
        return self.item_order[a:b]

    def moves(self, p: int) -> Sequence[Move]:
        size = len(self.state.members[p])
        v = self.h.parent_of(self.cut[p])
        while v >= 0:
            items = self.items_under(v)
            if len(items) > size:
                move = tuple(sorted({int(x) for x in self.state.label[items]}))
                self.target[move] = v
                return [move]
            v = self.h.parent_of(v)
        return []

    def merged(self, move: Move, keep: int) -> None:
        node = self.target[move]
        for p in move:
            self.cut.pop(p, None)
        self.cut[keep] = node
        self.target.clear()

    # ------------------------------------------------------------ relaxation
    def _child_groups(self, node: int) -> list[tuple[int, np.ndarray]]:
        """(child, its data items) per child of ``node`` holding data items.

        A child whose data items all lie under one of its own children is
        replaced by the lowest such node: it releases the same items with
        less loss (the converse of a lift skipping ancestors that add nothing).
        Fixed by the hierarchy and the data, so computed once per node.
        """
        cached = self._groups.get(node)
        if cached is not None:
            return cached
        out = []
        for c in self.h.children(node):
            items = self.items_under(c)
            if len(items) == 0:
                continue
            while True:
                kids = [g for g in self.h.children(c) if len(self.items_under(g))]
                if len(kids) != 1:
                    break
                c = kids[0]
            out.append((c, items))
        self._groups[node] = out
        return out

    def _split_keeps(self, data, p: int, node: int, groups, ell: int, k: int, bits: int, limit: int) -> bool:
        """Would every generalized j-itemset (j <= ell) holding a new partition keep ``k`` records?

        A refused split remembers one itemset that broke it (as items, which
        outlive partition ids) and re-counts it first: if it still occurs
        with fewer than ``k`` records, it still breaks the split, which is
        refused without enumerating (the answer the enumeration would give).
        """
        label = self.state.label.copy()
        is_new = np.zeros(len(label), dtype=np.bool_)
        for _, items in groups:
            q = int(items.min())
            label[items] = q
            is_new[q] = True
        records = self.state.posting(p)
        witness = self._witness.get(node)
        if witness is not None:
            parts = np.unique(label[witness]).astype(np.int64)
            if len(parts) <= ell and 0 < itemset_support(data.indptr, data.indices, records, label, parts, k) < k:
                return False
        max_len = int(data.lengths.max())
        for j in range(1, ell + 1):
            # One pass into the run's buffer; a second, into a bigger one, only when it overflows.
            n = new_itemset_keys(data.indptr, data.indices, records, label, is_new, j, bits, max_len, self._keys,
                                 limit)
            if n > limit:
                return False  # over budget: keep the generalization
            if n == 0:
                continue
            keys = self._keys
            if n > len(keys):
                # Kept for the next tests up to 32 MiB; a bigger one lives for this test only.
                keys = np.empty(max(n, 2 * len(keys)), dtype=np.uint64)
                if len(keys) <= 1 << 22:
                    self._keys = keys
                new_itemset_keys(data.indptr, data.indices, records, label, is_new, j, bits, max_len, keys, limit)
            keys = keys[:n]
            keys.sort()
            run, where = smallest_run(keys)
            if run < k:
                ids = np.empty(j, dtype=np.int64)
                unpack_key(keys[where], bits, ids)
                self._witness[node] = ids  # partition ids are item ids: one item of each partition
                return False
        return True

    def exact_relax(self, data, ell: int, k: int, error: ErrorRun, limit: int,
                    cancelled: Callable[[], bool]) -> int:
        """Split cut nodes into their children while k^ell-anonymity holds, largest NCP saving first.

        The repairs of a level lift nodes one violating itemset at a time, so
        a lift made early may be needed by none of the itemsets once later
        lifts are in place (Apriori Anonymization repairs in count-tree order
        and keeps such lifts too). A split is kept only if every generalized
        itemset of up to ``ell`` partitions holding one of the new partitions
        still has ``k`` records (:mod:`anonstudio.kernels.hierarchy_split`);
        all other itemsets keep their records, so the level's guarantee holds
        after every split. Splitting only lowers supports, so a split that
        fails stays failed for the rest of the pass and each node is tried
        once. The order is a function of the partitions alone: deterministic.
        """
        if not isinstance(error, _NcpRun) or error.cut is not self:
            return 0
        bits = key_bits(self.state.n_items)
        if ell * bits > 64:
            return 0
        heap: list[tuple[int, int, int]] = []

        def push(p: int) -> None:
            node = self.cut[p]
            if self.h.is_leaf(node):
                return
            saving = error.split_saving(p, node, self._child_groups(node))
            if saving > 0:
                heapq.heappush(heap, (-saving, node, p))

        for p in sorted(self.state.members):
            push(p)
        splits = 0
        while heap and not cancelled():
            _, node, p = heapq.heappop(heap)
            groups = self._child_groups(node)
            if len(groups) > 1:
                if not self._split_keeps(data, p, node, groups, ell, k, bits, limit):
                    continue
                ids = self.state.split(p, [items for _, items in groups])
            else:  # the same items under a lower node: no itemset changes
                ids = [p]
            del self.cut[p]
            for (child, _), q in zip(groups, ids, strict=True):
                self.cut[q] = child
            error.split(p, ids, [items for _, items in groups])
            splits += 1
            for q in ids:
                push(q)
        self.target.clear()
        return splits

    def partition_name(self, p: int) -> str | None:
        return self.h.labels[self.cut[p]]


class HierarchyCut(Constraint):
    """Horizontal cuts of a generalization hierarchy whose leaves are the items.

    Parameters
    ----------
    hierarchy
        The tree (``anonstudio.data.io.load_hierarchy``).
    vocab
        Item labels of the dataset, all of which must be leaves.
    """

    name = "hierarchy"

    def __init__(self, hierarchy: Hierarchy, vocab: Sequence[str]):
        self.hierarchy = hierarchy
        self.leaf_of_item = leaf_of_items(hierarchy, vocab)

    def bind(self, state: PartitionState) -> ConstraintRun:
        return _HierarchyRun(state, self)

    def default_error(self) -> ErrorFunction:
        return HierarchyNcpError()


class _NcpRun(ErrorRun):
    def __init__(self, state: PartitionState, cut: _HierarchyRun):
        occ = np.array([state.users(i) for i in range(state.n_items)], dtype=np.float64)
        super().__init__(state, occ.sum())
        self.cut = cut
        self.occ = occ
        self.item_occ = occ.copy()
        h = cut.h
        self.node_loss = np.array([categorical_ncp(h.leaf_count(v), h.n_leaves) for v in range(h.n_nodes)],
                                  dtype=np.float64)

    def _loss(self, node: int) -> float:
        return float(self.node_loss[node])

    def cost(self, move: Move) -> float:
        v = self.cut.target[move]
        return float(sum(self.occ[p] * (self._loss(v) - self._loss(self.cut.cut[p])) for p in move))

    def split_saving(self, p: int, node: int, groups) -> int:
        """NCP total saved by releasing partition ``p`` (cut node ``node``) as ``groups``, times ``leaves - 1``.

        An integer (occurrences times leaf counts), so equal savings compare
        equal and the order of a relaxation pass never hangs on rounding.
        """
        h = self.cut.h
        after = sum(int(self.item_occ[items].sum()) * (h.leaf_count(child) - 1) for child, items in groups)
        return int(self.occ[p]) * (h.leaf_count(node) - 1) - after

    def split(self, p: int, ids: Sequence[int], groups) -> None:
        """Update after partition ``p`` became the partitions ``ids`` (one per item group; cut already updated)."""
        self.occ[p] = 0.0
        for q, items in zip(ids, groups, strict=True):
            self.occ[q] = float(self.item_occ[items].sum())
        # Recomputed rather than decremented, so splits leave no rounding residue.
        live = np.array(sorted(self.state.members), dtype=np.int64)
        nodes = np.array([self.cut.cut[int(q)] for q in live], dtype=np.int64)
        self.total = weighted_total(self.occ[live], self.node_loss[nodes])

    def merged(self, move: Move, keep: int) -> None:
        # Called before the constraint forgets the old cut nodes (see algorithm).
        self.total += self.cost(move)
        occ = float(self.occ[list(move)].sum())
        self.occ[list(move)] = 0.0
        self.occ[keep] = occ


class HierarchyNcpError(ConstraintStateError):
    """Occurrence-weighted NCP of the cut nodes (needs :class:`HierarchyCut`)."""

    name = "ncp"
    unit = ""
    extra_key = _EXTRA
    constraint_name = "hierarchy"

    def make_run(self, state: PartitionState, shared: _HierarchyRun) -> ErrorRun:
        return _NcpRun(state, shared)
