"""Exports of a Threats run, written atomically (an existing file is replaced only when complete).

* :func:`write_rows_csv`: one line per analysed row — ``row`` (from 0, as in
  the CLI), ``group`` (from 1), the true sensitive value ``s``, ``p_A(s)``,
  ``p_L(s)``, ``p_RW(s)``, ``Ti`` and ``log2_Ti`` (empty when infinite), and
  the flags ``threatened_A`` / ``threatened_L`` (1 when the distribution's
  best guess is the true value).
* :func:`write_measures_json`: the measures with their meanings, the run's
  parameters, the release and its independent check, convergence diagnostics.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from ..data.io import atomic_write
from ..methods.threat.export import ROW_COLUMNS
from ..methods.threat.export import write_rows_csv as write_result_rows
from .threat_job import ThreatRun

__all__ = ["write_rows_csv", "write_measures_json", "measures_json", "ROW_COLUMNS"]


def write_rows_csv(run: ThreatRun, path: str | Path) -> Path:
    """Per-row CSV of a run with estimates (columns: :data:`ROW_COLUMNS`)."""
    if run.result is None:
        raise ValueError("the run has no estimates yet")
    return write_result_rows(run.result, run.release.row_group, path)


def _clean(x: Any) -> Any:
    """Non-finite numbers as null (strict JSON has no NaN), numpy values and paths as plain ones."""
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, np.ndarray)):
        return [_clean(v) for v in list(x)]
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    return str(x)


def measures_json(run: ThreatRun) -> dict[str, Any]:
    """The measures document (no per-row arrays: those are in the rows CSV)."""
    if run.result is None:
        raise ValueError("the run has no estimates yet")
    doc = run.result.to_json()
    doc.pop("rows", None)
    setup = run.setup
    doc["complete"] = run.complete
    doc["release"] = {
        "anonymization": run.params.scheme, "k": run.params.k, "l": run.params.l,
        "source_csv": str(setup.csv_path) if setup.csv_path else None,
        "rows": run.release.n_rows, "groups": run.release.n_groups, "summary": run.release_text(),
        "verifier": run.report.to_json() if run.report is not None else None,
    }
    doc["dataset"] = getattr(run.table, "name", "table")
    return _clean(doc)


def write_measures_json(run: ThreatRun, path: str | Path) -> Path:
    with atomic_write(Path(path)) as fh:
        json.dump(measures_json(run), fh, indent=1, allow_nan=False)
    return Path(path)
