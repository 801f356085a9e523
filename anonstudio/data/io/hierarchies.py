"""Hierarchy files: one row per leaf, ``leaf;parent;...;root`` (ARX style).

The same reader handles the INFORMS ICD-9 file, whose rows look like
``001;1,9;1,139;*``: fields are separated by ``;`` and an inner node such as
``1,9`` is the code range 001-009 written as ``first,last`` (so commas are
part of the labels there). Rows may differ in length (unbalanced trees).
"""
from __future__ import annotations

import csv
from pathlib import Path

from ..errors import DataFormatError
from ..hierarchy import Hierarchy, HierarchyError
from .atomic import atomic_write
from .text import read_text, split_lines

__all__ = ["load_hierarchy", "save_hierarchy"]


def _separator(lines: list[str]) -> str:
    sample = lines[:50]
    for sep in (";", "\t", ","):
        if any(sep in ln for ln in sample):
            return sep
    return ";"


def load_hierarchy(path: str | Path, *, sep: str | None = None, encoding: str | None = None,
                   latin1_fallback: bool = False, name: str | None = None) -> Hierarchy:
    """Read a hierarchy CSV (``,`` ``;`` or tab separated; sniffed unless ``sep``)."""
    path = Path(path)
    text = read_text(path, encoding=encoding, latin1_fallback=latin1_fallback)
    lines = split_lines(text)  # a form feed or U+2028 inside a row is not a row break
    sep = sep or _separator([ln for ln in lines if ln.strip()])
    numbered = [(i + 1, row) for i, row in enumerate(csv.reader(lines, delimiter=sep)) if any(f.strip() for f in row)]
    try:
        return Hierarchy.from_rows([row for _, row in numbered], name=name or path.stem)
    except HierarchyError as exc:
        line = numbered[exc.row][0] if exc.row is not None else None
        raise DataFormatError(path, exc.reason, line) from exc


def save_hierarchy(hierarchy: Hierarchy, path: str | Path, *, sep: str = ";") -> None:
    """Write one ``leaf -> root`` row per leaf, atomically."""
    with atomic_write(path) as fh:
        writer = csv.writer(fh, delimiter=sep, lineterminator="\n")
        writer.writerows(hierarchy.rows())
