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

import codecs
import csv
import io
import re
import warnings
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
    sniff_delimiter,
)
from .fastcsv import (
    byte_chunks,
    count_byte,
    odd_spaces,
    plain_bytes,
    safe_separator,
    scan_fields,
    without_comment_lines,
)
from .registry import COMMENT_PREFIXES, Format, Head, register
from .report import LoadReport
from .shape import RAGGED_SCORE, delimited_shape
from .text import decode_text, read_bytes

# imported where used: data.io registers every format when imported, and a FIMI file or --help needs neither
if TYPE_CHECKING:
    import pandas as pd

__all__ = ["load_csv_table", "save_csv_table", "uci_attribute_names", "frame_of_text_rows"]

#: A number written with a leading zero ("001", "02134"): a code, not a quantity, so its column stays text
#: (reading it as 1 would merge "001" and "01" and lose the code's spelling).
_LEADING_ZERO = re.compile(r"[+-]?0\d")


def _has_code(texts: Sequence[str]) -> bool:
    return any(_LEADING_ZERO.match(t) for t in texts)


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


#: The separators a file's own is sniffed among (the exact reader's too).
_CANDIDATES = (",", "\t", ";", "|")
#: How the fast reader asks pandas' C parser to split a plain chunk (the exact reader's split of it).
_PARSE = dict(header=None, skipinitialspace=True, keep_default_na=False, quoting=csv.QUOTE_NONE, engine="c",
              skip_blank_lines=True, index_col=False, encoding="utf-8", low_memory=False)


def _reads_as_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _head_of(piece: bytes, sep: str | None) -> tuple[str, list[list[str]], int] | None:
    """(separator, the first 201 rows, the end of the first row's line in ``piece``) as the exact reader sees
    them (the csv module, like pandas, drops the spaces that start a line), or None when the chunk holds no
    row."""
    if sep is None:  # the exact reader sniffs in the first 65,536 characters of its first chunk
        head = piece[:65536].decode("ascii") if piece[:65536].isascii() else \
            codecs.getincrementaldecoder("utf-8")().decode(piece[:4 * 65536], False)[:65536]
        lines, _ = content_lines(head[: head.rfind("\n") + 1] or head)
        sep = sniff_delimiter(lines, _CANDIDATES) or _CANDIDATES[0]
    sample: list[str] = []
    first_end = -1
    pos = 0
    while len(sample) < 201 and pos < len(piece):
        end = piece.find(b"\n", pos)
        end = len(piece) if end < 0 else end
        line = piece[pos:end].decode("utf-8")
        if line.strip() and not line.startswith(COMMENT_PREFIXES):
            sample.append(line)
            if first_end < 0:
                first_end = end
        pos = end + 1
    if not sample:
        return None
    return sep, list(csv.reader(sample, delimiter=sep, skipinitialspace=True)), first_end


def _text_index(names: list[str]) -> pd.Index:
    """``pd.Index(names)`` for column names, built from Arrow buffers when pandas keeps text in Arrow.

    ``pd.Index`` of a list of text goes through ``pyarrow.array``, whose first call in a process sets up
    pyarrow's pandas layer (it imports ``pyarrow.pandas_compat`` and compiles a version pattern): 3.5-4 ms
    of CPU, once, for a dozen names. pandas' parser builds its text columns from Arrow buffers and never
    pays it; neither does a table whose names are built so.
    """
    import pandas as pd
    import pyarrow as pa

    with warnings.catch_warnings():  # the option is deprecated (pandas 3 always infers "str"), not yet gone
        warnings.simplefilter("ignore")
        try:
            infers_str = bool(pd.get_option("future.infer_string"))
        except (KeyError, pd.errors.OptionError):
            infers_str = True
    dtype = pd.StringDtype(na_value=np.nan)  # the "str" dtype pd.Index infers for text
    if not infers_str or dtype.storage != "pyarrow":
        return pd.Index(names)
    try:
        encoded = [name.encode("utf-8") for name in names]
    except UnicodeEncodeError:  # a lone surrogate in a name given by the caller: pandas' own way and error
        return pd.Index(names)
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    array = pa.LargeStringArray.from_buffers(len(encoded), pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded)))
    return pd.Index(pd.arrays.ArrowStringArray(pa.chunked_array([array]), dtype=dtype), copy=False)


def _arrow(col: pd.Series):
    """The pyarrow array behind a text column, or None when pandas stores it otherwise."""
    if getattr(col.dtype, "storage", None) != "pyarrow":
        return None
    return col.array.__arrow_array__()  # the column's own chunked array (pyarrow.array() would join chunks)


def _with_trailing_space(columns: dict[str, pd.Series]) -> set[str]:
    """The text columns with a value ending in a space (pandas dropped only the leading ones)."""
    arrays = {name: _arrow(col) for name, col in columns.items()}
    if columns and all(a is not None for a in arrays.values()):
        import pyarrow as pa
        import pyarrow.compute as pc

        chunks = [c for a in arrays.values() for c in a.chunks]
        if len({c.type for c in chunks}) == 1:  # one look at every text column at once: a trailing space is rare
            if not pc.any(pc.ends_with(pa.chunked_array(chunks), " ")).as_py():
                return set()
        return {name for name, a in arrays.items() if pc.any(pc.ends_with(a, " ")).as_py()}
    return {name for name, col in columns.items() if col.str.endswith(" ").any()}


def _n_missing(col: pd.Series) -> int:
    if col.dtype == np.int64:
        return 0
    if col.dtype == np.float64:
        return int(np.isnan(col.to_numpy()).sum())
    arrow = _arrow(col)
    return int(arrow.null_count) if arrow is not None else int(col.isna().sum())


def _starts_as_numbers(col: pd.Series) -> bool:
    """Whether the first 20 distinct values of a text column (unstripped, missing ones left out) all read as
    numbers, the test :func:`_column_of_codes` starts with: when they do, it must type the column."""
    arrow = _arrow(col)
    head = arrow.slice(0, 256).to_pylist() if arrow is not None else col.iloc[:256].tolist()
    seen: set[str] = set()
    for value in head:  # a text column usually shows a word at once
        if isinstance(value, str) and value not in seen:
            if not is_number(value):
                return False
            seen.add(value)
            if len(seen) == 20:
                return True
    if len(col) > 256:
        return all(is_number(v) for v in col.dropna().unique()[:20].tolist())
    return True


def _typed_columns(path: Path, report: LoadReport, *, header, missing: Sequence[str], sep: str | None,
                   names: Sequence[str] | None, encoding: str | None, latin1_fallback: bool,
                   progress: Any) -> tuple[list[str], pd.DataFrame, dict] | None:
    """Columns typed by pandas' C parser over the file's bytes, chunk by chunk; None to leave the file to the
    exact reader (:func:`_text_columns`), which reads it the same way and names the line and reason of any
    problem.

    The common file is parsed once: before the parse, byte checks (:mod:`.fastcsv`) turn away what pandas
    would split or decode differently (quotes, NUL bytes, text that is not UTF-8, a separator it may misread)
    and cut out comment lines; after it, cheap checks on the parsed columns find what the exact reader types
    differently. A short row (pandas pads it) leaves a missing value in the last column: only then are the
    separators counted. A column pandas typed as the exact reader would not (a code with a leading zero,
    booleans, unsigned or huge integers, infinities) is parsed again as text and typed by :func:`_column`;
    a number column with missing values is parsed again with nullable types (pandas turns it to floats).
    An error of any kind (header only, duplicate column names) is left to the exact reader.
    """
    import pandas as pd

    if encoding is not None:
        try:
            encoding = codecs.lookup(encoding).name
        except LookupError:
            return None
        if encoding not in ("utf-8", "ascii"):
            return None
    markers = [m for m in missing if m == m.strip()]  # the exact reader compares stripped values
    if any(_reads_as_number(m) for m in markers):
        return None  # pandas would also take "-1.0" for a marker "-1"
    na_values = [*dict.fromkeys([*markers, ""])]
    frames: list[pd.DataFrame] = []
    col_names: list[str] = []
    n_fields = 0
    odd = spaced = False  # a field that may hold white space pandas keeps; one ending with a space
    for n, piece in enumerate(byte_chunks(path, progress=progress)):
        plain = plain_bytes(piece, first=n == 0, encoding=encoding)
        if plain is None:
            return None
        piece, piece_ascii = plain  # (cutting lines out keeps an ASCII chunk ASCII)
        if n == 0:
            head = _head_of(piece, sep)
            if head is None:
                return None
            sep, sample, first_end = head
            if not safe_separator(sep):
                return None
            n_fields = len(sample[0])
            try:
                col_names, use_header = _column_names(path, report, sample, n_fields, header, names, None)
            except DataFormatError:
                return None  # the exact reader says where
            report.details.update(separator=sep, header=bool(use_header))
            if use_header:
                piece = piece[first_end + 1:]
        body = without_comment_lines(piece)
        if body is None:
            return None
        if not body or body.isspace():  # (strip() would copy the chunk)
            continue
        parsed = _parse_plain(body, sep, n_fields, na_values)
        if parsed is None:
            return None
        frame, trailing = parsed
        odd = odd or odd_spaces(body, sep, is_ascii=piece_ascii)
        spaced = spaced or trailing
        if (sep == "\t" or n_fields == 1) and (odd or frame.isna().all(axis=1).any()):
            return None  # a line of white space only, which the exact reader skips
        frames.append(frame)
    if not frames:
        return None
    frame = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    frame.columns = _text_index(col_names)
    dtypes = dict(zip(col_names, frame.dtypes.tolist()))
    # A column's Series only where one is looked at: an int64 column is as the exact reader types it.
    columns = {name: frame[name] for name, dtype in dtypes.items() if dtype != np.int64}
    texts = {name: col for name, col in columns.items() if isinstance(col.dtype, pd.StringDtype)}
    # Values with white space pandas kept, or that may all read as numbers once stripped, are typed by
    # _column_of_codes as the exact reader types them; the others are as pandas parsed them.
    careful = set(texts) if odd else _with_trailing_space(texts) if spaced else set()
    counts = {}
    missing_set = set(missing)
    for name in col_names:
        col = columns.get(name)
        if col is None:
            counts[name] = 0
            continue
        n_missing = _n_missing(col)
        if n_missing == len(col):  # every value missing: a text column, as :func:`_column` makes it
            frame[name] = pd.Series(np.full(len(col), None, dtype=object), dtype="str")
        elif col.dtype in (np.int64, np.float64) or str(col.dtype) == "Int64":
            pass
        elif str(col.dtype) == "Float64":  # a chunk's nullable floats: anonstudio's floats are NaN-missing
            frame[name] = pd.Series(col.to_numpy(dtype=np.float64, na_value=np.nan))
        elif name in texts:
            if name in careful or _starts_as_numbers(col):
                codes, uniques = pd.factorize(col, sort=False)  # a missing value has code -1
                codes = np.where(codes < 0, len(uniques), codes)
                frame[name], n_missing = _column_of_codes(codes, [*uniques.tolist(), ""], missing_set, col)
        elif col.dtype == object:
            values = col.where(col.notna(), "").to_numpy(dtype=object)
            if not all(isinstance(t, str) for t in values):
                # Chunks typed differently (text in one, numbers in another) were concatenated: the
                # numbers' spelling is lost, so the exact text reader decides.
                return None
            frame[name], n_missing = _column(values, missing_set)
        else:
            return None
        counts[name] = n_missing
    return col_names, frame, counts


def _parse_plain(body: bytes, sep: str, n_fields: int, na_values: list[str]) -> tuple[pd.DataFrame, bool] | None:
    """One chunk of a plain table through pandas' C parser, each column typed as the exact reader would type
    this chunk's values or kept as their text (see :func:`_typed_columns`), and whether a field ends with a
    space; None for a chunk the exact reader must read (rows of another length)."""
    import pandas as pd

    try:
        frame = pd.read_csv(io.BytesIO(body), sep=sep, na_values=na_values, **_PARSE)
    except (pd.errors.ParserError, ValueError):
        return None  # a row with more fields than the first
    if frame.shape[1] != n_fields:
        return None
    if _n_missing(frame.iloc[:, -1]):  # a short row, padded by pandas, or just missing values: the separators tell
        if count_byte(body, sep) != len(frame) * (n_fields - 1):
            return None
    dtypes = frame.dtypes.tolist()
    texts = [isinstance(dtype, pd.StringDtype) for dtype in dtypes]
    # Leading zeros matter in the columns pandas read as numbers, trailing spaces in those it kept as text.
    codes, spaced = scan_fields(body, sep, zeros=not all(texts), spaces=any(texts))
    as_text, nullable = [], []
    for j, dtype in enumerate(dtypes):  # a column's Series only where one is needed
        if texts[j]:
            continue
        if codes or dtype.kind not in "if":  # booleans, unsigned or huge integers, mixed values
            as_text.append(j)
        elif dtype.kind == "f":
            values = frame.iloc[:, j].to_numpy()
            finite = np.isfinite(values)
            if not finite.all():
                if np.isinf(values).any():
                    as_text.append(j)  # "inf" is text to anonstudio
                elif not finite.any():
                    frame.isetitem(j, pd.Series(pd.array([None] * len(values), dtype="Int64")))
                else:
                    nullable.append(j)  # whole numbers with a missing value: pandas made them floats
    if as_text:
        texts = pd.read_csv(io.BytesIO(body), sep=sep, usecols=as_text, dtype=object, na_filter=False, **_PARSE)
        for j in as_text:
            frame.isetitem(j, texts[j])
    if nullable:
        typed = pd.read_csv(io.BytesIO(body), sep=sep, usecols=nullable, na_values=na_values,
                            dtype_backend="numpy_nullable", **_PARSE)
        for j in nullable:
            frame.isetitem(j, typed[j])
    return frame, spaced


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


def _finish_table(path: Path, report: LoadReport, typed: tuple[list[str], dict | pd.DataFrame, dict], strip_label_dots,
                  progress: Any) -> Table:
    """The table of typed columns: label dots stripped as asked, missing values counted in the report."""
    import pandas as pd

    col_names, columns, missing_counts = typed
    if progress is not None:
        progress.set(1.0, f"typing the columns of {path.name}")
    df = columns if isinstance(columns, pd.DataFrame) else pd.DataFrame(columns)
    last = col_names[-1]
    if strip_label_dots and df[last].dtype == "str" and (strip_label_dots is True or _all_end_with_dot(df[last])):
        df[last] = df[last].str.removesuffix(".")
        report.warn(f"removed the trailing '.' from the values of column {last!r}")
    total_missing = sum(missing_counts.values())
    if total_missing:
        report.warn(f"{total_missing:,} missing values in {sum(1 for v in missing_counts.values() if v)} columns")
    report.details["missing"] = missing_counts
    return Table(df, {}, name=path.name, source=path)


def _all_end_with_dot(col: pd.Series) -> bool:
    """Whether every present value of a text column ends with a ``.`` (and one is present)."""
    # The first value settles most files without a look at every value.
    first = next((v for v in col.iloc[:64].tolist() if isinstance(v, str)), None)
    if first is not None and not first.endswith("."):
        return False
    present = col.dropna()
    return bool(len(present)) and bool(present.str.endswith(".").all())


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


_UCI_ATTRIBUTE = re.compile(r"^([A-Za-z][\w-]*):\s")


def uci_attribute_names(names_file: str | Path) -> list[str]:
    """Attribute names from a UCI ``.names`` file (lines ``name: values.``)."""
    try:  # a small file: read at once (Latin-1 if it is no UTF-8)
        text = decode_text(read_bytes(names_file), names_file, latin1_fallback=True)
    except DataFormatError:
        return []
    return [m.group(1) for line in text.splitlines() if (m := _UCI_ATTRIBUTE.match(line))]


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
            # Whether any field is text: the first word settles it (a count took as long as the rest of a load).
            text_fields = any(not is_number(f.strip()) for ln in lines[1:] for f in ln.split(sep))
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
