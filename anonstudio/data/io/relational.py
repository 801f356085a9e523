"""Relational CSV tables (UCI Adult style) -> :class:`~anonstudio.data.table.Table`.

Handles what the UCI files do: no header row (auto-detected, or
``header=True/False``), ``", "`` separators, ``?`` for missing values,
comment lines starting with ``|`` (adult.test begins with
``|1x3 Cross validator``), and class labels with a trailing ``.`` (adult.test
writes ``<=50K.`` where adult.data writes ``<=50K``). An empty field is
always missing. Columns whose every value is a number become numeric
(``int64``, or nullable ``Int64`` with missing values, or ``float64``);
the others hold strings.
"""
from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import DataFormatError
from ..table import Table
from .atomic import atomic_write
from .delimited import (
    content_lines,
    header_only,
    header_only_reason,
    is_number,
    iter_rows,
    looks_like_header,
    plain_chunk,
    sniff_delimiter,
)
from .registry import Format, Head, register
from .report import LoadReport
from .shape import RAGGED_SCORE, delimited_shape
from .text import iter_text_chunks, read_text

# imported where used: data.io registers every format when imported, and a FIMI file or --help needs neither
if TYPE_CHECKING:
    import pandas as pd

__all__ = ["load_csv_table", "save_csv_table", "uci_attribute_names", "frame_of_text_rows"]

#: A number written with a leading zero ("001", "02134"): a code, not a quantity, so its column stays text
#: (reading it as 1 would merge "001" and "01" and lose the code's spelling).
_LEADING_ZERO = re.compile(r"[+-]?0\d")


def _has_code(texts: Sequence[str]) -> bool:
    return any(_LEADING_ZERO.match(t) for t in texts)


def _leading_zero_pattern(sep: str) -> re.Pattern:
    return re.compile(rf"(?:^|{re.escape(sep)})[ ]*[+-]?0\d", re.M)


def _has_leading_zero_field(text: str, sep: str) -> bool:
    """Whether a field of ``text`` starts (after spaces and a sign) with a zero and a digit, such as ``001``.

    What :func:`_leading_zero_pattern` finds, on the bytes with numpy: the multi-line regular expression tried
    every position of the text and cost a plain table's load as much as parsing it.
    """
    if not sep.isascii():
        return _leading_zero_pattern(sep).search(text) is not None
    raw = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)  # ASCII bytes keep their meaning
    after = raw[1:]
    at = np.flatnonzero((raw[:-1] == ord("0")) & (after >= ord("0")) & (after <= ord("9")))  # each "0<digit>"
    if not len(at):
        return False
    before = at - 1
    signed = (before >= 0) & np.isin(raw[np.maximum(before, 0)], (ord("+"), ord("-")))
    before[signed] -= 1
    for _ in range(64):  # back over the spaces skipinitialspace allows
        spaces = (before >= 0) & (raw[np.maximum(before, 0)] == ord(" "))
        if not spaces.any():
            break
        before[spaces] -= 1
    else:  # a run of more than 64 spaces before a zero: let the expression decide
        return _leading_zero_pattern(sep).search(text) is not None
    return bool(((before < 0) | np.isin(raw[np.maximum(before, 0)], (ord("\n"), ord(sep)))).any())


def _column(values: np.ndarray, missing: set[str]) -> tuple[pd.Series, int]:
    """Typed column and its number of missing values.

    Works on the distinct values (factorized by pandas in C): stripping,
    missing markers and the number test run once per distinct value, which
    keeps a categorical column of a large table cheap.
    """
    import pandas as pd

    codes, uniques = pd.factorize(values, sort=False)
    return _column_of_codes(codes, uniques.tolist(), missing)


def _column_of_codes(codes: np.ndarray, uniques: list[str], missing: set[str],
                     parsed: pd.Series | None = None) -> tuple[pd.Series, int]:
    """:func:`_column` from the distinct values and every row's index into them.

    ``parsed``: the column as pandas' parser typed it (``str``, missing values NaN, coded as the last of
    ``uniques``, an empty text); when it stays text with every value as it was, it is returned as is
    instead of being built again from ``codes``.
    """
    import pandas as pd

    texts = [u.strip() for u in uniques]
    absent = np.fromiter((t == "" or t in missing for t in texts), dtype=bool, count=len(texts))
    is_missing = absent[codes] if len(codes) else np.zeros(0, dtype=bool)
    n_missing = int(is_missing.sum())
    present = [t for t, a in zip(texts, absent) if not a]
    numbers = None
    # A cheap look at a few values first: parsing a text column as numbers is wasted work.
    if present and all(is_number(t) for t in present[:20]):
        numbers = pd.to_numeric(pd.Series(present, dtype=object), errors="coerce")
        # to_numeric takes what is_number takes, and also inf and nan: those make a text column.
        if numbers.isna().any() or (numbers.dtype.kind == "f" and not np.isfinite(numbers.to_numpy()).all()):
            numbers = None
        elif _has_code(present):
            numbers = None
    if numbers is not None:
        by_code = np.zeros(len(texts), dtype=numbers.dtype)
        by_code[~absent] = numbers.to_numpy()
        column = by_code[codes]
        if numbers.dtype.kind in "iu":
            if not n_missing:
                return pd.Series(column.astype(np.int64)), 0
            out = pd.array(column.astype(np.int64), dtype="Int64")
            out[is_missing] = pd.NA
            return pd.Series(out), n_missing
        column = column.astype(np.float64)
        column[is_missing] = np.nan
        return pd.Series(column), n_missing
    if (parsed is not None and parsed.dtype == "str" and texts[:-1] == uniques[:-1]
            and not absent[:-1].any()):  # no value stripped or found to be a missing marker
        return parsed.reset_index(drop=True), n_missing
    by_code = np.asarray(texts, dtype=object)
    column = by_code[codes] if len(codes) else np.zeros(0, dtype=object)
    if n_missing:
        column[is_missing] = None
    return pd.Series(column, dtype="str"), n_missing


def frame_of_text_rows(header: Sequence[str], rows: Iterable[Sequence[str]]) -> pd.DataFrame:
    """A table's rows of text cells as a DataFrame typed the way this reader types a file's columns.

    A column whose every value is a number holds numbers (a code with a leading zero stays text), an empty
    cell is missing; nothing else is read into the text (no ``?`` as missing, no label dots dropped), so the
    frame written as CSV gives the cells back. The library API's table releases are built so, without a file.
    """
    import pandas as pd

    names = [str(h) for h in header]
    cells = list(rows)
    for number, row in enumerate(cells, start=1):
        if len(row) != len(names):
            raise ValueError(f"row {number} has {len(row)} cells for {len(names)} columns")
    columns = {}
    for j, name in enumerate(names):
        values = np.empty(len(cells), dtype=object)
        values[:] = [row[j] for row in cells]
        columns[name] = _column(values, set())[0]
    return pd.DataFrame(columns, columns=names)


def _column_names(path: Path, report: LoadReport, first_rows: list[list[str]], n_fields: int, header,
                  names: Sequence[str] | None, first_line: int | None) -> tuple[list[str], bool]:
    """(column names, whether the first row is a header) from the first rows of the file."""
    if header == "auto" and names is None and header_only(first_rows):
        raise DataFormatError(path, header_only_reason(first_rows), first_line)
    use_header = looks_like_header(first_rows) if header == "auto" else bool(header)
    if names is not None:
        names = [str(x) for x in names]
        if len(names) != n_fields:
            raise DataFormatError(path, f"{len(names)} column names given but rows have {n_fields} fields")
    elif use_header:
        names = [h.strip() for h in first_rows[0]]
    else:
        names = _names_from_sibling(path, n_fields, report) or [f"c{j + 1}" for j in range(n_fields)]
    if len(set(names)) != len(names):
        dup = next(x for x in names if names.count(x) > 1)
        raise DataFormatError(path, f"column name {dup!r} occurs twice", first_line)
    return list(names), use_header


def _typed_columns(path: Path, report: LoadReport, *, header, missing: Sequence[str], sep: str | None,
                   names: Sequence[str] | None, encoding: str | None, latin1_fallback: bool,
                   progress: Any) -> tuple[list[str], dict, dict] | None:
    """Columns typed by pandas' C parser, for files whose every chunk is plain (see :func:`plain_chunk`).

    None when a chunk is not plain or pandas' typing differs from the rules of
    :func:`_column` (booleans, unsigned or infinite numbers): the exact reader
    then reads the file. Text columns still go through :func:`_column`.
    """
    import pandas as pd

    frames = []
    col_names: list[str] = []
    n_fields = None
    for n, chunk in enumerate(iter_text_chunks(path, encoding=encoding, latin1_fallback=latin1_fallback,
                                               progress=progress, quotes=True)):
        text = chunk.text
        if n == 0:
            first_lines = text.split("\n", 300)[:300]  # whatever their length: a header guess needs rows
            lines, numbers = content_lines("\n".join(first_lines) + "\n", chunk.first_line)
            sep = sep or sniff_delimiter(lines, (",", "\t", ";", "|")) or ","
        plain = plain_chunk(text, sep, n_fields)
        if plain is None:
            return None
        if _has_leading_zero_field(text, sep):
            return None  # a code with a leading zero somewhere: the exact reader decides which columns stay text
        if n == 0:
            n_fields = plain.fields
            sample = [r for r in csv.reader((ln for ln in lines[:201] if ln.strip()), delimiter=sep,
                                            skipinitialspace=True)]
            col_names, use_header = _column_names(path, report, sample, n_fields, header, names,
                                                  chunk.first_line + plain.first_content)
            report.details.update(separator=sep, header=bool(use_header))
            if use_header:  # the header is the first line that is not empty
                cut = 0
                for _ in range(plain.first_content + 1):
                    cut = text.index("\n", cut) + 1 if "\n" in text[cut:] else len(text)
                text = text[cut:]
        if not text.strip():
            continue
        options = dict(sep=sep, header=None, skipinitialspace=True, na_values=[*missing, ""], keep_default_na=False,
                       quoting=csv.QUOTE_NONE, engine="c", skip_blank_lines=True, index_col=False)
        try:
            frame = pd.read_csv(io.StringIO(text), **options)
            if any(col.dtype.kind == "f" and col.isna().any() for _, col in frame.items()):
                # Whole numbers with a missing value come back as floats: the nullable types keep them integers
                # (about twice the parse, so only for the chunks that need it).
                frame = pd.read_csv(io.StringIO(text), dtype_backend="numpy_nullable", **options)
        except (pd.errors.ParserError, ValueError):
            return None
        if frame.shape[1] != n_fields:
            return None
        frames.append(frame)
    if not frames:
        raise DataFormatError(path, "the file has a header but no data rows")
    frame = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    columns, counts = {}, {}
    missing_set = set(missing)
    for j, name in enumerate(col_names):
        col = frame.iloc[:, j]
        kind = col.dtype.kind
        if kind == "b" or kind == "u" or str(col.dtype) == "boolean":
            return None
        n_missing = int(col.isna().sum())
        if kind == "i" or str(col.dtype).startswith("Int"):
            columns[name] = (col.astype(np.int64) if not n_missing else col.astype("Int64")).reset_index(drop=True)
        elif kind == "f" or str(col.dtype).startswith("Float"):
            values = col.to_numpy(dtype=np.float64, na_value=np.nan)
            if not np.isfinite(values[~np.isnan(values)]).all():
                return None  # "inf" is text to anonstudio
            columns[name] = pd.Series(values)
        elif isinstance(col.dtype, pd.StringDtype):
            # pandas found a value that is no number: text, typed by _column as the exact reader types it (a
            # value such as " 5 " is a number once stripped). Every value is a text or missing.
            codes, uniques = pd.factorize(col, sort=False)  # in C on the column; a missing value has code -1
            codes = np.where(codes < 0, len(uniques), codes)
            columns[name], n_missing = _column_of_codes(codes, [*uniques.tolist(), ""], missing_set, col)
        else:
            texts = col.astype(object).where(col.notna(), "").to_numpy(dtype=object)
            if not all(isinstance(t, str) for t in texts):
                # Chunks typed differently (text in one, numbers in another) were concatenated: the
                # numbers' spelling is lost, so the exact text reader decides.
                return None
            columns[name], n_missing = _column(texts, missing_set)
        counts[name] = n_missing
    return col_names, columns, counts


def _text_columns(path: Path, report: LoadReport, *, header, missing: Sequence[str], sep: str | None,
                  names: Sequence[str] | None, encoding: str | None, latin1_fallback: bool,
                  progress: Any) -> tuple[list[str], dict, dict]:
    """Every field read as text by the exact reader (any file), then typed by :func:`_column`."""
    reader = iter_rows(path, sep=sep, candidates=(",", "\t", ";", "|"), skipinitialspace=True,
                       encoding=encoding, latin1_fallback=latin1_fallback, progress=progress)
    return _columns_of_rows(path, report, reader, header=header, missing=missing, names=names)


def _columns_of_rows(path: Path, report: LoadReport, reader, *, header, missing: Sequence[str],
                     names: Sequence[str] | None) -> tuple[list[str], dict, dict]:
    """Text rows from ``reader`` (row chunks with ``n_fields``, ``first_line``, ``sep``) as typed columns."""
    parts: list[list[np.ndarray]] = []
    col_names: list[str] = []
    for n, chunk in enumerate(reader):
        if n == 0:
            col_names, use_header = _column_names(path, report, chunk.rows(201), reader.n_fields, header, names,
                                                  reader.first_line)
            report.details.update(separator=reader.sep, header=bool(use_header))
            if use_header:
                chunk = chunk.drop_first()
        if chunk.n_rows:
            parts.append(chunk.columns)
    if not parts:
        raise DataFormatError(path, "the file has a header but no data rows")
    missing_set = set(missing)
    columns, counts = {}, {}
    for j, name in enumerate(col_names):
        values = parts[0][j] if len(parts) == 1 else np.concatenate([p[j] for p in parts])
        columns[name], counts[name] = _column(values, missing_set)
    return col_names, columns, counts


def table_from_rows(path: Path, report: LoadReport, reader, *, header: bool | str = "auto",
                    missing: Sequence[str] = ("?",), names: Sequence[str] | None = None,
                    strip_label_dots: bool | str = "auto", progress: Any = None) -> Table:
    """A table from text rows (a spreadsheet's, a query's), typed exactly as a CSV table's fields are.

    ``reader`` yields :class:`~.delimited.RowChunk` pieces and has ``n_fields``,
    ``first_line`` and ``sep`` like :func:`~.delimited.iter_rows`.
    """
    typed = _columns_of_rows(path, report, reader, header=header, missing=tuple(missing), names=names)
    return _finish_table(path, report, typed, strip_label_dots, progress)


def load_csv_table(path: str | Path, report: LoadReport, *, header: bool | str = "auto",
                   missing: Sequence[str] = ("?",), sep: str | None = None, names: Sequence[str] | None = None,
                   strip_label_dots: bool | str = "auto", encoding: str | None = None,
                   latin1_fallback: bool = False, progress: Any = None) -> Table:
    """Read a relational CSV (see module docstring), chunk by chunk.

    A file whose chunks are plain (no quotes, no comment lines, every row with
    the same number of fields) is split and typed by pandas' C parser; any
    other goes through the exact reader, which names the line and reason of a
    problem. Both give the same table.

    Parameters
    ----------
    header
        ``"auto"`` guesses (a numeric column whose first value is text means a
        header), or True/False.
    missing
        Field values meaning "missing" besides the empty field.
    names
        Column names to use (for files without a header row).
    strip_label_dots
        ``"auto"``: drop a trailing ``.`` from the last column when every
        value there ends with one (adult.test); True/False force it.
    progress
        Told the share read; a cancel raises
        :class:`~anonstudio.data.errors.LoadCancelled`.
    """
    path = Path(path)
    if sep is not None and len(sep) != 1:
        raise DataFormatError(path, f"the separator must be one character (got {sep!r})")
    options = dict(header=header, missing=tuple(missing), sep=sep, names=names, encoding=encoding,
                   latin1_fallback=latin1_fallback, progress=progress)
    attempt = LoadReport()  # its notes count only if the fast reader finishes
    typed = _typed_columns(path, attempt, **options)
    if typed is not None:
        report.warnings.extend(attempt.warnings)
        report.details.update(attempt.details)
    typed = typed if typed is not None else _text_columns(path, report, **options)
    return _finish_table(path, report, typed, strip_label_dots, progress)


def _finish_table(path: Path, report: LoadReport, typed: tuple[list[str], dict, dict], strip_label_dots,
                  progress: Any) -> Table:
    """The table of typed columns: label dots stripped as asked, missing values counted in the report."""
    import pandas as pd

    col_names, columns, missing_counts = typed
    if progress is not None:
        progress.set(1.0, f"typing the columns of {path.name}")
    df = pd.DataFrame(columns)
    last = col_names[-1]
    if strip_label_dots and df[last].dtype == "str":
        present = df[last].dropna()
        if strip_label_dots is True or (len(present) and present.str.endswith(".").all()):
            df[last] = df[last].str.removesuffix(".")
            report.warn(f"removed the trailing '.' from the values of column {last!r}")
    total_missing = sum(missing_counts.values())
    if total_missing:
        report.warn(f"{total_missing:,} missing values in {sum(1 for v in missing_counts.values() if v)} columns")
    report.details["missing"] = missing_counts
    return Table(df, {}, name=path.name, source=path)


def save_csv_table(table: Table, path: str | Path, *, sep: str = ",") -> None:
    """Write a header row and the values; missing values are written as empty fields."""
    frame = table.frame
    with atomic_write(path) as fh:
        writer = csv.writer(fh, delimiter=sep, lineterminator="\n")
        writer.writerow([str(c) for c in frame.columns])
        columns = []
        for name in frame.columns:
            col = frame[name]
            mask = col.isna().to_numpy()
            if col.dtype.kind == "f":
                text = [repr(float(v)) for v in col.to_numpy(dtype=np.float64, na_value=np.nan)]
            else:
                text = [str(v) for v in col.astype(object).to_numpy()]
            columns.append(["" if m else t for m, t in zip(mask, text)])
        writer.writerows(zip(*columns))


def uci_attribute_names(names_file: str | Path) -> list[str]:
    """Attribute names from a UCI ``.names`` file (lines ``name: values.``)."""
    out = []
    try:
        text = read_text(names_file, latin1_fallback=True, allow_empty=True)
    except DataFormatError:
        return []
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z][\w-]*):\s", line)
        if m:
            out.append(m.group(1))
    return out


def _names_from_sibling(path: Path, n_fields: int, report: LoadReport) -> list[str] | None:
    """Column names from a UCI ``<stem>.names`` file next to a header-less data file.

    UCI lists the attributes but not the class column, so exactly
    ``n_fields - 1`` names are expected; the last column is named ``class``.
    """
    sibling = path.with_suffix(".names")
    if not sibling.is_file():
        return None
    names = uci_attribute_names(sibling)
    if len(names) != n_fields - 1 or len(set(names)) != len(names):
        return None
    report.warn(f"column names taken from {sibling.name}")
    return [*names, "class"]


def sniff_csv_table(head: Head) -> float:
    lines = head.lines[:300]
    if not lines:
        return 0.0
    named = head.extension in (".csv", ".data", ".test", ".tsv")
    for sep in (",", "\t", ";", "|"):
        counts = {ln.count(sep) for ln in lines}
        if len(counts) == 1 and (n := counts.pop()) >= 1:
            fields = [f.strip() for ln in lines[1:] for f in ln.split(sep)]
            text_fields = sum(not is_number(f) for f in fields)
            bonus = 0.1 if named else 0.0
            if text_fields and n >= 2:
                return 0.5 + bonus
            return 0.2 + bonus
    shape = delimited_shape(lines, (",", "\t", ";", "|"))
    if shape is not None and shape.ragged and shape.first >= 3:
        # A broken table: the loader names the row with the wrong field count.
        return RAGGED_SCORE + (0.05 if named else 0.0)
    return 0.0


register(Format(
    name="csv-table", label="CSV table", kind="table", extensions=(".csv", ".data", ".test", ".tsv"),
    sniff=sniff_csv_table, load=load_csv_table, save=save_csv_table,
    description="One row per person, one column per attribute; header optional, '?' = missing.",
))
