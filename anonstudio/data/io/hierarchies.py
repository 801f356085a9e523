"""Hierarchy files: one row per leaf, ``leaf;parent;...;root`` (ARX style).

The same reader handles the INFORMS ICD-9 file, whose rows look like
``001;1,9;1,139;*``: fields are separated by ``;`` and an inner node such as
``1,9`` is the code range 001-009 written as ``first,last`` (so commas are
part of the labels there). Rows may differ in length (unbalanced trees).
"""
from __future__ import annotations

import contextlib
import csv
import gc
from pathlib import Path

from ...limits import check_work
from ..errors import DataFormatError
from ..hierarchy import Hierarchy, HierarchyError
from .atomic import atomic_write
from .text import read_text, split_lines

__all__ = ["load_hierarchy", "save_hierarchy", "check_distinct_labels"]


def _separator(lines: list[str]) -> str:
    sample = lines[:50]
    for sep in (";", "\t", ","):
        if any(sep in ln for ln in sample):
            return sep
    return ";"


def load_hierarchy(path: str | Path, *, sep: str | None = None, encoding: str | None = None,
                   latin1_fallback: bool = False, name: str | None = None,
                   distinct_labels: bool = False) -> Hierarchy:
    """Read a hierarchy CSV (``,`` ``;`` or tab separated; sniffed unless ``sep``).

    ``distinct_labels``: refuse a label carried by two nodes (see
    :func:`check_distinct_labels`), for releases that print a node by its label.
    """
    path = Path(path)
    with _collector_paused():
        return _load(path, sep, encoding, latin1_fallback, name, distinct_labels)


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic collector off while a tree is read (and back on after, if it was on).

    Reading makes a list per row and a tuple per node, none of them in a cycle, yet each few hundred of them
    set off a collection that walks every object the process holds (pandas, numba): on the INFORMS income
    tree (23,784 rows), in a process that has imported pandas and numba, 0.62-0.69 s with the collector
    and 0.26-0.41 s without.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _load(path: Path, sep: str | None, encoding: str | None, latin1_fallback: bool, name: str | None,
          distinct_labels: bool) -> Hierarchy:
    text = read_text(path, encoding=encoding, latin1_fallback=latin1_fallback)
    lines = split_lines(text)  # a form feed or U+2028 inside a row is not a row break
    sep = sep or _separator([ln for ln in lines if ln.strip()])
    numbered = [(i + 1, row) for i, row in enumerate(csv.reader(lines, delimiter=sep)) if any(map(str.strip, row))]
    if numbered:
        # The work-size guard: every level of a hierarchy is a generalization step some method tries.
        line, deepest = max(numbered, key=lambda lr: (len(lr[1]), -lr[0]))
        check_work("levels", len(deepest) - 1, where=f"{path.name}, line {line}")
    try:
        tree = Hierarchy.from_rows([row for _, row in numbered], name=name or path.stem)
    except HierarchyError as exc:
        line = numbered[exc.row][0] if exc.row is not None else None
        raise DataFormatError(path, exc.reason, line) from exc
    if distinct_labels:
        check_distinct_labels(tree, path, numbered)
    return tree


def check_distinct_labels(tree: Hierarchy, path: Path, numbered: list[tuple[int, list[str]]]) -> None:
    """Raise DataFormatError (naming the line) when two nodes of ``tree`` carry one label.

    A release prints a generalized cell as its node's label, so the label
    must name one node: a value repeated above itself (``M;M;*``) is a level
    that generalizes nothing, a value that is also the group of other values
    (``a;g;*`` with ``b;a;*``) makes a published ``a`` mean either, and a
    group on two levels is as ambiguous. :meth:`Hierarchy.from_rows` accepts
    all three (nodes are told apart by their level there).
    """
    by_label: dict[str, list[int]] = {}
    for node, label in enumerate(tree.labels):
        by_label.setdefault(label, []).append(node)
    shared = {label for label, nodes in by_label.items() if len(nodes) > 1}
    if not shared:
        return
    # The first line naming each label as a value (first field) and as a group (a later field).
    value_line: dict[str, int] = {}
    group_line: dict[str, int] = {}
    for line, row in numbered:
        fields = [f.strip() for f in row]
        while fields and not fields[-1]:
            fields.pop()
        if fields and fields[0] in shared:
            value_line.setdefault(fields[0], line)
            if fields[0] in fields[1:]:
                raise DataFormatError(path, f"value {fields[0]!r} is its own generalization (it is repeated "
                                            "above itself); each level above a value must name a group, so "
                                            f"drop the repeated {fields[0]!r}", line)
        for f in fields[1:]:
            if f in shared:
                group_line.setdefault(f, line)
    for label in sorted(shared, key=lambda x: min(group_line.get(x, 1 << 62), value_line.get(x, 1 << 62))):
        if label in value_line and label in group_line:
            raise DataFormatError(path, f"{label!r} is a value (line {value_line[label]}) and also a group of "
                                        f"other values (line {group_line[label]}): a published {label!r} would "
                                        "mean either; rename the group", group_line[label])
        raise DataFormatError(path, f"the group {label!r} appears on two levels (a value without a group above "
                                    "it may be missing its top, as in 'value;*'); a published "
                                    f"{label!r} would mean either; give each group its own label",
                              group_line.get(label))


def save_hierarchy(hierarchy: Hierarchy, path: str | Path, *, sep: str = ";") -> None:
    """Write one ``leaf -> root`` row per leaf, atomically."""
    with atomic_write(path) as fh:
        writer = csv.writer(fh, delimiter=sep, lineterminator="\n")
        writer.writerows(hierarchy.rows())
