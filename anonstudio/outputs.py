"""Output paths that would clobber each other or an input, found before any work starts.

Every command (and the studio's export dialogs) hands :func:`check_distinct`
the files it is about to write and the files it reads, each with the label a
person knows it by (``--out release.dat``, ``the dataset chess.dat``,
``the project study.toml``). Two names are the same file when

* both exist and ``os.stat`` gives the same device and inode (a symbolic
  link, a hard link, ``./x`` and ``x``), or
* either is missing and both resolve (every symbolic link followed, also a
  dangling one) to the same absolute path: the file a write would create.

Qt-free and free of the data layer, so the CLI, the studio and the library
share it.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["OutputClash", "file_identity", "check_distinct", "shared_path"]


class OutputClash(ValueError):
    """Two outputs, or an output and an input, name one file: one line naming both."""


def file_identity(path: str | os.PathLike) -> tuple:
    """What identifies the file ``path`` names: ``("inode", dev, ino)`` if it exists, else its resolved path."""
    text = os.fspath(path)
    try:
        st = os.stat(os.path.expanduser(text))
    except (OSError, ValueError):  # missing, a dangling link, a NUL in the name
        return ("path", os.path.realpath(os.path.abspath(os.path.expanduser(text))))
    return ("inode", st.st_dev, st.st_ino)


def check_distinct(outputs: Iterable[tuple[str, str | os.PathLike | None]],
                   inputs: Iterable[tuple[str, str | os.PathLike | None]] = ()) -> None:
    """Raise :class:`OutputClash` when two outputs, or an output and an input, are one file.

    Parameters
    ----------
    outputs
        ``(label, path)`` for every file the command will write; ``None`` paths are skipped.
        The label names the flag or role, e.g. ``"--json run.json"``.
    inputs
        ``(label, path)`` for every file it reads (dataset, side files, project).
    """
    seen: dict[tuple, str] = {}
    for label, path in inputs:
        if path is not None:
            seen.setdefault(file_identity(path), label)
    input_ids = set(seen)
    for label, path in outputs:
        if path is None:
            continue
        key = file_identity(path)
        if key in seen:
            if key in input_ids:
                raise OutputClash(f"{label} is an input of this run (the same file as {seen[key]}); choose "
                                  "another output file (nothing was written)")
            raise OutputClash(f"{label} and {seen[key]} are the same file; give each output its own file "
                              "(nothing was written)")
        seen[key] = label


def labelled(flag: str, path: str | os.PathLike | None) -> tuple[str, Path | None]:
    """``(label, path)`` for :func:`check_distinct`: the flag followed by the path as given."""
    return (f"{flag} {os.fspath(path)}" if path is not None else flag, None if path is None else Path(path))


def shared_path(path: str | os.PathLike) -> str:
    """How a document that travels (a run's JSON) names a local file: never by an absolute path.

    A relative name is kept as given (as typed on the command line); an
    absolute one becomes relative to the current folder when it lies under
    it, else it is reduced to the file's name. The SHA-256 a document keeps
    beside it identifies the file; the folders of this machine stay here.
    """
    p = Path(path)
    if not p.is_absolute():
        return os.fspath(path)
    try:
        return p.relative_to(Path.cwd()).as_posix()
    except (ValueError, OSError):  # outside the current folder (or the current folder is gone)
        return p.name
