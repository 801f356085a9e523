"""Public loading/saving entry points; formats are looked up in the registry."""
from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..table import Table
from ..transactions import TransactionData
from .documents import refuse_documents
from .registry import Format, format_for_extension, get_format, sniff_format
from .report import LoadReport, attach_report

__all__ = ["load_transactions", "save_transactions", "load_table", "save_table", "load_any", "load_file"]


@functools.cache
def _parameters(load: Any) -> Mapping[str, inspect.Parameter]:
    """A loader's parameters (looked up once: inspecting a signature costs about a millisecond)."""
    return inspect.signature(load).parameters


def _check_options(fmt: Format, options: dict[str, Any]) -> None:
    """A clear error for an option the chosen format does not take (instead of a TypeError deep inside)."""
    params = _parameters(fmt.load)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    unknown = [k for k in options if k not in params or k in ("path", "report")]
    if unknown:
        accepted = ", ".join(k for k, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY)
        raise ValueError(f"format {fmt.name!r} has no option {unknown[0]!r}; options: {accepted or 'none'}")


def _load(path: str | Path, format: str | None, kind: str | None, report: LoadReport | None,
          options: dict[str, Any], progress: Any = None) -> Any:
    path = Path(path)
    if format:
        refuse_documents(path)  # sniffing refuses them; a format given by name must too
    fmt = get_format(format, kind) if format else sniff_format(path, kind, encoding=options.get("encoding"),
                                                               sheet=options.get("sheet"))
    _check_options(fmt, options)
    report = report if report is not None else LoadReport()
    report.path, report.format = path, fmt.name
    start = time.perf_counter()
    if progress is not None and "progress" in _parameters(fmt.load):
        options = {**options, "progress": progress}
    obj = fmt.load(path, report, **options)
    report.seconds = time.perf_counter() - start
    attach_report(obj, report)
    return obj


def load_transactions(path: str | Path, format: str | None = None, *, report: LoadReport | None = None,
                      progress: Any = None, **options: Any) -> TransactionData:
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
    progress
        Optional :class:`~anonstudio.jobs.Progress`: told the share of the
        file read; when it is cancelled, loading stops between chunks and
        raises :class:`~anonstudio.data.errors.LoadCancelled` (nothing is
        returned, nothing is half-loaded).
    **options
        Format options (e.g. ``column=`` for ``csv-sets``, ``encoding=``,
        ``latin1_fallback=True``).

    Raises
    ------
    DataFormatError
        Naming file, line and reason; nothing is returned for a bad file.
    LoadCancelled
        ``progress`` was cancelled.
    """
    return _load(path, format, "transactions", report, options, progress)


def _save(obj: Any, path: str | Path, format: str | None, kind: str, options: dict[str, Any]) -> None:
    path = Path(path)
    fmt = get_format(format, kind) if format else format_for_extension(path, kind)
    if fmt is None:
        raise ValueError(f"cannot tell the format from {path.name!r}; pass format=...")
    fmt.save(obj, path, **options)


def save_transactions(data: TransactionData, path: str | Path, format: str | None = None, **options: Any) -> None:
    """Write ``data`` atomically; ``format`` defaults from the file name
    (``.dat``/``.txt`` fimi, ``.csv`` csv-long, ``.sets.csv`` csv-sets, ``.tsv`` checkins,
    ``.parquet`` parquet, ``.seq`` spmf-seq)."""
    _save(data, path, format, "transactions", options)


def load_table(path: str | Path, *, header: bool | str = "auto", missing: tuple[str, ...] = ("?",),
               format: str | None = None, report: LoadReport | None = None, progress: Any = None,
               **options: Any) -> Table:
    """Load a relational table (CSV or Parquet).

    Parameters
    ----------
    header
        ``"auto"``, True or False (CSV only).
    missing
        Values meaning "missing" besides an empty field (CSV only).
    format
        ``csv-table`` or ``parquet-table``; None sniffs.
    progress
        As for :func:`load_transactions` (a cancel raises ``LoadCancelled``).
    **options
        ``names=`` column names, ``sep=``, ``strip_label_dots=``, ``encoding=``...
    """
    path = Path(path)
    fmt_name = format or sniff_format(path, "table", encoding=options.get("encoding"),
                                      sheet=options.get("sheet")).name
    if fmt_name == "csv-table":
        options = {"header": header, "missing": tuple(missing), **options}
    return _load(path, fmt_name, "table", report, options, progress)


def save_table(table: Table, path: str | Path, format: str | None = None, **options: Any) -> None:
    """Write a table atomically (``.csv`` with a header row, or ``.parquet``)."""
    _save(table, path, format, "table", options)


def load_any(path: str | Path, *, report: LoadReport | None = None, progress: Any = None, **options: Any) -> Any:
    """Load whatever ``path`` holds: a TransactionData or a Table (File > Open)."""
    return _load(path, None, None, report, options, progress)


def load_file(path: str | Path, format: str | None = None, *, encoding: str | None = None,
              report: LoadReport | None = None, progress: Any = None) -> Any:
    """Load a file of either kind, in ``format`` (any registered name) or sniffed.

    ``encoding`` is passed to the text formats; binary formats (Parquet)
    store their own text encoding and ignore it. ``progress`` as for
    :func:`load_transactions`: a cancel raises
    :class:`~anonstudio.data.errors.LoadCancelled` and returns nothing.
    """
    path = Path(path)
    fmt = get_format(format) if format else sniff_format(path, encoding=encoding)
    options = {}
    if encoding is not None and "encoding" in _parameters(fmt.load):
        options["encoding"] = encoding
    if fmt.kind == "table":
        return load_table(path, format=fmt.name, report=report, progress=progress, **options)
    return _load(path, fmt.name, fmt.kind, report, options, progress)
