"""Generalization hierarchies: trees over attribute values or items.

A :class:`Hierarchy` is a rooted tree whose leaves are the original values
(ages, ICD-9 codes, product pages) and whose inner nodes are their
generalizations (``[20, 30)``, ``455**``, ``*``). It is stored as flat arrays
so kernels can use it: ``parent``, ``depth``, and for every node the span of
its leaves in depth-first order (the leaves under a node are contiguous).

Terms used here:

* *depth*: edges from the root (root depth 0).
* *level* of a generalization: steps up from a leaf, as ARX counts hierarchy
  columns (level 0 = the value itself). Trees may be unbalanced (the INFORMS
  ICD-9 hierarchy is); going up more levels than a leaf has stops at the root.
* *cut*: a set of nodes such that every leaf has exactly one of them as itself
  or an ancestor; releasing data under a cut replaces each leaf by that node.

Builders: :meth:`Hierarchy.from_rows` (leaf -> root label rows, the CSV form),
:func:`interval_hierarchy`, :func:`masking_hierarchy`,
:func:`frequency_balanced_taxonomy`.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "Hierarchy",
    "HierarchyError",
    "interval_hierarchy",
    "masking_hierarchy",
    "frequency_balanced_taxonomy",
]

#: Label of the root added when rows end in different top values.
ROOT_LABEL = "*"


class HierarchyError(ValueError):
    """Rows that do not describe a tree (e.g. a value with two parents)."""

    def __init__(self, reason: str, row: int | None = None):
        self.reason = reason
        self.row = row  # 0-based index of the offending row, if known
        super().__init__(reason)


@dataclass(frozen=True, eq=False)
class Hierarchy:
    """A rooted tree over values.

    Parameters
    ----------
    labels
        Label of each node (node id = position). Labels of different nodes may
        coincide only if they are at different depths (rare; ``find`` then
        asks for a depth).
    parent
        int32 parent id of each node, ``-1`` for the root.
    name
        Display name (usually the attribute).

    Notes
    -----
    Build with :meth:`from_rows` or the builder functions; the constructor
    derives children, depths and leaf spans.
    """

    labels: tuple[str, ...]
    parent: np.ndarray
    name: str = "hierarchy"
    _children: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    _depth: np.ndarray = field(init=False, repr=False)
    _leaf_order: np.ndarray = field(init=False, repr=False)
    _span: np.ndarray = field(init=False, repr=False)
    _by_label: dict = field(init=False, repr=False)

    def __post_init__(self) -> None:
        parent = np.ascontiguousarray(self.parent, dtype=np.int32)
        labels = tuple(str(x) for x in self.labels)
        n = len(labels)
        if parent.shape != (n,):
            raise HierarchyError(f"parent must have one entry per node ({n}), got {parent.shape}")
        roots = np.flatnonzero(parent < 0)
        if len(roots) != 1:
            raise HierarchyError(f"a hierarchy needs exactly one root, found {len(roots)}")
        children: list[list[int]] = [[] for _ in range(n)]
        for node, p in enumerate(parent.tolist()):
            if p >= 0:
                if p >= n:
                    raise HierarchyError(f"node {node} has parent {p}, which does not exist")
                children[p].append(node)
        # Iterative depth-first walk: depths, leaf order and leaf spans in one pass.
        depth = np.full(n, -1, dtype=np.int32)
        span = np.zeros((n, 2), dtype=np.int64)
        leaf_order: list[int] = []
        root = int(roots[0])
        depth[root] = 0
        stack: list[tuple[int, bool]] = [(root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                span[node, 1] = len(leaf_order)
                continue
            span[node, 0] = len(leaf_order)
            if not children[node]:
                leaf_order.append(node)
                span[node, 1] = len(leaf_order)
                continue
            stack.append((node, True))
            for child in reversed(children[node]):
                depth[child] = depth[node] + 1
                stack.append((child, False))
        if np.any(depth < 0):
            raise HierarchyError("some nodes are not connected to the root (a cycle?)")
        by_label: dict[str, list[int]] = {}
        for node, label in enumerate(labels):
            by_label.setdefault(label, []).append(node)
        for arr in (parent, depth, span):
            arr.setflags(write=False)
        leaf_arr = np.asarray(leaf_order, dtype=np.int32)
        leaf_arr.setflags(write=False)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "parent", parent)
        object.__setattr__(self, "_children", tuple(tuple(c) for c in children))
        object.__setattr__(self, "_depth", depth)
        object.__setattr__(self, "_leaf_order", leaf_arr)
        object.__setattr__(self, "_span", span)
        object.__setattr__(self, "_by_label", by_label)

    # ------------------------------------------------------------------ build
    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[str]], *, name: str = "hierarchy") -> Hierarchy:
        """Build from one row per leaf: ``[leaf, parent, grandparent, ..., top]``.

        A node is identified by its label *and* its column counted from the
        top, so a label may repeat on different levels. Rows may have
        different lengths (unbalanced trees). If the rows end in more than one
        top value, a root ``"*"`` is added above them. Identical duplicate
        rows are ignored; a value given two different parents raises
        :class:`HierarchyError` naming the row.
        """
        leaves_seen: dict[str, int] = {}
        tops: dict[str, None] = {}  # in order of first appearance
        prepared: list[list[str]] = []
        source_row: list[int] = []  # input row index of each prepared row, for errors
        for r, row in enumerate(rows):
            row = [x.strip() if type(x) is str else str(x).strip() for x in row]
            while row and row[-1] == "":
                row.pop()
            if not row:
                continue
            if "" in row:
                raise HierarchyError(f"row {r + 1} has an empty value", r)
            seen = leaves_seen.get(row[0])
            if seen is not None:
                if prepared[seen] == row:
                    continue
                raise HierarchyError(f"value {row[0]!r} appears in two rows with different ancestors", r)
            leaves_seen[row[0]] = len(prepared)
            prepared.append(row)
            source_row.append(r)
            tops.setdefault(row[-1])
        if not prepared:
            raise HierarchyError("no rows")
        add_root = len(tops) > 1
        labels: list[str] = [ROOT_LABEL] if add_root else []
        parent: list[int] = [-1] if add_root else []
        top = 0 if add_root else -1  # the parent of a row's last label
        # A node is its path of labels from the top; (parent node, label) names the same path one step at a
        # time, without building the tuples. parent_label checks that a label keeps one parent at its depth.
        node_of: dict[tuple[int, str], int] = {}
        parent_label: dict[tuple[int, str], int] = {}  # (depth from top, label) -> parent node
        # Rows of siblings repeat their ancestors: once a row's ancestors passed the checks and have their
        # nodes, a later row with the same ancestors only adds its leaf (the checks would pass the same way).
        done: dict[tuple[str, ...], int] = {}
        leaf_node: list[int] = []
        try:
            for r, row in enumerate(prepared):
                above = tuple(row[1:])
                up = done.get(above)
                start = len(row) - 1  # levels from the top already placed: all but the leaf
                if up is None:
                    up, start = top, 0
                for level_from_top in range(start, len(row)):
                    label = row[len(row) - 1 - level_from_top]
                    key = (level_from_top, label)
                    known = parent_label.get(key)
                    if known is None:
                        parent_label[key] = up
                    elif known != up:
                        # A top value always hangs from the same place: the two parents are groups, with labels.
                        raise HierarchyError(f"{label!r} has two different parents ({labels[known]!r} and "
                                             f"{labels[up]!r})", r)
                    node = node_of.get((up, label))
                    if node is None:
                        node = len(labels)
                        node_of[(up, label)] = node
                        labels.append(label)
                        parent.append(up)
                    if level_from_top == len(row) - 2:
                        done[above] = node
                    up = node
                leaf_node.append(up)
        except HierarchyError:
            _refuse_cycles(prepared)  # a cycle is the first thing wrong with rows that hold one
            raise
        tree = cls(tuple(labels), np.asarray(parent, dtype=np.int32), name=name)
        # The rows' edges between labels are the tree's edges between its nodes' labels. When no label sits at
        # two depths, each edge goes one level up, so they cannot lead back: only other trees need the check.
        if len(tree._by_label) < len(labels) and not _one_depth_per_label(tree):
            _refuse_cycles(prepared)
        leaves_with_children = [p for p, node in enumerate(leaf_node) if not tree.is_leaf(node)]
        if leaves_with_children:
            p = leaves_with_children[0]
            raise HierarchyError(f"{prepared[p][0]!r} is listed as a value and as a generalization",
                                 source_row[p])
        return tree

    # -------------------------------------------------------------- structure
    @property
    def n_nodes(self) -> int:
        return len(self.labels)

    @property
    def root(self) -> int:
        return int(np.flatnonzero(self.parent < 0)[0])

    @property
    def depth(self) -> np.ndarray:
        """Depth of every node (root 0), int32, read-only."""
        return self._depth

    @property
    def height(self) -> int:
        """Largest depth of a leaf."""
        return int(self._depth.max())

    @property
    def leaves(self) -> np.ndarray:
        """Leaf node ids in depth-first order (int32)."""
        return self._leaf_order

    @property
    def leaf_labels(self) -> list[str]:
        return [self.labels[i] for i in self._leaf_order]

    @property
    def n_leaves(self) -> int:
        return len(self._leaf_order)

    @property
    def leaf_spans(self) -> np.ndarray:
        """``(n_nodes, 2)`` int64: node ``v`` covers ``leaves[span[v,0]:span[v,1]]``."""
        return self._span

    def children(self, node: int) -> tuple[int, ...]:
        return self._children[node]

    def is_leaf(self, node: int) -> bool:
        return not self._children[node]

    def parent_of(self, node: int) -> int:
        """Parent id, or -1 for the root."""
        return int(self.parent[node])

    def ancestors(self, node: int) -> list[int]:
        """Parent, grandparent, ..., root (not including ``node``)."""
        out = []
        p = int(self.parent[node])
        while p >= 0:
            out.append(p)
            p = int(self.parent[p])
        return out

    def leaf_count(self, node: int) -> int:
        """Number of leaves under ``node`` (1 for a leaf)."""
        lo, hi = self._span[node]
        return int(hi - lo)

    def leaves_under(self, node: int) -> np.ndarray:
        lo, hi = self._span[node]
        return self._leaf_order[lo:hi]

    def is_ancestor(self, ancestor: int, node: int) -> bool:
        """True if ``ancestor`` is ``node`` or lies above it."""
        a_lo, a_hi = self._span[ancestor]
        n_lo, n_hi = self._span[node]
        return bool(a_lo <= n_lo and n_hi <= a_hi and self._depth[ancestor] <= self._depth[node])

    def find(self, label: str, depth: int | None = None) -> int:
        """Node id of ``label`` (KeyError if absent or ambiguous without ``depth``)."""
        nodes = self._by_label.get(str(label), [])
        if depth is not None:
            nodes = [v for v in nodes if self._depth[v] == depth]
        if len(nodes) != 1:
            raise KeyError(f"{label!r} is {'not in' if not nodes else 'ambiguous in'} hierarchy {self.name!r}")
        return nodes[0]

    def leaf(self, label: str) -> int:
        """Node id of the leaf labelled ``label``."""
        for v in self._by_label.get(str(label), []):
            if self.is_leaf(v):
                return v
        raise KeyError(f"{label!r} is not a value of hierarchy {self.name!r}")

    def path_to_root(self, node: int) -> list[str]:
        """Labels from ``node`` up to the root (the CSV row of a leaf)."""
        return [self.labels[v] for v in [node, *self.ancestors(node)]]

    # ------------------------------------------------------------------- cuts
    def generalize(self, node: int, levels: int) -> int:
        """The ancestor ``levels`` steps above ``node`` (the root if fewer)."""
        for _ in range(max(levels, 0)):
            p = int(self.parent[node])
            if p < 0:
                break
            node = p
        return node

    def level_cut(self, levels: int) -> np.ndarray:
        """Generalized node of every leaf (in :attr:`leaves` order), ``levels`` steps up."""
        return np.asarray([self.generalize(int(v), levels) for v in self._leaf_order], dtype=np.int32)

    def depth_cut(self, depth: int) -> np.ndarray:
        """Node at ``depth`` above every leaf (the leaf itself if shallower)."""
        out = []
        for v in self._leaf_order.tolist():
            while self._depth[v] > depth:
                v = int(self.parent[v])
            out.append(v)
        return np.asarray(out, dtype=np.int32)

    def cut_nodes_at_depth(self, depth: int) -> list[int]:
        """The distinct nodes of :meth:`depth_cut`, a valid cut."""
        return list(dict.fromkeys(self.depth_cut(depth).tolist()))

    def is_cut(self, nodes: Iterable[int]) -> bool:
        """True if every leaf lies under exactly one of ``nodes``."""
        cover = np.zeros(self.n_leaves, dtype=np.int64)
        for v in nodes:
            lo, hi = self._span[v]
            cover[lo:hi] += 1
        return bool(np.all(cover == 1))

    def ancestor_table(self) -> np.ndarray:
        """``(n_nodes, height + 1)`` int32: column ``d`` is each node's ancestor at depth ``d``.

        Entries deeper than the node itself repeat the node (so a column is
        always a valid generalization of every leaf: column ``d`` is
        :meth:`depth_cut` for all nodes at once). Plain arrays for kernels.
        """
        height = self.height
        table = np.empty((self.n_nodes, height + 1), dtype=np.int32)
        table[:, height] = np.arange(self.n_nodes, dtype=np.int32)
        for d in range(height - 1, -1, -1):
            below = table[:, d + 1]
            table[:, d] = np.where(self._depth[below] > d, self.parent[below], below)
        return table

    def rows(self) -> list[list[str]]:
        """One ``leaf -> root`` label row per leaf (the CSV form)."""
        # Each inner node's path to the root is its label before its parent's path, made once (parents
        # first, by depth) instead of walking up from every leaf.
        labels, up = self.labels, self.parent.tolist()
        above: dict[int, tuple[str, ...]] = {-1: ()}
        for v in np.argsort(self._depth, kind="stable").tolist():
            if self._children[v]:
                above[v] = (labels[v], *above[up[v]])
        return [[labels[v], *above[up[v]]] for v in self._leaf_order.tolist()]


def _one_depth_per_label(tree: Hierarchy) -> bool:
    """True if the nodes sharing a label all lie at one depth."""
    depth = tree.depth.tolist()
    return all(len({depth[v] for v in nodes}) == 1 for nodes in tree._by_label.values() if len(nodes) > 1)


# ---------------------------------------------------------------- builders
def interval_hierarchy(values: Iterable[float], widths: Sequence[float], *, start: float | None = None,
                       name: str = "hierarchy") -> Hierarchy:
    """Intervals of growing width over numbers, topped by ``*``.

    Parameters
    ----------
    values
        The numeric values (leaves are the distinct values, labelled as
        written by ``str`` of ints when integral).
    widths
        Interval width per level, bottom up, e.g. ``[5, 10, 20]``; each must
        be a multiple of the previous one so that intervals nest.
    start
        Left edge of the first interval (default: the smallest value rounded
        down to the first width).

    Labels are half-open intervals ``"[20, 30)"``.
    """
    vals = np.unique(np.asarray(list(values), dtype=np.float64))
    if len(vals) == 0:
        raise ValueError("no values")
    widths = [float(w) for w in widths]
    if any(w <= 0 for w in widths):
        raise ValueError("widths must be positive")
    for a, b in zip(widths, widths[1:]):
        ratio = b / a
        if abs(ratio - round(ratio)) > 1e-9 or ratio < 1:
            raise ValueError(f"width {b:g} is not a multiple of {a:g}; intervals would not nest")
    if start is None:
        start = float(np.floor(vals[0] / widths[0]) * widths[0])
    rows = []
    for v in vals.tolist():
        row = [_number_label(v)]
        for w in widths:
            lo = start + np.floor((v - start) / w) * w
            row.append(f"[{_number_label(lo)}, {_number_label(lo + w)})")
        row.append(ROOT_LABEL)
        rows.append(row)
    return Hierarchy.from_rows(rows, name=name)


def _number_label(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def masking_hierarchy(codes: Iterable[str], *, mask: str = "*", name: str = "hierarchy") -> Hierarchy:
    """Mask codes from the right one character per level: ``45501 -> 4550* -> 455** -> ... -> *****``.

    Codes of different lengths end in different all-mask labels; a root ``*``
    is then added above them.
    """
    rows = []
    for code in dict.fromkeys(str(c) for c in codes):
        if not code:
            raise ValueError("empty code")
        row = [code]
        for k in range(1, len(code) + 1):
            row.append(code[: len(code) - k] + mask * k)
        rows.append(row)
    if not rows:
        raise ValueError("no codes")
    return Hierarchy.from_rows(rows, name=name)


def frequency_balanced_taxonomy(items: Sequence[str], frequencies: Sequence[float], fanout: int, *,
                                name: str = "taxonomy") -> Hierarchy:
    """An item taxonomy whose sibling groups carry similar total frequency.

    Bottom-up: the nodes of a level are grouped into ``ceil(n / fanout)``
    parents; nodes are taken in decreasing frequency and each goes to the
    parent with the smallest total so far that still has room (the
    longest-processing-time rule), so every parent has at most ``fanout``
    children and parent totals differ by at most one child's frequency.
    Repeated until one node, the root ``*``, remains. Inner nodes are labelled
    ``"g<level>.<index>"``.
    """
    if fanout < 2:
        raise ValueError("fanout must be at least 2")
    items = [str(i) for i in items]
    freqs = np.asarray(frequencies, dtype=np.float64)
    if len(items) != len(freqs) or not items:
        raise ValueError("need one frequency per item and at least one item")
    if len(set(items)) != len(items):
        raise ValueError("items must be distinct")
    labels = list(items)
    parent = [-1] * len(items)
    level_nodes = list(range(len(items)))
    level_freq = freqs.tolist()
    level = 0
    while len(level_nodes) > 1:
        level += 1
        n_groups = -(-len(level_nodes) // fanout)
        if n_groups == 1:
            group_ids = [0] * len(level_nodes)
        else:
            totals = [0.0] * n_groups
            sizes = [0] * n_groups
            group_ids = [0] * len(level_nodes)
            # Stable order: ties in frequency keep input order, so builds are reproducible.
            for k in sorted(range(len(level_nodes)), key=lambda k: -level_freq[k]):
                g = min((g for g in range(n_groups) if sizes[g] < fanout), key=lambda g: (totals[g], g))
                group_ids[k] = g
                totals[g] += level_freq[k]
                sizes[g] += 1
        new_nodes = []
        new_freq = [0.0] * n_groups
        for g in range(n_groups):
            new_nodes.append(len(labels))
            labels.append(ROOT_LABEL if n_groups == 1 else f"g{level}.{g}")
            parent.append(-1)
        for k, node in enumerate(level_nodes):
            parent[node] = new_nodes[group_ids[k]]
            new_freq[group_ids[k]] += level_freq[k]
        level_nodes, level_freq = new_nodes, new_freq
    if len(items) == 1:
        labels.append(ROOT_LABEL)
        parent.append(-1)
        parent[0] = len(labels) - 1
    return Hierarchy(tuple(labels), np.asarray(parent, dtype=np.int32), name=name)


def _refuse_cycles(rows: list[list[str]]) -> None:
    """Raise :class:`HierarchyError` when the rows make a value its own generalization.

    Each row says "value -> parent -> ... -> top". Read as edges between
    labels (a label repeated in place, ``Male;Male;*``, is a level that keeps
    the value and no edge), the rows must not lead from a label back to
    itself: ``a;b`` with ``b;a`` (or ``a;b;a``) generalizes a to b and b to a.

    The distinct edges are peeled in topological order (Kahn), linear in their
    number; only rows that do hold a cycle go on to :func:`_explain_cycle`,
    which names the same loop and row as always.
    """
    pairs: set[tuple[str, str]] = set()
    for row in rows:
        pairs.update(zip(row, row[1:]))
    parents_of: dict[str, list[str]] = {}
    n_children: dict[str, int] = {}
    for child, parent in pairs:
        if child != parent:
            parents_of.setdefault(child, []).append(parent)
            n_children[parent] = n_children.get(parent, 0) + 1
    if not parents_of:
        return
    # Peel labels no edge points to (the values), then the groups whose children have all been peeled.
    ready = [label for label in parents_of if label not in n_children]
    peeled = 0
    while ready:
        label = ready.pop()
        peeled += 1
        for parent in parents_of.get(label, ()):
            left = n_children[parent] - 1
            n_children[parent] = left
            if not left:
                ready.append(parent)
    if peeled < len(parents_of.keys() | n_children.keys()):
        _explain_cycle(rows)
        raise AssertionError("unreachable: the rows hold a cycle")  # pragma: no cover


def _explain_cycle(rows: list[list[str]]) -> None:
    """Raise the :class:`HierarchyError` naming the first cycle a depth-first walk of the rows' edges meets."""
    edges: dict[str, set[str]] = {}
    first_row: dict[tuple[str, str], int] = {}
    for r, row in enumerate(rows):
        for child, parent in zip(row, row[1:]):
            if child != parent:
                edges.setdefault(child, set()).add(parent)
                first_row.setdefault((child, parent), r)
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in edges:
        if state.get(start):
            continue
        stack = [(start, iter(sorted(edges.get(start, ()))))]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                path = [n for n, _ in stack]
                loop = path[path.index(child):] + [child]
                raise HierarchyError(f"the hierarchy has a cycle: {' -> '.join(map(repr, loop))} (a value cannot "
                                     "generalize to itself)", first_row.get((node, child)))
            elif not state.get(child):
                state[child] = 1
                stack.append((child, iter(sorted(edges.get(child, ())))))
