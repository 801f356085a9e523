"""Per-row CSV of a threat analysis, shared by the CLI (``--rows-out``) and the GUI.

One line per cleartext row: ``row`` (from 1, as every file numbers rows), ``group`` (from 1), the true
sensitive value ``s``, ``p_A(s)``, ``p_L(s)``, ``p_RW(s)``, ``Ti`` (``inf``
where p_L(s) is 0), ``log2_Ti`` (empty when infinite) and the flags
``threatened_A`` / ``threatened_L`` (1 when that distribution's best guess is
the true value).
"""
from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np

from ...data.io import atomic_write
from .model import text_of

__all__ = ["ROW_COLUMNS", "write_rows_csv"]

ROW_COLUMNS = ("row", "group", "s", "p_A(s)", "p_L(s)", "p_RW(s)", "Ti", "log2_Ti", "threatened_A", "threatened_L")


def _number(x: float) -> str:
    return f"{x:.6g}" if math.isfinite(x) else ""


def write_rows_csv(result, row_group: np.ndarray, path: str | Path) -> Path:
    """Write the per-row CSV of ``result`` (a ``ThreatEstimates``) atomically.

    Parameters
    ----------
    result
        The finished (or partial) analysis.
    row_group
        Group id (from 0) of every cleartext row, e.g. ``GroupRelease.row_group``.
    path
        Destination; replaced only once the whole file is written.
    """
    rows = result.rows()
    names = [text_of(v) for v in result.sensitive_values]
    index = np.arange(result.n_rows)
    p_rw = result.p_RW[index, result.s_true]
    with np.errstate(divide="ignore"):
        log2_ti = np.log2(rows["Ti"])
    with atomic_write(Path(path)) as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(ROW_COLUMNS)
        for i in range(result.n_rows):
            ti = float(rows["Ti"][i])
            writer.writerow([i + 1, int(row_group[i]) + 1, names[int(result.s_true[i])], _number(rows["p_A"][i]),
                             _number(rows["p_L"][i]), _number(p_rw[i]), _number(ti) if math.isfinite(ti) else "inf",
                             _number(log2_ti[i]), int(rows["threatened_A"][i]), int(rows["threatened_L"][i])])
    return Path(path)
