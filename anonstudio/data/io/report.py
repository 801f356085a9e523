"""What a loader noticed while reading a file (shown by the GUI and CLI)."""
from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["LoadReport", "load_report"]


@dataclass
class LoadReport:
    """Warnings and facts gathered while loading one file.

    Parameters
    ----------
    path
        The file read.
    format
        Registry name of the format used (e.g. ``"fimi"``).
    warnings
        Plain-language lines such as
        ``"12 records had duplicate items (e.g. lines 3, 8, 40; 15 repeats), deduplicated"``.
    record_ids
        Original record/user identifiers, for formats that carry them
        (``csv-long``, ``checkins``, ``parquet`` long form, database rows);
        record ``u`` of the dataset came from ``record_ids[u]`` (a list, or for
        integer ids read as numbers an :class:`~.build.IntLabels` of their texts).
    seconds
        Wall time spent loading.
    """

    path: Path | None = None
    format: str = ""
    warnings: list[str] = field(default_factory=list)
    record_ids: Sequence[str] | None = None
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    def warn(self, message: str) -> None:
        self.warnings.append(message)


# Reports are kept beside the loaded objects rather than inside them because
# TransactionData is frozen; the weak keys let datasets be garbage-collected.
_REPORTS: weakref.WeakKeyDictionary[Any, LoadReport] = weakref.WeakKeyDictionary()


def attach_report(obj: Any, report: LoadReport) -> None:
    _REPORTS[obj] = report


def load_report(obj: Any) -> LoadReport:
    """The :class:`LoadReport` of a dataset or table returned by a loader.

    Objects not created by a loader get an empty report.
    """
    try:
        return _REPORTS[obj]
    except (KeyError, TypeError):
        return LoadReport()
