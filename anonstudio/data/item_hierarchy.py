"""Balanced item hierarchies of a chosen fan-out.

Transaction anonymizers that climb a hierarchy (Apriori Anonymization)
collapse large groups to the root when the hierarchy is shallow: the INFORMS
ICD-9 file has 19 chapters right under the root, so one chapter pair with
too little support lifts a whole group to ``*``. A balanced tree with a small
fan-out gives them intermediate steps (599 codes at fan-out 5: 599 -> 120 ->
24 -> 5 -> ``*``).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .hierarchy import ROOT_LABEL, Hierarchy

__all__ = ["balanced_hierarchy", "ITEM_ORDERS"]

#: How the leaves are lined up before they are grouped.
ITEM_ORDERS = ("code", "frequency")


def _group_sizes(n: int, fanout: int) -> list[int]:
    """Sizes of ``ceil(n / fanout)`` groups as even as possible (larger ones first)."""
    groups = -(-n // fanout)
    base, extra = divmod(n, groups)
    return [base + 1] * extra + [base] * (groups - extra)


def balanced_hierarchy(items: Sequence[str], fanout: int, *, order: str = "code",
                       frequencies: Sequence[float] | None = None, name: str = "items") -> Hierarchy:
    """A tree over ``items`` whose inner nodes have at most ``fanout`` children.

    Parameters
    ----------
    items
        Leaf labels, in code order (the order given is kept for ``"code"``).
    fanout
        Largest number of children per node (at least 2).
    order
        ``"code"``: consecutive items in the given order are siblings, and an
        inner node is labelled by its first and last leaf (``"001..009"``).
        ``"frequency"``: items sorted by decreasing ``frequencies`` (ties keep
        the given order), so rare items share parents; inner nodes are
        labelled ``"F<level>.<index>"``.
    frequencies
        Needed for ``order="frequency"``.

    Each level groups the nodes below it into ``ceil(n / fanout)`` runs of
    near-equal size until one node, the root ``*``, is left. A run of a single
    node adds no parent (it would only repeat its child), so every inner node
    has at least two children and labels are unique.
    """
    if fanout < 2:
        raise ValueError("fan-out must be at least 2")
    if order not in ITEM_ORDERS:
        raise ValueError(f"order must be one of {', '.join(ITEM_ORDERS)} (got {order!r})")
    labels = [str(i) for i in items]
    if not labels:
        raise ValueError("no items")
    if len(set(labels)) != len(labels):
        raise ValueError("items must be distinct")
    if order == "frequency":
        if frequencies is None or len(frequencies) != len(labels):
            raise ValueError("frequency order needs one frequency per item")
        freq = np.asarray(frequencies, dtype=np.float64)
        leaf_order = sorted(range(len(labels)), key=lambda i: (-freq[i], i))
    else:
        leaf_order = list(range(len(labels)))
    taken = set(labels)
    parent = [-1] * len(labels)
    node_labels = list(labels)
    # (node id, first leaf label, last leaf label) of the current level, left to right
    level = [(i, labels[i], labels[i]) for i in leaf_order]
    depth = 0
    while len(level) > fanout:
        depth += 1
        nxt = []
        start = 0
        for index, size in enumerate(_group_sizes(len(level), fanout)):
            run = level[start:start + size]
            start += size
            if size == 1:
                nxt.append(run[0])
                continue
            first, last = run[0][1], run[-1][2]
            label = f"{first}..{last}" if order == "code" else f"F{depth}.{index}"
            while label in taken:  # an item happens to be called like a group
                label += "'"
            taken.add(label)
            node = len(node_labels)
            node_labels.append(label)
            parent.append(-1)
            for child, _, _ in run:
                parent[child] = node
            nxt.append((node, first, last))
        level = nxt
    root_label = ROOT_LABEL
    while root_label in taken:
        root_label += "'"
    root = len(node_labels)
    node_labels.append(root_label)
    parent.append(-1)
    for child, _, _ in level:
        parent[child] = root
    return Hierarchy(tuple(node_labels), np.asarray(parent, dtype=np.int32), name=name)
