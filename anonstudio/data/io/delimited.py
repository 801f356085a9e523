"""Shared parsing of delimited text (CSV, TSV): rows in chunks, with line numbers, checks and header guess.

:func:`iter_rows` reads a file chunk by chunk (see :mod:`.text`) and yields
:class:`RowChunk` objects holding the fields column by column. A plain chunk
(no quotes, no comment or blank lines, every line with the first line's
number of fields) is split by pandas' C parser; any other chunk by Python's
``csv`` module, line by line, which names the exact line and reason of a
problem. Both give the same fields. Quoted fields may hold line breaks (the
text is cut into chunks outside quotes) and fields may be of any length.
"""
from __future__ import annotations

import csv
import io
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DataFormatError
from .registry import COMMENT_PREFIXES
from .text import iter_text_chunks, split_lines

__all__ = ["Rows", "RowChunk", "RowReader", "PlainChunk", "plain_chunk", "iter_rows", "read_rows", "sniff_delimiter",
           "looks_like_header", "header_only", "header_only_reason",
           "numeric_header_evidence", "is_number", "all_numbers", "column_index", "content_lines"]

# A record may be longer than the csv module's default field limit (128 KiB): a basket of many items.
csv.field_size_limit(max(csv.field_size_limit(), min(sys.maxsize, 2**31 - 1)))

_INTEGER = re.compile(r"^\s*-?[0-9]+\s*$")
_NUMBER = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")
# Values without line ends, one a line, each what _NUMBER matches: a column tested in one run, not one a call.
_ONE_NUMBER = r"[^\S\n]*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[^\S\n]*"
_NUMBER_LINES = re.compile(rf"{_ONE_NUMBER}(?:\n{_ONE_NUMBER})*")
# A line holding nothing but white space (the line end itself excluded).
_BLANK_LINE = re.compile(r"^[^\S\n]*$", re.MULTILINE)
# White space other than a line end starting a line after the first (a form feed or U+3000 as well as a space).
_WHITE_START = re.compile(r"\n[^\S\n]")


def _has_comment_line(text: str) -> bool:
    """Whether a line after the first starts with a comment prefix.

    Substring searches: a multi-line regular expression (``^[#%@|]``) tried every position of the text and
    took about a third of a plain table's load.
    """
    return any(prefix in text and "\n" + prefix in text for prefix in COMMENT_PREFIXES)  # one byte is found fastest


def _empty_lines(body: str) -> np.ndarray:
    """0-based indices of the empty lines of ``body`` (text without its final line end)."""
    if not (body.startswith("\n") or body.endswith("\n") or "\n\n" in body or body == ""):
        return np.zeros(0, dtype=np.int64)
    out = []
    line = 0
    pos = 0
    if body.startswith("\n") or body == "":
        out.append(0)
    # Each line end followed by another or by the end of the text (found with str.find: a regular expression
    # tried every line end).
    ends = _runs_of_line_ends(body)
    for end in ends:
        line += body.count("\n", pos, end + 1)
        pos = end + 1
        out.append(line)
    return np.asarray(out, dtype=np.int64)


def _runs_of_line_ends(body: str) -> Iterator[int]:
    """Positions of the line ends of ``body`` that a line end or the end of ``body`` follows, in order."""
    at = body.find("\n\n")
    while at >= 0:
        yield at
        at = body.find("\n\n", at + 1)
    if body.endswith("\n"):
        yield len(body) - 1


def is_number(s: str) -> bool:
    return bool(_NUMBER.match(s))


def all_numbers(values: Sequence[str]) -> bool:
    """Whether :func:`is_number` holds for every value (True for none)."""
    if not values:
        return True
    joined = "\n".join(values)
    if joined.count("\n") != len(values) - 1:  # a value holding a line end: one at a time
        return all(is_number(v) for v in values)
    return _NUMBER_LINES.fullmatch(joined) is not None


def content_lines(text: str, first_line: int = 1) -> tuple[list[str], list[int]]:
    """Data lines of normalised text and their 1-based file line numbers (comment lines dropped)."""
    lines = split_lines(text)
    if not any(ln.startswith(COMMENT_PREFIXES) for ln in lines):
        return lines, list(range(first_line, first_line + len(lines)))
    kept = [(ln, i + first_line) for i, ln in enumerate(lines) if not ln.startswith(COMMENT_PREFIXES)]
    return [k[0] for k in kept], [k[1] for k in kept]


@dataclass
class Rows:
    """Parsed rows of a delimited file and the 1-based line each came from."""

    rows: list[list[str]]
    lines: list[int]
    sep: str

    def __len__(self) -> int:
        return len(self.rows)


@dataclass
class RowChunk:
    """Rows of one chunk, column by column.

    ``columns[j]`` is an object array of the ``j``-th field of every row;
    ``lines`` the 1-based file line where each row starts, as an array, or
    as the line of the first row when the rows are consecutive lines.
    """

    columns: list[np.ndarray]
    lines: np.ndarray | int

    @property
    def n_rows(self) -> int:
        return len(self.columns[0]) if self.columns else 0

    def line(self, i: int) -> int:
        return int(self.lines[i]) if isinstance(self.lines, np.ndarray) else int(self.lines) + i

    def line_array(self) -> np.ndarray:
        if isinstance(self.lines, np.ndarray):
            return self.lines
        return np.arange(self.n_rows, dtype=np.int64) + int(self.lines)

    def rows(self, limit: int | None = None) -> list[list[str]]:
        n = self.n_rows if limit is None else min(limit, self.n_rows)
        return [list(r) for r in zip(*(c[:n].tolist() for c in self.columns))] if n else []

    def drop_first(self) -> RowChunk:
        """The chunk without its first row (a header)."""
        lines = self.lines[1:] if isinstance(self.lines, np.ndarray) else int(self.lines) + 1
        return RowChunk([c[1:] for c in self.columns], lines)


def sniff_delimiter(lines: Sequence[str], candidates: Sequence[str] = (",", "\t", ";")) -> str | None:
    """The candidate that splits the sample lines into the same number (>1) of fields.

    Quotes are ignored here (a sniffing heuristic only); ties go to the
    earlier candidate. When no candidate splits consistently (a ragged file),
    the one on most lines, if on at least half of them, so that the row
    check then names the line with the wrong number of fields. None if no
    candidate is on half the lines.
    """
    sample = [ln for ln in lines[:100] if ln.strip()]
    best = None
    for sep in candidates:
        counts = {ln.count(sep) for ln in sample}
        if sample and len(counts) == 1 and counts.pop() > 0:
            return sep
        hits = sum(1 for ln in sample if sep in ln)
        if hits and (best is None or hits > best[0]):
            best = (hits, sep)
    return best[1] if best and 2 * best[0] >= len(sample) else None


@dataclass(frozen=True)
class PlainChunk:
    """What :func:`plain_chunk` found: fields per row, rows, and the empty lines (0-based) among ``n_lines``."""

    fields: int
    rows: int
    n_lines: int
    empty: np.ndarray
    first_content: int

    def lines(self, first_line: int) -> np.ndarray | int:
        """File line of every row (an int when the rows are consecutive lines)."""
        if not len(self.empty):
            return first_line
        return np.delete(np.arange(self.n_lines, dtype=np.int64), self.empty) + first_line


def plain_chunk(text: str, sep: str, expected: int | None, min_fields: int = 1) -> PlainChunk | None:
    """The shape of a chunk a C parser may split on its own, or None.

    Plain means: no quotes, no comment lines, no lines of white space only
    (empty lines are fine), and every other line with ``expected`` fields
    (the first line's number when None). Without quotes a line has one field
    more than separators: when the first line has the expected number, a
    parser refuses a line with more, and the separator total says none has
    fewer.
    """
    if '"' in text or text.startswith(COMMENT_PREFIXES) or _has_comment_line(text):
        return None
    body = text[:-1] if text.endswith("\n") else text
    starts_white = (body[:1].isspace() and body[:1] != "\n") or _WHITE_START.search(body) is not None
    if starts_white and _BLANK_LINE.search(body):
        return None  # a line of white space only (a form feed too): the exact reader decides what it is
    n_lines = body.count("\n") + 1
    empty = _empty_lines(body)
    first_content = 0
    for b in empty.tolist():  # sorted: the first line that is not empty
        if b != first_content:
            break
        first_content += 1
    if first_content >= n_lines:
        return None
    first = body.split("\n", first_content + 1)[first_content]
    fields = first.count(sep) + 1
    rows = n_lines - len(empty)
    if (expected is not None and fields != expected) or fields < min_fields \
            or body.count(sep) != rows * (fields - 1):
        return None
    return PlainChunk(fields, rows, n_lines, empty, first_content)


class RowReader:
    """Iterate over the row chunks of a delimited file; see :func:`iter_rows`.

    After the first chunk, :attr:`sep` is the separator and :attr:`n_fields`
    the number of fields of the first row (every row must have as many when
    ``expect_same_length``), :attr:`first_line` the line of the first row.
    """

    def __init__(self, path: Path, *, sep: str | None, candidates: Sequence[str], skipinitialspace: bool,
                 encoding: str | None, latin1_fallback: bool, expect_same_length: bool, min_fields: int,
                 progress: Any, chunk_bytes: int | None):
        self.path = Path(path)
        self.sep = sep
        self.candidates = tuple(candidates)
        self.skipinitialspace = skipinitialspace
        self.expect_same_length = expect_same_length
        self.min_fields = min_fields
        self.n_fields: int | None = None
        self.first_line: int | None = None
        options = {} if chunk_bytes is None else {"chunk_bytes": chunk_bytes}
        self._chunks = iter_text_chunks(self.path, encoding=encoding, latin1_fallback=latin1_fallback,
                                        progress=progress, quotes=True, **options)

    def __iter__(self) -> Iterator[RowChunk]:
        for chunk in self._chunks:
            if self.sep is None:
                head = chunk.text[:65536]
                lines, _ = content_lines(head[: head.rfind("\n") + 1] or head, chunk.first_line)
                self.sep = sniff_delimiter(lines, self.candidates) or self.candidates[0]
            rows = self._fast(chunk.text, chunk.first_line)
            if rows is None:
                rows = self._slow(chunk.text, chunk.first_line)
            if rows is not None and rows.n_rows:
                yield rows
        if self.n_fields is None:
            raise DataFormatError(self.path, "the file has no data rows")

    # ----------------------------------------------------------- fast path
    def _fast(self, text: str, first_line: int) -> RowChunk | None:
        """pandas' C parser on a plain chunk, or None when the line-by-line reader must look at it."""
        import pandas as pd

        plain = plain_chunk(text, self.sep, self.n_fields, self.min_fields)
        if plain is None:
            return None
        try:
            frame = pd.read_csv(io.StringIO(text), sep=self.sep, header=None, dtype=object, na_filter=False,
                                keep_default_na=False, skipinitialspace=self.skipinitialspace,
                                quoting=csv.QUOTE_NONE, engine="c", skip_blank_lines=True, index_col=False)
        except (pd.errors.ParserError, ValueError):
            return None
        if frame.shape != (plain.rows, plain.fields):
            return None
        self._seen(plain.fields, first_line + plain.first_content)
        return RowChunk([frame[c].to_numpy(dtype=object) for c in frame.columns], plain.lines(first_line))

    def _seen(self, fields: int, first_line: int) -> None:
        if self.n_fields is None:
            self.n_fields = fields
            self.first_line = first_line

    # ----------------------------------------------------------- exact path
    def _slow(self, text: str, first_line: int) -> RowChunk | None:
        """Python's csv module, line by line: exact line numbers and reasons."""
        path = self.path
        lines, numbers = content_lines(text, first_line)
        # With quotes, lines keep their ends so that a line break inside a quoted field stays in the field.
        source = (ln + "\n" for ln in lines) if '"' in text else lines
        reader = csv.reader(source, delimiter=self.sep, skipinitialspace=self.skipinitialspace, strict=True)
        rows: list[list[str]] = []
        row_lines: list[int] = []
        try:
            if '"' not in text:
                rows = list(reader)
                row_lines = numbers
            else:
                # Quoted fields may span lines: follow the reader's own line count.
                consumed = 0
                for row in reader:
                    rows.append(row)
                    row_lines.append(numbers[consumed])  # the row's first line
                    consumed = reader.line_num
        except csv.Error as exc:
            at = numbers[min(reader.line_num, len(numbers)) - 1] if numbers else None
            raise DataFormatError(path, f"cannot be parsed as delimited text ({exc})", at) from None
        # Blank lines are skipped; a line holding just "" is a row with one empty field.
        blank = {n for ln, n in zip(lines, numbers) if not ln.strip()}
        if blank:
            keep = [i for i, n in enumerate(row_lines) if n not in blank]
            rows = [rows[i] for i in keep]
            row_lines = [row_lines[i] for i in keep]
        if not rows:
            return None
        lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        if lengths.min() < self.min_fields:
            bad = int(np.argmax(lengths < self.min_fields))
            raise DataFormatError(path, f"expected at least {self.min_fields} fields but found {lengths[bad]}",
                                  row_lines[bad])
        self._seen(int(lengths[0]), row_lines[0])
        if self.expect_same_length and np.any(lengths != self.n_fields):
            bad = int(np.argmax(lengths != self.n_fields))
            reason = f"expected {self.n_fields} fields (as on line {self.first_line}) but found {lengths[bad]}"
            if all(_INTEGER.match(f) for r in rows[:2000] for f in r):
                # Rows of integers of varying length are usually baskets, not a table.
                reason += "; if each line lists the items of one record, read it as fimi"
            raise DataFormatError(path, reason, row_lines[bad])
        width = int(lengths.max())
        if np.all(lengths == width):
            columns = [np.asarray(col, dtype=object) for col in zip(*rows)]
        else:  # ragged rows allowed: missing fields are empty
            columns = [np.asarray([r[j] if j < len(r) else "" for r in rows], dtype=object) for j in range(width)]
        return RowChunk(columns, np.asarray(row_lines, dtype=np.int64))


def iter_rows(path: str | Path, *, sep: str | None = None, candidates: Sequence[str] = (",", "\t", ";"),
              skipinitialspace: bool = False, encoding: str | None = None, latin1_fallback: bool = False,
              expect_same_length: bool = True, min_fields: int = 1, progress: Any = None,
              chunk_bytes: int | None = None) -> RowReader:
    """The rows of a delimited file in chunks (an iterable :class:`RowReader`).

    Comment lines (``#``, ``%``, ``@``, ``|``) and blank lines are skipped.
    With ``expect_same_length`` a row with a different number of fields
    than the first raises DataFormatError naming its line. ``sep`` None
    sniffs it from the first lines among ``candidates``. A cancel of
    ``progress`` raises :class:`~anonstudio.data.errors.LoadCancelled`.
    """
    if sep is not None and len(sep) != 1:  # every front end checks it; a library call gets the same line
        raise DataFormatError(path, f"the separator must be one character (got {sep!r})")
    return RowReader(Path(path), sep=sep, candidates=candidates, skipinitialspace=skipinitialspace,
                     encoding=encoding, latin1_fallback=latin1_fallback, expect_same_length=expect_same_length,
                     min_fields=min_fields, progress=progress, chunk_bytes=chunk_bytes)


def read_rows(path: Path, *, sep: str | None, candidates: Sequence[str] = (",", "\t", ";"),
              skipinitialspace: bool = False, encoding: str | None = None, latin1_fallback: bool = False,
              expect_same_length: bool = True, min_fields: int = 1, progress: Any = None) -> Rows:
    """A whole (small) delimited file as rows; see :func:`iter_rows`."""
    reader = iter_rows(path, sep=sep, candidates=candidates, skipinitialspace=skipinitialspace, encoding=encoding,
                       latin1_fallback=latin1_fallback, expect_same_length=expect_same_length,
                       min_fields=min_fields, progress=progress)
    rows: list[list[str]] = []
    lines: list[int] = []
    for chunk in reader:
        rows.extend(chunk.rows())
        lines.extend(chunk.line_array().tolist())
    return Rows(rows, lines, reader.sep)


def looks_like_header(rows: Sequence[Sequence[str]], known_names: Sequence[str] = ()) -> bool:
    """Guess whether the first row names the columns.

    Yes if a column is numeric below the first row but its first value is
    not, or if the first row consists of ``known_names``; for all-text
    columns, yes if none of the first-row values occurs again in its column.
    """
    if not rows:
        return False
    first, body = rows[0], rows[1:201]
    known = {k.lower() for k in known_names}
    if known and all(f.strip().lower() in known for f in first):
        return True
    if not body or not all(f.strip() for f in first):
        return False  # column names are never empty; an empty field is data
    numeric = numeric_header_evidence(rows)
    if numeric is not None:
        return numeric
    if any(is_number(v) for v in first):
        return False
    return all(value not in {r[j] for r in rows[1:] if j < len(r)} for j, value in enumerate(first))


def header_only(rows: Sequence[Sequence[str]]) -> bool:
    """Whether ``rows`` is one row that reads like column names: text, none empty, none repeated, no number.

    Such a file is a header without data (nothing to describe or anonymize),
    not a one-row table; ``--no-header`` says otherwise.
    """
    if len(rows) != 1:
        return False
    fields = [f.strip() for f in rows[0]]
    return (bool(fields) and all(fields) and len(set(fields)) == len(fields)
            and not any(is_number(f) for f in fields))


def header_only_reason(rows: Sequence[Sequence[str]]) -> str:
    """The reason of the error for a :func:`header_only` file."""
    names = ", ".join(f.strip() for f in rows[0][:6]) + (", ..." if len(rows[0]) > 6 else "")
    return (f"holds only a header line ({names}) and no data rows, so it is not a dataset; pass --no-header "
            "if that line is data")


def numeric_header_evidence(rows: Sequence[Sequence[str]], skip: Sequence[int] = ()) -> bool | None:
    """What the numeric columns say about the first row.

    True (a header) if a column is numeric below the first row but its first
    value is not; False (data) if there are numeric columns and the first
    row is numeric in all of them; None without numeric columns. Columns in
    ``skip`` are not looked at.
    """
    first, body = rows[0], rows[1:201]
    # The body's columns at once when every row is as long as the first (a table's rows are).
    columns = list(zip(*body)) if body and all(len(r) == len(first) for r in body) else None
    seen_numeric = False
    for j, value in enumerate(first):
        if j in skip:
            continue
        values = columns[j] if columns is not None else [r[j] for r in body if j < len(r)]
        start = next((v for v in values if v.strip()), None)
        if start is None or not is_number(start):  # a column of text shows it at its first value
            continue
        column = [v for v in values if v.strip()]
        if all_numbers(column):
            if not is_number(value):
                return True
            seen_numeric = True
    return False if seen_numeric else None


def column_index(header: Sequence[str] | None, column: str | int | None, default: int, path: Path,
                 n_fields: int) -> int:
    """Resolve a column given by name (needs a header) or 0-based index."""
    if column is None:
        index = default
    elif isinstance(column, int) or (isinstance(column, str) and column.isdigit() and
                                     (header is None or column not in header)):
        index = int(column)
    else:
        if header is None or column not in header:
            names = ", ".join(header) if header else "none (the file has no header row)"
            raise DataFormatError(path, f"no column named {column!r}; columns: {names}")
        index = list(header).index(column)
    if not 0 <= index < n_fields:
        raise DataFormatError(path, f"column {index} does not exist; rows have {n_fields} fields")
    return index
