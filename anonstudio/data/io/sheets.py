"""Spreadsheets (``.xlsx``, ``.xlsm``, ``.ods``) read as tables or set-valued data, and ``.xlsx`` written.

A workbook is recognised by its content, not its name: a zip archive whose
``[Content_Types].xml`` declares a SpreadsheetML workbook, or whose
``mimetype`` is an OpenDocument spreadsheet; an encrypted (password-protected)
workbook, an OLE2 container holding an ``EncryptedPackage``, is recognised
too, to be refused with one line.

Cells are read by calamine (python-calamine; ~15x faster than openpyxl's
read-only mode on UCI Adult, see ``benchmarks/README.md``) and turned into the
text a CSV export would hold: whole numbers as ``39``, other numbers in their
shortest form, dates in ISO form (``2020-01-02``, ``2020-01-02 03:04:05``),
booleans as ``True``/``False``, empty cells as empty fields. The rows then go
through the very code that reads a CSV file (header guess, column typing with
codes such as ``00123`` kept as text, ``record,item`` pairs, ``;``-separated
item sets), so a sheet and the CSV of the same data give the same dataset.
A spreadsheet keeps no difference between ``2`` and ``2.0``: a column of
whole numbers reads as integers.

Hostile workbooks get one line naming the file, the sheet and, where it
applies, the row: an empty sheet, merged cells (which value would each row
hold?), formulas without a saved value (formulas with one are read as that
value, and the load report says so), an encrypted file, a sheet that would
expand beyond the compressed-input cap. A large sheet is converted in chunks
of rows, with progress and cancel between chunks.
"""
from __future__ import annotations

import datetime as dt
import math
import re
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DataFormatError, LoadCancelled
from ..table import Table
from ..transactions import TransactionData
from .atomic import atomic_write
from .delimited import RowChunk, looks_like_header
from .documents import workbook_kind
from .longform import ITEM_NAMES, RECORD_NAMES, TIME_NAMES
from .registry import Format, Head, register
from .report import LoadReport
from .text import COMPRESSED_CAP_MIN, COMPRESSED_EXPANSION, check_cancel, current_head, require_regular_file

__all__ = ["SheetInfo", "list_sheets", "sheet_rows", "cell_text", "column_texts", "load_sheet_table",
           "load_sheet_long", "load_sheet_sets",
           "save_xlsx_table", "save_xlsx_long", "write_csv_as_xlsx", "csv_rows", "workbook_kind", "SHEET_EXTENSIONS"]

SHEET_EXTENSIONS = (".xlsx", ".xlsm", ".ods")
#: Rows converted to text at a time (progress and cancel between them).
CHUNK_ROWS = 50_000


def _where(path: Path, sheet: str | None, row: int | None = None) -> str:
    where = f"sheet {sheet!r}" if sheet is not None else ""
    if row is not None:
        where += f", row {row}"
    return where


def _error(path: Path, sheet: str | None, reason: str, row: int | None = None) -> DataFormatError:
    where = _where(path, sheet, row)
    return DataFormatError(path, f"{where}: {reason}" if where else reason)


def _short(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200] or type(exc).__name__


# ------------------------------------------------------------------ opening
@dataclass(frozen=True)
class SheetInfo:
    """A sheet of a workbook: its 1-based number, name and size (rows and columns of its used range)."""

    number: int
    name: str
    rows: int
    columns: int


def _workbook(path: Path):
    import python_calamine as pc

    require_regular_file(path)
    kind = workbook_kind(path)
    if kind == "encrypted":
        raise DataFormatError(path, "is password-protected (encrypted); save an unprotected copy to open it")
    if kind is None:
        raise DataFormatError(path, "is not an .xlsx, .xlsm or .ods workbook")
    _check_expansion(path, kind)
    try:
        return pc.CalamineWorkbook.from_path(str(path))
    except pc.PasswordError:
        raise DataFormatError(path, "is password-protected (encrypted); save an unprotected copy to open it") from None
    except (pc.CalamineError, pc.ZipError, pc.XmlError, OSError, ValueError) as exc:
        raise DataFormatError(path, f"is not a readable workbook ({_short(exc)})") from None


def _check_expansion(path: Path, kind: str) -> None:
    """Refuse a workbook whose parts expand beyond the cap of compressed input (a zip bomb)."""
    try:
        with zipfile.ZipFile(path) as zf:
            expanded = sum(i.file_size for i in zf.infolist())
            if kind == "ods" and any(i.filename == "META-INF/manifest.xml" and b"encryption-data" in zf.read(i)
                                     for i in zf.infolist()):
                raise DataFormatError(path, "is password-protected (encrypted); save an unprotected copy to open it")
    except (zipfile.BadZipFile, OSError, zlib.error) as exc:
        raise DataFormatError(path, f"is not a readable workbook ({_short(exc)})") from None
    size = max(path.stat().st_size, 1)
    cap = max(COMPRESSED_CAP_MIN, COMPRESSED_EXPANSION * size)
    if expanded > cap:
        raise DataFormatError(path, f"expands to {expanded / 2**20:,.0f} MiB, over {COMPRESSED_EXPANSION} times its "
                                    f"{size / 2**20:,.1f} MiB: refused as a likely compression bomb")


def list_sheets(path: str | Path) -> list[SheetInfo]:
    """The workbook's worksheets with their sizes (the import preview's sheet list).

    Reads every sheet to measure it; raises DataFormatError for an unreadable or encrypted file.
    """
    import python_calamine as pc

    path = Path(path)
    book = _workbook(path)
    out = []
    try:
        if workbook_kind(path) == "xlsx":
            quick = _xlsx_dimensions(path, list(book.sheet_names))
            if quick is not None:
                return quick
        for n, name in enumerate(book.sheet_names, start=1):
            sheet = book.get_sheet_by_name(name)
            out.append(SheetInfo(n, name, int(sheet.height), int(sheet.width)))
    except (pc.CalamineError, pc.XmlError, pc.ZipError, ValueError) as exc:
        raise DataFormatError(path, f"is not a readable workbook ({_short(exc)})") from None
    finally:
        book.close()
    return out


def _xlsx_dimensions(path: Path, names: list[str]) -> list[SheetInfo] | None:
    """The sheets' sizes from the ``<dimension>`` each .xlsx sheet part starts with (no sheet parsed); None when a
    part has none (the sizes are then measured by reading)."""
    out = []
    try:
        with zipfile.ZipFile(path) as zf:
            for n, name in enumerate(names, start=1):
                part = _xlsx_sheet_part(zf, name)
                if part is None:
                    return None
                with zf.open(part) as fh:
                    head = fh.read(4096)
                found = re.search(rb'<(?:\w+:)?dimension ref="([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?"', head)
                if found is None:
                    return None
                c0, r0, c1, r1 = found.groups()
                c1, r1 = c1 or c0, r1 or r0
                empty = b"<sheetData/>" in head or b"<sheetData />" in head
                rows = 0 if empty else int(r1) - int(r0) + 1
                columns = 0 if empty else _column_number(c1.decode()) - _column_number(c0.decode()) + 1
                out.append(SheetInfo(n, name, rows, columns))
    except (zipfile.BadZipFile, OSError, KeyError, zlib.error):
        return None
    return out


def _column_number(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n


def _sheet_name(path: Path, names: list[str], sheet: str | int | None) -> str:
    """The name of the sheet ``sheet`` picks: a name, or a number from 1 (None: the first)."""
    if not names:
        raise DataFormatError(path, "the workbook has no worksheet")
    if sheet is None:
        return names[0]
    if sheet in names:
        return str(sheet)
    text = str(sheet).strip()
    if text.isdigit() or isinstance(sheet, int):
        n = int(text)
        if 1 <= n <= len(names):
            return names[n - 1]
        raise DataFormatError(path, f"has no sheet number {n}; it has {len(names)} (numbered from 1): "
                                    f"{', '.join(names)}")
    raise DataFormatError(path, f"has no sheet named {text!r}; sheets: {', '.join(names)}")


# A one-entry cache: sniffing a workbook reads its sheet, and the load right after reads the same sheet.
_LAST: dict[tuple, Any] = {}


def _load_sheet(path: Path, sheet: str | int | None):
    """(sheet name, calamine sheet) for ``sheet`` of ``path``; checks merged cells and formulas too."""
    import python_calamine as pc

    st = path.stat()
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size, None if sheet is None else str(sheet))
    hit = _LAST.get(key)
    if hit is not None:
        return hit
    book = _workbook(path)
    try:
        name = _sheet_name(path, list(book.sheet_names), sheet)
        data = book.get_sheet_by_name(name)
    except DataFormatError:
        raise  # a sheet the workbook lacks: its own line (a DataFormatError is a ValueError too)
    except pc.PasswordError:
        raise DataFormatError(path, "is password-protected (encrypted); save an unprotected copy to open it") from None
    except (pc.CalamineError, pc.XmlError, pc.ZipError, ValueError) as exc:
        raise DataFormatError(path, f"is not a readable workbook ({_short(exc)})") from None
    finally:
        book.close()
    _LAST.clear()
    _LAST[key] = (name, data)
    return name, data


def _forget() -> None:
    _LAST.clear()


def _cell_ref(row: int, col: int) -> str:
    letters = ""
    col += 1
    while col:
        col, rem = divmod(col - 1, 26)
        letters = chr(65 + rem) + letters
    return f"{letters}{row + 1}"


def _check_merged(path: Path, name: str, data) -> None:
    try:
        merged = data.merged_cell_ranges
    except Exception:  # noqa: BLE001 (a format calamine reads no merged ranges for)
        merged = None
    if merged:
        (r0, c0), (r1, c1) = merged[0]
        more = f" (and {len(merged) - 1:,} more)" if len(merged) > 1 else ""
        raise _error(path, name, f"cells {_cell_ref(r0, c0)}:{_cell_ref(r1, c1)} are merged{more}; unmerge them so "
                                 "that every cell holds its own value", r0 + 1)


_FORMULA = re.compile(rb"<(?:\w+:)?f[\s>/]")
# A formula cell without a saved value: its <f> is followed by an empty <v/> or by the cell's end.
_NO_VALUE = re.compile(rb"<(?:\w+:)?f(?:\s[^>]*)?(?:/>|>[^<]*</(?:\w+:)?f>)\s*(?:<(?:\w+:)?v\s*/>|<(?:\w+:)?v>\s*</"
                       rb"(?:\w+:)?v>|</(?:\w+:)?c>)")
_CELL_START = re.compile(rb'<(?:\w+:)?c\s[^>]*?r="([A-Z]+)(\d+)"')


def _xlsx_sheet_part(zf: zipfile.ZipFile, name: str) -> str | None:
    """The zip member of worksheet ``name`` (through workbook.xml and its relationships)."""
    try:
        book = zf.read("xl/workbook.xml").decode("utf-8", "replace")
        rels = zf.read("xl/_rels/workbook.xml.rels").decode("utf-8", "replace")
    except KeyError:
        return None
    import html

    for m in re.finditer(r"<(?:\w+:)?sheet\b([^>]*)/?>", book):
        attrs = dict(re.findall(r'([\w:]+)="([^"]*)"', m.group(1)))
        if html.unescape(attrs.get("name", "")) != name:
            continue
        rid = next((v for k, v in attrs.items() if k.endswith(":id")), None)
        for r in re.finditer(r"<(?:\w+:)?Relationship\b([^>]*)/?>", rels):
            rattrs = dict(re.findall(r'([\w:]+)="([^"]*)"', r.group(1)))
            if rattrs.get("Id") == rid:
                target = rattrs.get("Target", "")
                return target.lstrip("/") if target.startswith("/") else "xl/" + target
    return None


def _formula_cells(path: Path, name: str, kind: str) -> tuple[bool, str | None]:
    """(whether the sheet has formulas, the first formula cell without a saved value) by streaming its XML."""
    try:
        with zipfile.ZipFile(path) as zf:
            if kind == "ods":
                with zf.open("content.xml") as fh:
                    found = any(b"table:formula=" in block for block in iter(lambda: fh.read(1 << 20), b""))
                return found, None
            part = _xlsx_sheet_part(zf, name)
            if part is None or part not in zf.namelist():
                return False, None
            found = False
            tail = b""
            with zf.open(part) as fh:
                for block in iter(lambda: fh.read(1 << 22), b""):
                    text = tail + block
                    # A formula's tag starts "<f" or, with a namespace prefix, holds ":f": two byte searches
                    # skip the (much slower) pattern for the sheets that have none.
                    if (b"<f" in text or b":f" in text) and _FORMULA.search(text):
                        found = True
                        bad = _NO_VALUE.search(text)
                        if bad:
                            cells = list(_CELL_START.finditer(text, 0, bad.start()))
                            ref = (cells[-1].group(1) + cells[-1].group(2)).decode() if cells else "?"
                            return True, ref
                    tail = text[-8192:]
            return found, None
    except (zipfile.BadZipFile, OSError, KeyError, zlib.error):
        return False, None


# ------------------------------------------------------------------ cells as text
def cell_text(value: Any) -> str:
    """The text a CSV export of the cell would hold (see the module docstring)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 2**63:
            return str(int(value))
        return repr(value)
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0) and value.tzinfo is None:
            return value.date().isoformat()
        return value.isoformat(sep=" ")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    return "" if value is None else str(value)


def column_texts(values: tuple) -> np.ndarray:
    """A column's cells as text (object array): :func:`cell_text` of each, fast for columns of one type."""
    kinds = {type(v) for v in values}
    out = np.asarray(values, dtype=object)
    if kinds == {str}:
        return out
    if kinds <= {str, float}:  # numbers, perhaps under a header: whole numbers converted at once
        is_float = np.fromiter((type(v) is float for v in values), dtype=bool, count=len(values))
        numbers = out[is_float].astype(np.float64)
        whole = np.isfinite(numbers) & (numbers == np.round(numbers)) & (np.abs(numbers) < 2.0**63)
        texts = np.empty(len(numbers), dtype=object)
        texts[whole] = [str(v) for v in numbers[whole].astype(np.int64).tolist()]
        texts[~whole] = [repr(v) for v in numbers[~whole].tolist()]
        out[is_float] = texts
        return out
    return np.asarray([cell_text(v) for v in values], dtype=object)


class SheetRows:
    """The rows of one sheet as text, in :class:`~.delimited.RowChunk` pieces, like a CSV row reader.

    ``lines`` of every chunk are the sheet's row numbers (from 1, as the
    spreadsheet shows them); rows whose cells are all empty are skipped.
    After the first chunk :attr:`n_fields` is the number of columns and
    :attr:`first_line` the row of the first non-empty row. :attr:`sep` is
    None (there is no separator).
    """

    sep = None

    def __init__(self, path: Path, sheet: str | int | None, progress: Any = None, report: LoadReport | None = None,
                 limit: int | None = None):
        self.path = Path(path)
        self.progress = progress
        self.limit = limit
        head = current_head()
        if limit is None and head is not None:  # the import preview: about as many rows as its bytes would hold
            self.limit = limit = max(200, head.limit // 200)
            self._head = head
        else:
            self._head = None
        self.name, self._data = _load_sheet(self.path, sheet)
        self.n_fields: int | None = None
        self.first_line: int | None = None
        self.truncated = False
        _check_merged(self.path, self.name, self._data)
        if report is not None:
            kind = workbook_kind(self.path) or "xlsx"
            found, missing = _formula_cells(self.path, self.name, kind)
            if missing is not None:
                raise _error(self.path, self.name, f"cell {missing} holds a formula with no saved value; open the "
                                                   "file in a spreadsheet program, let it calculate and save it",
                             int(re.sub(r"\D", "", missing) or 0) or None)
            if found:
                report.warn(f"sheet {self.name!r} holds formulas: their saved values were read")
            report.details["sheet"] = self.name

    def __iter__(self) -> Iterator[RowChunk]:
        data = self._data
        height, width = int(data.height), int(data.width)
        if not height or not width:
            raise _error(self.path, self.name, "the sheet is empty")
        start_row = int(data.start[0]) if data.start is not None else 0
        rows = data.iter_rows()
        done = 0
        total = height if self.limit is None else min(height, self.limit)
        while done < total:
            check_cancel(self.progress, self.path)
            take = min(CHUNK_ROWS, total - done)
            block = [row for _, row in zip(range(take), rows)]
            numbers = np.arange(done, done + len(block), dtype=np.int64) + start_row + 1
            done += len(block)
            if self.progress is not None:
                self.progress.set(done / max(total, 1), f"reading sheet {self.name!r} of {self.path.name}")
            if not block:
                continue
            columns = [column_texts(c) for c in zip(*block)]
            del block
            blank = np.ones(len(numbers), dtype=bool)
            for c in columns:
                blank &= c == ""
                if not blank.any():
                    break
            if blank.any():
                blank[blank] = [not any(c[i].strip() for c in columns) for i in np.flatnonzero(blank).tolist()]
            if blank.any():  # rows of empty cells are skipped, as blank lines of a CSV file are
                keep = np.flatnonzero(~blank)
                if not len(keep):
                    continue
                columns = [c[keep] for c in columns]
                numbers = numbers[keep]
            if self.n_fields is None:
                self.n_fields = width
                self.first_line = int(numbers[0])
            yield RowChunk(columns, numbers)
        self.truncated = total < height
        if self._head is not None and self.truncated:
            self._head.truncated = True
        if self.n_fields is None:
            raise _error(self.path, self.name, "the sheet is empty")


def sheet_rows(path: str | Path, sheet: str | int | None = None, limit: int | None = None) -> tuple[str, list]:
    """(sheet name, up to ``limit`` rows as text lists): the preview's first rows."""
    reader = SheetRows(Path(path), sheet, limit=limit)
    rows: list[list[str]] = []
    for chunk in reader:
        rows.extend(chunk.rows())
    return reader.name, rows


def _reraise_in_sheet(path: Path, name: str, exc: DataFormatError) -> DataFormatError:
    """A loader's error about ``path`` restated with the sheet (and its line as the sheet's row)."""
    if exc.reason.startswith("sheet "):
        return exc
    return _error(path, name, exc.reason, exc.line)


# ------------------------------------------------------------------ loaders
def load_sheet_table(path: str | Path, report: LoadReport, *, sheet: str | int | None = None,
                     header: bool | str = "auto", missing: tuple[str, ...] = ("?",), names=None,
                     strip_label_dots: bool | str = "auto", progress: Any = None) -> Table:
    """A sheet as a table: header guessed (or ``header=``), columns typed as a CSV table's."""
    from .relational import table_from_rows

    path = Path(path)
    reader = SheetRows(path, sheet, progress, report)
    try:
        table = table_from_rows(path, report, reader, header=header, missing=missing, names=names,
                                strip_label_dots=strip_label_dots, progress=progress)
    except DataFormatError as exc:
        raise _reraise_in_sheet(path, reader.name, exc) from None
    finally:
        _forget()
    return table


def load_sheet_long(path: str | Path, report: LoadReport, *, sheet: str | int | None = None,
                    header: bool | str = "auto", record: str | int | None = None, item: str | int | None = None,
                    progress: Any = None) -> TransactionData:
    """One (person, item) pair per row, as ``csv-long`` reads them."""
    from .longform import load_pairs_from_rows

    path = Path(path)
    reader = SheetRows(path, sheet, progress, report)
    try:
        return load_pairs_from_rows(path, report, reader, header=header, fmt="sheet-long", record=record,
                                    item=item, progress=progress)
    except DataFormatError as exc:
        raise _reraise_in_sheet(path, reader.name, exc) from None
    finally:
        _forget()


def load_sheet_sets(path: str | Path, report: LoadReport, *, sheet: str | int | None = None,
                    column: str | int | None = None, item_sep: str = ";", header: bool | str = "auto",
                    progress: Any = None) -> TransactionData:
    """One person per row, items ``;``-separated in one column, as ``csv-sets`` reads them."""
    from .csvsets import load_sets_from_rows

    path = Path(path)
    reader = SheetRows(path, sheet, progress, report)
    try:
        return load_sets_from_rows(path, report, reader, column=column, item_sep=item_sep, header=header,
                                   progress=progress)
    except DataFormatError as exc:
        raise _reraise_in_sheet(path, reader.name, exc) from None
    finally:
        _forget()


# ------------------------------------------------------------------ writers
def _xlsx_value(value: Any, cell_factory) -> Any:
    """A cell value openpyxl writes as data: text that starts like a formula stays text."""
    if value is None:
        return None
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, str) and value.startswith("="):
        cell = cell_factory(value)
        cell.data_type = "s"  # never a formula: a released cell must not compute anything
        return cell
    return value


def _write_xlsx(path: Path, header: list[str], rows, sheet_title: str = "release") -> None:
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.utils.exceptions import IllegalCharacterError

    book = Workbook(write_only=True)
    ws = book.create_sheet(title=sheet_title[:31] or "release")

    def factory(value):
        return WriteOnlyCell(ws, value=value)

    try:
        ws.append([_xlsx_value(h, factory) for h in header])
        for row in rows:
            ws.append([_xlsx_value(v, factory) for v in row])
    except IllegalCharacterError as exc:
        raise ValueError(f"{path.name}: a value holds a control character a spreadsheet cannot store "
                         f"({_short(exc)})") from None
    with atomic_write(path, "wb") as fh:
        book.save(fh)


def _require_xlsx(path: Path) -> None:
    if Path(path).suffix.lower() != ".xlsx":
        raise ValueError(f"{Path(path).name}: anonstudio writes spreadsheets as .xlsx only")


def save_xlsx_table(table: Table, path: str | Path) -> None:
    """One sheet: a header row and the rows, as the CSV writer writes them (missing values as empty cells)."""
    path = Path(path)
    _require_xlsx(path)
    frame = table.frame
    columns = []
    for name in frame.columns:
        col = frame[name]
        mask = col.isna().to_numpy()
        values = col.astype(object).to_numpy()
        columns.append([None if m else v for m, v in zip(mask, values)])
    _write_xlsx(path, [str(c) for c in frame.columns], zip(*columns) if columns else [])


def save_xlsx_long(data: TransactionData, path: str | Path) -> None:
    """One sheet ``record,item``; records numbered from 1 (an empty record: a row without an item)."""
    from .build import records_as_label_lists

    path = Path(path)
    _require_xlsx(path)

    def rows():
        for u, labels in enumerate(records_as_label_lists(data), start=1):
            if not labels:
                yield (u, None)
            for label in labels:
                yield (u, label)

    _write_xlsx(path, ["record", "item"], rows())


_INT_TEXT = re.compile(r"-?(?:0|[1-9]\d{0,17})")
_FLOAT_TEXT = re.compile(r"-?(?:0|[1-9]\d*)\.\d+(?:[eE][-+]?\d+)?")


def _typed_cell(text: str) -> Any:
    """A CSV field as the cell a spreadsheet should hold: a number when the text is one (and reads back the
    same), else the text; an empty field an empty cell."""
    if text == "":
        return None
    if _INT_TEXT.fullmatch(text):
        return int(text)
    if _FLOAT_TEXT.fullmatch(text) and repr(float(text)) == text:
        return float(text)
    return text


def csv_rows(path: str | Path) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of a CSV file anonstudio wrote (a release): the fields as text."""
    import csv

    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader, [])
        return header, list(reader)


def write_csv_as_xlsx(csv_path: str | Path, path: str | Path) -> None:
    """The rows of a CSV file (a table release) as one sheet of ``path``: same rows, numbers as numbers.

    ``path`` is written atomically; a text cell never becomes a formula.
    """
    header, rows = csv_rows(csv_path)
    _write_xlsx(Path(path), header, ([_typed_cell(v) for v in row] for row in rows))


# ------------------------------------------------------------------ sniffing
def _shape_of(head: Head) -> str | None:
    """``"table"``, ``"long"`` or ``"sets"`` for the sheet ``head`` names (None: not a workbook)."""
    kind = workbook_kind(head.path, head.raw)
    if kind is None:
        return None
    if kind == "encrypted":
        return "table"  # its loader says why it cannot be read
    sheet = getattr(head, "sheet", None)
    try:
        reader = SheetRows(head.path, sheet, limit=300)
        rows = []
        for chunk in reader:
            rows.extend(chunk.rows())
    except (DataFormatError, LoadCancelled):
        return "table"  # the loader names the problem
    if not rows:
        return "table"
    width = len(rows[0])
    if any(";" in c for r in rows[:300] for c in r):
        share = [sum(";" in r[j] for r in rows) for j in range(width)]
        if max(share) * 4 >= len(rows):
            return "sets"
    if width in (2, 3):
        has_header = looks_like_header(rows, RECORD_NAMES + ITEM_NAMES + TIME_NAMES)
        timed = width == 2 or (has_header and rows[0][2].strip().lower() in TIME_NAMES)
        if timed and has_header and rows[0][0].strip().lower() in RECORD_NAMES:
            return "long"
        body = rows[1:] if has_header else rows
        first = [r[0] for r in body]
        if width == 2 and len(set(first)) < len(first):
            return "long"
    return "table"


def _sniffer(shape: str):
    def sniff(head: Head) -> float:
        return 1.0 if _shape_of(head) == shape else 0.0

    return sniff


register(Format(
    name="sheet-table", label="Spreadsheet table", kind="table", extensions=SHEET_EXTENSIONS,
    sniff=_sniffer("table"), load=load_sheet_table, save=save_xlsx_table,
    description="A sheet of an .xlsx, .xlsm or .ods workbook, one row per person; header optional, '?' = missing.",
))
register(Format(
    name="sheet-long", label="Spreadsheet, one record-item pair per row", kind="transactions",
    extensions=SHEET_EXTENSIONS, sniff=_sniffer("long"), load=load_sheet_long, save=save_xlsx_long,
    description="A sheet with columns record,item (header optional); one row per item occurrence.",
))
register(Format(
    name="sheet-sets", label="Spreadsheet with a ';'-separated items column", kind="transactions",
    extensions=SHEET_EXTENSIONS, sniff=_sniffer("sets"), load=load_sheet_sets, save=save_xlsx_long,
    description="A sheet with one person per row and the items joined by ';' in one column.",
))
