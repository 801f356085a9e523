"""The sensitive labels of a nonreciprocal run: its labels file, read once for a dataset.

The pipeline checks the labels before the run (``NonreciprocalSpec.check_data``:
the file's format, ℓ-eligibility) and the run publishes them; both ask
:func:`labels_for`, which reads the file once and hands the same labels to
both while neither the file (path, size, modification time) nor the dataset
changed.
"""
from __future__ import annotations

import threading
import weakref
from pathlib import Path
from typing import Any

from ...data.io.record_labels import RecordLabels, load_record_labels
from ...data.io.report import load_report
from ...data.transactions import TransactionData

__all__ = ["labels_for"]

_LOCK = threading.Lock()
#: The last labels read: (file key, weak reference to the dataset, labels).
_LAST: tuple[tuple, Any, RecordLabels] | None = None


def _file_key(path: Path) -> tuple | None:
    try:
        st = path.stat()
    except OSError:
        return None  # the loader names the problem
    return str(path.resolve()), st.st_size, st.st_mtime_ns


def labels_for(data: TransactionData, params: Any) -> RecordLabels | None:
    """The labels file of ``params`` (``params.labels``) for ``data``; None without one.

    Raises
    ------
    DataFormatError
        A missing or malformed file, naming the file, the line and the reason.
    """
    global _LAST
    if params.labels is None:
        return None
    path = Path(params.labels)
    key = _file_key(path)
    with _LOCK:
        last = _LAST
        if key is not None and last is not None and last[0] == key and last[1]() is data:
            return last[2]
        labels = load_record_labels(path, data.n_records, load_report(data).record_ids)
        if key is not None:
            _LAST = (key, weakref.ref(data), labels)
        return labels
