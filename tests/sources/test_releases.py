"""Table releases written as .xlsx and as a new database table: the same rows as the CSV release."""
from __future__ import annotations

import csv
import sqlite3

import pytest

from anonstudio.cli import main
from anonstudio.data.io.sheets import sheet_rows

pytest.importorskip("openpyxl")
pytest.importorskip("sqlalchemy")

ROLES = "id=identifier,diagnosis=sensitive"


@pytest.fixture
def people(tmp_path):
    path = tmp_path / "people.csv"
    rows = ["id,zip,age,sex,diagnosis"]
    for i in range(60):
        rows.append(f"{i + 1},{['00123', '02134', '10001'][i % 3]},{20 + (i * 7) % 50},{'MF'[i % 2]},"
                    f"{['flu', 'cold', 'asthma', '=cmd'][i % 4]}")
    path.write_text("\n".join(rows) + "\n")
    return path


def _csv(path) -> list[list[str]]:
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


def _run(people, *extra) -> int:
    return main(["group-anonymize", str(people), "--roles", ROLES, "--k", "4", "--l", "2", "--quiet", *extra])


def test_xlsx_release_holds_the_csv_rows(tmp_path, people):
    assert _run(people, "--out", str(tmp_path / "release.csv")) == 0
    assert _run(people, "--out", str(tmp_path / "release.xlsx")) == 0
    expected = _csv(tmp_path / "release.csv")
    name, rows = sheet_rows(tmp_path / "release.xlsx")
    assert rows == expected
    # A value that looks like a formula stays text: the sheet computes nothing.
    from openpyxl import load_workbook

    cells = [c.value for row in load_workbook(tmp_path / "release.xlsx").active.iter_rows() for c in row]
    assert any(isinstance(v, str) and v.startswith("=") for v in cells) == any(
        f.startswith("=") for row in expected for f in row)
    assert not any(getattr(c, "data_type", "") == "f" for row in load_workbook(tmp_path / "release.xlsx").active
                   for c in row)


def test_release_written_back_as_a_new_table(tmp_path, people):
    db = tmp_path / "out.db"
    sqlite3.connect(db).close()
    url = f"sqlite:///{db}"
    assert _run(people, "--out", str(tmp_path / "release.csv"), "--out-table", "release", "--out-url", url) == 0
    con = sqlite3.connect(db)
    header = [d[0] for d in con.execute("SELECT * FROM release").description]
    rows = [["" if v is None else v for v in r] for r in con.execute("SELECT * FROM release")]
    con.close()
    assert [header, *rows] == _csv(tmp_path / "release.csv")


def test_existing_table_is_not_replaced_without_replace(tmp_path, people, capsys):
    db = tmp_path / "out.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE release (x)")
    con.execute("INSERT INTO release VALUES (1)")
    con.commit()
    con.close()
    url = f"sqlite:///{db}"
    assert _run(people, "--out-table", "release", "--out-url", url) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "exists already" in err[0]
    assert sqlite3.connect(db).execute("SELECT * FROM release").fetchall() == [(1,)]
    assert _run(people, "--out-table", "release", "--out-url", url, "--replace") == 0
    assert len(sqlite3.connect(db).execute("SELECT * FROM release").fetchall()) == 60


def test_out_table_needs_a_database(tmp_path, people, capsys):
    assert _run(people, "--out-table", "release") == 2
    assert "--out-table needs a database" in capsys.readouterr().err
