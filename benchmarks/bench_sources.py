"""Data-source benchmarks: spreadsheets and databases into anonstudio datasets, against the libraries beneath.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_sources.py                 # spreadsheet + SQLite cases
    ANONSTUDIO_TEST_PG_URL=postgresql://... .venv/bin/python benchmarks/bench_sources.py --postgres
    .venv/bin/python benchmarks/bench_sources.py --engines       # calamine vs openpyxl read-only on Adult

Every measurement runs in a fresh process (:mod:`_probe`, shared with
``bench_loading.py``) that reports its wall time and its peak resident memory
above the imports (``ru_maxrss`` minus the resident size before the work), so
runs do not disturb each other. The database cases import SQLAlchemy and the
driver before the clock starts (a fixed ~11 MiB that does not grow with the
data; ``--cold`` counts it in the work as a user's first load would, and
also measures the import alone, so the figure with it subtracted is printed). Cases:

* ``adult xlsx``: ``open_dataset`` of UCI Adult saved as ``.xlsx`` (32,561
  rows, 15 columns; generated once into ``--cache``), next to
  ``pandas.read_excel`` with the fastest engine installed (calamine); the
  goal is within 2x;
* ``--engines``: pandas' calamine engine, python-calamine's rows, openpyxl in
  read-only mode, on the same file (why anonstudio reads with calamine);
* ``--huge-sheet``: a sheet of 1,048,576 rows (Excel's limit) of (person,
  item) pairs into ``TransactionData``, converted in chunks of 50,000 rows;
* ``pairs sqlite`` / ``pairs postgres``: 1,000,000 ``(person, item)`` rows
  (100,000 persons, 1,000 items, generated once) into ``TransactionData``;
  time (connecting, fetching, the rows' SHA-256 and building included), peak
  memory and the final CSR size; goals: under 10 s and peak under 4x the CSR.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from _probe import best_of
from bench_data import BENCH_DATA

HERE = Path(__file__).resolve().parents[1]
ADULT = BENCH_DATA / "adult" / "adult.data"

def _best(setup: str, body: str, repeat: int) -> dict:
    result = best_of(setup, body, HERE, repeat)
    if "error" in result:
        raise SystemExit(f"benchmark case failed: {result['error']}")
    return result


def make_adult_xlsx(cache: Path) -> Path:
    target = cache / "adult.xlsx"
    if not target.exists():
        from anonstudio.data.io import load_table
        from anonstudio.data.io.sheets import save_xlsx_table

        save_xlsx_table(load_table(ADULT), target)
    return target


def make_huge_sheet(cache: Path) -> Path:
    """A sheet as long as Excel allows: a header and 1,048,575 (person, item) rows."""
    target = cache / "huge.xlsx"
    if not target.exists():
        from openpyxl import Workbook

        book = Workbook(write_only=True)
        sheet = book.create_sheet("pairs")
        sheet.append(["person", "item"])
        for row in range(1_048_575):
            sheet.append([row // 4 + 1, row * 7 % 1000])
        book.save(target)
    return target


def make_pairs_sqlite(cache: Path, n_rows: int) -> Path:
    import sqlite3

    import numpy as np

    target = cache / f"pairs-{n_rows}.db"
    if not target.exists():
        rng = np.random.default_rng(7)
        persons = np.sort(rng.integers(1, n_rows // 10 + 1, n_rows))
        items = rng.integers(1, 1001, n_rows)
        con = sqlite3.connect(target)
        con.execute("CREATE TABLE pairs (person INTEGER, item INTEGER)")
        con.executemany("INSERT INTO pairs VALUES (?, ?)", zip(persons.tolist(), items.tolist()))
        con.commit()
        con.close()
    return target


def load_pairs_postgres(url: str, sqlite_file: Path) -> None:
    import sqlite3

    import sqlalchemy

    engine = sqlalchemy.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    rows = sqlite3.connect(sqlite_file).execute("SELECT person, item FROM pairs").fetchall()
    with engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE IF EXISTS bench_pairs")
        conn.exec_driver_sql("CREATE TABLE bench_pairs (person INTEGER, item INTEGER)")
        with conn.connection.dbapi_connection.cursor().copy("COPY bench_pairs (person, item) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    engine.dispose()


#: pandas is imported before the clock, as the baseline's own setup imports it: anonstudio's readers import it
#: where they use it (a FIMI file or --help needs none), which would otherwise count its import as reading.
_OPEN = ("from anonstudio.data.datasets import open_dataset\n"
         "import anonstudio.data.io.sheets, anonstudio.data.io.database\nimport pandas")
#: The database libraries, imported before the clock (unless --cold): a fixed cost, not the data's.
_DB_LIBS = "\nimport sqlalchemy, sqlalchemy.pool, sqlalchemy.dialects.sqlite, sqlalchemy.dialects.postgresql, psycopg"
#: What each database case imports for its connection (``--cold`` counts it in the work): measured alone too.
_CASE_LIBS = {"sqlite": "import sqlalchemy, sqlalchemy.pool, sqlalchemy.dialects.sqlite, sqlite3",
              "postgres": _DB_LIBS.strip()}
_CSR = ("extra = {'csr_mib': (data.indptr.nbytes + data.indices.nbytes) / 2**20, 'records': int(data.n_records), "
        "'pairs': int(data.indptr[-1])}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/anonstudio-bench-sources"))
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--engines", action="store_true", help="also time openpyxl read-only and calamine rows")
    parser.add_argument("--postgres", action="store_true", help="also the PostgreSQL case (ANONSTUDIO_TEST_PG_URL)")
    parser.add_argument("--cold", action="store_true",
                        help="count importing SQLAlchemy and the driver in the database cases' figures")
    parser.add_argument("--huge-sheet", action="store_true",
                        help="also a sheet of 1,048,576 rows (Excel's limit) of (person, item) pairs")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(HERE))

    xlsx = make_adult_xlsx(args.cache)
    ours = _best(_OPEN, f"data = open_dataset({str(xlsx)!r})\nextra = {{'rows': len(data.frame)}}", args.repeat)
    pandas = _best("import pandas as pd", f"frame = pd.read_excel({str(xlsx)!r}, engine='calamine')",
                   args.repeat)
    print(f"adult xlsx   open_dataset {ours['seconds']:6.2f} s  peak +{ours['peak_above_mib']:6.0f} MiB | "
          f"pandas.read_excel(calamine) {pandas['seconds']:6.2f} s  peak +{pandas['peak_above_mib']:6.0f} MiB | "
          f"ratio {ours['seconds'] / pandas['seconds']:.2f}x (goal <= 2x)")
    if args.engines:
        rows = _best("import python_calamine as pc",
                     f"book = pc.CalamineWorkbook.from_path({str(xlsx)!r})\n"
                     "rows = list(book.get_sheet_by_index(0).iter_rows())", args.repeat)
        opx = _best("import openpyxl",
                    f"book = openpyxl.load_workbook({str(xlsx)!r}, read_only=True, data_only=True)\n"
                    "rows = list(book.worksheets[0].iter_rows(values_only=True))", 1)
        print(f"engines      calamine rows {rows['seconds']:6.2f} s | openpyxl read-only rows {opx['seconds']:6.2f} s "
              f"({opx['seconds'] / rows['seconds']:.1f}x slower)")

    if args.huge_sheet:
        huge = make_huge_sheet(args.cache)
        result = _best(_OPEN, f"data = open_dataset({str(huge)!r})\n{_CSR}", 1)
        print(f"huge sheet   1,048,576 rows -> {result['extra']['records']:,} records: {result['seconds']:6.2f} s  "
              f"peak +{result['peak_above_mib']:6.0f} MiB (file {huge.stat().st_size / 2**20:.1f} MiB)")

    db = make_pairs_sqlite(args.cache, args.rows)
    cases = [("sqlite", f"sqlite:///{db}", "pairs")]
    if args.postgres:
        url = os.environ.get("ANONSTUDIO_TEST_PG_URL")
        if not url:
            raise SystemExit("--postgres needs ANONSTUDIO_TEST_PG_URL")
        load_pairs_postgres(url, db)
        cases.append(("postgres", url, "bench_pairs"))
    for label, url, table in cases:
        setup = _OPEN if args.cold else _OPEN + _DB_LIBS
        result = _best(setup, f"data = open_dataset({url!r}, table={table!r})\n{_CSR}", args.repeat)
        extra = result["extra"]
        ratio = result["peak_above_mib"] / extra["csr_mib"]
        cold = "(cold) " if args.cold else ""
        print(f"pairs {label:8s} {cold}{extra['pairs']:,} pairs, {extra['records']:,} records: "
              f"{result['seconds']:6.2f} s "
              f"(goal < 10 s)  peak +{result['peak_above_mib']:6.1f} MiB = {ratio:.1f}x the CSR "
              f"{extra['csr_mib']:.1f} MiB (goal < 4x)")
        if args.cold:
            # The libraries' import alone, in a process of its own: a constant the data does not change.
            libs = _best(_OPEN, _CASE_LIBS[label], args.repeat)
            data_only = result["peak_above_mib"] - libs["peak_above_mib"]
            print(f"      {label:8s} import alone: {libs['seconds']:5.2f} s, +{libs['peak_above_mib']:5.1f} MiB; "
                  f"the load without it: +{data_only:5.1f} MiB = {data_only / extra['csr_mib']:.1f}x the CSR")


if __name__ == "__main__":
    main()
