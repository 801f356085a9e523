"""How numbers read, wherever a person reads them: CLI, studio, report and certificate.

One module so that the same value reads the same everywhere. Qt-free: the
CLI and the report use it as well as the GUI.

* :func:`measure` is the form of a measure in a table or a line of text
  (whole numbers with thousands separators, others to six significant
  digits, ``n/a`` for a missing or non-finite value);
* :func:`integer`, :func:`number`, :func:`probability` and :func:`percent`
  are the compact forms of plot labels, callouts and inspectors;
* :func:`duration` is a wall-clock time (``42 s``, ``3 min 05 s``);
* :func:`count` is a number of things in words (``1 person``, ``2,000 people``).
"""
from __future__ import annotations

import math
from typing import Any

__all__ = ["measure", "integer", "number", "probability", "percent", "duration", "count", "MISSING"]

#: Plurals that are not the singular plus "s".
IRREGULAR_PLURALS = {"person": "people", "person's": "people's"}

#: How a missing or undefined value reads.
MISSING = "n/a"


def _finite(value: Any) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return x if math.isfinite(x) else None


def integer(value: Any) -> str:
    """1234567 -> ``"1,234,567"`` (whole numbers always with thousands separators)."""
    x = _finite(value)
    return MISSING if x is None else f"{int(round(x)):,}"


def count(value: Any, noun: str, plural: str | None = None) -> str:
    """``count(1, "person")`` -> ``"1 person"``, ``count(2000, "person")`` -> ``"2,000 people"``.

    ``plural`` defaults to :data:`IRREGULAR_PLURALS` or the noun plus "s".
    """
    x = _finite(value)
    if x is not None and int(round(x)) == 1:
        return f"1 {noun}"
    return f"{integer(value)} {plural or IRREGULAR_PLURALS.get(noun, noun + 's')}"


def number(value: Any, digits: int = 4) -> str:
    """A float with ``digits`` significant digits; whole numbers as :func:`integer`; NaN as ``n/a``, ±∞ as ∞."""
    if value is None:
        return MISSING
    try:
        x = float(value)
    except (TypeError, ValueError):
        return str(value)
    if math.isnan(x):
        return MISSING
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == int(x) and abs(x) < 1e15:
        return integer(x)
    return f"{x:.{digits}g}"


def measure(value: Any) -> str:
    """A measure in a table or a line: whole numbers with separators, others to six significant digits,
    booleans as yes/no, ``n/a`` for none or a non-finite value; text as it is."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    x = _finite(value)
    if x is None:
        return MISSING if isinstance(value, (int, float)) or hasattr(value, "__float__") else str(value)
    if x.is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:.6g}"


def probability(p: Any) -> str:
    """A probability with three decimals, and tiny non-zero ones in scientific notation (never ``0.000``)."""
    x = _finite(p)
    if x is None:
        return MISSING
    if 0 < x < 0.0005:
        return f"{x:.1e}"
    return f"{x:.3f}"


def percent(share: Any, digits: int = 1) -> str:
    """0.0465 -> ``"4.7 %"``; tiny non-zero shares stay visible as ``"< 0.1 %"``; None/NaN -> ``n/a``."""
    x = _finite(share)
    if x is None:
        return MISSING
    smallest = 10.0 ** -digits / 100.0
    if 0 < x < smallest:
        return f"< {smallest * 100:g} %"
    return f"{x * 100:.{digits}f} %"


def duration(seconds: float | None) -> str:
    """``"–"``, ``"42 s"``, ``"3 min 05 s"`` or ``"1 h 02 min"``."""
    if seconds is None:
        return "–"
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
