"""Slow, obvious references for building a hierarchy from its rows.

``from_rows_reference`` is :meth:`anonstudio.data.hierarchy.Hierarchy.from_rows` as it was before it kept
nodes as (parent node, label) pairs and skipped repeated ancestors: every row walked top-down with a tuple
path per node, and the cycle check a depth-first walk over every row's edges. It returns the labels and
parents of the nodes (before the constructor derives the rest) or raises the same
:class:`~anonstudio.data.hierarchy.HierarchyError`. ``has_cycle_reference`` asks, label by label, whether
following the rows' edges upwards ever comes back.
"""
from __future__ import annotations

from anonstudio.data.hierarchy import ROOT_LABEL, HierarchyError


def has_cycle_reference(rows: list[list[str]]) -> bool:
    """True if some label reaches itself along child -> parent edges (a label repeated in place is no edge)."""
    edges: dict[str, set[str]] = {}
    for row in rows:
        for child, parent in zip(row, row[1:]):
            if child != parent:
                edges.setdefault(child, set()).add(parent)
    for start in edges:
        seen: set[str] = set()
        todo = list(edges[start])
        while todo:
            label = todo.pop()
            if label == start:
                return True
            if label not in seen:
                seen.add(label)
                todo.extend(edges.get(label, ()))
    return False


def from_rows_reference(rows) -> tuple[list[str], list[int]]:
    """Labels and parents of the nodes ``Hierarchy.from_rows`` builds from ``rows`` (or its HierarchyError)."""
    labels: list[str] = []
    parent: list[int] = []
    node_of: dict[tuple[str, ...], int] = {}
    parent_label: dict[tuple[int, str], tuple[str, ...]] = {}
    leaves_seen: dict[str, int] = {}
    tops: list[str] = []
    prepared: list[list[str]] = []
    source_row: list[int] = []
    for r, row in enumerate(rows):
        row = [str(x).strip() for x in row]
        while row and row[-1] == "":
            row.pop()
        if not row:
            continue
        if any(x == "" for x in row):
            raise HierarchyError(f"row {r + 1} has an empty value", r)
        if row[0] in leaves_seen:
            if prepared[leaves_seen[row[0]]] == row:
                continue
            raise HierarchyError(f"value {row[0]!r} appears in two rows with different ancestors", r)
        leaves_seen[row[0]] = len(prepared)
        prepared.append(row)
        source_row.append(r)
        if row[-1] not in tops:
            tops.append(row[-1])
    if not prepared:
        raise HierarchyError("no rows")
    _refuse_cycles_reference(prepared)
    add_root = len(tops) > 1
    if add_root:
        labels.append(ROOT_LABEL)
        parent.append(-1)
    for r, row in enumerate(prepared):
        path: tuple[str, ...] = ()
        up = 0 if add_root else -1
        for level_from_top, label in enumerate(row[::-1]):
            key = (level_from_top, label)
            if key in parent_label and parent_label[key] != path:
                raise HierarchyError(
                    f"{label!r} has two different parents ({_show(parent_label[key])} and {_show(path)})", r)
            parent_label.setdefault(key, path)
            path = path + (label,)
            node = node_of.get(path)
            if node is None:
                node = len(labels)
                node_of[path] = node
                labels.append(label)
                parent.append(up)
            up = node
    has_children = set(parent)
    for p, row in enumerate(prepared):
        if node_of[tuple(row[::-1])] in has_children:
            raise HierarchyError(f"{row[0]!r} is listed as a value and as a generalization", source_row[p])
    return labels, parent


def _show(path: tuple[str, ...]) -> str:
    return repr(path[-1]) if path else "none"


def _refuse_cycles_reference(rows: list[list[str]]) -> None:
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
