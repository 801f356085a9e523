"""Reading input files: regular files only, capped decompression, chunked decoding, one line rule.

Every loader reads its file through this module, so the rules hold for all
formats and for every file a parameter names (hierarchies, coordinates,
polygons, published releases):

* **Regular files only.** A folder, a named pipe, a device (``/dev/zero``),
  a socket or a broken link is refused at once with a one-line
  :class:`~anonstudio.data.errors.DataFormatError`; the file is opened
  without blocking and checked again after opening, so a pipe swapped in
  between cannot hang a load.
* **Compressed input is capped.** Gzip files are decompressed on the fly; one
  that expands to more than ``max(COMPRESSED_CAP_MIN, COMPRESSED_EXPANSION x``
  its compressed size``)`` is refused (a 2 MB file expanding to gigabytes is
  a compression bomb, not data), before the memory is spent.
* **Text is decoded before it is judged.** The encoding is the one given, or
  the one a byte-order mark names (UTF-8, UTF-16, UTF-32), or UTF-8; NUL
  characters in the *decoded* text mean a binary file (so UTF-16 text, full
  of zero bytes, reads fine when its encoding is known).
* **Lines end at** ``\\n``, ``\\r\\n`` or ``\\r`` (and are handed on with
  ``\\n``), nothing else: a form feed, vertical tab, file separator, NEL or
  U+2028 inside a line is a character of that line, so records and line
  numbers are what a text editor shows.
* **Chunks.** :func:`iter_text_chunks` yields the text in pieces of whole
  lines (of whole CSV records with ``quotes=True``), reports the share read to
  a :class:`~anonstudio.jobs.Progress` and raises
  :class:`~anonstudio.data.errors.LoadCancelled` between pieces when it is
  cancelled, so loading a large file can be stopped and never holds more
  than one piece of text at a time.
"""
from __future__ import annotations

import codecs
import contextvars
import gzip
import io
import os
import stat
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DataFormatError, LoadCancelled

__all__ = ["MissingFileError", "reading_head", "current_head", "HeadRead", "read_bytes", "read_text", "decode_text",
           "split_lines",
           "split_records",
           "iter_text_chunks", "TextChunk", "InputFile", "require_regular_file", "check_cancel", "SNIFF_BYTES",
           "CHUNK_BYTES", "COMPRESSED_CAP_MIN", "COMPRESSED_EXPANSION"]

#: How much of a file the format sniffers look at.
SNIFF_BYTES = 64 * 1024
#: Bytes read per chunk: about 0.1 s of parsing, and the most text held at once.
CHUNK_BYTES = 8 * 1024 * 1024
#: Compressed input may expand to at most the larger of this and ``COMPRESSED_EXPANSION`` x its size.
COMPRESSED_CAP_MIN = 256 * 1024 * 1024
COMPRESSED_EXPANSION = 64


class MissingFileError(DataFormatError, FileNotFoundError):
    """The input file does not exist (also a ``FileNotFoundError``)."""


_GZIP_MAGIC = b"\x1f\x8b"
# Longest first: the UTF-32 LE mark starts with the UTF-16 LE one.
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def require_regular_file(path: str | Path) -> Path:
    """``path`` as a Path if it names a regular file (through links); else a one-line DataFormatError."""
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        if path.is_symlink():
            raise DataFormatError(path, "is a broken link: its target does not exist") from None
        raise MissingFileError(path, "no such file") from None
    except OSError as exc:
        raise DataFormatError(path, f"cannot be read ({exc.strerror or exc})") from None
    _check_mode(path, mode)
    return path


def _check_mode(path: Path, mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise DataFormatError(path, "is a folder, not a file")
    if not stat.S_ISREG(mode):
        raise DataFormatError(path, "is not a regular file (a pipe, device or socket); anonstudio reads data "
                                    "files only")


def check_cancel(progress: Any, path: str | Path | None) -> None:
    """Raise :class:`LoadCancelled` if ``progress`` (may be None) asks to stop."""
    if progress is not None and progress.cancelled():
        raise LoadCancelled(path)


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


def current_head() -> HeadRead | None:
    """The :func:`reading_head` in force in this thread (None outside one): readers of binary formats cap
    their rows by it."""
    return _HEAD.get()


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


class InputFile:
    """A regular file opened for reading, gzip-decompressed on the fly under a size cap.

    Use as a context manager; :meth:`read` returns decompressed bytes,
    :attr:`fraction` the share of the file on disk consumed so far.
    """

    def __init__(self, path: str | Path):
        self.path = require_regular_file(path)
        try:
            # O_NONBLOCK: opening a pipe that replaced the file since the check must not wait for a writer.
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except PermissionError as exc:
            raise DataFormatError(self.path, f"cannot be read ({exc.strerror})") from None
        except OSError as exc:
            raise DataFormatError(self.path, f"cannot be opened ({exc.strerror or exc})") from None
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            _check_mode(self.path, st.st_mode)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        self._raw = os.fdopen(fd, "rb")
        self.size = st.st_size
        self.compressed = self._raw.read(2) == _GZIP_MAGIC
        self._raw.seek(0)
        self._stream = gzip.GzipFile(fileobj=self._raw, mode="rb") if self.compressed else self._raw
        self.cap = max(COMPRESSED_CAP_MIN, COMPRESSED_EXPANSION * self.size) if self.compressed else None
        self.read_bytes = 0
        head = _HEAD.get()
        if head is not None:  # the import preview: serve the head of the file, cut at a line end
            raw = self.read(head.limit + 1)
            if len(raw) > head.limit:
                head.truncated = True
                raw = _whole_lines(raw[:head.limit])
            self._stream = io.BytesIO(raw)
            self.cap = None

    def read(self, n: int = -1) -> bytes:
        """Up to ``n`` bytes (all with -1); ``b""`` at the end."""
        want = n if n is not None and n >= 0 else None
        if self.cap is not None:
            room = self.cap + 1 - self.read_bytes
            want = room if want is None else min(want, room)
        elif want is not None and self._stream is self._raw:
            # A read allocates what it is asked for: 8 MiB asked of a 4 MB file cost ten times the read. A file
            # that grew since it was opened is still read to its end, 64 KiB past its size at a time.
            want = min(want, max(self.size - self.read_bytes, 0) + 65536)
        try:
            data = self._stream.read(-1 if want is None else want)
        except (OSError, EOFError, zlib.error) as exc:
            raise DataFormatError(self.path, f"is a damaged gzip file ({exc})") from None
        self.read_bytes += len(data)
        if self.cap is not None and self.read_bytes > self.cap:
            raise DataFormatError(
                self.path, f"decompresses to more than {self.cap / 2**20:,.0f} MiB, over {COMPRESSED_EXPANSION} "
                           f"times its {self.size / 2**20:,.1f} MiB: refused as a likely compression bomb; if it is "
                           "real data, decompress it first and open the plain file")
        return data

    @property
    def fraction(self) -> float:
        """Share of the file on disk read so far (compressed bytes for gzip)."""
        if not self.size:
            return 1.0
        try:
            return min(self._raw.tell() / self.size, 1.0)
        except (OSError, ValueError):
            return 0.0

    def close(self) -> None:
        if self._stream is not self._raw:
            self._stream.close()
        self._raw.close()

    def __enter__(self) -> InputFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_bytes(path: str | Path, limit: int | None = None, *, progress: Any = None) -> bytes:
    """The file's bytes (at most ``limit``), decompressed if gzip, or a DataFormatError naming it."""
    with InputFile(path) as src:
        if limit is not None:
            return src.read(limit)
        parts = []
        while True:
            check_cancel(progress, path)
            block = src.read(CHUNK_BYTES)
            if not block:
                break
            parts.append(block)
            if progress is not None:
                progress.set(src.fraction, f"reading {src.path.name}")
        return b"".join(parts)


def _encoding_of(head: bytes, encoding: str | None, path: Path | str) -> str:
    """The encoding to read with: the one given, else the one a byte-order mark names, else UTF-8."""
    if encoding is not None:
        try:
            return codecs.lookup(encoding).name
        except LookupError:
            raise DataFormatError(path, f"unknown encoding {encoding!r}") from None
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    return "utf-8"


def _not_utf8(path: Path | str, byte: int, line: int) -> DataFormatError:
    return DataFormatError(path, f"not UTF-8 text (byte 0x{byte:02x}); save it as UTF-8, e.g. with "
                                 "anonstudio-cli convert --encoding latin-1 IN OUT", line)


def _binary(path: Path | str, text: str, at: int, first_line: int, encoding_given: bool) -> DataFormatError:
    # Every other byte zero: most likely UTF-16 without a byte-order mark.
    utf16 = not encoding_given and text.count("\x00") >= len(text) // 3
    hint = "; if it is UTF-16 text without a byte-order mark, give its encoding (utf-16-le)" if utf16 else ""
    return DataFormatError(path, f"looks like a binary file (contains NUL bytes), not text{hint}",
                           first_line + text.count("\n", 0, at))


def _normalise_newlines(text: str) -> str:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def decode_text(raw: bytes, path: str | Path, *, encoding: str | None = None, latin1_fallback: bool = False,
                final: bool = True) -> str:
    """Decode file bytes (see the module docstring), lines ending in ``\\n``; refuse binary data.

    Bytes that are not valid in the encoding raise a DataFormatError naming
    the line, unless ``latin1_fallback=True`` and no encoding was given, in
    which case the text is read as Latin-1 (every byte is a valid Latin-1
    character, so this never fails but may show wrong accents: off by
    default). ``final=False`` tolerates a character cut at the end of ``raw``.
    """
    name = _encoding_of(raw, encoding, path)
    decoder = codecs.getincrementaldecoder(name)()
    try:
        text = decoder.decode(raw, final)
    except UnicodeDecodeError as exc:
        if latin1_fallback and encoding is None:
            text = raw.decode("latin-1")
        else:
            line = raw[:exc.start].decode(name, errors="replace").count("\n") + 1
            if encoding is None:
                raise _not_utf8(path, raw[exc.start], line) from None
            raise DataFormatError(path, f"not valid {encoding} text", line) from None
    text = _normalise_newlines(text)
    nul = text.find("\x00")
    if nul >= 0:
        raise _binary(path, text, nul, 1, encoding is not None)
    return text


def split_lines(text: str) -> list[str]:
    """The lines of normalised text: split at ``\\n`` only; a final line end ends the last line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _line_ends_outside_quotes(text: str) -> Iterator[int]:
    """Positions of the line ends of ``text`` that are not inside a double-quoted field."""
    inside = False
    pos = 0
    while True:
        q = text.find('"', pos)
        end = len(text) if q < 0 else q
        if not inside:
            nl = text.find("\n", pos, end)
            while nl >= 0:
                yield nl
                nl = text.find("\n", nl + 1, end)
        if q < 0:
            return
        inside = not inside  # a doubled quote inside a quoted field toggles twice
        pos = q + 1


def split_records(text: str) -> list[str]:
    """Like :func:`split_lines`, but a line end inside double quotes (a CSV field) does not split."""
    if '"' not in text:
        return split_lines(text)
    out, start = [], 0
    for nl in _line_ends_outside_quotes(text):
        out.append(text[start:nl])
        start = nl + 1
    if start < len(text):
        out.append(text[start:])
    return out


@dataclass(frozen=True)
class TextChunk:
    """A piece of a text file made of whole lines (``\\n`` line ends).

    ``first_line`` is the 1-based file line of its first line; ``last`` is True
    for the final piece (whose last line may lack a line end).
    """

    text: str
    first_line: int
    last: bool

    def lines(self) -> list[str]:
        return split_lines(self.text)


def _quote_safe_cut(text: str) -> int:
    """Index just after the last line end that is outside double quotes (0: none)."""
    if '"' not in text:
        return text.rfind("\n") + 1
    last = -1
    for last in _line_ends_outside_quotes(text):  # noqa: B007 - the loop only keeps the last line end
        pass
    return last + 1


def _utf8_valid(path: Path, progress: Any) -> bool:
    """Whether the whole file decodes as UTF-8 (a pre-pass for ``latin1_fallback``)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    with InputFile(path) as src:
        while True:
            check_cancel(progress, path)
            block = src.read(CHUNK_BYTES)
            try:
                decoder.decode(block, not block)
            except UnicodeDecodeError:
                return False
            if not block:
                return True


def iter_text_chunks(path: str | Path, *, encoding: str | None = None, latin1_fallback: bool = False,
                     progress: Any = None, chunk_bytes: int | None = None, quotes: bool = False,
                     allow_empty: bool = False) -> Iterator[TextChunk]:
    """The text of ``path`` in pieces of whole lines (see the module docstring).

    Parameters
    ----------
    quotes
        Cut only at line ends outside double quotes, so a quoted CSV field
        holding a line break stays in one piece.
    progress
        Told the share of the file read; a cancel raises :class:`LoadCancelled`
        before the next piece.
    allow_empty
        Without it, a file with nothing but white space raises "the file is empty".

    Raises
    ------
    DataFormatError
        Not a regular file, damaged or oversized gzip, undecodable or binary text.
    """
    path = Path(path)
    chunk_bytes = chunk_bytes or CHUNK_BYTES  # read at call time: tests shrink it to get many chunks
    if latin1_fallback and encoding is None and not _utf8_valid(path, progress):
        encoding = "latin-1"
    with InputFile(path) as src:
        check_cancel(progress, path)
        block = src.read(chunk_bytes)
        name = _encoding_of(block, encoding, path)
        decoder = codecs.getincrementaldecoder(name)()
        carry = ""
        first_line = 1
        seen_content = False
        while True:
            eof = not block
            try:
                text = carry + decoder.decode(block, eof)
            except UnicodeDecodeError as exc:
                line = first_line + carry.count("\n") + block[:exc.start].decode(name, errors="replace").count("\n")
                if encoding is None:
                    raise _not_utf8(path, block[exc.start], line) from None
                raise DataFormatError(path, f"not valid {encoding} text", line) from None
            if not eof and text.endswith("\r"):
                text, held = text[:-1], "\r"  # a \r\n pair may be split between blocks
            else:
                held = ""
            text = _normalise_newlines(text)
            nul = text.find("\x00")
            if nul >= 0:
                raise _binary(path, text, nul, first_line, encoding is not None)
            cut = len(text) if eof else (_quote_safe_cut(text) if quotes else text.rfind("\n") + 1)
            piece, carry = text[:cut], text[cut:] + held
            if piece:
                seen_content = seen_content or not piece.isspace()
                if eof and not seen_content and not allow_empty:
                    raise DataFormatError(path, "the file is empty")
                yield TextChunk(piece, first_line, eof)
                first_line += piece.count("\n")
            if eof:
                if not seen_content and not allow_empty:
                    raise DataFormatError(path, "the file is empty")
                return
            if progress is not None:
                progress.set(src.fraction, f"reading {path.name}")
            check_cancel(progress, path)
            block = src.read(chunk_bytes)


def read_text(path: str | Path, *, encoding: str | None = None, latin1_fallback: bool = False,
              allow_empty: bool = False, progress: Any = None) -> str:
    """A whole text file (``\\n`` line ends); DataFormatError for missing, binary, undecodable or empty files.

    For small files (hierarchies, coordinates, polygons); loaders of data
    files use :func:`iter_text_chunks`.
    """
    return "".join(chunk.text for chunk in iter_text_chunks(path, encoding=encoding, latin1_fallback=latin1_fallback,
                                                            progress=progress, allow_empty=allow_empty))
