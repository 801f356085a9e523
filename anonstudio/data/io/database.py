"""Database tables and queries (SQLAlchemy: SQLite, PostgreSQL, any installed dialect) read as datasets.

A DATASET may be a URL such as ``sqlite:///people.db`` or
``postgresql://user@host:5432/db`` with a ``table`` or a ``query``.
``postgresql://`` without a driver means psycopg (version 3).

* **Read-only.** A query must be one ``SELECT`` (or ``WITH … SELECT``,
  ``VALUES``, ``TABLE``); anything else (``DROP``, ``DELETE``, a second
  statement) is refused before it reaches the database, and the query runs in
  a read-only transaction as well (SQLite: the file is opened read-only).
* **Rows are fetched in chunks** (:data:`FETCH_ROWS`), with progress and a
  cancel between chunks; each value becomes the text a CSV export would hold
  (NULL an empty field, whole numbers ``39``, dates in ISO form) and goes
  through the code that reads a CSV file, so a table and the CSV of the same
  data give the same dataset. A column whose values in a chunk are all
  integers stays an int64 array instead (the numeric fast path): (person,
  item) rows are coded as numbers (:class:`~.build.IntCoder`), with the label
  of a value its decimal text, so the dataset is the same as from text.
* **Shape.** Two columns (``person, item``: a record column named so, or
  repeated values in the first) are set-valued data in long form; a column of
  arrays, or of ``;``-separated items, is one set per row; anything else a
  table. ``shape=`` overrides the guess.
* **Never hangs, never leaks a password.** A connection has
  :data:`CONNECT_TIMEOUT` seconds; a failure names the host and the reason in
  one line. Passwords come from the URL, ``password=``, ``PGPASSWORD`` or a
  ``.pgpass`` file (libpq reads those itself); every message and every stored
  origin shows the URL without its password (:func:`redact_url`).
* **Fingerprint.** The SHA-256 of the fetched rows in a canonical form
  identifies the data, so a project reopened after the rows changed in the
  database is refused like a changed file. The canonical form is UTF-8 of:
  the column names joined by U+001F, then U+001D; then every row, its values
  as CSV text (NULL empty, integers in decimal without leading zeros or
  ``+``, other values as :func:`~.sheets.cell_text` writes them) joined by
  U+001F, followed by U+001E. Integer chunks are hashed from their arrays
  (:func:`canonical_int_rows`) to the very same bytes, so the fingerprint
  does not depend on the fast path nor on the chunk size.
"""
from __future__ import annotations

import hashlib
import re
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

from ..errors import DataFormatError, LoadCancelled
from .delimited import RowChunk
from .longform import ITEM_NAMES, RECORD_NAMES
from .report import LoadReport
from .sheets import cell_text, column_texts

__all__ = ["DatabaseError", "needs_password", "redact_url", "is_database_url", "check_read_only", "QueryRows",
           "open_database", "list_tables", "write_table", "canonical_int_rows", "CONNECT_TIMEOUT", "FETCH_ROWS"]

#: Seconds a connection may take before it is given up (the driver's timeout, and a hard stop above it).
CONNECT_TIMEOUT = 10
#: Rows fetched at a time (progress and cancel between them).
FETCH_ROWS = 5_000
_READ_ONLY_STARTS = ("select", "with", "values", "table")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


#: What drivers say when the server wants a password it did not get, or refused the one given (libpq/psycopg,
#: MySQL/MariaDB, SQL Server): such a failure is one a password prompt can fix.
_AUTH_FAILURE = re.compile(r"no password supplied|password authentication failed|authentication failed|"
                           r"access denied for user|login failed for user|password is required", re.I)


class DatabaseError(ValueError):
    """A database that cannot be read: one line naming the URL (without password) and the reason.

    ``auth`` is True when the server asked for a password it did not get or refused the one given
    (:func:`needs_password`): the studio then asks for one.
    """

    def __init__(self, where: str, reason: str, *, auth: bool = False):
        self.where = where
        self.reason = reason
        self.auth = auth
        super().__init__(f"{where}: {reason}")


def needs_password(exc: BaseException) -> bool:
    """Whether ``exc`` is a connection refused for want of the right password."""
    return isinstance(exc, DatabaseError) and exc.auth


def is_database_url(spec: Any) -> bool:
    """Whether ``spec`` is written as a URL (``scheme://...``) rather than a file path."""
    return isinstance(spec, str) and bool(_URL.match(spec.strip()))


def redact_url(url: str) -> str:
    """``url`` without its password (and without query parameters named ``password``)."""
    text = str(url).strip()
    try:
        from sqlalchemy.engine import URL, make_url

        parsed = make_url(text)
        query = {k: v for k, v in parsed.query.items() if "password" not in k.lower()}
        # URL.set(password=None) keeps the password (None means "unchanged"): build the URL anew.
        bare = URL.create(parsed.drivername, username=parsed.username, host=parsed.host, port=parsed.port,
                          database=parsed.database, query=query)
        return bare.render_as_string(hide_password=False)
    except Exception:  # noqa: BLE001 (a URL SQLAlchemy cannot parse: drop whatever sits between ':' and '@')
        return re.sub(r"(://[^/:@]*):[^@/]*@", r"\1@", text)


def _scrub(message: str, secrets: list[str]) -> str:
    """A driver's message in one line, with any password it echoes replaced."""
    line = " ".join(str(message).split())
    for secret in secrets:
        if secret:
            line = line.replace(secret, "***")
    return line[:300]


def check_read_only(sql: str, where: str) -> str:
    """The query if it is one read-only statement; DatabaseError naming the refused keyword otherwise."""
    text = re.sub(r"/\*.*?\*/", " ", sql, flags=re.S)
    text = re.sub(r"--[^\n]*", " ", text)
    # Literals and quoted names may hold anything, ';' included: blank them before looking for statements.
    bare = re.sub(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"", "''", text).strip()
    bare = bare.rstrip(";").strip()
    if not bare:
        raise DatabaseError(where, "the query is empty")
    if ";" in bare:
        raise DatabaseError(where, "the query holds more than one statement; give one SELECT")
    first = re.match(r"\(*\s*([A-Za-z]+)", bare)
    word = first.group(1).lower() if first else ""
    if word not in _READ_ONLY_STARTS:
        raise DatabaseError(where, f"queries are read-only: {word.upper() or 'this statement'} is refused "
                                   "(give a SELECT)")
    if word == "with" and re.search(r"\b(insert|update|delete|merge|drop|alter|create|truncate)\b", bare, re.I):
        raise DatabaseError(where, "queries are read-only: a WITH that changes data is refused")
    return sql.strip().rstrip(";")


# ------------------------------------------------------------------ connecting
@dataclass
class _Target:
    url: Any  # sqlalchemy URL (with the password, never shown)
    shown: str  # the URL without password
    secrets: list[str] = field(default_factory=list)

    @property
    def host(self) -> str:
        if self.url.get_backend_name() == "sqlite":
            return self.url.database or "memory"
        return f"{self.url.host or 'localhost'}{':' + str(self.url.port) if self.url.port else ''}"


def _target(url: str, password: str | None = None) -> _Target:
    try:
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError
    except ImportError:  # pragma: no cover (SQLAlchemy is a dependency)
        raise DatabaseError(redact_url(url), "reading databases needs SQLAlchemy (pip install sqlalchemy)") from None
    shown = redact_url(url)
    try:
        parsed = make_url(str(url).strip())
    except (ArgumentError, ValueError) as exc:
        raise DatabaseError(shown, f"not a database URL ({_scrub(exc, [])})") from None
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")  # psycopg 3 is the PostgreSQL driver anonstudio ships
    if password is not None:
        parsed = parsed.set(password=password)
    secrets = [s for s in (parsed.password, password) if s]
    return _Target(parsed, shown, [str(s) for s in secrets])


def _engine(target: _Target, *, write: bool = False):
    from sqlalchemy import create_engine
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError
    from sqlalchemy.pool import NullPool

    url = target.url
    backend = url.get_backend_name()
    try:
        if backend == "sqlite":
            database = url.database or ""
            if not database or database == ":memory:":
                raise DatabaseError(target.shown, "give a database file: sqlite:///path/to/file.db")
            path = Path(database)
            if not write or path.exists():
                from .text import require_regular_file

                try:
                    require_regular_file(path)
                except DataFormatError as exc:
                    raise DatabaseError(target.shown, exc.reason) from None
            mode = "rw" if write and path.exists() else ("rwc" if write else "ro")
            uri = f"file:{quote(str(path.resolve()))}?mode={mode}"
            return create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False,
                                                                             timeout=CONNECT_TIMEOUT),
                                 poolclass=NullPool)
        args: dict[str, Any] = {}
        if backend == "postgresql" or backend.startswith("mysql") or backend == "mariadb":
            args["connect_timeout"] = CONNECT_TIMEOUT
        return create_engine(url, connect_args=args, poolclass=NullPool)
    except NoSuchModuleError:
        raise DatabaseError(target.shown, f"no installed SQLAlchemy dialect or driver for {url.drivername!r}") from None
    except (ArgumentError, ImportError, ModuleNotFoundError) as exc:
        raise DatabaseError(target.shown, f"cannot use this URL ({_scrub(exc, target.secrets)})") from None


def _connect(engine, target: _Target):
    """A connection, or DatabaseError naming the host and the reason; never waits beyond the timeout."""
    box: dict[str, Any] = {}

    def attempt():
        try:
            box["conn"] = engine.connect()
        except BaseException as exc:  # noqa: BLE001 (reported below)
            box["error"] = exc

    worker = threading.Thread(target=attempt, daemon=True, name="anonstudio-db-connect")
    worker.start()
    worker.join(CONNECT_TIMEOUT + 5)
    if worker.is_alive():
        raise DatabaseError(target.shown, f"cannot connect to {target.host}: no answer within "
                                          f"{CONNECT_TIMEOUT + 5} s")
    if "error" in box:
        exc = box["error"]
        reason = getattr(exc, "orig", None) or exc
        message = _scrub(reason, target.secrets)
        raise DatabaseError(target.shown, f"cannot connect to {target.host}: {message}",
                            auth=bool(_AUTH_FAILURE.search(message))) from None
    return box["conn"]


def _begin_read_only(conn) -> None:
    """Make the connection's (auto-begun) transaction read-only, where the dialect can say so."""
    backend = conn.engine.dialect.name
    if backend == "sqlite":
        conn.exec_driver_sql("PRAGMA query_only = ON")  # on top of the file opened read-only
        return
    try:
        conn.exec_driver_sql("SET TRANSACTION READ ONLY")
    except Exception:  # noqa: BLE001 (a dialect without it: the statement check above still holds)
        conn.rollback()


def _db_message(exc: BaseException, target: _Target) -> str:
    """The database's own message of a failed statement, in one line."""
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
    return _scrub(text, target.secrets)


def _quote_name(conn, name: str) -> str:
    preparer = conn.engine.dialect.identifier_preparer
    if "." in name and not name.startswith('"'):
        return ".".join(preparer.quote(part) for part in name.split("."))
    return preparer.quote(name)


# ------------------------------------------------------------------ fetching
def _sql_text(values: tuple) -> np.ndarray:
    """A column of fetched values as CSV text: NULL empty, arrays ``;``-joined, bytes refused."""
    kinds = set(map(type, values))
    if kinds == {int}:
        return np.asarray(list(map(str, values)), dtype=object)
    if type(None) in kinds:
        values = tuple("" if v is None else v for v in values)
        kinds.discard(type(None))
        kinds.add(str)
    if kinds & {list, tuple}:
        return np.asarray([";".join(cell_text(x) for x in v) if isinstance(v, (list, tuple)) else cell_text(v)
                           for v in values], dtype=object)
    if kinds & {bytes, bytearray, memoryview}:
        raise ValueError("a column holds binary values (bytes); select text or numbers")
    if kinds <= {str, float}:
        return column_texts(values)
    if kinds <= {str, int}:
        return np.asarray([v if type(v) is str else str(v) for v in values], dtype=object)
    return np.asarray([cell_text(v) for v in values], dtype=object)


def _int_digits(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(uint8 matrix, lengths): each integer's decimal text right-aligned in a row of the matrix."""
    values = np.asarray(values, dtype=np.int64)
    negative = values < 0
    magnitude = values.astype(np.uint64)
    if negative.any():
        magnitude[negative] = (~values[negative]).astype(np.uint64) + np.uint64(1)  # no overflow at -2**63
    largest = int(magnitude.max()) if len(magnitude) else 0
    width = len(str(largest))
    lengths = np.ones(len(values), dtype=np.int64)
    power = np.uint64(10)
    for _ in range(width - 1):
        lengths += magnitude >= power
        power *= np.uint64(10)
    lengths += negative
    width += bool(negative.any())
    matrix = np.zeros((len(values), width), dtype=np.uint8)
    rest = magnitude.copy()
    for k in range(width - bool(negative.any())):
        matrix[:, width - 1 - k] = (rest % np.uint64(10)).astype(np.uint8) + 48
        rest //= np.uint64(10)
    if negative.any():
        rows = np.flatnonzero(negative)
        matrix[rows, width - lengths[rows]] = ord("-")
    return matrix, lengths


def canonical_int_rows(columns: list[np.ndarray]) -> bytes:
    r"""Integer columns of a chunk in the canonical form, built from the arrays.

    The same bytes as ``"".join("\x1f".join(map(str, row)) + "\x1e" for row in zip(*columns)).encode()``,
    without a Python object per value: each column's digits right-aligned in a
    byte matrix, the separators as columns of their own, and a mask that keeps
    each value's digits.
    """
    parts, keeps = [], []
    n = len(columns[0])
    for j, column in enumerate(columns):
        matrix, lengths = _int_digits(column)
        width = matrix.shape[1]
        parts.append(matrix)
        keeps.append(np.arange(width)[None, :] >= (width - lengths)[:, None])
        parts.append(np.full((n, 1), 0x1E if j == len(columns) - 1 else 0x1F, dtype=np.uint8))
        keeps.append(np.ones((n, 1), dtype=bool))
    return np.hstack(parts)[np.hstack(keeps)].tobytes()


def _int_column(values: tuple) -> np.ndarray | None:
    """The column as int64 when every value is a Python int that fits; None otherwise."""
    if set(map(type, values)) != {int}:
        return None
    try:
        return np.fromiter(values, dtype=np.int64, count=len(values))
    except OverflowError:
        return None


def _as_text(column: np.ndarray) -> np.ndarray:
    """A fetched column as CSV text (an integer array's values in decimal)."""
    if column.dtype.kind in "iu":
        return np.asarray(list(map(str, column.tolist())), dtype=object)
    return column


class QueryRows:
    """The rows of a table or query, in :class:`~.delimited.RowChunk` pieces (as a CSV row reader).

    The first chunk is fetched on construction (its column names and values
    decide the shape); ``lines`` are the row numbers from 1. A column is text
    as a CSV field would hold it, or, where the chunk holds only integers, an
    int64 array (iterate :meth:`text_chunks` for text only). :attr:`sha256` is
    the fingerprint of every row once iterated to the end.
    """

    sep = None

    def __init__(self, url: str, *, table: str | None = None, query: str | None = None,
                 password: str | None = None, progress: Any = None):
        if (table is None) == (query is None):
            raise DatabaseError(redact_url(url), "give a table or a query (--table NAME or --query \"SELECT ...\")")
        self.target = _target(url, password)
        shown = self.target.shown
        self.where = f"{shown} table {table!r}" if table is not None else shown
        self.progress = progress
        self.table, self.query = table, query
        sql = check_read_only(query, shown) if query is not None else None
        self._engine = _engine(self.target)
        self._conn = _connect(self._engine, self.target)
        self.total: int | None = None
        try:
            _begin_read_only(self._conn)
            if table is not None:
                name = _quote_name(self._conn, table)
                self.total = int(self._conn.exec_driver_sql(f"SELECT count(*) FROM {name}").scalar() or 0)
                sql = f"SELECT * FROM {name}"
            # The driver's own cursor: SQLAlchemy's result rows cost a third more per row. PostgreSQL's is a named
            # (server-side) cursor, so rows arrive chunk by chunk instead of all at once.
            dbapi = self._conn.connection.dbapi_connection
            named = self._conn.engine.dialect.name == "postgresql"
            cursor = dbapi.cursor(name="anonstudio_fetch") if named else dbapi.cursor()
            cursor.arraysize = FETCH_ROWS
            cursor.execute(sql)
            if cursor.description is None:
                raise DatabaseError(self.where, "the statement returns no rows")
            self.columns = [str(c[0]) for c in cursor.description]
            self._result = cursor
            self._digest = hashlib.sha256()
            self._digest.update("\x1f".join(self.columns).encode() + b"\x1d")
            self.n_fields = len(self.columns)
            self.first_line = 1
            self.n_rows = 0
            self._first = self._next_chunk()
        except DatabaseError:
            self.close()
            raise
        except LoadCancelled:
            self.close()
            raise
        except Exception as exc:  # noqa: BLE001 (the database's message, in one line)
            self.close()
            raise DatabaseError(self.where, _db_message(exc, self.target)) from None

    def _next_chunk(self) -> RowChunk | None:
        if self.progress is not None and self.progress.cancelled():
            raise LoadCancelled(None)
        rows = self._result.fetchmany(FETCH_ROWS)
        if not rows:
            return None
        try:
            columns = []
            for values in zip(*rows):
                numbers = _int_column(values)
                columns.append(numbers if numbers is not None else _sql_text(values))
        except ValueError as exc:
            raise DatabaseError(self.where, str(exc)) from None
        lines = self.n_rows + 1  # consecutive rows: the first row's number stands for all
        self.n_rows += len(rows)
        del rows, values
        if all(c.dtype.kind in "iu" for c in columns):
            self._digest.update(canonical_int_rows(columns))
        else:
            texts = [_as_text(c) for c in columns]
            self._digest.update("\x1e".join(map("\x1f".join, zip(*texts))).encode() + b"\x1e")
            del texts
        if self.progress is not None:
            fraction = self.n_rows / self.total if self.total else 0.0
            self.progress.set(min(fraction, 1.0), f"{self.n_rows:,} rows fetched")
        return RowChunk(columns, lines)

    def first_rows(self, limit: int = 300) -> list[list[str]]:
        if self._first is None:
            return []
        return RowChunk([_as_text(c[:limit]) for c in self._first.columns], self._first.lines).rows(limit)

    def text_chunks(self) -> _TextRows:
        """The same reader with every column as text (for readers that parse text: tables, sets)."""
        return _TextRows(self)

    def __iter__(self) -> Iterator[RowChunk]:
        try:
            chunk, self._first = self._first, None
            while chunk is not None:
                yield chunk
                try:
                    chunk = self._next_chunk()
                except (DatabaseError, LoadCancelled):
                    raise
                except Exception as exc:  # noqa: BLE001
                    raise DatabaseError(self.where, _db_message(exc, self.target)) from None
            if not self.n_rows:
                raise DatabaseError(self.where, "the query returned no rows")
        finally:
            self.close()

    @property
    def sha256(self) -> str:
        return self._digest.hexdigest()

    def close(self) -> None:
        conn = getattr(self, "_conn", None)
        if conn is not None:
            try:
                conn.rollback()
                conn.close()
            except Exception:  # noqa: BLE001 (closing after an error: nothing more to say)
                pass
            self._conn = None
        engine = getattr(self, "_engine", None)
        if engine is not None:
            engine.dispose()
            self._engine = None


class _TextRows:
    """A :class:`QueryRows` whose chunks hold text only (integer arrays written in decimal)."""

    def __init__(self, rows: QueryRows):
        self._rows = rows
        self.sep, self.n_fields, self.first_line = rows.sep, rows.n_fields, rows.first_line

    def __iter__(self) -> Iterator[RowChunk]:
        for chunk in self._rows:
            yield RowChunk([_as_text(c) for c in chunk.columns], chunk.lines)


def _shape(reader: QueryRows) -> str:
    """``"long"``, ``"sets"`` or ``"table"`` from the column names and the first rows."""
    names = [c.strip().lower() for c in reader.columns]
    rows = reader.first_rows()
    if rows:  # a column of ';'-separated items (or arrays, joined so) first: 'person, items' is such a pair
        width = reader.n_fields
        share = [sum(";" in r[j] for r in rows) for j in range(width)]
        best = int(np.argmax(share))
        if share[best] * 4 >= len(rows) and (width <= 2 or names[best] in ITEM_NAMES):
            return "sets"
    if reader.n_fields == 2 and names[0] in RECORD_NAMES and names[1] in ITEM_NAMES:
        return "long"
    if reader.n_fields == 2 and rows:
        first = [r[0] for r in rows]
        if len(set(first)) < len(first):
            return "long"
    return "table"


def _name_of(target: _Target, table: str | None) -> str:
    url = target.url
    base = Path(url.database).name if url.get_backend_name() == "sqlite" and url.database else (url.database or "db")
    return f"{base}:{table}" if table else f"{base}:query"


def open_database(url: str, *, table: str | None = None, query: str | None = None,
                  items_query: str | None = None, shape: str | None = None, password: str | None = None,
                  report: LoadReport | None = None, progress: Any = None) -> tuple[Any, str]:
    """(the dataset, its rows' SHA-256) read from ``table`` or ``query`` of the database at ``url``.

    ``shape`` is ``"table"``, ``"long"`` (person, item rows) or ``"sets"``
    (a column of item sets); None guesses (see the module docstring). With
    ``items_query`` (person, item rows) the table becomes RT data: each
    person (the table's first column) gets the set of their items as a
    ``;``-separated ``items`` column. Raises :class:`DatabaseError` (one line,
    no password), :class:`~anonstudio.data.errors.DataFormatError` for rows
    that do not make the dataset, ``LoadCancelled`` on a cancel.
    """
    from .csvsets import load_sets_from_rows
    from .longform import load_pairs_from_rows
    from .relational import table_from_rows

    report = report if report is not None else LoadReport()
    reader = QueryRows(url, table=table, query=query, password=password, progress=progress)
    where = reader.where
    name = _name_of(reader.target, table)
    pseudo = Path(name.replace("/", "_"))
    try:
        chosen = shape or ("table" if items_query is not None else _shape(reader))
        if chosen not in ("table", "long", "sets"):
            raise ValueError(f"shape must be table, long or sets (got {shape!r})")
        report.details.update(source=reader.target.shown, shape=chosen)
        if chosen == "table":
            data = table_from_rows(pseudo, report, reader.text_chunks(), header=False, names=reader.columns,
                                   strip_label_dots=False, progress=progress)
            data.name, data.source = name, None
        elif chosen == "long":
            data = load_pairs_from_rows(pseudo, report, reader, header=False, fmt="database", record=0, item=1,
                                        progress=progress)
        else:
            share = [sum(";" in r[j] for r in reader.first_rows()) for j in range(reader.n_fields)]
            data = load_sets_from_rows(pseudo, report, reader.text_chunks(), column=int(np.argmax(share)), header=False,
                                       progress=progress)
    except DataFormatError as exc:
        row = f", row {exc.line}" if exc.line is not None else ""
        raise DatabaseError(where + row, exc.reason) from None
    finally:
        reader.close()
    digest = reader.sha256
    if chosen != "table":
        from ..transactions import TransactionData

        data = TransactionData(data.indptr, data.indices, data.vocab, name=name, source=None)
    if items_query is not None:
        data, items_digest = _with_items(url, data, items_query, password, progress)
        digest = hashlib.sha256(f"{digest}\n{items_digest}".encode()).hexdigest()
    return data, digest


def _with_items(url: str, table: Any, items_query: str, password: str | None, progress: Any) -> tuple[Any, str]:
    """``table`` with an ``items`` column: each person's items from ``items_query`` (person, item rows)."""
    from ..table import Table

    reader = QueryRows(url, query=items_query, password=password, progress=progress)
    by_person: dict[str, list[str]] = {}
    try:
        if reader.n_fields != 2:
            raise DatabaseError(reader.where, f"--items-query must give two columns (person, item), not "
                                              f"{reader.n_fields}")
        for chunk in reader.text_chunks():
            for person, item in zip(chunk.columns[0].tolist(), chunk.columns[1].tolist()):
                person, item = person.strip(), item.strip()
                if item:
                    items = by_person.setdefault(person, [])
                    if item not in items:
                        items.append(item)
    finally:
        reader.close()
    frame = table.frame.copy()
    key = frame.columns[0]
    if "items" in frame.columns:
        raise DatabaseError(reader.where, "the table already has a column named 'items'")
    from ..table import value_text

    frame["items"] = [";".join(by_person.get(value_text(v), [])) for v in frame[key].tolist()]
    return Table(frame, dict(table.roles), table.name, None), reader.sha256


def list_tables(url: str, password: str | None = None) -> list[str]:
    """The tables (and views) of the database, for the studio's table list."""
    from sqlalchemy import inspect

    target = _target(url, password)
    engine = _engine(target)
    conn = _connect(engine, target)
    try:
        inspector = inspect(conn)
        return sorted(inspector.get_table_names()) + sorted(inspector.get_view_names())
    except Exception as exc:  # noqa: BLE001
        raise DatabaseError(target.shown, _db_message(exc, target)) from None
    finally:
        conn.close()
        engine.dispose()


# ------------------------------------------------------------------ writing back
def write_table(url: str, name: str, header: list[str], rows: list[list[str]], *, replace: bool = False,
                password: str | None = None) -> None:
    """Create table ``name`` (text columns) holding ``rows``, in one transaction.

    An existing table is refused unless ``replace``; then it is dropped and
    created again within the same transaction (on databases whose DDL is
    transactional, a failure leaves the old table as it was).
    """
    from sqlalchemy import Column, MetaData, Table, Text, inspect

    target = _target(url, password)
    engine = _engine(target, write=True)
    conn = _connect(engine, target)
    where = f"{target.shown} table {name!r}"
    try:
        schema, _, bare = name.rpartition(".") if "." in name else (None, "", name)
        with conn.begin():
            exists = inspect(conn).has_table(bare, schema=schema or None)
            if exists and not replace:
                raise DatabaseError(where, "exists already; choose another name or give --replace")
            meta = MetaData(schema=schema or None)
            columns = [Column(str(h), Text) for h in header]
            out = Table(bare, meta, *columns)
            if exists:
                out.drop(conn)
            out.create(conn)
            keys = [c.name for c in columns]
            batch: list[dict] = []
            for row in rows:
                batch.append({k: (None if v == "" else v) for k, v in zip(keys, row)})
                if len(batch) >= 10_000:
                    conn.execute(out.insert(), batch)
                    batch = []
            if batch:
                conn.execute(out.insert(), batch)
    except DatabaseError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise DatabaseError(where, _db_message(exc, target)) from None
    finally:
        conn.close()
        engine.dispose()
