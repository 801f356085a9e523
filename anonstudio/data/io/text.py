"""Reading input files as text, with clear errors for files that are not text."""
from __future__ import annotations

import contextvars
import gzip
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ..errors import DataFormatError

__all__ = ["MissingFileError", "read_bytes", "read_text", "line_of_offset", "SNIFF_BYTES", "reading_head",
           "HeadRead"]

#: How much of a file the format sniffers look at.
SNIFF_BYTES = 64 * 1024


class MissingFileError(DataFormatError, FileNotFoundError):
    """The input file does not exist (also a ``FileNotFoundError``)."""


_GZIP_MAGIC = b"\x1f\x8b"


class HeadRead:
    """What :func:`reading_head` read: the limit, and whether a file was longer than it."""

    def __init__(self, limit: int):
        self.limit = limit
        self.truncated = False


_HEAD: contextvars.ContextVar[HeadRead | None] = contextvars.ContextVar("anonstudio_head", default=None)


@contextmanager
def reading_head(limit: int) -> Iterator[HeadRead]:
    """Within the block, loaders in this thread read only the first ``limit`` bytes of a file.

    The import preview runs the real loader this way, so that the preview
    shows the records exactly as a full load would read them. The head ends
    at a line end (outside quotes); ``HeadRead.truncated`` tells whether the
    file went on.
    """
    head = HeadRead(limit)
    token = _HEAD.set(head)
    try:
        yield head
    finally:
        _HEAD.reset(token)


def _whole_lines(raw: bytes) -> bytes:
    """``raw`` cut after its last line end that is outside a quoted field."""
    end = len(raw)
    while end > 0:
        end = raw.rfind(b"\n", 0, end)
        if end < 0:
            break
        if raw.count(b'"', 0, end) % 2 == 0:  # "" inside quotes counts twice: the parity holds
            return raw[:end + 1]
    return raw


def read_bytes(path: str | Path, limit: int | None = None) -> bytes:
    """The file's bytes (at most ``limit``), or a DataFormatError naming it.

    Gzip-compressed files (benchmark data is often shipped as ``.dat.gz``)
    are decompressed transparently. Inside :func:`reading_head` a whole-file
    read returns the head only.
    """
    head = _HEAD.get() if limit is None else None
    if head is not None:
        raw = read_bytes(path, head.limit + 1)
        if len(raw) > head.limit:
            head.truncated = True
            raw = _whole_lines(raw[:head.limit])
        return raw
    path = Path(path)
    if not path.exists():
        raise MissingFileError(path, "no such file")
    if path.is_dir():
        raise DataFormatError(path, "is a folder, not a file")
    try:
        with open(path, "rb") as fh:
            if fh.read(2) == _GZIP_MAGIC:
                return _read_gzip(path, limit)
            fh.seek(0)
            return fh.read() if limit is None else fh.read(limit)
    except PermissionError as exc:
        raise DataFormatError(path, f"cannot be read ({exc.strerror})") from exc


def _read_gzip(path: Path, limit: int | None) -> bytes:
    try:
        with gzip.open(path, "rb") as fh:
            return fh.read() if limit is None else fh.read(limit)
    except (OSError, EOFError, zlib.error) as exc:
        raise DataFormatError(path, f"is a damaged gzip file ({exc})") from exc


def line_of_offset(data: bytes | str, offset: int) -> int:
    """1-based line number of a byte/character offset."""
    newline = b"\n" if isinstance(data, bytes) else "\n"
    return data.count(newline, 0, offset) + 1


def decode_text(raw: bytes, path: str | Path, *, encoding: str | None = None,
                latin1_fallback: bool = False) -> str:
    """Decode file bytes, refusing binary data.

    Tries ``encoding`` if given, else UTF-8 (a byte-order mark is dropped).
    Bytes that are not valid UTF-8 raise a DataFormatError naming the line,
    unless ``latin1_fallback=True``, in which case the text is read as
    Latin-1 (every byte is a valid Latin-1 character, so this never fails but
    may show wrong accents — hence off by default). The error suggests what
    a user can do without Python: ``anonstudio-cli convert --encoding``
    writes a UTF-8 copy.
    """
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise DataFormatError(path, "looks like a binary file (contains NUL bytes), not text",
                              line_of_offset(raw, nul))
    if encoding is not None:
        try:
            return raw.decode(encoding)
        except LookupError as exc:
            raise DataFormatError(path, f"unknown encoding {encoding!r}") from exc
        except UnicodeDecodeError as exc:
            raise DataFormatError(path, f"not valid {encoding} text", line_of_offset(raw, exc.start)) from exc
    try:
        # utf-8-sig reads plain UTF-8 too and drops a leading byte-order mark.
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if latin1_fallback:
            return raw.decode("latin-1")
        raise DataFormatError(
            path,
            f"not UTF-8 text (byte 0x{raw[exc.start]:02x}); "
            "save it as UTF-8, e.g. with anonstudio-cli convert --encoding latin-1 IN OUT",
            line_of_offset(raw, exc.start),
        ) from exc


def read_text(path: str | Path, *, encoding: str | None = None, latin1_fallback: bool = False,
              allow_empty: bool = False) -> str:
    """Read a whole text file; DataFormatError for missing, binary, undecodable or empty files."""
    raw = read_bytes(path)
    text = decode_text(raw, path, encoding=encoding, latin1_fallback=latin1_fallback)
    if not allow_empty and not text.strip():
        raise DataFormatError(path, "the file is empty")
    return text
