"""Spreadsheets read as the CSV of the same data is read: same Table / TransactionData, values, types and order."""
from __future__ import annotations

import datetime as dt
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonstudio.cli import main
from anonstudio.data.datasets import open_dataset
from anonstudio.data.errors import DataFormatError
from anonstudio.data.io import load_report, load_table
from anonstudio.data.io.sheets import list_sheets, save_xlsx_table, workbook_kind
from anonstudio.data.table import Table
from anonstudio.data.transactions import TransactionData

openpyxl = pytest.importorskip("openpyxl")
pytest.importorskip("python_calamine")

CSV = """id,zip,age,score,city,when
1,00123,39,1.5,Paris,2020-01-02
2,02134,?,2.25,Lyon,2020-03-04
3,10001,41,,Paris,2021-12-31
4,00123,52,-0.5,?,2019-07-14
"""


def _same_table(a: Table, b: Table) -> None:
    pd.testing.assert_frame_equal(a.frame, b.frame, check_exact=True)
    assert list(a.frame.dtypes) == list(b.frame.dtypes)


def _same_sets(a: TransactionData, b: TransactionData) -> None:
    assert a.vocab == b.vocab
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.indices, b.indices)


def _workbook(path: Path, sheets: dict[str, list[list]], merged: str | None = None) -> Path:
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        ws = book.create_sheet(name)
        for row in rows:
            ws.append(row)
        if merged:
            ws.merge_cells(merged)
    book.save(path)
    return path


@pytest.fixture
def csv_table(tmp_path) -> tuple[Path, Table]:
    path = tmp_path / "people.csv"
    path.write_text(CSV)
    return path, load_table(path)


def test_xlsx_written_by_anonstudio_reads_back_as_the_csv(tmp_path, csv_table):
    _, table = csv_table
    out = tmp_path / "people.xlsx"
    save_xlsx_table(table, out)
    assert workbook_kind(out) == "xlsx"
    _same_table(open_dataset(out), table)
    assert open_dataset(out).frame["zip"].tolist() == ["00123", "02134", "10001", "00123"]  # codes stay text


def test_typed_cells_read_as_the_csv_text(tmp_path, csv_table):
    """Numbers as numbers, codes as text, dates as date cells, '?' and empty cells missing."""
    _, table = csv_table
    rows = [["id", "zip", "age", "score", "city", "when"],
            [1, "00123", 39, 1.5, "Paris", dt.date(2020, 1, 2)],
            [2, "02134", "?", 2.25, "Lyon", dt.date(2020, 3, 4)],
            [3, "10001", 41, None, "Paris", dt.datetime(2021, 12, 31)],
            [4, "00123", 52, -0.5, "?", dt.date(2019, 7, 14)]]
    path = _workbook(tmp_path / "typed.xlsx", {"People": rows})
    _same_table(open_dataset(path), table)


def test_ods_reads_as_the_csv(tmp_path, csv_table):
    pytest.importorskip("odf")
    _, table = csv_table
    path = tmp_path / "people.ods"
    table.frame.to_excel(path, index=False, engine="odf")
    assert workbook_kind(path) == "ods"
    _same_table(open_dataset(path), table)


def test_sniffed_by_content_not_by_name(tmp_path, csv_table):
    _, table = csv_table
    out = tmp_path / "people.xlsx"
    save_xlsx_table(table, out)
    renamed = tmp_path / "people.data"
    renamed.write_bytes(out.read_bytes())
    assert load_report(open_dataset(renamed)).format == "sheet-table"
    _same_table(open_dataset(renamed), table)


def test_sheet_by_name_and_number_and_the_sheet_list(tmp_path):
    path = _workbook(tmp_path / "book.xlsx", {"Notes": [["note"], ["hello"]],
                                              "Data": [["a", "b"], [1, "x"], [2, "y"], [3, "x"]]})
    assert [(s.number, s.name, s.rows, s.columns) for s in list_sheets(path)] == [(1, "Notes", 2, 1),
                                                                                   (2, "Data", 4, 2)]
    by_name = open_dataset(path, sheet="Data")
    by_number = open_dataset(path, sheet=2)
    _same_table(by_name, by_number)
    assert by_name.frame["a"].tolist() == [1, 2, 3]
    assert open_dataset(path).frame.columns.tolist() == ["note"]
    # The reason itself, not wrapped as an unreadable workbook (a DataFormatError is a ValueError too).
    with pytest.raises(DataFormatError, match=r"book.xlsx: has no sheet named 'Nope'; sheets: Notes, Data$") as e:
        open_dataset(path, sheet="Nope")
    assert "readable" not in str(e.value)
    with pytest.raises(DataFormatError, match=r"book.xlsx: has no sheet number 3; it has 2 \(numbered from 1\)"):
        open_dataset(path, sheet="3")


def test_sheet_option_on_a_csv_is_refused(csv_table):
    path, _ = csv_table
    with pytest.raises(ValueError, match="a sheet applies to a spreadsheet"):
        open_dataset(path, sheet="1")


def test_pairs_sheet_reads_as_csv_long(tmp_path):
    pairs = [("u7", "milk"), ("u7", "bread"), ("u3", "milk"), ("u9", "eggs"), ("u3", "tea")]
    csv = tmp_path / "pairs.csv"
    csv.write_text("person,item\n" + "".join(f"{p},{i}\n" for p, i in pairs))
    xlsx = _workbook(tmp_path / "pairs.xlsx", {"Visits": [["person", "item"], *map(list, pairs)]})
    from_sheet, from_csv = open_dataset(xlsx), open_dataset(csv)
    assert isinstance(from_sheet, TransactionData)
    _same_sets(from_sheet, from_csv)
    assert load_report(from_sheet).record_ids == load_report(from_csv).record_ids == ["u7", "u3", "u9"]


def test_numeric_pairs_sheet_reads_as_the_fimi_file(tmp_path):
    fimi = tmp_path / "baskets.dat"
    fimi.write_text("10 20 30\n20\n5 30\n")
    rows = [["person", "item"]] + [[u, int(i)] for u, line in enumerate(fimi.read_text().splitlines(), 1)
                                   for i in line.split()]
    xlsx = _workbook(tmp_path / "baskets.xlsx", {"S": rows})
    _same_sets(open_dataset(xlsx), open_dataset(fimi))


def test_sets_column_sheet_reads_as_csv_sets(tmp_path):
    rows = [["person", "items"], ["a", "x;y"], ["b", "y"], ["c", "z;x;y"]]
    csv = tmp_path / "sets.csv"
    csv.write_text("".join(",".join(r) + "\n" for r in rows))
    xlsx = _workbook(tmp_path / "sets.xlsx", {"S": rows})
    _same_sets(open_dataset(xlsx), open_dataset(csv, format="csv-sets"))


# ------------------------------------------------------------------ hostile sheets
def test_empty_sheet_is_one_line(tmp_path):
    path = _workbook(tmp_path / "empty.xlsx", {"Blank": []})
    with pytest.raises(DataFormatError, match=r"^empty.xlsx: sheet 'Blank': the sheet is empty$"):
        open_dataset(path)


def test_merged_cells_name_file_sheet_and_row(tmp_path):
    path = _workbook(tmp_path / "merged.xlsx", {"M": [["a", "b"], [1, 2], [3, 4]]}, merged="A2:B2")
    with pytest.raises(DataFormatError, match=r"^merged.xlsx: sheet 'M', row 2: cells A2:B2 are merged"):
        open_dataset(path)


def _with_formula(tmp_path, cached: str | None) -> Path:
    path = _workbook(tmp_path / "f.xlsx", {"F": [["a", "b"], [1, "=A2*2"], [2, 7]]})
    if cached is None:
        return path
    patched = tmp_path / "cached.xlsx"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(patched, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                assert b"<v />" in data or b"<v/>" in data
                data = data.replace(b"<v />", f"<v>{cached}</v>".encode()).replace(b"<v/>", f"<v>{cached}</v>".encode())
            dst.writestr(info, data)
    return patched


def test_formula_without_a_saved_value_is_refused(tmp_path):
    with pytest.raises(DataFormatError,
                       match=r"^f.xlsx: sheet 'F', row 2: cell B2 holds a formula with no saved value"):
        open_dataset(_with_formula(tmp_path, None))


def test_formula_with_a_saved_value_reads_it_and_says_so(tmp_path):
    table = open_dataset(_with_formula(tmp_path, "2"))
    assert table.frame["b"].tolist() == [2, 7]
    assert any("formulas: their saved values were read" in w for w in load_report(table).warnings)


def test_password_protected_workbook_is_one_line(tmp_path):
    # An encrypted OOXML file: an OLE2 container whose directory names an EncryptedPackage stream.
    header = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504
    directory = "Root Entry".encode("utf-16-le").ljust(128, b"\x00") + \
        "EncryptedPackage".encode("utf-16-le").ljust(128, b"\x00")
    path = tmp_path / "secret.xlsx"
    path.write_bytes(header + directory + b"\x00" * 4096)
    with pytest.raises(DataFormatError, match=r"^secret.xlsx: is password-protected \(encrypted\)"):
        open_dataset(path)


def test_a_zip_that_is_no_workbook_is_not_taken_for_one(tmp_path):
    path = tmp_path / "archive.xlsx"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("readme.txt", "hello")
    with pytest.raises(DataFormatError) as info:
        open_dataset(path)
    assert "\n" not in str(info.value) and str(info.value).startswith("archive.xlsx")


def test_large_sheet_reports_progress_and_cancels(tmp_path):
    from anonstudio.data.errors import LoadCancelled
    from anonstudio.data.io import sheets

    rows = [["person", "item"]] + [[u // 3, u % 7] for u in range(12_000)]
    path = _workbook(tmp_path / "big.xlsx", {"S": rows})

    class Progress:
        def __init__(self, stop_after):
            self.seen, self.stop_after = [], stop_after

        def set(self, fraction, message=""):
            self.seen.append(fraction)

        def cancelled(self):
            return len(self.seen) >= self.stop_after

    old = sheets.CHUNK_ROWS
    sheets.CHUNK_ROWS = 1000
    try:
        done = Progress(10**9)
        data = open_dataset(path, progress=done)
        assert data.n_records == 4000 and done.seen[-1] == 1.0 and len(done.seen) >= 12
        with pytest.raises(LoadCancelled):
            open_dataset(path, progress=Progress(3))
    finally:
        sheets.CHUNK_ROWS = old


# ------------------------------------------------------------------ command line
def test_cli_info_reads_the_chosen_sheet(tmp_path, capsys):
    path = _workbook(tmp_path / "book.xlsx", {"Notes": [["note"], ["hello"]],
                                              "Data": [["a", "b"], [1, "x"], [2, "y"], [3, "x"]]})
    assert main(["info", str(path), "--sheet", "Data"]) == 0
    assert "3" in capsys.readouterr().out
    assert main(["info", str(path), "--sheet", "Missing"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "book.xlsx: has no sheet named 'Missing'" in err[0]
