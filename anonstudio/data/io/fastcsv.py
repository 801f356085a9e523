"""A delimited file's bytes made ready for pandas' C parser, and the checks that say whether it may parse them.

The relational reader (:mod:`.relational`) parses a table with pandas' C parser over the file's bytes, one
chunk of whole lines at a time, and falls back to the exact reader only when something in the bytes would
be read differently by the two. This module cuts the bytes and looks at them:

* :func:`byte_chunks` reads the file through the text layer's :class:`~.text.InputFile` (regular files
  only, capped decompression) in chunks of whole lines, with ``\\r\\n`` and ``\\r`` read as ``\\n`` as the
  text layer reads them, so a line of the chunk is a line of the file as a text editor shows it;
* :func:`plain_bytes` says whether a chunk holds nothing the parser reads differently (quotes, NUL bytes,
  text that is not UTF-8) and :func:`without_comment_lines` cuts out the comment lines the exact reader
  skips;
* :func:`odd_spaces` tells whether a field may hold white space that the exact reader strips and pandas
  keeps (a tab, a form feed, any non-ASCII text);
* :func:`scan_fields` finds a field written as a number with a leading zero (``007``), a code whose
  column the exact reader keeps as text, and a field ending with a space, which the exact reader strips.

Each check is a byte search or one numpy pass over the bytes; none decodes the text of an ASCII file.
"""
from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from . import text as _text
from .registry import COMMENT_PREFIXES
from .text import InputFile, check_cancel

__all__ = ["SPACES", "byte_chunks", "plain_bytes", "without_comment_lines", "odd_spaces", "scan_fields",
           "has_leading_zero_field", "has_trailing_space", "count_byte", "safe_separator"]

#: ASCII white space other than a line end (``str.strip`` removes these; ``\\r`` is a line end here).
SPACES = b" \t\x0b\x0c\x1c\x1d\x1e\x1f"
_COMMENT_BYTES = tuple(p.encode("ascii") for p in COMMENT_PREFIXES)
#: Comment lines cut out of one chunk before the exact reader is preferred (a header block, not a file of notes).
MAX_COMMENT_LINES = 1000


def safe_separator(sep: str) -> bool:
    """Whether pandas splits at ``sep`` as the exact reader does: a tab, or one printable ASCII character that
    is no letter, digit, sign, point, quote or space (a line of tabs is blank to the exact reader: the reader
    looks for one after the parse)."""
    if sep == "\t":
        return True
    return (len(sep) == 1 and sep.isascii() and sep.isprintable() and not sep.isspace() and not sep.isalnum()
            and sep not in "+-.\"'")


def byte_chunks(path: Path, *, progress: Any = None, chunk_bytes: int | None = None) -> Iterator[bytes]:
    """The decompressed bytes of ``path`` in chunks of whole lines, every line ending ``\\n``.

    The text layer's rules: ``\\r\\n`` and ``\\r`` end a line as ``\\n`` does (a ``\\r`` at the end of a
    block waits for the next, which may start with ``\\n``); ``progress`` is told the share read and a
    cancel raises :class:`~anonstudio.data.errors.LoadCancelled` between chunks.
    """
    size = chunk_bytes or _text.CHUNK_BYTES  # read at call time: tests shrink it to get many chunks
    with InputFile(path) as src:
        carry = b""
        while True:
            check_cancel(progress, path)
            block = src.read(size)
            eof = not block
            data = carry + block
            held = b""
            if not eof and data.endswith(b"\r"):
                data, held = data[:-1], b"\r"
            if b"\r" in data:
                data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            cut = len(data) if eof else data.rfind(b"\n") + 1
            piece, carry = data[:cut], data[cut:] + held
            if piece:
                yield piece
            if eof:
                return
            if progress is not None:
                progress.set(src.fraction, f"reading {path.name}")


def plain_bytes(piece: bytes, *, first: bool, encoding: str | None) -> tuple[bytes, bool] | None:
    """(``piece`` as pandas may parse it, a UTF-8 byte-order mark dropped; whether it is ASCII), or None when
    pandas would read its text differently from the exact reader.

    None for a quote (a quoted field needs the csv module's rules), a NUL byte (a binary file), bytes that
    are not UTF-8 (or not ASCII when ``encoding`` is ASCII), or a UTF-8 mark under a given encoding (the
    exact reader then reads it as a character). Other byte-order marks are no UTF-8. ``first``: the file's
    first chunk, the one a mark begins.
    """
    if b'"' in piece or b"\x00" in piece:
        return None
    if first and piece.startswith(codecs.BOM_UTF8):
        if encoding is not None:
            return None
        piece = piece[len(codecs.BOM_UTF8):]
    is_ascii = piece.isascii()
    if not is_ascii:
        if encoding == "ascii":
            return None
        try:
            piece.decode("utf-8")  # validation only; pandas decodes the fields itself
        except UnicodeDecodeError:
            return None
    return piece, is_ascii


def without_comment_lines(piece: bytes) -> bytes | None:
    """``piece`` without the lines that start with a comment prefix, as the exact reader skips them (None:
    more than :data:`MAX_COMMENT_LINES`, a file of notes rather than a table)."""
    starts: list[int] = []
    for prefix in _COMMENT_BYTES:
        if prefix not in piece:  # one byte: found at memchr speed, and absent from most tables
            continue
        if piece.startswith(prefix):
            starts.append(0)
        needle = b"\n" + prefix
        at = piece.find(needle)
        while at >= 0:
            starts.append(at + 1)
            if len(starts) > MAX_COMMENT_LINES:
                return None
            at = piece.find(needle, at + 1)
    if not starts:
        return piece
    kept, pos = [], 0
    for start in sorted(starts):
        end = piece.find(b"\n", start)
        kept.append(piece[pos:start])
        pos = len(piece) if end < 0 else end + 1
    kept.append(piece[pos:])
    return b"".join(kept)


def odd_spaces(piece: bytes, sep: str, *, is_ascii: bool | None = None) -> bool:
    """Whether a field of ``piece`` may hold white space other than spaces: a tab that is not the
    separator, a vertical tab, form feed or file/group/record/unit separator, or any non-ASCII character
    (Unicode has more white space). The exact reader strips such white space from a value; pandas keeps it.
    ``is_ascii``: ``piece.isascii()`` if known."""
    if not (piece.isascii() if is_ascii is None else is_ascii):
        return True
    return any(bytes((b,)) in piece for b in SPACES[1:] if chr(b) != sep)


#: Bytes of :func:`scan_fields` looked at per numpy pass. Its temporary arrays then stay in the processor's cache
#: and below the allocator's 128 KiB threshold for mapping fresh memory: in a fresh process blocks of 256 KiB
#: took 10 ms of CPU on Adult (page faults on every temporary), blocks of 64 KiB 4-5 ms, the whole file at
#: once more still.
_SCAN_BLOCK = 1 << 16


def count_byte(raw: bytes, byte: str) -> int:
    """How many times the one-byte character ``byte`` occurs in ``raw`` (block by block, as :func:`scan_fields`;
    ``bytes.count`` of one byte is several times slower)."""
    a = np.frombuffer(raw, dtype=np.uint8)
    code = ord(byte)
    return sum(int(np.count_nonzero(a[start:start + _SCAN_BLOCK] == code)) for start in range(0, len(a), _SCAN_BLOCK))


def scan_fields(raw: bytes, sep: str, *, zeros: bool = True, spaces: bool = True) -> tuple[bool, bool]:
    """(a field written as a number with a leading zero, a field ending with a space) in ``raw``, each looked
    for only when asked; one pass over the bytes, block by block.

    A leading zero (``007``, after white space and a sign): the exact reader keeps a column holding such a
    code as text (reading it as 7 would merge ``007`` and ``07``); pandas reads it as a number. Each ``0``
    followed by a digit and not preceded by one is found by comparisons (a zero inside a number, as in
    ``205019``, is common; one starting a number rare, so a block usually ends with one ``any``); those left
    after a point are dropped and the others walked back over a sign and white space to a separator, a line
    end or the start.

    A trailing space (before a separator, a line end or the end): pandas drops the spaces that start a field,
    not those that end it; the exact reader strips both.
    """
    a = np.frombuffer(raw, dtype=np.uint8)
    spaced = spaces and raw.endswith(b" ")
    n = len(a)
    if n < 2 or not (zeros or spaces):
        return False, spaced
    zero = np.uint8(ord("0"))
    # Every test on the block's bytes minus "0" (wrapping around): a digit is below 10, and the bytes looked for
    # are compared as they read after the subtraction.
    space, separator, line_end = (np.uint8((ord(c) - ord("0")) % 256) for c in (" ", sep, "\n"))
    found = []
    if zeros and raw[0] == ord("0") and raw[1:2].isdigit():  # the first byte has none before it
        found.append(np.zeros(1, dtype=np.intp))
    if spaces and not spaced and raw[0] == ord(" ") and raw[1] in (ord(sep), ord("\n")):
        spaced = True
    # Bytes 1 .. n-2 (each with a byte before and after it), a block at a time.
    for start in range(1, n - 1, _SCAN_BLOCK):
        stop = min(start + _SCAN_BLOCK, n - 1)
        digit = a[start - 1:stop + 1] - zero
        here, after = digit[1:-1], digit[2:]
        if zeros:
            starts = (here == 0) & (after < 10) & (digit[:-2] >= 10)
            if starts.any():
                found.append(np.flatnonzero(starts) + start)
        if spaces and not spaced:
            spaced = bool(((here == space) & ((after == separator) | (after == line_end))).any())
    return bool(found) and _starts_a_field(a, np.concatenate(found), sep), spaced


def _starts_a_field(a: np.ndarray, at: np.ndarray, sep: str) -> bool:
    """Whether one of the zeros at positions ``at`` (each followed by a digit) starts a field."""
    before = a[np.maximum(at - 1, 0)]
    inside = (at > 0) & ((before - np.uint8(ord("0")) < 10) | (before == ord(".")))
    at = at[~inside]
    if not len(at):
        return False
    skip = np.frombuffer(bytes(b for b in SPACES if chr(b) != sep), dtype=np.uint8)
    pos = at - 1
    signed = (pos >= 0) & np.isin(a[np.maximum(pos, 0)], (ord("+"), ord("-")))
    pos[signed] -= 1
    for _ in range(8):  # a few spaces at once; a longer run is walked in Python below
        spaces = (pos >= 0) & np.isin(a[np.maximum(pos, 0)], skip)
        if not spaces.any():
            break
        pos[spaces] -= 1
    else:
        skipped = set(skip.tolist())
        for i, p in enumerate(pos.tolist()):
            while p >= 0 and int(a[p]) in skipped:
                p -= 1
            pos[i] = p
    boundary = np.array([ord("\n"), ord(sep)], dtype=np.uint8)
    return bool(((pos < 0) | np.isin(a[np.maximum(pos, 0)], boundary)).any())


def has_leading_zero_field(raw: bytes, sep: str) -> bool:
    """Whether a field of ``raw`` starts (after white space and a sign) with a zero and a digit, as ``007``
    (see :func:`scan_fields`)."""
    return scan_fields(raw, sep, spaces=False)[0]


def has_trailing_space(raw: bytes, sep: str) -> bool:
    """Whether a field of ``raw`` ends with a space (see :func:`scan_fields`)."""
    return scan_fields(raw, sep, zeros=False)[1]
