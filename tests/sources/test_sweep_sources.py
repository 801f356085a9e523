"""``anonstudio-cli sweep`` reads its DATASET with every reading option a single run takes (sheet, table, query)."""
from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import pytest

from anonstudio.cli import main

pytest.importorskip("sqlalchemy")
openpyxl = pytest.importorskip("openpyxl")
pytest.importorskip("python_calamine")

#: 24 people, each with two or three of six items: enough for k = 2, 3 at m = 1.
PAIRS = [(p, (p * j) % 6 + 1) for p in range(1, 25) for j in (1, 2, 5) if (p * j) % 6 + 1 != p % 6 or j == 1]
GRID = ["--grid", "k=2,3", "--set", "m=1", "--set", "seed=1", "--no-evaluate", "--quiet"]


def _fimi(tmp_path: Path) -> Path:
    by_person: dict[int, list[int]] = {}
    for person, item in PAIRS:
        if item not in by_person.setdefault(person, []):
            by_person[person].append(item)
    path = tmp_path / "pairs.dat"
    path.write_text("".join(" ".join(map(str, sorted(items))) + "\n" for items in by_person.values()))
    return path


def _rows(path: Path) -> list[list[str]]:
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


def _sweep(dataset: str, out: Path, *options: str) -> int:
    return main(["sweep", "kmanon", dataset, *options, *GRID, "--out", str(out)])


@pytest.fixture
def reference(tmp_path) -> list[list[str]]:
    """The sweep table of the same pairs read from a FIMI file."""
    out = tmp_path / "fimi.csv"
    assert _sweep(str(_fimi(tmp_path)), out) == 0
    rows = _rows(out)
    assert len(rows) == 3  # the header and the cells k=2, k=3
    return rows


def test_sweep_over_a_sqlite_table(tmp_path, reference, capsys):
    db = tmp_path / "shop.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE notes (id INTEGER, text TEXT)")  # a table that is not the one asked for
    con.execute("INSERT INTO notes VALUES (1, 'hello')")
    con.execute("CREATE TABLE clicks (person INTEGER, item INTEGER)")
    con.executemany("INSERT INTO clicks VALUES (?, ?)", PAIRS)
    con.commit()
    con.close()
    url = f"sqlite:///{db}"
    out = tmp_path / "table.csv"
    assert _sweep(url, out, "--table", "clicks") == 0, capsys.readouterr().err
    assert _rows(out) == reference
    out = tmp_path / "query.csv"
    assert _sweep(url, out, "--query", "SELECT person, item FROM clicks ORDER BY rowid") == 0
    assert _rows(out) == reference


def test_sweep_over_an_xlsx_sheet(tmp_path, reference, capsys):
    book = openpyxl.Workbook()
    book.active.title = "notes"  # the first sheet is a small table, not the data
    book.active.append(["id", "text"])
    book.active.append([1, "hello"])
    pairs = book.create_sheet("pairs")
    pairs.append(["person", "item"])
    for row in PAIRS:
        pairs.append(list(row))
    path = tmp_path / "shop.xlsx"
    book.save(path)
    out = tmp_path / "sheet.csv"
    assert _sweep(str(path), out, "--sheet", "pairs") == 0, capsys.readouterr().err
    assert _rows(out) == reference
    assert _sweep(str(path), tmp_path / "by-number.csv", "--sheet", "2") == 0
    assert _rows(tmp_path / "by-number.csv") == reference
