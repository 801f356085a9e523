"""FIMI / SPMF itemset files: one record per line, integer items.

Items are whole numbers from 0, separated by spaces, tabs or commas (other
white space such as a form feed separates too, but never ends a line);
trailing spaces, CRLF line ends and SPMF metadata lines (starting with ``#``,
``%`` or ``@``) are accepted. Every line is a record, so a blank line is an
empty record (also at the end of the file, after the last line end: that is
how the writer stores a trailing empty record). Empty records are counted in
the load report, so a stray blank line does not go unnoticed. A negative
number is an error: ``-1`` and ``-2`` are the markers of SPMF *sequence*
files, whose sequences must then end with ``-2`` (format ``spmf-seq``).

The file is read in chunks of whole lines; plain chunks are parsed on the
bytes by :func:`anonstudio.kernels.fimi.parse_int_lines`, the others line by
line, and the dataset is built once the last chunk is in
(:class:`~anonstudio.data.io.build.RecordChunks`). A small file read while
numba is not loaded yet (``anonstudio-cli info chess``) goes line by line:
importing numba and loading the kernel from its cache costs more than the
line reader on a few hundred thousand items, and both give the same records.
"""
from __future__ import annotations

import re
import sys
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DataFormatError
from ..transactions import TransactionData
from .atomic import atomic_write
from .build import RecordChunks, int_labels_or_none
from .delimited import content_lines
from .registry import Format, Head, register
from .report import LoadReport
from .shape import delimited_shape
from .text import iter_text_chunks

__all__ = ["load_fimi", "save_fimi", "content_lines", "parse_int_tokens", "split_tokens", "fast_int_records"]

_INT = re.compile(r"^-?[0-9]+$")

#: Below this many characters a chunk is read line by line unless numba is already loaded (about 0.3 s for the
#: line reader against about 0.6 s to import numba and load the kernel, on an idle 2-core machine).
SMALL_CHUNK = 1_000_000


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


def split_tokens(lines: list[str]) -> list[list[str]]:
    """Each line's tokens: items separated by white space or commas."""
    if any("," in ln for ln in lines):
        return [ln.replace(",", " ").split() for ln in lines]
    return [ln.split() for ln in lines]


def fast_int_records(raw: bytes) -> tuple[np.ndarray, np.ndarray] | None:
    """Items and per-line counts of plain FIMI bytes, or None when the line-by-line reader must decide.

    Only for the common case: ASCII digits separated by spaces, tabs or
    commas, ``\n`` line ends, no comments, no negative numbers, at most 18
    digits (see :func:`anonstudio.kernels.fimi.parse_int_lines`). A final line
    end ends the last line (it does not start an empty one).
    """
    from ...kernels.fimi import OK, parse_int_lines

    if not raw.strip():
        return None
    buf = np.frombuffer(raw, dtype=np.uint8)
    values = np.empty((len(raw) + 1) // 2, dtype=np.int64)
    counts = np.empty(raw.count(b"\n") + 1, dtype=np.int64)
    n_values, n_lines, status = parse_int_lines(buf, values, counts)
    if status != OK:
        return None
    return values[:n_values].copy(), counts[:n_lines].copy()


def _negative_item(path: Path, values: np.ndarray, parts: list[list[str]], numbers: list[int]) -> None:
    """Refuse negative item numbers, naming the first (SPMF's -1/-2 markers get a hint)."""
    if values.dtype == object or not len(values) or values.min() >= 0:
        return
    for tokens, number in zip(parts, numbers):
        for tok in tokens:
            if tok.startswith("-"):
                hint = ("; -1 and -2 end itemsets and sequences in SPMF sequence files: read it as spmf-seq, "
                        "where every sequence ends with -2") if tok in ("-1", "-2") else ""
                raise DataFormatError(path, f"{tok[:40]!r} is not an item: FIMI items are whole numbers from 0"
                                            f"{hint}", number)


def _slow_chunk(path: Path, text: str, first_line: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(items, items per record, record lines) of a chunk the byte-level reader left to the line reader."""
    lines, numbers = content_lines(text, first_line)
    parts = split_tokens(lines)
    values = parse_int_tokens(parts, numbers, path, text)
    _negative_item(path, values, parts, numbers)
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    return values, lengths, np.asarray(numbers, dtype=np.int64)


def load_fimi(path: str | Path, report: LoadReport, *, encoding: str | None = None,
              latin1_fallback: bool = False, progress: Any = None) -> TransactionData:
    """Read a FIMI/SPMF itemset file (see module docstring), chunk by chunk.

    ``progress`` is told the share read; a cancel raises
    :class:`~anonstudio.data.errors.LoadCancelled` (nothing is returned).
    """
    path = Path(path)
    records = RecordChunks(path, report)
    for chunk in iter_text_chunks(path, encoding=encoding, latin1_fallback=latin1_fallback, progress=progress):
        fast = fast_int_records(chunk.text.encode("ascii")) if _kernel_pays(chunk.text) else None
        if fast is not None:
            values, per_line = fast
            records.add(per_line, values, chunk.first_line)  # no comments here: record i is line first_line + i
        else:
            values, lengths, numbers = _slow_chunk(path, chunk.text, chunk.first_line)
            records.add(lengths, values, numbers)
    if records.n_records == 0:
        raise DataFormatError(path, "the file has no records (only comments)")
    if progress is not None:
        progress.set(1.0, f"building {path.name}")
    return records.build()


def _kernel_pays(text: str) -> bool:
    """Whether to try the byte-level kernel on a chunk: plain ASCII, and big or numba loaded anyway."""
    return text.isascii() and (len(text) >= SMALL_CHUNK or _numba_loaded())


def _numba_loaded() -> bool:
    return "numba" in sys.modules


def require_int_labels(data: TransactionData, path: Path, what: str) -> None:
    if int_labels_or_none(data.vocab) is None:
        bad = next(v for v in data.vocab if int_labels_or_none([v]) is None)
        raise DataFormatError(path, f"{what} needs integer items but {bad!r} is not; save as csv-long or parquet")


_SAVE_BLOCK = 65536


def save_fimi(data: TransactionData, path: str | Path) -> None:
    """Write one line per record, items space-separated (integer labels only)."""
    path = Path(path)
    require_int_labels(data, path, "FIMI")
    labels = np.asarray(data.vocab, dtype=object)[data.indices].tolist()
    bounds = data.indptr.tolist()
    n = data.n_records
    with atomic_write(path) as fh:
        # Lines joined a block of records at a time: one write per block, not two per record (a paper-scale
        # release has millions of records), and no block larger than a few MiB of text.
        for start in range(0, n, _SAVE_BLOCK):
            fh.write("".join([" ".join(labels[bounds[u]:bounds[u + 1]]) + "\n"
                              for u in range(start, min(n, start + _SAVE_BLOCK))]))


def sniff_fimi(head: Head) -> float:
    if not head.lines:
        return 0.0
    tokens = [tok for ln in head.lines[:200] for tok in ln.replace(",", " ").split()]
    if not tokens:
        return 0.0
    if any(tok in ("-1", "-2") for tok in tokens) and any(ln.rstrip().endswith("-2") for ln in head.lines):
        return 0.1  # SPMF sequences look like integer lines too
    if all(_INT.match(tok) for tok in tokens):  # a word settles it at once
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
