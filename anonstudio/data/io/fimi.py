"""FIMI / SPMF itemset files: one record per line, integer items.

Items are separated by spaces (or commas); trailing spaces, CRLF line ends and
SPMF metadata lines (starting with ``#``, ``%`` or ``@``) are accepted. Every
line is a record, so a blank line is an empty record (also at the end of the
file, after the last line end: that is how the writer stores a trailing empty
record). Empty records are counted in the load report, so a stray blank line
does not go unnoticed.
"""
from __future__ import annotations

import re
from itertools import chain
from pathlib import Path

import numpy as np

from ..errors import DataFormatError
from ..transactions import TransactionData
from .atomic import atomic_write
from .build import build_transactions, int_labels_or_none, records_as_label_lists
from .registry import COMMENT_PREFIXES, Format, Head, register
from .report import LoadReport
from .shape import delimited_shape
from .text import read_bytes, read_text

__all__ = ["load_fimi", "save_fimi", "content_lines", "parse_int_tokens"]

_INT = re.compile(r"^-?[0-9]+$")


def content_lines(text: str) -> tuple[list[str], list[int]]:
    """Data lines and their 1-based line numbers (comment lines dropped)."""
    lines = text.splitlines()
    if not any(ln.startswith(COMMENT_PREFIXES) for ln in lines):
        return lines, list(range(1, len(lines) + 1))
    kept = [(ln, i + 1) for i, ln in enumerate(lines) if not ln.startswith(COMMENT_PREFIXES)]
    return [k[0] for k in kept], [k[1] for k in kept]


def parse_int_tokens(parts: list[list[str]], numbers: list[int], path: Path, text: str) -> np.ndarray:
    """All tokens as one int64 array; a DataFormatError names the first bad one.

    Item numbers are labels, not array positions, so they may be any size:
    when one does not fit int64 the result is an object array of the
    numbers as canonical decimal strings ("007" -> "7", as for small ones).
    ``text`` is the source text, used for a cheap check of characters that
    ``int()`` accepts but an item id must not contain.
    """
    flat = list(chain.from_iterable(parts))
    too_big = False
    try:
        values = np.fromiter(map(int, flat), dtype=np.int64, count=len(flat))
    except ValueError:
        values = None
    except OverflowError:
        values, too_big = None, True
    # int() also accepts "1_000", "+5" and non-ASCII digits; those are typos here.
    if values is None or "_" in text or "+" in text or not text.isascii():
        for tokens, number in zip(parts, numbers):
            for tok in tokens:
                if not _INT.match(tok):
                    raise DataFormatError(path, f"{tok[:40]!r} is not an integer item", number) from None
    if too_big:
        return np.asarray([str(int(tok)) for tok in flat], dtype=object)
    return values


def split_lines(lines: list[str]) -> list[list[str]]:
    if any("," in ln for ln in lines):
        return [ln.replace(",", " ").split() for ln in lines]
    return [ln.split() for ln in lines]


_ALLOWED = np.zeros(256, dtype=bool)
_ALLOWED[list(b"0123456789 \t,\r\n")] = True
_POW10 = 10 ** np.arange(19, dtype=np.int64)


def fast_int_records(raw: bytes) -> tuple[np.ndarray, np.ndarray] | None:
    """Items and per-line counts of a plain FIMI file, parsed on the bytes with numpy.

    Only for the common case: ASCII digits separated by spaces, tabs or
    commas, ``\n`` or ``\r\n`` line ends, no comments, no negative numbers.
    Returns None for anything else; the line-by-line reader then handles it
    (and names the offending line). Line semantics follow ``str.splitlines``.
    """
    if not raw.strip():
        return None
    content = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1] if raw.endswith(b"\n") else raw
    b = np.frombuffer(content, dtype=np.uint8)
    if not _ALLOWED[b].all() or content.count(b"\r") != content.count(b"\r\n"):
        return None
    is_digit = (b >= 48) & (b <= 57)
    before = np.concatenate(([False], is_digit[:-1]))
    after = np.concatenate((is_digit[1:], [False]))
    starts = np.flatnonzero(is_digit & ~before)
    ends = np.flatnonzero(is_digit & ~after)
    lengths = ends - starts + 1
    if len(lengths) and lengths.max() > 18:
        return None  # would overflow int64: let the slow path decide
    digits = np.flatnonzero(is_digit)
    token = np.repeat(np.arange(len(starts)), lengths)
    contrib = (b[digits] - 48).astype(np.int64) * _POW10[ends[token] - digits]
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    values = np.add.reduceat(contrib, offsets) if len(offsets) else np.zeros(0, np.int64)
    newlines = np.flatnonzero(b == 10)
    line_of_start = np.searchsorted(newlines, starts)
    per_line = np.bincount(line_of_start, minlength=len(newlines) + 1).astype(np.int64)
    return values, per_line


def load_fimi(path: str | Path, report: LoadReport, *, encoding: str | None = None,
              latin1_fallback: bool = False) -> TransactionData:
    """Read a FIMI/SPMF itemset file (see module docstring)."""
    path = Path(path)
    fast = fast_int_records(read_bytes(path)) if encoding is None else None
    if fast is not None:
        values, per_line = fast
        record_of = np.repeat(np.arange(len(per_line), dtype=np.int64), per_line)
        return build_transactions(record_of, values, len(per_line), path=path, report=report,
                                  line_of=lambda occ: record_of[occ] + 1)  # no comments here: record u is line u+1
    text = read_text(path, encoding=encoding, latin1_fallback=latin1_fallback)
    lines, numbers = content_lines(text)
    if not lines:
        raise DataFormatError(path, "the file has no records (only comments)")
    parts = split_lines(lines)
    values = parse_int_tokens(parts, numbers, path, text)
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    record_of = np.repeat(np.arange(len(parts), dtype=np.int64), lengths)
    line_numbers = np.asarray(numbers, dtype=np.int64)
    return build_transactions(record_of, values, len(parts), path=path, report=report,
                              line_of=lambda occ: line_numbers[record_of[occ]])


def require_int_labels(data: TransactionData, path: Path, what: str) -> None:
    if int_labels_or_none(data.vocab) is None:
        bad = next(v for v in data.vocab if int_labels_or_none([v]) is None)
        raise DataFormatError(path, f"{what} needs integer items but {bad!r} is not; save as csv-long or parquet")


def save_fimi(data: TransactionData, path: str | Path) -> None:
    """Write one line per record, items space-separated (integer labels only)."""
    path = Path(path)
    require_int_labels(data, path, "FIMI")
    with atomic_write(path) as fh:
        for labels in records_as_label_lists(data):
            fh.write(" ".join(labels))
            fh.write("\n")


def sniff_fimi(head: Head) -> float:
    if not head.lines:
        return 0.0
    tokens = [tok for ln in head.lines[:200] for tok in ln.replace(",", " ").split()]
    if not tokens:
        return 0.0
    if any(tok in ("-1", "-2") for tok in tokens) and any(ln.rstrip().endswith("-2") for ln in head.lines):
        return 0.1  # SPMF sequences look like integer lines too
    ints = sum(1 for tok in tokens if _INT.match(tok))
    if ints == len(tokens):
        if head.extension in (".csv", ".tsv"):
            return 0.2  # the name says CSV: FIMI only if no CSV format fits
        if any("\t" in ln for ln in head.lines[:200]):
            return 0.3  # FIMI separates by spaces; tabs suggest user/item columns
        return 0.8 if head.extension in (".dat", ".txt", ".fimi") else 0.6
    if delimited_shape(head.lines[:200]) is not None:
        return 0.0  # words between commas, tabs or semicolons: a CSV, not baskets
    # Whitespace-separated words: still most likely a basket file with a typo;
    # the loader then names the bad line.
    return 0.05


FIMI = register(Format(
    name="fimi", label="FIMI / SPMF itemsets", kind="transactions", extensions=(".dat", ".txt", ".fimi"),
    sniff=sniff_fimi, load=load_fimi, save=save_fimi,
    description="One record per line, integer items separated by spaces.",
))
