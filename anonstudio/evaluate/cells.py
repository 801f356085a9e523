"""What a published table cell stands for: the evaluator's own reading of generalized cells.

A column's *domain* is the text of every value the original column holds (a
missing value reads ``?``). A published cell stands for a set of domain values:

* a domain value as written (``39``, ``Female``, ``021``; ``39.0`` = ``39`` on numeric columns);
* ``*``: every value (suppressed, as ARX writes it);
* ``{a|b|c}``: the values listed (values the original does not hold are allowed and
  stand for nothing); with repeats (``{Flu|Flu|Cold}``) it is a multiset, as Anatomy
  publishes a group's sensitive values, and its shares are the counts;
* a range on a numeric column: ``[20-29]``, ``20-29``, ``[20, 30[`` / ``[20, 30)``
  (upper end excluded), ``]20, 30]`` / ``(20, 30]`` (lower end excluded), ``<20``,
  ``<=20``, ``>=70``, ``>70``;
* a node of the column's hierarchy (``--hierarchy COL=FILE``): the leaves under it;
* a mask ``4550*`` (``*`` at the end, possibly several): the values whose text starts
  with what precedes it.

Anything else is an error naming the cell. This module shares no code with the
group anonymizers' reader; it reads cells as a privacy officer would.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["CellError", "Domain", "MISSING", "value_text"]

#: How a missing original value reads (UCI Adult's convention).
MISSING = "?"

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_DASH = re.compile(rf"^\[?\s*({_NUMBER})\s*-\s*({_NUMBER})\s*\]?$")
_INTERVAL = re.compile(rf"^([\[\]\(])\s*({_NUMBER})\s*[,;]\s*({_NUMBER})\s*([\[\]\)])$")
_BOUND = re.compile(rf"^(<=|>=|<|>|≤|≥)\s*({_NUMBER})$")


class CellError(ValueError):
    """A cell that stands for no value of its column, or is malformed."""


def value_text(value) -> str:
    """The text of an original value: ``39`` for 39 and 39.0, ``?`` when missing."""
    if value is None:
        return MISSING
    try:
        if value != value:  # NaN, pandas NA compare unequal (NA raises, caught below)
            return MISSING
    except (TypeError, ValueError):
        return MISSING
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        f = float(value)
        return str(int(f)) if f.is_integer() else repr(f)
    return str(value)


@dataclass
class Domain:
    """The values of one original column and how cells of that column read.

    ``texts`` in order (codes index it), ``numbers`` their values where the
    column is numeric, ``hierarchy`` node label -> leaf texts under it.
    """

    column: str
    texts: list[str]
    numeric: bool
    hierarchy: dict[str, list[str]] | None = None
    _index: dict[str, int] = field(default_factory=dict, init=False, repr=False)
    _numbers: np.ndarray | None = field(default=None, init=False, repr=False)
    _cache: dict[str, tuple[np.ndarray, np.ndarray | None]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self._index = {t: i for i, t in enumerate(self.texts)}
        if self.numeric:
            self._numbers = np.array([float(t) if t != MISSING else math.nan for t in self.texts])

    @property
    def size(self) -> int:
        return len(self.texts)

    def code(self, text: str) -> int:
        """The code of an original value's text (-1 if the column never holds it)."""
        return self._index.get(text, -1)

    def read(self, text: str) -> tuple[np.ndarray, np.ndarray | None]:
        """(mask of the values the cell stands for, shares per value for a multiset cell or None)."""
        hit = self._cache.get(text)
        if hit is None:
            hit = self._cache[text] = self._read(text.strip())
        return hit

    def _mask(self, wanted) -> np.ndarray:
        mask = np.zeros(self.size, dtype=bool)
        for t in wanted:
            i = self._index.get(t, -1)
            if i >= 0:
                mask[i] = True
        return mask

    def _read(self, t: str) -> tuple[np.ndarray, np.ndarray | None]:
        if t in self._index:
            mask = np.zeros(self.size, dtype=bool)
            mask[self._index[t]] = True
            return mask, None
        if t == "*":
            return np.ones(self.size, dtype=bool), None
        if t.startswith("{") and t.endswith("}"):
            parts = [p.strip() for p in t[1:-1].split("|")]
            if not any(parts):
                raise CellError(f"empty set {t!r}")
            counts = np.zeros(self.size)
            for p in parts:
                i = self._index.get(p, -1)
                if i >= 0:
                    counts[i] += 1
            mask = counts > 0
            if not mask.any():
                raise CellError(f"no value of the set {t!r} occurs in the original column")
            repeated = len(parts) != len(set(parts))
            return mask, (counts / counts.sum() if repeated else None)
        if self.hierarchy is not None and t in self.hierarchy:
            mask = self._mask(self.hierarchy[t])
            if not mask.any():
                raise CellError(f"hierarchy node {t!r} covers no value of the original column")
            return mask, None
        if self.numeric:
            mask = self._range(t)
            if mask is not None:
                return mask, None
            try:  # 39.0 for 39, 1e3 for 1000
                x = float(t)
            except ValueError:
                pass
            else:
                mask = self._numbers == x
                if mask.any():
                    return mask, None
                raise CellError(f"value {t!r} does not occur in the original column")
        if t.endswith("*"):
            prefix = t.rstrip("*")
            mask = np.fromiter((s.startswith(prefix) for s in self.texts), dtype=bool, count=self.size)
            if not mask.any():
                raise CellError(f"no value of the original column matches the mask {t!r}")
            return mask, None
        what = "a value of the original column, a range, a set {a|b}, * or a mask"
        if self.hierarchy is not None:
            what += " or a node of its hierarchy"
        raise CellError(f"{t[:60]!r} is not {what}")

    def _range(self, t: str) -> np.ndarray | None:
        x = self._numbers
        found = _DASH.match(t)
        if found:
            lo, hi = float(found.group(1)), float(found.group(2))
            if lo > hi:
                raise CellError(f"range {t!r} has its ends reversed")
            return self._nonempty((x >= lo) & (x <= hi), t)
        found = _INTERVAL.match(t)
        if found:
            left, lo, hi, right = found.group(1), float(found.group(2)), float(found.group(3)), found.group(4)
            if lo > hi:
                raise CellError(f"range {t!r} has its ends reversed")
            low_ok = x >= lo if left == "[" else x > lo
            high_ok = x <= hi if right == "]" else x < hi
            return self._nonempty(low_ok & high_ok, t)
        found = _BOUND.match(t)
        if found:
            op, v = found.group(1), float(found.group(2))
            mask = {"<": x < v, "<=": x <= v, "≤": x <= v, ">": x > v, ">=": x >= v, "≥": x >= v}[op]
            return self._nonempty(mask, t)
        return None

    @staticmethod
    def _nonempty(mask: np.ndarray, t: str) -> np.ndarray:
        mask = np.asarray(mask, dtype=bool)
        if not mask.any():
            raise CellError(f"no value of the original column lies in {t!r}")
        return mask


def domain_of(column: str, values: Sequence, numeric: bool, hierarchy: dict[str, list[str]] | None = None) -> Domain:
    """The domain of an original column from its values (sorted: numbers ascending, texts as strings)."""
    texts = sorted({value_text(v) for v in values}, key=lambda s: (s == MISSING, _sort_key(s, numeric)))
    return Domain(column, texts, numeric, hierarchy)


def _sort_key(text: str, numeric: bool):
    if numeric and text != MISSING:
        return (0, float(text), "")
    return (1, 0.0, text)
