"""Atomic file replacement: readers never see a half-written export."""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator

__all__ = ["atomic_write"]


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", *, encoding: str | None = "utf-8",
                 newline: str | None = "\n") -> Iterator[IO]:
    """Open a temporary file next to ``path``; on success move it into place.

    The temporary file lives in the same directory so that ``os.replace`` is an
    atomic rename on the same file system. If the body raises, the temporary
    file is removed and an existing ``path`` is left untouched.

    Parameters
    ----------
    path
        Final destination.
    mode
        ``"w"`` (text) or ``"wb"`` (binary).
    encoding, newline
        Text mode only; the defaults write UTF-8 with ``\\n`` line ends on
        every platform so exports are byte-identical across machines.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write supports mode 'w' or 'wb', not {mode!r}")
    path = Path(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        if mode == "wb":
            handle = os.fdopen(fd, "wb")
        else:
            handle = os.fdopen(fd, "w", encoding=encoding, newline=newline)
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates 0600 files; exports should get the usual umask permissions.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
