"""Shared helpers of the nonreciprocal tests."""
from pathlib import Path

from anonstudio.data.io.record_labels import RecordLabels


def labels_file(folder: Path, labels: RecordLabels, name: str = "labels.csv") -> Path:
    """Write ``labels`` as a record,label CSV (records numbered from 1) and return its path."""
    path = Path(folder) / name
    path.write_text("record,label\n" + "".join(f"{u + 1},{labels.names[c]}\n" for u, c in enumerate(labels.codes)))
    return path
