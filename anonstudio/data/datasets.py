"""Open a dataset the way every front end names one: a file path or a bundled sample's name."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import DataFormatError

__all__ = ["open_dataset"]


def open_dataset(spec: str | Path, *, format: str | None = None, encoding: str | None = None,
                 columns: str | None = None) -> Any:
    """Load a regular file (sniffed or in ``format``) or, when no such file exists, a bundled sample.

    ``columns`` (comma-separated names) reads a table file without a header
    row. Raises :class:`DataFormatError` naming the file and the reason: no
    such file or sample, a folder, pipe or device instead of a file, or a bad
    file; ValueError for an unknown format name.
    """
    from .io import load_file, load_table
    from .samples import list_samples, load_sample

    path = Path(spec)
    if path.exists() or path.is_symlink():
        _require_regular_file(path)
        if columns:
            names = [c.strip() for c in columns.split(",") if c.strip()]
            options = {"encoding": encoding} if encoding else {}
            return load_table(path, format=format, header=False, names=names, **options)
        return load_file(path, format, encoding=encoding)
    if not path.suffix and str(spec) in {s.name for s in list_samples()}:
        return load_sample(str(spec))
    raise DataFormatError(path, "no such file or bundled sample (anonstudio-cli samples lists the samples)")


def _require_regular_file(path: Path) -> None:
    from .io.atomic import file_kind

    try:
        kind = file_kind(path)
    except OSError as exc:
        raise DataFormatError(path, f"cannot be read ({exc.strerror or exc})") from None
    if kind == "folder":
        raise DataFormatError(path, "is a folder, not a data file")
    if kind == "special":
        raise DataFormatError(path, "is not a regular file (a pipe, device or socket); anonstudio reads data "
                                    "files only")
    if kind == "missing":
        raise DataFormatError(path, "is a broken link: its target does not exist")
