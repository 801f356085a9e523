"""Shared parsing of delimited text (CSV, TSV): rows with line numbers, checks, header guess."""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from ..errors import DataFormatError
from .fimi import content_lines
from .text import read_text

__all__ = ["Rows", "read_rows", "sniff_delimiter", "looks_like_header", "numeric_header_evidence", "is_number",
           "column_index"]

_INTEGER = re.compile(r"^\s*-?[0-9]+\s*$")
_NUMBER = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")


def is_number(s: str) -> bool:
    return bool(_NUMBER.match(s))


@dataclass
class Rows:
    """Parsed rows of a delimited file and the 1-based line each came from."""

    rows: list[list[str]]
    lines: list[int]
    sep: str

    def __len__(self) -> int:
        return len(self.rows)


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


def read_rows(path: Path, *, sep: str | None, candidates: Sequence[str] = (",", "\t", ";"),
              skipinitialspace: bool = False, encoding: str | None = None, latin1_fallback: bool = False,
              expect_same_length: bool = True, min_fields: int = 1) -> Rows:
    """Read a whole delimited file.

    Comment lines (``#``, ``%``, ``@``, ``|``) and blank lines are skipped.
    With ``expect_same_length`` a row with a different number of fields
    than the first raises DataFormatError naming its line.
    """
    text = read_text(path, encoding=encoding, latin1_fallback=latin1_fallback)
    lines, numbers = content_lines(text)
    if sep is None:
        sep = sniff_delimiter(lines, candidates) or candidates[0]
    reader = csv.reader(lines, delimiter=sep, skipinitialspace=skipinitialspace, strict=True)
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
        raise DataFormatError(path, f"cannot be parsed as delimited text ({exc})",
                              numbers[min(reader.line_num, len(numbers)) - 1] if numbers else None) from exc
    # Blank lines are skipped; a line holding just "" is a row with one empty field.
    blank = {n for ln, n in zip(lines, numbers) if not ln.strip()}
    keep = [i for i, n in enumerate(row_lines) if n not in blank]
    if len(keep) != len(rows):
        rows = [rows[i] for i in keep]
        row_lines = [row_lines[i] for i in keep]
    if not rows:
        raise DataFormatError(path, "the file has no data rows")
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    if lengths.min() < min_fields:
        bad = int(np.argmax(lengths < min_fields))
        raise DataFormatError(path, f"expected at least {min_fields} fields but found {lengths[bad]}", row_lines[bad])
    if expect_same_length and np.any(lengths != lengths[0]):
        bad = int(np.argmax(lengths != lengths[0]))
        reason = f"expected {lengths[0]} fields (as on line {row_lines[0]}) but found {lengths[bad]}"
        if all(_INTEGER.match(f) for r in rows for f in r):
            # Rows of integers of varying length are usually baskets, not a table.
            reason += "; if each line lists the items of one record, read it as fimi"
        raise DataFormatError(path, reason, row_lines[bad])
    return Rows(rows, row_lines, sep)


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


def numeric_header_evidence(rows: Sequence[Sequence[str]], skip: Sequence[int] = ()) -> bool | None:
    """What the numeric columns say about the first row.

    True (a header) if a column is numeric below the first row but its first
    value is not; False (data) if there are numeric columns and the first
    row is numeric in all of them; None without numeric columns. Columns in
    ``skip`` are not looked at.
    """
    first, body = rows[0], rows[1:201]
    seen_numeric = False
    for j, value in enumerate(first):
        if j in skip:
            continue
        column = [r[j] for r in body if j < len(r) and r[j].strip()]
        if column and all(is_number(v) for v in column):
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
