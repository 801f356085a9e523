"""Strict JSON for every document anonstudio writes: one place where NaN becomes null.

Results hold numpy scalars and arrays, paths, tuples and floats that may be
NaN or infinite (an undefined uniqueness, an unbounded ratio). JSON has no
NaN; :func:`strict_json` turns such values into ``null`` and everything else
into plain JSON types, and :func:`write_json` writes the document atomically.
"""
from __future__ import annotations

import json
import math
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np

from .atomic import OutputSet, atomic_write

__all__ = ["strict_json", "write_json", "dumps"]


def strict_json(obj: Any) -> Any:
    """``obj`` as plain JSON values: non-finite floats become None, numpy and paths become Python."""
    if obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        value = float(obj)
        return value if math.isfinite(value) else None
    if isinstance(obj, Mapping):
        return {str(k): strict_json(v) for k, v in obj.items()}
    if isinstance(obj, np.ndarray):
        return strict_json(obj.tolist())
    if isinstance(obj, (list, tuple, set, frozenset)):
        items = sorted(obj, key=str) if isinstance(obj, (set, frozenset)) else obj
        return [strict_json(v) for v in items]
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, Enum):
        return strict_json(obj.value)
    if hasattr(obj, "to_json"):
        return strict_json(obj.to_json())
    raise TypeError(f"{type(obj).__name__} is not JSON-serializable")


def dumps(doc: Any, indent: int | None = 2) -> str:
    """The strict JSON text of ``doc`` (ends with a newline)."""
    return json.dumps(strict_json(doc), indent=indent, allow_nan=False, ensure_ascii=False) + "\n"


def write_json(path: str | Path, doc: Any, *, indent: int | None = 2, outputs: OutputSet | None = None) -> None:
    """Write ``doc`` as strict JSON atomically (or into ``outputs``, committed with the run's other files)."""
    text = dumps(doc, indent)
    if outputs is not None:
        with outputs.open(path) as fh:
            fh.write(text)
        return
    with atomic_write(path) as fh:
        fh.write(text)
