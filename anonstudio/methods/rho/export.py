"""Writing a ρ-uncertainty run: SUPPRESSED.dat, E_USED.csv and the run's JSON.

``SUPPRESSED.dat`` keeps the input's lines in the same order: from a FIMI
file, every line is the original line with the suppressed items' tokens
taken out (comment lines and empty lines are kept as they are, token order is
the input's); other inputs are written in their own format through the
format registry.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ...data.io import atomic_write, save_transactions
from ...data.io.fimi import content_lines
from ...data.io.jsonfile import strict_json, write_json
from ...data.io.report import load_report
from ...data.io.text import read_text
from ...data.transactions import TransactionData
from .result import RhoResult
from .sensitive import write_sensitive

__all__ = ["write_suppressed", "write_sensitive_used", "write_result_json", "result_json"]


def write_suppressed(path: str | Path, result: RhoResult, format: str | None = None) -> None:
    """Write D' in the input's format (see the module docstring); ``format`` overrides it."""
    original, published = result.original, result.published
    fmt = format or load_report(original).format or None
    if fmt in (None, "fimi") and original.source is not None and _write_fimi_lines(path, original, published):
        return
    save_transactions(published, path, fmt or "fimi")


def _write_fimi_lines(path: str | Path, original: TransactionData, published: TransactionData) -> bool:
    """The source file's lines minus suppressed tokens; False if the source no longer matches the data."""
    try:
        text = read_text(original.source, allow_empty=True)
    except (OSError, ValueError):
        return False
    lines = text.splitlines()
    data_lines, numbers = content_lines(text)
    if len(data_lines) != original.n_records:
        return False
    index = {label: i for i, label in enumerate(original.vocab)}
    out = list(lines)
    for u, (line, number) in enumerate(zip(data_lines, numbers)):
        gone = np.setdiff1d(original.record(u), published.record(u), assume_unique=True)
        if not len(gone):
            continue
        gone_set = set(gone.tolist())
        sep = "," if "," in line else " "
        tokens = line.replace(",", " ").split()
        try:
            kept = [t for t in tokens if index[str(int(t))] not in gone_set]
        except (KeyError, ValueError):
            return False
        out[number - 1] = sep.join(kept)
    with atomic_write(path) as fh:
        for line in out:
            fh.write(line)
            fh.write("\n")
    return True


def write_sensitive_used(path: str | Path, result: RhoResult) -> None:
    """``E_USED.csv``: the sensitive constraint of the run (``*`` rows for items everyone protects)."""
    write_sensitive(path, result.constraint)


def result_json(result: RhoResult, verification: object | None = None) -> dict:
    """The run's JSON, with the independent check under ``verification`` when given (strict: NaN → null).

    The CLI and GUI write the run through the method contract instead; this is for scripts.
    """
    doc = result.to_json()
    doc["verification"] = verification.to_json() if verification is not None else None
    return strict_json(doc)


def write_result_json(path: str | Path, result: RhoResult, verification: object | None = None) -> None:
    """Write :func:`result_json` atomically."""
    write_json(path, result_json(result, verification))
