"""Generalization levels of one attribute, for global recoding.

Level 0 publishes every value as is; each higher level merges values into
coarser nodes; the top level is one node, published as ``*``. A level is an
int array mapping each domain code to its node id at that level, plus the
published text of every node. Levels nest: values sharing a node at level h
share one at every level above.

Three builders:

- :func:`interval_levels` for numeric columns: level ``h`` groups values into
  the aligned intervals ``[o + j*w, o + (j+1)*w - 1]`` of width ``w = base * 2**h``
  (origin ``o`` = 0, or the smallest value if it is negative)
  (``base = 1`` for integer columns, so age 37 becomes 37, [36-37], [36-39],
  [32-39], [32-47], [32-63], [0-63], then ``*``). Widths double per level and
  intervals are aligned to multiples of the width, so they nest.
- :func:`flat_levels`: value, then ``*`` (categorical columns without a
  hierarchy).
- :func:`hierarchy_levels`: from leaf-to-root paths, as in a hierarchy CSV.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...data.hierarchy import Hierarchy
from ...data.table import value_text
from .cells import cell_text
from .domains import is_numeric_domain

__all__ = ["AttributeLevels", "interval_levels", "flat_levels", "hierarchy_levels", "default_levels"]


@dataclass(frozen=True)
class AttributeLevels:
    """The generalization levels of one column.

    Attributes
    ----------
    node_of
        One int64 array per level, ``(len(domain),)``: node id of each value.
    node_labels
        One list per level: published text of each node.
    """

    column: str
    node_of: tuple[np.ndarray, ...]
    node_labels: tuple[tuple[str, ...], ...]

    @property
    def n_levels(self) -> int:
        return len(self.node_of)

    def node_cells(self, level: int) -> np.ndarray:
        """``(n_nodes, len(domain))`` bool: the values inside each node."""
        node_of = self.node_of[level]
        cells = np.zeros((len(self.node_labels[level]), len(node_of)), dtype=bool)
        cells[node_of, np.arange(len(node_of))] = True
        return cells


def _check_nested(column: str, node_of: list[np.ndarray]) -> None:
    for h in range(1, len(node_of)):
        lower, upper = node_of[h - 1], node_of[h]
        # Every lower node must map into exactly one upper node.
        pairs = np.unique(np.stack([lower, upper], axis=1), axis=0)
        if len(np.unique(pairs[:, 0])) != len(pairs):
            raise ValueError(f"hierarchy of {column!r}: level {h} splits a node of level {h - 1}")


def _relabel(ids: np.ndarray) -> np.ndarray:
    return np.unique(ids, return_inverse=True)[1].astype(np.int64)


def interval_levels(column: str, domain: Sequence) -> AttributeLevels:
    """Aligned intervals whose width doubles per level (see the module docstring)."""
    values = np.asarray(domain, dtype=float)
    integer = bool(np.all(values == np.round(values)))
    span = float(values.max() - values.min()) if len(values) else 0.0
    # Float columns start at 1/1024 of the span so the number of levels stays small.
    base = 1.0 if integer else max(span / 1024.0, np.finfo(float).tiny)
    # Intervals are aligned at 0 for non-negative columns (nice bounds such as [32-39]); otherwise at the
    # smallest value, since intervals aligned at 0 would never merge values on both sides of it.
    origin = 0.0 if len(values) == 0 or values.min() >= 0 else float(values.min())
    node_of = [np.arange(len(values), dtype=np.int64)]
    labels = [tuple(value_text(v) for v in domain)]
    h = 1
    while len(labels[-1]) > 1:
        width = base * 2.0**h
        index = np.floor((values - origin) / width)
        ids = _relabel(index)
        texts = []
        for node in range(ids.max() + 1):
            members = np.flatnonzero(ids == node)
            if integer:
                lo = int(origin + index[members[0]] * width)
                texts.append(f"[{lo}-{lo + int(width) - 1}]")
            else:
                texts.append(f"[{value_text(values[members[0]])}-{value_text(values[members[-1]])}]")
        if len(texts) == 1:
            texts = ["*"]
        node_of.append(ids)
        labels.append(tuple(texts))
        h += 1
    return AttributeLevels(column, tuple(node_of), tuple(labels))


def flat_levels(column: str, domain: Sequence) -> AttributeLevels:
    """Each value, then ``*``."""
    n = len(domain)
    node_of = [np.arange(n, dtype=np.int64)]
    labels = [tuple(value_text(v) for v in domain)]
    if n > 1:
        node_of.append(np.zeros(n, dtype=np.int64))
        labels.append(("*",))
    return AttributeLevels(column, tuple(node_of), tuple(labels))


def hierarchy_levels(column: str, domain: Sequence, paths: Mapping[str, Sequence[str]]) -> AttributeLevels:
    """Levels from leaf-to-root paths ``{leaf text: [leaf, parent, ..., root]}``.

    Paths shorter than the longest one stay at their root once they reach it
    (aligned at the leaves). The top level is forced to a single ``*`` node.

    Raises
    ------
    ValueError
        A domain value has no path, or the levels do not nest.
    """
    texts = [value_text(v) for v in domain]
    missing = [t for t in texts if t not in paths]
    if missing:
        raise ValueError(f"hierarchy of {column!r} has no entry for {', '.join(missing[:5])}")
    chains = [list(paths[t])[1:] if list(paths[t])[:1] == [t] else list(paths[t]) for t in texts]
    depth = max((len(c) for c in chains), default=0)
    node_of = [np.arange(len(texts), dtype=np.int64)]
    labels = [tuple(texts)]
    for h in range(1, depth + 1):
        names = [c[min(h, len(c)) - 1] if c else t for c, t in zip(chains, texts)]
        uniq, ids = np.unique(np.asarray(names, dtype=object).astype(str), return_inverse=True)
        node_of.append(ids.astype(np.int64))
        labels.append(tuple(str(u) for u in uniq))
    if len(labels[-1]) > 1:
        node_of.append(np.zeros(len(texts), dtype=np.int64))
        labels.append(("*",))
    _check_nested(column, node_of)
    # Publish nodes as value sets so the release reads back without the hierarchy;
    # the top node is "*".
    published = [labels[0]]
    for h in range(1, len(node_of)):
        cells = np.zeros((len(labels[h]), len(texts)), dtype=bool)
        cells[node_of[h], np.arange(len(texts))] = True
        published.append(tuple(cell_text(domain, row, False) for row in cells))
    return AttributeLevels(column, tuple(node_of), tuple(published))


def default_levels(column: str, domain: Sequence,
                   paths: Hierarchy | Mapping[str, Sequence[str]] | None = None) -> AttributeLevels:
    """Hierarchy levels when a hierarchy (or leaf paths) is given, intervals for numbers, else flat."""
    if isinstance(paths, Hierarchy):
        paths = {row[0]: row for row in paths.rows()}
    if paths is not None:
        return hierarchy_levels(column, domain, paths)
    if is_numeric_domain(domain):
        return interval_levels(column, domain)
    return flat_levels(column, domain)

