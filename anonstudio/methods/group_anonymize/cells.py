"""Text form of one published cell: ``*``, ``{a|b}``, ``[20-29]``, ``4550*`` or a plain value.

A cell stands for a set of domain values:

- ``*``: any value of the column's domain;
- ``{a|b|c}``: exactly the listed values (values not in the domain are ignored);
- ``[lo-hi]``: numeric columns only, every domain value ``v`` with ``lo <= v <= hi``
  (both ends inclusive);
- ``prefix*``: every domain value whose text form starts with ``prefix``
  (e.g. ``4550*`` matches 45501 and 45502);
- anything else: the single value with that text.

The same rules serve the exporter (:func:`cell_text`) and the importer
(:func:`parse_cell`), so an export reads back to the same cells.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ...data.table import value_text

__all__ = ["cell_text", "parse_cell", "multiset_text", "parse_multiset", "CellError"]

_NUMBER = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_RANGE = re.compile(rf"^\[\s*({_NUMBER})\s*-\s*({_NUMBER})\s*\]$")


class CellError(ValueError):
    """A cell text that names no value of its column's domain, or is malformed."""


def cell_text(domain: Sequence, mask: np.ndarray, numeric: bool) -> str:
    """The shortest text of the ``mask`` cell: plain value, ``*``, range or set."""
    idx = np.flatnonzero(mask)
    if len(idx) == 0:
        raise CellError("a published cell must hold at least one value")
    if len(idx) == 1:
        return value_text(domain[idx[0]])
    if len(idx) == len(domain):
        return "*"
    if numeric and idx[-1] - idx[0] + 1 == len(idx):  # a run of consecutive sorted values
        return f"[{value_text(domain[idx[0]])}-{value_text(domain[idx[-1]])}]"
    return "{" + "|".join(value_text(domain[i]) for i in idx) + "}"


def parse_cell(text: str, domain: Sequence, numeric: bool, texts: Sequence[str] | None = None) -> np.ndarray:
    """Bool mask over ``domain`` of the values the cell ``text`` stands for.

    Parameters
    ----------
    texts
        ``value_text`` of every domain value (pass it when parsing many cells).

    Raises
    ------
    CellError
        The cell is malformed or stands for no domain value.
    """
    texts = list(texts) if texts is not None else [value_text(v) for v in domain]
    t = text.strip()
    if t == "*":
        return np.ones(len(domain), dtype=bool)
    if t.startswith("{") and t.endswith("}"):
        wanted = {p.strip() for p in t[1:-1].split("|")}
        mask = np.fromiter((x in wanted for x in texts), dtype=bool, count=len(texts))
        if not mask.any():
            raise CellError(f"no value of the set {t} is in the column's domain")
        return mask
    m = _RANGE.match(t)
    if m:
        if not numeric:
            raise CellError(f"range {t} on a non-numeric column")
        lo, hi = float(m.group(1)), float(m.group(2))
        if lo > hi:
            raise CellError(f"range {t} has its ends reversed")
        values = np.asarray(domain, dtype=float)
        mask = (values >= lo) & (values <= hi)
        if not mask.any():
            raise CellError(f"no domain value lies in the range {t}")
        return mask
    if t.endswith("*"):
        prefix = t[:-1]
        mask = np.fromiter((x.startswith(prefix) for x in texts), dtype=bool, count=len(texts))
        if not mask.any():
            raise CellError(f"no domain value matches the mask {t}")
        return mask
    mask = np.fromiter((x == t for x in texts), dtype=bool, count=len(texts))
    if not mask.any() and numeric:
        try:
            mask = np.asarray(domain, dtype=float) == float(t)
        except ValueError:
            pass
    if not mask.any():
        raise CellError(f"value {t!r} is not in the column's domain")
    return mask


def multiset_text(values: Sequence) -> str:
    """``{Flu|Flu|Heart}``: a multiset with repeats, in the given order."""
    return "{" + "|".join(value_text(v) for v in values) + "}"


def parse_multiset(text: str) -> list[str]:
    """The element texts of a ``{a|a|b}`` multiset, or ``[text]`` for a plain value."""
    t = text.strip()
    if t.startswith("{") and t.endswith("}"):
        return [p.strip() for p in t[1:-1].split("|")]
    return [t]
