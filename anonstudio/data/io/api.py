"""Public loading/saving entry points; formats are looked up in the registry."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..transactions import TransactionData
from .registry import format_for_extension, get_format, sniff_format
from .report import LoadReport, attach_report

__all__ = ["load_transactions", "save_transactions", "load_any"]


def _load(path: str | Path, format: str | None, kind: str | None, report: LoadReport | None,
          options: dict[str, Any]) -> Any:
    path = Path(path)
    fmt = get_format(format, kind) if format else sniff_format(path, kind)
    report = report if report is not None else LoadReport()
    report.path, report.format = path, fmt.name
    start = time.perf_counter()
    obj = fmt.load(path, report, **options)
    report.seconds = time.perf_counter() - start
    attach_report(obj, report)
    return obj


def load_transactions(path: str | Path, format: str | None = None, *, report: LoadReport | None = None,
                      **options: Any) -> TransactionData:
    """Load set-valued data.

    Parameters
    ----------
    path
        The file.
    format
        ``fimi``, ``spmf-seq``, ``csv-long``, ``csv-sets``, ``checkins``,
        ``parquet``; None sniffs the content.
    report
        Optional :class:`LoadReport` to fill; the report is also available
        afterwards as ``load_report(data)``.
    **options
        Format options (e.g. ``column=`` for ``csv-sets``, ``encoding=``,
        ``latin1_fallback=True``).

    Raises
    ------
    DataFormatError
        Naming file, line and reason; nothing is returned for a bad file.
    """
    return _load(path, format, "transactions", report, options)


def save_transactions(data: TransactionData, path: str | Path, format: str | None = None, **options: Any) -> None:
    """Write ``data`` atomically; ``format`` defaults from the file extension (``.dat`` -> fimi)."""
    path = Path(path)
    fmt = get_format(format, "transactions") if format else format_for_extension(path, "transactions")
    if fmt is None:
        raise ValueError(f"cannot tell the format from {path.name!r}; pass format=...")
    fmt.save(data, path, **options)


def load_any(path: str | Path, *, report: LoadReport | None = None, **options: Any) -> Any:
    """Load whatever ``path`` holds: a TransactionData or a Table (File > Open)."""
    return _load(path, None, None, report, options)
