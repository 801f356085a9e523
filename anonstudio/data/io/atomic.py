"""Atomic file replacement: readers never see a half-written export.

Every export goes through :func:`atomic_write` (one file) or
:class:`OutputSet` (the several files of one run, committed together). Both

* write a temporary file beside the destination and rename it into place, so
  an existing file is only replaced once the new one is complete;
* write *through* a symbolic link to its target (the link stays a link);
* refuse to replace anything that is not a regular file (a device such as
  ``/dev/full``, a folder, a pipe), with a one-line :class:`OutputPathError`;
* name their temporary files ``.NAME.anonstudio-PID-RANDOM.tmp`` so that the
  leftovers of a killed run are recognised and removed by the next write to
  the same destination.
"""
from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

__all__ = ["atomic_write", "OutputSet", "OutputPathError", "check_output_path", "resolve_output", "file_kind"]

_TMP_SUFFIX = ".tmp"


class OutputPathError(OSError):
    """An output path that cannot be written: one line naming the path and the reason."""

    def __init__(self, path: str | Path, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = Path(path)
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def file_kind(path: str | Path) -> str:
    """``"file"``, ``"folder"``, ``"special"`` (pipe, device, socket) or ``"missing"``; OSError if unreadable."""
    try:
        mode = Path(path).stat().st_mode
    except FileNotFoundError:
        return "missing"
    if stat.S_ISDIR(mode):
        return "folder"
    return "file" if stat.S_ISREG(mode) else "special"


def _same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one file (False when either cannot be inspected)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def resolve_output(path: str | Path) -> Path:
    """The file a write to ``path`` really replaces: a symlink's target, else ``path`` itself."""
    path = Path(path).expanduser()
    if path.is_symlink():
        return Path(os.path.realpath(path))
    return path


def check_output_path(path: str | Path, *, inputs: tuple[Path, ...] = ()) -> Path:
    """Check before any work starts that ``path`` can be written; return the real destination.

    Raises
    ------
    OutputPathError
        The folder is missing or not writable, the path is a folder or a
        device, or it is one of the ``inputs`` (never overwrite the input).
    """
    target = resolve_output(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.exists():
        raise OutputPathError(path, f"the folder {folder} does not exist")
    if not folder.is_dir():
        raise OutputPathError(path, f"{folder} is not a folder")
    if target.exists() or target.is_symlink():
        try:
            kind = file_kind(target)
        except OSError as exc:
            raise OutputPathError(path, f"cannot be inspected ({exc.strerror or exc})") from None
        if kind == "folder":
            raise OutputPathError(path, "is a folder; give a file name")
        if kind == "special":
            raise OutputPathError(path, "is not a regular file (a device, pipe or socket); anonstudio only "
                                        "replaces regular files")
        for source in inputs:
            if source is not None and _same_file(source, target):
                raise OutputPathError(path, "is an input of this run; choose another output file")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputPathError(path, f"the folder {folder} is not writable")
    return target


def _same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name the same file (False when either cannot be inspected)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _remove_stale_temporaries(target: Path) -> None:
    """Delete temporary files of ``target`` left by processes that no longer run."""
    # Leading dots: a writer handed an output set's temporary may write it atomically in turn, so a
    # killed run can leave ``..NAME.anonstudio-PID-X.tmp.anonstudio-PID-Y.tmp`` too.
    pattern = re.compile(rf"^\.+{re.escape(target.name)}\.anonstudio-(\d+)-[^/]*{re.escape(_TMP_SUFFIX)}$")
    try:
        entries = list(os.scandir(target.parent if str(target.parent) else "."))
    except OSError:
        return
    for entry in entries:
        match = pattern.match(entry.name)
        if match is None:
            continue
        pid = int(match.group(1))
        if pid != os.getpid() and _process_alive(pid):
            continue
        if pid == os.getpid() and entry.name in _OPEN_TEMPORARIES:
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


#: Temporary files this process is writing right now (never swept as stale).
_OPEN_TEMPORARIES: set[str] = set()
_LOCK = threading.Lock()


def _new_temporary(target: Path) -> Path:
    _remove_stale_temporaries(target)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.anonstudio-{os.getpid()}-", suffix=_TMP_SUFFIX,
                                dir=target.parent if str(target.parent) else ".")
    os.close(fd)
    with _LOCK:
        _OPEN_TEMPORARIES.add(Path(name).name)
    return Path(name)


def _forget(tmp: Path) -> None:
    with _LOCK:
        _OPEN_TEMPORARIES.discard(tmp.name)
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()


def _finish(tmp: Path) -> None:
    # mkstemp creates 0600 files; exports should get the usual umask permissions.
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)


def _open(tmp: Path, mode: str, encoding: str | None, newline: str | None) -> IO:
    if mode == "wb":
        return open(tmp, "wb")
    return open(tmp, "w", encoding=encoding, newline=newline)


_TEMPORARY_NAME = re.compile(r"^\.(?P<name>.+)\.anonstudio-\d+-[^/]*\.tmp$")


def _user_path(path: Path) -> Path:
    """The destination a temporary file of an output set stands for (the path the user named)."""
    match = _TEMPORARY_NAME.match(path.name)
    while match:  # a temporary of a temporary: peel both
        path = path.with_name(match.group("name"))
        match = _TEMPORARY_NAME.match(path.name)
    return path


def _write_error(path: Path, exc: OSError) -> OutputPathError:
    path = _user_path(Path(path))
    if exc.errno == errno.ENOSPC:
        return OutputPathError(path, "the disk is full; nothing was replaced")
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return OutputPathError(path, "permission denied; nothing was replaced")
    return OutputPathError(path, f"cannot be written ({exc.strerror or exc}); nothing was replaced")


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", *, encoding: str | None = "utf-8",
                 newline: str | None = "\n") -> Iterator[IO]:
    """Open a temporary file next to ``path``'s real target; on success move it into place.

    If the body raises, the temporary file is removed and an existing file is
    left untouched. A full disk or a permission problem raises
    :class:`OutputPathError` with one plain line.

    Parameters
    ----------
    path
        Final destination (a symlink is written through to its target).
    mode
        ``"w"`` (text) or ``"wb"`` (binary).
    encoding, newline
        Text mode only; the defaults write UTF-8 with ``\\n`` line ends on
        every platform so exports are byte-identical across machines.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write supports mode 'w' or 'wb', not {mode!r}")
    target = check_output_path(path)
    tmp = _new_temporary(target)
    try:
        with _open(tmp, mode, encoding, newline) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        _finish(tmp)
        os.replace(tmp, target)
    except OSError as exc:
        _forget(tmp)
        if isinstance(exc, OutputPathError):
            raise
        raise _write_error(Path(path), exc) from None
    except BaseException:
        _forget(tmp)
        raise
    with _LOCK:
        _OPEN_TEMPORARIES.discard(tmp.name)


class OutputSet:
    """The output files of one run, written to temporaries and renamed into place together.

    Ctrl-C while the files are written leaves every old file as it was; the
    renames at :meth:`commit` run with SIGINT held back, so an interrupt never
    leaves a mix of new and old files.

    Examples
    --------
    >>> with OutputSet() as out:                       # doctest: +SKIP
    ...     with out.open("release.csv") as fh: fh.write(...)
    ...     with out.open("run.json") as fh: fh.write(...)
    ... # both files replaced here, or neither
    """

    def __init__(self) -> None:
        self._pending: list[tuple[Path, Path]] = []

    def open(self, path: str | Path, mode: str = "w", *, encoding: str | None = "utf-8",
             newline: str | None = "\n") -> IO:
        """A handle on a new temporary for ``path``; the file appears at :meth:`commit`."""
        target = check_output_path(path)
        tmp = _new_temporary(target)
        self._pending.append((tmp, target))
        try:
            return _SyncedHandle(_open(tmp, mode, encoding, newline), Path(path))
        except OSError as exc:
            raise _write_error(Path(path), exc) from None

    def path_for(self, path: str | Path) -> Path:
        """A temporary file for ``path`` that a writer taking a path may fill; it replaces ``path`` at commit.

        For writers that open files themselves (a format's ``save``); they may
        write it directly or atomically.
        """
        target = check_output_path(path)
        tmp = _new_temporary(target)
        self._pending.append((tmp, target))
        return tmp

    def commit(self) -> None:
        """Rename every temporary into place (SIGINT deferred until all are done)."""
        blocked = _block_sigint()
        try:
            for tmp, target in self._pending:
                _finish(tmp)
                os.replace(tmp, target)
                with _LOCK:
                    _OPEN_TEMPORARIES.discard(tmp.name)
            self._pending.clear()
        finally:
            _unblock_sigint(blocked)

    def discard(self) -> None:
        """Remove every temporary; the old files stay."""
        for tmp, _ in self._pending:
            _forget(tmp)
        self._pending.clear()

    def __enter__(self) -> OutputSet:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()


class _SyncedHandle:
    """A file handle that fsyncs on close and turns write errors into one-line errors."""

    def __init__(self, handle: IO, path: Path):
        self._handle = handle
        self._path = path

    def __getattr__(self, name):
        return getattr(self._handle, name)

    def write(self, data):
        try:
            return self._handle.write(data)
        except OSError as exc:
            raise _write_error(self._path, exc) from None

    def close(self) -> None:
        try:
            self._handle.flush()
            os.fsync(self._handle.fileno())
        except OSError as exc:
            self._handle.close()
            raise _write_error(self._path, exc) from None
        self._handle.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _block_sigint() -> bool:
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        return False
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    return True


def _unblock_sigint(blocked: bool) -> None:
    if blocked:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
