"""Columns marked numeric (``--numeric``, ``an.open(numeric=...)``): dates as days since 1970-01-01, codes as numbers.

By default a date is ISO text and a code with leading zeros stays text, in a CSV file, a spreadsheet and a
database alike; marked numeric, the same column is the same numbers from every source.
"""
from __future__ import annotations

import datetime as dt
import sqlite3

import pandas as pd
import pytest

import anonstudio as an
from anonstudio.cli.datasets import load_dataset_argument
from anonstudio.cli.errors import CliError
from anonstudio.data.datasets import open_dataset, table_with_numeric
from anonstudio.data.io import load_report
from anonstudio.data.origin import origin_of

pytest.importorskip("sqlalchemy")
openpyxl = pytest.importorskip("openpyxl")
pytest.importorskip("python_calamine")

CSV = """id,zip,when,at
1,00123,2020-01-02,2020-01-02 12:00:00
2,02134,1970-01-01,1970-01-01 06:00:00
3,10001,,1969-12-31 00:00:00
"""
DAYS = [18263, 0, None]
AT = [18263.5, 0.25, -1.0]


def _sources(tmp_path) -> dict[str, str]:
    csv = tmp_path / "people.csv"
    csv.write_text(CSV)
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["id", "zip", "when", "at"])
    sheet.append([1, "00123", dt.date(2020, 1, 2), dt.datetime(2020, 1, 2, 12)])
    sheet.append([2, "02134", dt.date(1970, 1, 1), dt.datetime(1970, 1, 1, 6)])
    sheet.append([3, "10001", None, dt.datetime(1969, 12, 31)])
    xlsx = tmp_path / "people.xlsx"
    book.save(xlsx)
    db = tmp_path / "people.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE people (id INTEGER, zip TEXT, \"when\" DATE, at TIMESTAMP)")
    con.executemany("INSERT INTO people VALUES (?, ?, ?, ?)",
                    [(1, "00123", "2020-01-02", "2020-01-02 12:00:00"),
                     (2, "02134", "1970-01-01", "1970-01-01 06:00:00"), (3, "10001", None, "1969-12-31 00:00:00")])
    con.commit()
    con.close()
    return {"csv": str(csv), "xlsx": str(xlsx), "sqlite": f"sqlite:///{db}"}


def _options(kind: str) -> dict:
    return {"table": "people"} if kind == "sqlite" else {}


@pytest.mark.parametrize("kind", ["csv", "xlsx", "sqlite"])
def test_dates_are_iso_text_unless_marked_numeric(tmp_path, kind):
    spec = _sources(tmp_path)[kind]
    plain = open_dataset(spec, **_options(kind))
    assert plain.frame["when"].tolist()[:2] == ["2020-01-02", "1970-01-01"]
    assert plain.frame["zip"].tolist()[0] == "00123"
    marked = load_dataset_argument(spec, numeric="when,at,zip", quiet=True, **_options(kind))
    frame = marked.frame
    assert str(frame["when"].dtype) == "Int64" and [None if pd.isna(v) else int(v) for v in frame["when"]] == DAYS
    assert frame["at"].dtype == "float64" and frame["at"].tolist() == AT
    assert frame["zip"].dtype == "int64" and frame["zip"].tolist() == [123, 2134, 10001]
    assert frame["id"].tolist() == [1, 2, 3]
    # What the source was and what the loader noticed go with the marked table.
    assert load_report(marked).format == load_report(plain).format
    if kind == "sqlite":
        assert origin_of(marked).sha256 == origin_of(plain).sha256


def test_the_api_marks_columns_as_the_cli_does(tmp_path):
    sources = _sources(tmp_path)
    by_api = an.open(sources["xlsx"], numeric=["when", "at"])
    by_cli = load_dataset_argument(sources["xlsx"], numeric="when,at", quiet=True)
    pd.testing.assert_frame_equal(by_api.frame, by_cli.frame)


def test_a_value_that_is_no_number_nor_date_is_one_line(tmp_path):
    sources = _sources(tmp_path)
    with pytest.raises(CliError, match=r"^--numeric: people.csv: column 'when' is marked numeric, but data row 2 "
                                        r"holds 'soon': neither a number nor an ISO date or time$"):
        (tmp_path / "people.csv").write_text(CSV.replace("1970-01-01,", "soon,"))
        load_dataset_argument(sources["csv"], numeric="when", quiet=True)
    with pytest.raises(CliError, match="has no column 'nope' to mark numeric"):
        load_dataset_argument(sources["xlsx"], numeric="nope", quiet=True)
    with pytest.raises(ValueError, match="numeric columns apply to tables"):
        table_with_numeric(an.sample("sports-example"), ["x"])


def test_cli_flag_reaches_a_run(tmp_path, capsys):
    from anonstudio.cli import main

    sources = _sources(tmp_path)
    assert main(["info", sources["xlsx"], "--numeric", "when"]) == 0
    assert main(["info", sources["xlsx"], "--numeric", "nope"]) == 2
    assert "--numeric:" in capsys.readouterr().err


# ----------------------------------------------------------------------------------- the mark travels with the data
@pytest.mark.parametrize("kind", ["csv", "xlsx", "sqlite"])
def test_a_project_keeps_the_marks_and_reopens_the_same_numbers(tmp_path, kind):
    from anonstudio.studio.project import Project

    spec = _sources(tmp_path)[kind]
    marked = open_dataset(spec, numeric="when,zip", **_options(kind))
    assert origin_of(marked).options.numeric == ("when", "zip")
    project = Project()
    key = project.add_dataset(marked)
    project.save(tmp_path / "p.toml")
    text = (tmp_path / "p.toml").read_text("utf-8")
    assert 'numeric = [\n    "when",\n    "zip",\n]' in text or 'numeric = ["when", "zip"]' in text
    loaded = Project.load(tmp_path / "p.toml")
    entry = loaded.datasets[key]
    assert entry.sha256 == project.datasets[key].sha256 and entry.origin.options.numeric == ("when", "zip")
    again = loaded.open_dataset(key)
    pd.testing.assert_frame_equal(again.frame, marked.frame)
    assert again.frame["zip"].tolist() == [123, 2134, 10001]
    # Saved again, the entry is the same: the reopened table names its marks and its fingerprint.
    assert Project.load(tmp_path / "p.toml").datasets[key] == entry
    second = Project()
    assert second.add_dataset(again) == key and second.datasets[key].sha256 == entry.sha256


def test_a_project_without_marks_opens_as_before_and_a_bad_mark_is_one_line(tmp_path):
    from anonstudio.studio.project import Project, ProjectError

    csv = _sources(tmp_path)["csv"]
    project = Project()
    key = project.add_dataset(open_dataset(csv))
    project.save(tmp_path / "old.toml")
    text = (tmp_path / "old.toml").read_text("utf-8")
    assert "numeric" not in text  # what an older anonstudio wrote, and still writes without marks
    assert Project.load(tmp_path / "old.toml").open_dataset(key).frame["zip"].tolist()[0] == "00123"
    bad = text.replace(f'[datasets.{key}]\n', f'[datasets.{key}]\nnumeric = "when"\n')
    assert bad != text
    (tmp_path / "bad.toml").write_text(bad, "utf-8")
    with pytest.raises(ProjectError, match=rf"datasets.{key}.numeric: expected a list of column names, got text"):
        Project.load(tmp_path / "bad.toml")


def test_a_marked_sample_reopens_marked_and_its_command_line_says_so(tmp_path):
    from anonstudio.data.datasets import reopen
    from anonstudio.studio.cache import dataset_fingerprint
    from anonstudio.studio.command_line import dataset_arguments

    adult = an.sample("adult")
    marked = table_with_numeric(adult, ["age"])
    origin = origin_of(marked)
    assert origin.sample == "adult" and origin.options.numeric == ("age",)
    assert reopen(origin).frame["age"].tolist()[:50] == marked.frame["age"].tolist()[:50]
    assert dataset_arguments(marked)[:3] == ["adult", "--numeric", "age"]
    csv = _sources(tmp_path)["csv"]
    dates = open_dataset(csv, numeric=["when"])
    assert dataset_arguments(dates)[1:] == ["--numeric", "when"]
    # The result cache tells the marked table from the one read as text.
    assert dataset_fingerprint(dates) != dataset_fingerprint(open_dataset(csv))
