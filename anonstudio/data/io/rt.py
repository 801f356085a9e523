"""RT-data loaders: people with relational columns *and* a set of items each.

Three layouts give an :class:`~anonstudio.data.table.RTData` (a table and a
transaction dataset aligned row by row):

* :func:`load_rt_csv`: one row per person, relational columns plus one set
  column whose items are joined by ``;`` (``age,sex,codes`` /
  ``39,F,250;401``). Header optional; UCI Adult conventions (``", "``
  separators, ``?`` for missing, no header row with ``names=``) are accepted,
  so an Adult-style table with a set column added loads as is.
* :func:`load_rt_long`: a people file and a long ``person,item`` file joined
  on a person id, as the INFORMS ``demographics``/``conditions`` files. Item
  codes meaning "no item" (``-1``, ``-9`` there) are dropped; people without
  any item are left out unless ``keep_empty=True``.
* :func:`load_rt_pair`: a table and a transaction file with one record per
  table row, in the same order.

For front ends that load the people first and learn the items column from
the parameters later: :func:`load_rt_table` (a typed table, set column kept
as text), then :func:`rt_from_table` (split the set column off) or
:func:`join_items` (join a long items file on a person id column).

Values are typed per column: a column is numeric when every value is a
number and none is written with a leading zero (codes such as ``001`` or zip
codes stay text, so they print as written); other columns hold strings.
Item labels are always text. Bad input raises
:class:`~anonstudio.data.errors.DataFormatError` naming file, line and
reason; nothing is half-loaded and the input is never modified.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...limits import LIMITS, check_work, large_work_allowed
from ..errors import DataFormatError
from ..table import RTData, Table
from ..transactions import TransactionData
from .build import RecordChunks
from .delimited import (
    Rows,
    column_index,
    header_only,
    header_only_reason,
    is_number,
    iter_rows,
    looks_like_header,
    read_rows,
)
from .report import LoadReport, attach_report

# imported where used: data.io registers every format when imported, and a FIMI file or --help needs neither
if TYPE_CHECKING:
    import pandas as pd

__all__ = ["load_rt_csv", "load_rt_long", "load_rt_pair", "load_rt_table", "rt_from_table", "join_items",
           "load_item_list", "typed_column", "NO_ITEM_CODES"]

#: Item codes that mean "no item" in the INFORMS/MEPS conditions files.
NO_ITEM_CODES = ("-1", "-9")

_LEADING_ZERO = re.compile(r"^[-+]?0\d")
_RESERVED = ("|", "{", "}")  # published item cells use them: {a|b}
#: Separator of the items of one person, in an items column and in the published table.
ITEM_SEP = ";"


def typed_column(values: Sequence[str], missing: set[str], text: bool = False) -> pd.Series:
    """One column from its text fields: int64/float64 when numeric, else strings (missing -> NA).

    A value with a leading zero (``001``) keeps the whole column as text.
    """
    import pandas as pd

    raw = pd.Series(list(values), dtype=object).str.strip()
    is_missing = (raw.isin(missing) | (raw == "")).to_numpy()
    present = raw[~is_missing]
    numeric = (not text and len(present) > 0
               and all(is_number(v) for v in present.iloc[:50])
               and not present.str.match(_LEADING_ZERO).any())
    if numeric:
        numbers = pd.to_numeric(present, errors="coerce")
        if numbers.notna().all():
            if numbers.dtype.kind in "iu" and not is_missing.any():
                return numbers.astype(np.int64).reset_index(drop=True)
            out = np.full(len(raw), np.nan)
            out[~is_missing] = numbers.to_numpy(dtype=np.float64)
            return pd.Series(out)
    return raw.where(~is_missing, None).reset_index(drop=True)


def _check_item_labels(labels: Sequence[str], lines: np.ndarray, path: Path | None, what: str = "line") -> None:
    for pos, label in enumerate(labels):
        if any(c in label for c in _RESERVED):
            reason = f"item {label!r} contains one of {' '.join(_RESERVED)}, which published item cells use"
            if what == "line":
                raise DataFormatError(path, reason, int(lines[pos]))
            raise DataFormatError(path, f"{what} {int(lines[pos])}: {reason}")


def _check_item_separator(texts: Sequence[str], item_sep: str, path: Path | None, column: str,
                          first: int = 1, what: str = "record") -> None:
    """Refuse an items column that holds its items joined by another separator (``a,b,c`` for ``a;b;c``).

    Every value would then be read as one item named ``a,b,c``: a release of
    nothing but rare items. The mistake is taken as likely when no value
    holds ``item_sep`` while at least half of them (two or more) hold one of
    ``,`` tab ``|``, so a column of single items whose labels hold a comma
    (ICD-9 ranges such as ``1,9``) still loads.
    """
    present = [(pos, t) for pos, t in enumerate(texts) if t.strip()]
    if len(present) < 2 or any(item_sep in t for _, t in present):
        return
    for other in (",", "\t", "|"):
        holding = [(pos, t) for pos, t in present if other in t.strip()]
        if len(holding) >= 2 and 2 * len(holding) >= len(present):
            pos, example = holding[0]
            shown = "tab" if other == "\t" else repr(other)
            raise DataFormatError(path, f"the items column {column!r} holds its items separated by {shown} "
                                        f"({len(holding):,} of {len(present):,} values, e.g. {example.strip()!r} "
                                        f"in {what} {first + pos}) but items are separated by {item_sep!r}; "
                                        f"write them as {item_sep.join(example.strip().split(other)[:3])!r}")


def _check_items_per_record(texts: Sequence[str], item_sep: str, path: Path | None,
                            lines: np.ndarray | None = None) -> None:
    """The work-size guard on a person's items, from the separators alone (before splitting any field).

    ``lines``: the file line of each text (else the record, from 1, is named).
    """
    if not texts:
        return
    counts = [t.count(item_sep) for t in texts]
    most = max(range(len(counts)), key=counts.__getitem__)
    where = f"line {int(lines[most])}" if lines is not None else f"record {most + 1}"
    check_work("items per record", counts[most] + 1, where=f"{path.name if path else 'input'}, {where}")


def _frame(names: list[str], rows: list[list[str]], skip: set[int], missing: set[str],
           text_columns: set[str]) -> pd.DataFrame:
    import pandas as pd

    columns = list(zip(*rows)) if rows else [()] * len(names)
    return pd.DataFrame({name: typed_column(list(col), missing, name in text_columns)
                         for j, (name, col) in enumerate(zip(names, columns)) if j not in skip})


def _names(path: Path, header: bool, first: list[str], names: Sequence[str] | None, line: int) -> list[str]:
    n_fields = len(first)
    if names is not None:
        out = [str(n) for n in names]
        if len(out) != n_fields:
            raise DataFormatError(path, f"{len(out)} column names given but rows have {n_fields} fields", line)
    elif header:
        out = [h.strip() for h in first]
    else:
        out = [f"c{j + 1}" for j in range(n_fields)]
    dup = next((n for n in out if out.count(n) > 1), None)
    if dup is not None:
        raise DataFormatError(path, f"column name {dup!r} occurs twice", line)
    if any(not n for n in out):
        raise DataFormatError(path, "a column has an empty name", line)
    return out


def load_rt_csv(path: str | Path, *, items_column: str | int, item_sep: str = ";", sep: str | None = None,
                header: bool | str = "auto", names: Sequence[str] | None = None,
                missing: Sequence[str] = ("?",), text_columns: Sequence[str] = (),
                encoding: str | None = None, latin1_fallback: bool = False,
                report: LoadReport | None = None) -> RTData:
    """Read one person per row: relational columns and the set column ``items_column``.

    Parameters
    ----------
    items_column
        Name (needs a header or ``names``) or 0-based index of the set column.
    item_sep
        Separator of the items inside the set field.
    sep
        Field separator; sniffed among ``,`` tab ``|`` (never ``item_sep``).
    header
        ``"auto"`` (a column name in the first row, or a numeric column whose
        first value is text, means a header), True or False.
    names
        Column names for a file without a header row.
    missing
        Field values meaning "missing" besides the empty field.
    text_columns
        Columns to keep as text even when every value is a number.
    """
    path = Path(path)
    report = report if report is not None else LoadReport(path=path, format="rt-csv")
    candidates = tuple(c for c in (",", "\t", ";", "|") if c != item_sep)
    rows = read_rows(path, sep=sep, candidates=candidates, skipinitialspace=True, encoding=encoding,
                     latin1_fallback=latin1_fallback)
    first = rows.rows[0]
    if header == "auto" and names is None and header_only(rows.rows):
        raise DataFormatError(path, header_only_reason(rows.rows), rows.lines[0])
    if header == "auto":
        header = names is None and ((isinstance(items_column, str) and items_column in [f.strip() for f in first])
                                    or looks_like_header(rows.rows))
    col_names = _names(path, bool(header), first, names, rows.lines[0])
    body = rows.rows[1:] if header else rows.rows
    body_lines = np.asarray(rows.lines[1:] if header else rows.lines, dtype=np.int64)
    if not body:
        raise DataFormatError(path, "the file has a header but no data rows")
    index = column_index(col_names if (header or names is not None) else None, items_column, 0, path, len(first))
    _check_item_separator([r[index] for r in body], item_sep, path, col_names[index])
    _check_items_per_record([r[index] for r in body], item_sep, path, body_lines)
    parts = [[x.strip() for x in r[index].split(item_sep) if x.strip()] for r in body]
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    record_of = np.repeat(np.arange(len(parts), dtype=np.int64), lengths)
    labels = list(chain.from_iterable(parts))
    _check_item_labels(labels, body_lines[record_of], path)
    transactions = _records(lengths, labels, body_lines, path, report)
    frame = _frame(col_names, body, {index}, set(missing), set(text_columns))
    report.details["items_column"] = col_names[index]
    return _assemble(frame, transactions, path, col_names[index], report)


def _records(lengths: np.ndarray, labels: Sequence[str], lines: np.ndarray, path: Path | None, report: LoadReport,
             *, line_word: str = "line") -> TransactionData:
    """The item sets: ``lengths[r]`` labels per record, in record order; ``lines[r]`` names record ``r``."""
    records = RecordChunks(path, report, line_word=line_word)
    records.add(lengths, np.asarray(labels, dtype=object), np.asarray(lines, dtype=np.int64))
    return records.build()


def _assemble(frame: pd.DataFrame, transactions: TransactionData, path: Path, items_name: str,
              report: LoadReport) -> RTData:
    transactions = TransactionData(transactions.indptr, transactions.indices, transactions.vocab,
                                   name=items_name, source=path)
    data = RTData(Table(frame, {}, name=path.name, source=path), transactions)
    attach_report(data, report)
    return data


def _split_header(rows, header: bool | str, known: Sequence[str], path: Path):
    if header == "auto":
        header = looks_like_header(rows.rows, known) or any(f.strip() in known for f in rows.rows[0])
    if not header:
        return None, rows.rows, rows.lines
    if len(rows.rows) < 2:
        raise DataFormatError(path, "the file has a header but no data rows")
    return [h.strip() for h in rows.rows[0]], rows.rows[1:], rows.lines[1:]


def load_rt_table(path: str | Path, *, sep: str | None = None, header: bool | str = "auto",
                  names: Sequence[str] | None = None, missing: Sequence[str] = ("?",),
                  text_columns: Sequence[str] = (), encoding: str | None = None, latin1_fallback: bool = False,
                  report: LoadReport | None = None, progress: Any = None) -> Table:
    """A people table for RT use: every column typed by :func:`typed_column` (codes such as ``001`` stay text).

    The set column, if the file has one, stays a text column (``a;b``): see
    :func:`rt_from_table`. Header and separators as in :func:`load_rt_csv`.
    A cancelled ``progress`` raises :class:`~anonstudio.data.errors.LoadCancelled`.
    """
    path = Path(path)
    report = report if report is not None else LoadReport(path=path, format="rt-table")
    rows = read_rows(path, sep=sep, candidates=(",", "\t", "|"), skipinitialspace=True, encoding=encoding,
                     latin1_fallback=latin1_fallback, progress=progress)
    if header == "auto" and names is None and header_only(rows.rows):
        raise DataFormatError(path, header_only_reason(rows.rows), rows.lines[0])
    if header == "auto":
        header = names is None and looks_like_header(rows.rows)
    col_names = _names(path, bool(header), rows.rows[0], names, rows.lines[0])
    body = rows.rows[1:] if header else rows.rows
    if not body:
        raise DataFormatError(path, "the file has a header but no data rows")
    table = Table(_frame(col_names, body, set(), set(missing), set(text_columns)), {}, name=path.name, source=path)
    attach_report(table, report)
    return table


def rt_from_table(table: Table, items_column: str, *, item_sep: str = ";") -> RTData:
    """Split a table's set column (``a;b;c``, empty or missing: no items) off into the item sets."""
    import pandas as pd

    if items_column not in table.frame.columns:
        raise DataFormatError(table.source, f"no column named {items_column!r}; columns: "
                                            f"{', '.join(map(str, table.frame.columns))}")
    values = table.frame[items_column]
    texts = ["" if pd.isna(v) else _text(v) for v in values.tolist()]
    _check_item_separator(texts, item_sep, table.source, items_column)
    _check_items_per_record(texts, item_sep, table.source)
    parts = [[x.strip() for x in t.split(item_sep) if x.strip()] for t in texts]
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    record_of = np.repeat(np.arange(len(parts), dtype=np.int64), lengths)
    labels = list(chain.from_iterable(parts))
    _check_item_labels(labels, record_of + 1, table.source, what="record")
    report = LoadReport(path=table.source, format="rt-table")
    transactions = _records(lengths, labels, np.arange(1, len(parts) + 1), table.source, report, line_word="record")
    frame = table.frame.drop(columns=[items_column]).reset_index(drop=True)
    rest = Table(frame, {c: r for c, r in table.roles.items() if c != items_column}, table.name, table.source)
    return RTData(rest, TransactionData(transactions.indptr, transactions.indices, transactions.vocab,
                                        name=items_column, source=table.source))


def _text(value) -> str:
    """Cell text of a value read back from a typed column (``39`` for 39 and 39.0)."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def _person_ids(table: Table, person: str) -> dict[str, int]:
    import pandas as pd

    if person not in table.frame.columns:
        raise DataFormatError(table.source, f"no person id column {person!r}; columns: "
                                            f"{', '.join(map(str, table.frame.columns))}")
    seen: dict[str, int] = {}
    for pos, value in enumerate(table.frame[person].tolist()):
        pid = "" if pd.isna(value) else _text(value).strip()
        if not pid:
            raise DataFormatError(table.source, f"record {pos + 1} has no person id")
        if pid in seen:
            raise DataFormatError(table.source, f"person id {pid!r} occurs twice (records {seen[pid] + 1} and "
                                                f"{pos + 1})")
        seen[pid] = pos
    return seen


def join_items(table: Table, items_path: str | Path, *, person: str, item: str | int | None = None,
               items_person: str | int | None = None, drop_items: Sequence[str] = NO_ITEM_CODES,
               keep_empty: bool = False, sep: str | None = None, encoding: str | None = None,
               latin1_fallback: bool = False, report: LoadReport | None = None,
               unknown_people: str = "error") -> RTData:
    """Join a people table with a long ``person,item`` file on the person id column ``person``.

    Ids are compared as text (``"30002019"`` and ``30002019`` match; ``007``
    and ``7`` do not). ``item``: the item column of the items file (default:
    the other column of a two-column file, or a column called like ``item``);
    ``items_person``: its person column (default: the one named ``person``,
    else the first). Item codes in ``drop_items`` mean "no item" and are
    skipped; people left without items are left out unless ``keep_empty``.
    An item row naming a person the table does not have is an error naming
    its line (a wrong id column, or the wrong file), unless
    ``unknown_people="skip"``, which skips and counts such rows. An item
    holding ``;`` (several items in one row) is an error.
    """
    report = report if report is not None else LoadReport(path=Path(items_path), format="rt-long")
    seen = _person_ids(table, person)
    return _join(table.frame, seen, table.source or Path(table.name), Path(items_path), person=person, item=item,
                 items_person=items_person, drop_items=drop_items, keep_empty=keep_empty, sep=sep,
                 encoding=encoding, latin1_fallback=latin1_fallback, report=report, unknown_people=unknown_people)


def load_rt_long(people_path: str | Path, items_path: str | Path, *, person: str | int,
                 item: str | int | None = None, items_person: str | int | None = None,
                 drop_items: Sequence[str] = NO_ITEM_CODES, keep_empty: bool = False,
                 missing: Sequence[str] = ("?",), text_columns: Sequence[str] = (),
                 sep: str | None = None, encoding: str | None = None, latin1_fallback: bool = False,
                 report: LoadReport | None = None, unknown_people: str = "error") -> RTData:
    """Join a people file with a long ``person,item`` file (INFORMS demographics + conditions).

    Parameters
    ----------
    person
        Person id column of the people file (name or index); see :func:`join_items`.
    item, items_person, drop_items, keep_empty, unknown_people
        As in :func:`join_items`.

    The people keep the order of the people file; each person's items come
    from every row with that id. Item rows whose person is not in the
    people file are an error, or skipped and counted with
    ``unknown_people="skip"``.
    """
    people_path, items_path = Path(people_path), Path(items_path)
    report = report if report is not None else LoadReport(path=people_path, format="rt-long")
    people = read_rows(people_path, sep=sep, candidates=(",", "\t", ";", "|"), skipinitialspace=True,
                       encoding=encoding, latin1_fallback=latin1_fallback)
    p_names, p_body, p_lines = _split_header(people, "auto", [str(person)] if isinstance(person, str) else [],
                                             people_path)
    if p_names is None:
        p_names = [f"c{j + 1}" for j in range(len(people.rows[0]))]
    p_names = _names(people_path, True, p_names, None, people.lines[0])
    pid_col = column_index(p_names, person, 0, people_path, len(p_names))
    seen: dict[str, int] = {}
    for pos, row in enumerate(p_body):
        pid = row[pid_col].strip()
        if not pid:
            raise DataFormatError(people_path, "empty person id", p_lines[pos])
        if pid in seen:
            raise DataFormatError(people_path, f"person id {pid!r} occurs twice (first on line "
                                               f"{p_lines[seen[pid]]})", p_lines[pos])
        seen[pid] = pos
    frame = _frame(p_names, p_body, set(), set(missing), set(text_columns) | {p_names[pid_col]})
    return _join(frame, seen, people_path, items_path, person=p_names[pid_col], item=item,
                 items_person=items_person, drop_items=drop_items, keep_empty=keep_empty, sep=sep,
                 encoding=encoding, latin1_fallback=latin1_fallback, report=report, unknown_people=unknown_people)


def _read_items_rows(items_path: Path, *, sep, encoding, latin1_fallback, wanted: list[str], person: str,
                     items_person, item, drop: set[str]) -> Rows:
    """The rows of a long items file, refused while they stream in when one person holds too many items.

    A file giving one person a million items used to be read whole before the
    work-size guard saw it. The first chunk decides (as the full read does
    later) which columns hold the person and the item; every chunk then adds
    to each person's count of item rows, and the guard refuses the file as
    soon as a count passes the limit, with the line where it did.
    """
    reader = iter_rows(items_path, sep=sep, candidates=(",", "\t", ";", "|"), encoding=encoding,
                       latin1_fallback=latin1_fallback, min_fields=2)
    rows: list[list[str]] = []
    lines: list[int] = []
    counts: Counter[str] = Counter()
    columns: tuple[int, int] | None = None
    limit = None if large_work_allowed() else LIMITS["items per record"]
    for chunk in reader:
        body, body_lines = chunk.rows(), chunk.line_array().tolist()
        rows.extend(body)
        lines.extend(body_lines)
        if limit is None:
            continue
        if columns is None:
            try:
                head = Rows(rows[:2001], lines[:2001], reader.sep)
                columns = _item_columns(_split_header(head, "auto", wanted, items_path)[0], len(head.rows[0]),
                                        person, items_person, item, items_path)
            except DataFormatError:
                limit = None  # the full read below says what is wrong, with the line
                continue
        ip_col, it_col = columns
        before = counts.copy()
        counts.update(r[ip_col].strip() for r in body
                      if len(r) > max(ip_col, it_col) and r[it_col].strip() and r[it_col].strip() not in drop)
        heavy, count = counts.most_common(1)[0] if counts else ("", 0)
        if count > limit:
            # The line where this person's count passed the limit, to name it in the message.
            seen, at = before[heavy], body_lines[-1]
            for r, n in zip(body, body_lines):
                if len(r) > max(ip_col, it_col) and r[ip_col].strip() == heavy and r[it_col].strip() \
                        and r[it_col].strip() not in drop:
                    seen += 1
                    if seen > limit:
                        at = n
                        break
            check_work("items per record", seen, where=f"{items_path.name}, line {at}: person {heavy!r}")
    return Rows(rows, lines, reader.sep)


def _item_columns(i_names: list[str] | None, n_fields: int, person: str, items_person, item,
                  items_path: Path) -> tuple[int, int]:
    """(person column, item column) of an items file with header ``i_names`` (None: no header)."""
    if items_person is None:
        items_person = person if (i_names is not None and person in i_names) else 0
    ip_col = column_index(i_names, items_person, 0, items_path, n_fields)
    if item is None or (isinstance(item, str) and i_names is not None and item not in i_names and n_fields == 2):
        if n_fields != 2:
            raise DataFormatError(items_path, f"the file has {n_fields} columns; name the item column")
        item = 1 - ip_col
    return ip_col, column_index(i_names, item, 1, items_path, n_fields)


def _join(frame: pd.DataFrame, seen: dict[str, int], people_path: Path, items_path: Path, *, person: str,
          item, items_person, drop_items, keep_empty, sep, encoding, latin1_fallback, report,
          unknown_people: str = "error") -> RTData:
    """Item sets of the people ``seen`` (id -> row of ``frame``) from the long file ``items_path``."""
    wanted = [str(x) for x in (items_person if items_person is not None else person, item) if isinstance(x, str)]
    rows = _read_items_rows(items_path, sep=sep, encoding=encoding, latin1_fallback=latin1_fallback,
                            wanted=wanted, person=person, items_person=items_person, item=item,
                            drop=set(drop_items))
    i_names, i_body, i_lines = _split_header(rows, "auto", wanted, items_path)
    ip_col, it_col = _item_columns(i_names, len(rows.rows[0]), person, items_person, item, items_path)
    i_lines = np.asarray(i_lines, dtype=np.int64)
    persons = [r[ip_col].strip() for r in i_body]
    labels = [r[it_col].strip() for r in i_body]
    drop = set(drop_items)
    keep = np.fromiter((bool(x) and x not in drop for x in labels), dtype=bool, count=len(labels))
    n_dropped = int(np.count_nonzero(~keep))
    if n_dropped:
        report.warn(f"{n_dropped:,} item rows without an item code ({', '.join(sorted(drop)) or 'empty'}) skipped")
    pos_of = np.fromiter((seen.get(p, -1) for p in persons), dtype=np.int64, count=len(persons))
    unknown = keep & (pos_of < 0)
    if unknown.any():
        first_bad = int(np.argmax(unknown))
        if unknown_people != "skip":
            raise DataFormatError(items_path, f"person {persons[first_bad]!r} is not in {people_path.name} "
                                              f"({int(unknown.sum()):,} item rows name people it does not have); "
                                              "check the person id column, or remove those rows",
                                  int(i_lines[first_bad]))
        report.warn(f"{int(unknown.sum()):,} item rows name people not in {people_path.name} "
                    f"(e.g. {persons[first_bad]!r} on line {int(i_lines[first_bad])}); skipped")
    joined = next((j for j in np.flatnonzero(keep).tolist() if ITEM_SEP in labels[j]), None)
    if joined is not None:
        raise DataFormatError(items_path, f"item {labels[joined]!r} holds {ITEM_SEP!r}, which separates items in "
                                          "the published table; an items file holds one item per row "
                                          "(person,item)", int(i_lines[joined]))
    keep &= pos_of >= 0
    kept_labels = [x for x, k in zip(labels, keep) if k]
    _check_item_labels(kept_labels, i_lines[keep], items_path)
    # The line each item first occurs on, so that a later check (an item missing from a hierarchy) can name it.
    first_item_line: dict[str, int] = {}
    for label, line in zip(kept_labels, i_lines[keep].tolist()):
        first_item_line.setdefault(label, line)
    report.details["item_lines"] = first_item_line
    n_people = len(seen)
    per_person = np.bincount(pos_of[keep], minlength=n_people)
    if len(per_person) and per_person.max() > 0:
        # The work-size guard before the item sets are built (the rows are read; nothing else is done yet).
        heavy = int(np.argmax(per_person))
        check_work("items per record", int(per_person.max()),
                   where=f"{items_path.name}: person {list(seen)[heavy]!r}")
    has_items = np.zeros(n_people, dtype=bool)
    has_items[pos_of[keep]] = True
    person_rows = np.arange(n_people) if keep_empty else np.flatnonzero(has_items)
    if not keep_empty and len(person_rows) < n_people:
        report.warn(f"{n_people - len(person_rows):,} people without items left out")
    if len(person_rows) == 0:
        raise DataFormatError(items_path, "no person has an item")
    new_pos = np.full(n_people, -1, dtype=np.int64)
    new_pos[person_rows] = np.arange(len(person_rows))
    record_of = new_pos[pos_of[keep]]
    # Sort occurrences by record so the builder sees each record's items together.
    order = np.argsort(record_of, kind="stable")
    kept_lines = i_lines[keep][order]
    lengths = np.bincount(record_of, minlength=len(person_rows)).astype(np.int64)
    # Each record's first item line names it in a duplicate warning.
    first_line = np.zeros(len(person_rows), dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    present = lengths > 0
    first_line[present] = kept_lines[starts[present]]
    transactions = _records(lengths, [kept_labels[j] for j in order], first_line, items_path, report)
    ids = list(seen)
    item_name = i_names[it_col] if i_names is not None else "items"
    report.record_ids = [ids[j] for j in person_rows.tolist()]
    report.details["items_column"] = item_name
    return _assemble(frame.iloc[person_rows].reset_index(drop=True), transactions, people_path, item_name, report)


def load_rt_pair(table: Table, transactions: TransactionData, *, items_column: str | None = None) -> RTData:
    """Align an already loaded table and transaction dataset (one record per table row, same order)."""
    if table.n_rows != transactions.n_records:
        where = transactions.source or table.source
        raise DataFormatError(where, f"the table has {table.n_rows:,} rows but the item file "
                                     f"{transactions.n_records:,} records; they must match row by row")
    name = items_column or transactions.name or "items"
    if name in table.frame.columns:
        raise DataFormatError(table.source, f"the table already has a column named {name!r}")
    return RTData(table, TransactionData(transactions.indptr, transactions.indices, transactions.vocab,
                                         name=name, source=transactions.source))


def load_item_list(path: str | Path, *, encoding: str | None = None) -> list[tuple[str, int]]:
    """Item labels of a list file, one per line (``#`` comments and blank lines ignored, quotes removed).

    Returns ``(label, line)`` pairs so that a caller can name the line of a
    label it cannot resolve. Used for sensitive-item lists.
    """
    from .text import read_text

    path = Path(path)
    out = []
    for number, line in enumerate(read_text(path, encoding=encoding, allow_empty=True).splitlines(), start=1):
        label = line.strip()
        if not label or label.startswith("#"):
            continue
        if label.startswith('"') and label.endswith('"') and len(label) >= 2:
            label = label[1:-1]
        out.append((label, number))
    return out
