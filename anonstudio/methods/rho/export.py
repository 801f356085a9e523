"""Writing a ρ-uncertainty run: SUPPRESSED.dat and the sensitive rules (E_USED.csv: :mod:`.sensitive`).

``SUPPRESSED.dat`` keeps the input's lines in the same order: from a FIMI
file, every line is the original line with the suppressed items' tokens
taken out (comment lines and empty lines are kept as they are, token order is
the input's); other inputs are written in their own format through the
format registry. The run's JSON is the contract's (``MethodRun.to_json``).
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from ...data.io import atomic_write, save_transactions
from ...data.io.fimi import content_lines
from ...data.io.report import load_report
from ...data.io.text import read_text
from ...data.transactions import TransactionData
from ...jobs import raise_if_cancelled
from .result import RhoResult
from .rules import rule_browser

__all__ = ["write_suppressed", "write_rules"]


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
    # D' only removes items, so a record whose length is unchanged is its line as it was: only the shortened
    # records are looked at (one set difference each used to take ~30 s on 200,000 records).
    lengths_before = np.diff(original.indptr)
    lengths_after = np.diff(published.indptr)
    if len(lengths_after) != len(lengths_before):
        return False
    for done, u in enumerate(np.flatnonzero(lengths_after != lengths_before).tolist()):
        if done % 2048 == 0:
            raise_if_cancelled()  # a report writes this inside a cancel scope
        line, number = data_lines[u], numbers[u]
        gone_set = set(original.record(u).tolist()) - set(published.record(u).tolist())
        sep = "," if "," in line else " "
        tokens = line.replace(",", " ").split()
        try:
            kept = [t for t in tokens if index[str(int(t))] not in gone_set]
        except (KeyError, ValueError):
            return False
        out[number - 1] = sep.join(kept)
    with atomic_write(path) as fh:
        for start in range(0, len(out), 65536):
            raise_if_cancelled()
            fh.write("".join(line + "\n" for line in out[start:start + 65536]))
    return True


def write_rules(path: str | Path, result: RhoResult) -> None:
    """The rule browser as CSV: rule, confidence before and after, people threatened, what was suppressed.

    People and records are numbered from 1, as in every file and view.
    """
    browser = rule_browser(result)
    with atomic_write(path) as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["antecedent", "consequent", "confidence_before", "confidence_after", "people",
                         "people_listed", "suppressed"])
        for row in browser.rows():
            fixes = "; ".join(f"pass {f['pass']}: {f['suppressed_item']} from records "
                              f"{' '.join(str(u + 1) for u in f['records'])}" for f in row["repairs"])
            writer.writerow([" ".join(row["antecedent"]), row["consequent"],
                             "" if row["confidence_before"] is None else f"{row['confidence_before']:.6g}",
                             "" if row["confidence_after"] is None else f"{row['confidence_after']:.6g}",
                             row["people"], " ".join(str(u + 1) for u in row["people_listed"]), fixes])
