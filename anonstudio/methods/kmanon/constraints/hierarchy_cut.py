"""Generalization hierarchy: valid generalizations are horizontal cuts.

Partitions are the items under the nodes of a cut. The neighbour move at a
partition lifts its cut node to the parent: every partition under the parent
merges into it (paper Section V, Figure 1). A parent that covers no further
item of the data would not change the generalization (hamming distance 0), so
the lift continues to the lowest ancestor that covers more items.

Error: NCP (normalized certainty penalty). An occurrence of an item released
as node ``v`` loses ``(leaves(v) - 1) / (leaves(root) - 1)``; the error is the
average over all item occurrences (0: nothing generalized, 1: all items
released as the root).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....data.hierarchy import Hierarchy
from ....metrics.ncp import categorical_ncp
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

    def _loss(self, node: int) -> float:
        return float(categorical_ncp(self.cut.h.leaf_count(node), self.cut.h.n_leaves))

    def cost(self, move: Move) -> float:
        v = self.cut.target[move]
        return float(sum(self.occ[p] * (self._loss(v) - self._loss(self.cut.cut[p])) for p in move))

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
