"""The numeric fast path of database reading: integer columns coded as numbers, hashed from their arrays.

The dataset, the load report and the rows' SHA-256 must be those of the same rows read as text, whatever the
chunk size, and whether a column holds integers throughout or turns to text (a NULL) in some chunk.
"""
from __future__ import annotations

import hashlib
import sqlite3

import numpy as np
import pytest

pytest.importorskip("sqlalchemy")

from anonstudio.data.datasets import open_dataset
from anonstudio.data.io import database, load_report
from anonstudio.data.io.build import IntCoder, PairChunks
from anonstudio.data.io.database import canonical_int_rows
from anonstudio.data.io.report import LoadReport
from anonstudio.data.origin import origin_of

#: Persons in no order, negative and large ids, a repeated pair (rows 2 and 6), an item that is also a person.
ROWS = [(42, 7), (-3, 7), (42, 7), (10**12, 1), (5, -2), (42, 9), (-3, 7), (5, 10**12), (8, 0), (5, 1)]


def _canonical(columns: list[str], rows: list[tuple]) -> str:
    """The documented canonical form, written out plainly."""
    text = "\x1f".join(columns) + "\x1d" + "".join(
        "\x1f".join("" if v is None else str(v) for v in row) + "\x1e" for row in rows)
    return hashlib.sha256(text.encode()).hexdigest()


def _db(tmp_path, rows, *, kind: str = "INTEGER") -> str:
    path = tmp_path / f"pairs-{kind}.db"
    con = sqlite3.connect(path)
    con.execute(f"CREATE TABLE pairs (person {kind}, item {kind})")
    con.executemany("INSERT INTO pairs VALUES (?, ?)", rows)
    con.commit()
    con.close()
    return f"sqlite:///{path}"


def _same(a, b) -> None:
    assert a.vocab == b.vocab
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.indices, b.indices)
    assert a.indices.dtype == np.int32 and a.indptr.dtype == np.int64


@pytest.mark.parametrize("chunk", [1, 3, 4, 1000])
def test_integer_pairs_read_as_their_text(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(database, "FETCH_ROWS", chunk)
    numbers = open_dataset(_db(tmp_path, ROWS), table="pairs", format="long")
    texts = open_dataset(_db(tmp_path, [(str(p), str(i)) for p, i in ROWS], kind="TEXT"), table="pairs",
                         format="long")
    _same(numbers, texts)
    assert list(load_report(numbers).record_ids) == ["42", "-3", "1000000000000", "5", "8"]
    assert load_report(numbers).record_ids == load_report(texts).record_ids
    assert load_report(numbers).warnings == load_report(texts).warnings == [
        "2 records had duplicate items (lines 3, 7; 2 repeats), deduplicated"]
    # The fingerprint is the canonical form's, whatever the chunk size and whether the values came as numbers.
    assert origin_of(numbers).sha256 == _canonical(["person", "item"], ROWS)


def test_a_null_turns_a_column_to_text_mid_way(tmp_path, monkeypatch):
    monkeypatch.setattr(database, "FETCH_ROWS", 3)
    rows = ROWS[:4] + [(5, None)] + ROWS[4:]  # the second chunk's item column is text: a NULL is an empty field
    numbers = open_dataset(_db(tmp_path, rows), table="pairs", format="long")
    texts = open_dataset(_db(tmp_path, [(str(p), "" if i is None else str(i)) for p, i in rows], kind="TEXT"),
                         table="pairs", format="long")
    _same(numbers, texts)
    assert origin_of(numbers).sha256 == _canonical(["person", "item"], rows)


def test_canonical_int_rows_is_the_text_form():
    rng = np.random.default_rng(5)
    columns = [rng.integers(-10**15, 10**15, 500), rng.integers(0, 3, 500),
               np.array([0, -1, 9, 10, -(2**63), 2**63 - 1] * 83 + [7, 7], dtype=np.int64)]
    text = "".join("\x1f".join(map(str, row)) + "\x1e" for row in zip(*(c.tolist() for c in columns)))
    assert canonical_int_rows(columns) == text.encode()


def test_int_coder_numbers_in_order_of_first_appearance():
    coder = IntCoder()
    np.testing.assert_array_equal(coder.codes(np.array([30, 10, 30, 20])), [0, 1, 0, 2])
    np.testing.assert_array_equal(coder.codes(np.array([5, 20, 40, 10, 5])), [3, 2, 4, 1, 3])
    assert coder.labels == ["30", "10", "20", "5", "40"]


def test_pair_chunks_mix_numbers_and_text_as_text_alone():
    mixed, plain = PairChunks(None, LoadReport()), PairChunks(None, LoadReport())
    chunks = [(np.array([3, 1, 3]), np.array([2, 2, 5])),
              (np.array(["1", " 4", "3"], dtype=object), np.array(["5", "", "2"], dtype=object)),
              (np.array([4, 9]), np.array([11, 2]))]
    for n, (records, items) in enumerate(chunks):
        mixed.add(records, items, 1 + 3 * n)
        plain.add(np.array([str(v) for v in records], dtype=object), np.array([str(v) for v in items], dtype=object),
                  1 + 3 * n)
    a, b = mixed.build(), plain.build()
    _same(a, b)
    assert a.vocab == ("2", "5", "11")  # natural order of the labels, not the order seen
    assert list(mixed.report.record_ids) == ["3", "1", "4", "9"] == list(plain.report.record_ids)
    assert mixed.report.warnings == plain.report.warnings
    assert mixed.report.warnings[0].startswith("1 record had duplicate items (line 6;")
