"""Database tables and queries read as the CSV of the same data: SQLite always, PostgreSQL when a server is given.

`.ci/run` starts a throwaway PostgreSQL server and exports ANONSTUDIO_TEST_PG_URL; without it the PostgreSQL
cases skip and say why.
"""
from __future__ import annotations

import json
import os
import sqlite3
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sqlalchemy")

from anonstudio.cli import main
from anonstudio.data.datasets import DataChanged, open_dataset, reopen
from anonstudio.data.errors import LoadCancelled
from anonstudio.data.io import load_report, load_table
from anonstudio.data.io.database import DatabaseError, check_read_only, redact_url, write_table
from anonstudio.data.origin import origin_of
from anonstudio.data.transactions import TransactionData

PG_URL = os.environ.get("ANONSTUDIO_TEST_PG_URL")
needs_pg = pytest.mark.skipif(not PG_URL, reason="no PostgreSQL server: ANONSTUDIO_TEST_PG_URL is not set "
                                                 "(.ci/run starts one; see .ci/postgres.sh)")

CSV = """id,zip,age,score,city
1,00123,39,1.5,Paris
2,02134,?,2.25,Lyon
3,10001,41,,Paris
4,00123,52,-0.5,?
5,02134,39,3.0,Lyon
"""
PAIRS = [(7, 10), (7, 20), (3, 10), (9, 30), (3, 40), (7, 30)]


def _same_table(a, b) -> None:
    pd.testing.assert_frame_equal(a.frame, b.frame, check_exact=True)
    assert list(a.frame.dtypes) == list(b.frame.dtypes)


def _same_sets(a: TransactionData, b: TransactionData) -> None:
    assert a.vocab == b.vocab
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.indices, b.indices)


def _csv_table(tmp_path: Path):
    path = tmp_path / "people.csv"
    path.write_text(CSV)
    return load_table(path)


def _rows_of_csv() -> tuple[list[str], list[list]]:
    """The CSV as a database holds it: numbers as numbers, '?' kept as text (the reader treats it as missing)."""
    lines = CSV.strip().splitlines()
    header = lines[0].split(",")
    rows = []
    for line in lines[1:]:
        id_, zip_, age, score, city = line.split(",")
        rows.append([int(id_), zip_, age if age == "?" else int(age), float(score) if score else None, city])
    return header, rows


@pytest.fixture
def sqlite_db(tmp_path) -> str:
    path = tmp_path / "people.db"
    con = sqlite3.connect(path)
    header, rows = _rows_of_csv()
    con.execute("CREATE TABLE people (id INTEGER, zip TEXT, age, score REAL, city TEXT)")
    con.executemany("INSERT INTO people VALUES (?, ?, ?, ?, ?)", rows)
    con.execute("CREATE TABLE clicks (person INTEGER, item INTEGER)")
    con.executemany("INSERT INTO clicks VALUES (?, ?)", PAIRS)
    con.commit()
    con.close()
    return f"sqlite:///{path}"


def _fimi(tmp_path) -> Path:
    """The (person, item) pairs as the FIMI file of the same records (persons in order of first appearance)."""
    order: dict[int, list[int]] = {}
    for person, item in PAIRS:
        order.setdefault(person, []).append(item)
    path = tmp_path / "clicks.dat"
    path.write_text("".join(" ".join(map(str, items)) + "\n" for items in order.values()))
    return path


# ------------------------------------------------------------------ SQLite
def test_sqlite_table_reads_as_the_csv(tmp_path, sqlite_db):
    table = open_dataset(sqlite_db, table="people")
    _same_table(table, _csv_table(tmp_path))
    assert table.frame["zip"].tolist() == ["00123", "02134", "10001", "00123", "02134"]
    origin = origin_of(table)
    assert origin.url == sqlite_db and origin.table == "people" and len(origin.sha256) == 64


def test_sqlite_pairs_read_as_the_fimi_file(tmp_path, sqlite_db):
    data = open_dataset(sqlite_db, table="clicks")
    assert isinstance(data, TransactionData)
    _same_sets(data, open_dataset(_fimi(tmp_path)))
    assert load_report(data).record_ids == ["7", "3", "9"]


def test_query_and_a_sets_column(tmp_path, sqlite_db):
    con = sqlite3.connect(sqlite_db.removeprefix("sqlite:///"))
    con.execute("CREATE TABLE baskets (person TEXT, items TEXT)")
    con.executemany("INSERT INTO baskets VALUES (?, ?)", [("a", "10;20;30"), ("b", "10;40"), ("c", "30")])
    con.commit()
    con.close()
    sets = open_dataset(sqlite_db, query="SELECT person, items FROM baskets ORDER BY person")
    _same_sets(sets, open_dataset(_fimi(tmp_path)))


def test_items_query_gives_each_person_a_set(sqlite_db):
    table = open_dataset(sqlite_db, query="SELECT DISTINCT person AS id FROM clicks ORDER BY person",
                         items_query="SELECT person, item FROM clicks ORDER BY rowid")
    assert table.frame["items"].tolist() == ["10;40", "10;20;30", "30"]


@pytest.mark.parametrize("sql, reason", [
    ("DROP TABLE people", "queries are read-only: DROP is refused"),
    ("delete from people", "queries are read-only: DELETE is refused"),
    ("SELECT 1; DROP TABLE people", "more than one statement"),
    ("-- comment\nUPDATE people SET age = 1", "UPDATE is refused"),
    ("WITH x AS (DELETE FROM people RETURNING *) SELECT * FROM x", "a WITH that changes data is refused"),
])
def test_hostile_queries_are_refused_before_they_run(sqlite_db, sql, reason):
    with pytest.raises(DatabaseError, match=reason) as info:
        open_dataset(sqlite_db, query=sql)
    assert "\n" not in str(info.value)
    assert len(open_dataset(sqlite_db, table="people").frame) == 5  # nothing was dropped or deleted


def test_a_semicolon_inside_a_literal_is_no_second_statement():
    assert check_read_only("SELECT 'a;b' AS x;", "db") == "SELECT 'a;b' AS x"


def test_sqlite_is_opened_read_only(sqlite_db):
    """Even a statement that slipped past the check could not write: the file is opened read-only."""
    from anonstudio.data.io.database import QueryRows

    reader = QueryRows(sqlite_db, query="SELECT 1")
    try:
        with pytest.raises(Exception, match="readonly|read-only|query_only"):
            reader._conn.exec_driver_sql("CREATE TABLE evil (x)")
    finally:
        reader.close()


def test_failed_query_gives_the_database_message_in_one_line(sqlite_db, capsys):
    with pytest.raises(DatabaseError, match=r"no such column: nonsense"):
        open_dataset(sqlite_db, query="SELECT nonsense FROM people")
    assert main(["info", sqlite_db, "--query", "SELECT nonsense FROM people"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no such column: nonsense" in err[0]


def test_missing_sqlite_file_is_not_created(tmp_path):
    target = tmp_path / "nothing.db"
    with pytest.raises(DatabaseError, match="no such file"):
        open_dataset(f"sqlite:///{target}", table="x")
    assert not target.exists()


def test_table_or_query_is_needed(sqlite_db):
    with pytest.raises(DatabaseError, match="give a table or a query"):
        open_dataset(sqlite_db)
    with pytest.raises(ValueError, match="applies to a database URL"):
        open_dataset("adult", table="people")


def test_unreachable_server_names_the_host_quickly():
    with pytest.raises(DatabaseError, match=r"cannot connect to 127\.0\.0\.1:9"):
        open_dataset("postgresql://someone:pw@127.0.0.1:9/db", table="t")


def test_changed_rows_are_refused_on_reopening(tmp_path, sqlite_db):
    table = open_dataset(sqlite_db, table="people")
    origin = origin_of(table)
    _same_table(reopen(origin), table)
    con = sqlite3.connect(sqlite_db.removeprefix("sqlite:///"))
    con.execute("UPDATE people SET city = 'Nice' WHERE id = 1")
    con.commit()
    con.close()
    with pytest.raises(DataChanged, match="have changed"):
        reopen(origin)


def test_fetch_reports_progress_and_cancels(sqlite_db, monkeypatch):
    from anonstudio.data.io import database

    monkeypatch.setattr(database, "FETCH_ROWS", 2)

    class Progress:
        def __init__(self, stop):
            self.seen, self.stop = [], stop

        def set(self, fraction, message=""):
            self.seen.append(fraction)

        def cancelled(self):
            return len(self.seen) >= self.stop

    done = Progress(99)
    open_dataset(sqlite_db, table="people", progress=done)
    assert done.seen[-1] == 1.0 and len(done.seen) >= 3
    with pytest.raises(LoadCancelled):
        open_dataset(sqlite_db, table="people", progress=Progress(1))


def test_write_table_never_replaces_without_replace(sqlite_db):
    write_table(sqlite_db, "release", ["a", "b"], [["1", "x"], ["2", ""]])
    assert open_dataset(sqlite_db, table="release").frame["a"].tolist() == [1, 2]
    with pytest.raises(DatabaseError, match="exists already"):
        write_table(sqlite_db, "release", ["a"], [["9"]])
    write_table(sqlite_db, "release", ["a"], [["9"]], replace=True)
    assert open_dataset(sqlite_db, table="release").frame["a"].tolist() == [9]


def test_redact_url_drops_the_password():
    assert redact_url("postgresql://ann:pa55word@db.example.org:5432/clinic") == \
        "postgresql://ann@db.example.org:5432/clinic"
    assert "pa55" not in redact_url("postgresql://ann:pa55@host/db?password=pa55")


# ------------------------------------------------------------------ PostgreSQL
@pytest.fixture
def pg_tables():
    sqlalchemy = pytest.importorskip("sqlalchemy")
    suffix = uuid.uuid4().hex[:8]
    people, clicks = f"people_{suffix}", f"clicks_{suffix}"
    engine = sqlalchemy.create_engine(PG_URL.replace("postgresql://", "postgresql+psycopg://", 1))
    header, rows = _rows_of_csv()
    with engine.begin() as conn:
        conn.exec_driver_sql(f"CREATE TABLE {people} (id INTEGER, zip TEXT, age TEXT, score DOUBLE PRECISION, "
                             "city TEXT)")
        for r in rows:
            conn.exec_driver_sql(f"INSERT INTO {people} VALUES (%s, %s, %s, %s, %s)",
                                 (r[0], r[1], str(r[2]), r[3], r[4]))
        conn.exec_driver_sql(f"CREATE TABLE {clicks} (person INTEGER, item INTEGER)")
        for p, i in PAIRS:
            conn.exec_driver_sql(f"INSERT INTO {clicks} VALUES (%s, %s)", (p, i))
    yield people, clicks
    with engine.begin() as conn:
        conn.exec_driver_sql(f"DROP TABLE IF EXISTS {people}")
        conn.exec_driver_sql(f"DROP TABLE IF EXISTS {clicks}")
        conn.exec_driver_sql(f"DROP TABLE IF EXISTS release_{suffix}")
    engine.dispose()


@needs_pg
def test_postgresql_table_and_pairs_read_as_the_csv_and_fimi(tmp_path, pg_tables):
    people, clicks = pg_tables
    _same_table(open_dataset(PG_URL, table=people), _csv_table(tmp_path))
    _same_sets(open_dataset(PG_URL, query=f"SELECT person, item FROM {clicks} ORDER BY ctid"),
               open_dataset(_fimi(tmp_path)))


@needs_pg
def test_postgresql_runs_queries_in_a_read_only_transaction(pg_tables):
    people, _ = pg_tables
    with pytest.raises(DatabaseError, match="read-only transaction"):
        open_dataset(PG_URL, query=f"SELECT * FROM {people} FOR UPDATE")


@needs_pg
def test_postgresql_query_error_is_one_line(pg_tables):
    with pytest.raises(DatabaseError, match='column "nonsense" does not exist') as info:
        open_dataset(PG_URL, query=f"SELECT nonsense FROM {pg_tables[0]}")
    assert "\n" not in str(info.value)


@needs_pg
def test_postgresql_write_back_in_one_transaction(pg_tables):
    people, _ = pg_tables
    name = people.replace("people", "release")
    write_table(PG_URL, name, ["a", "b"], [["1", "x"], ["2", ""]])
    assert open_dataset(PG_URL, table=name).frame["b"].isna().tolist() == [False, True]
    with pytest.raises(DatabaseError, match="exists already"):
        write_table(PG_URL, name, ["a"], [["1"]])


@needs_pg
def test_no_password_in_anything_written(tmp_path, pg_tables, capsys):
    """The password of the URL is in no project, JSON, command line, message or log written."""
    from anonstudio.studio.command_line import dataset_arguments
    from anonstudio.studio.project import Project

    people, _ = pg_tables
    secret = "Zq7-not-a-real-password"
    # The test server trusts local connections, so any password is accepted and the URL holds one.
    head, _, tail = PG_URL.partition("://")
    user, _, rest = tail.partition("@")
    url = f"{head}://{user}:{secret}@{rest}"
    table = open_dataset(url, table=people)
    project = Project()
    project.add_dataset(table)
    project_file = project.save(tmp_path / "study.anonstudio.toml")
    out_json = tmp_path / "run.json"
    code = main(["group-anonymize", url, "--table", people, "--k", "2", "--roles", "id=identifier,city=sensitive",
                 "--json", str(out_json), "--quiet"])
    printed = capsys.readouterr()
    assert code in (0, 3)
    written = [project_file.read_text(), out_json.read_text(), printed.out, printed.err,
               " ".join(dataset_arguments(table)), json.dumps(str(origin_of(table)))]
    for text in written:
        assert secret not in text
    assert "url" in project_file.read_text()
    reopened = Project.load(project_file).open_dataset(next(iter(project.datasets)))
    _same_table(reopened, table)
    with pytest.raises(DatabaseError) as info:
        open_dataset(url, query=f"SELECT nonsense FROM {people}")
    assert secret not in str(info.value)
