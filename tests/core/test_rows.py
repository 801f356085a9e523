"""Row sources (what the data view shows, row by row) and column summaries (what `info` prints)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonstudio.data.rows import (
    MAX_CHIPS,
    Chip,
    GeneralizedRecords,
    TableRows,
    TransactionRows,
    cell_chip,
    display_value,
)
from anonstudio.data.summary import column_summaries
from anonstudio.data.table import Role, Table
from anonstudio.data.transactions import TransactionData


@pytest.fixture
def baskets():
    return TransactionData.from_records([["milk", "bread"], ["beer"], [], ["bread", "beer", "Milk tea"],
                                         ["bread"], ["milk", "beer", "bread"]], name="baskets")


def labels(cell):
    return [chip.text for chip in cell]


def test_record_cells(baskets):
    rows = TransactionRows(baskets, record_ids=["a", "b", "c", "d", "e", "f"])
    assert rows.columns == ("record", "id in the file", "size", "items")
    assert rows.n_rows == 6 and len(rows.column_tips) == 4
    number, own_id, size, items = rows.cells(3)
    assert (number, own_id, size) == ("4", "d", "3")  # records are numbered from 1
    assert labels(items) == baskets.record_labels(3)
    assert all(c.kind == "item" and c.key == -1 for c in items)
    assert rows.cells(2)[3] == ()
    assert TransactionRows(baskets, record_ids=["too", "few"]).columns == ("record", "size", "items")


def test_long_records_show_at_most_max_chips():
    data = TransactionData.from_id_lists([list(range(MAX_CHIPS + 30))])
    cell = TransactionRows(data).cells(0)[-1]
    assert len(cell) == MAX_CHIPS + 1 and cell[-1] == Chip("+30 more", "more")


def brute_force(data, terms):
    """Records holding, for every term, an item named so (any case), else an item containing it."""
    vocab = [v.lower() for v in data.vocab]
    out = []
    for u in range(data.n_records):
        have = {data.vocab[i].lower() for i in data.record(u)}
        ok = True
        for term in terms:
            t = term.lower()
            wanted = {v for v in vocab if v == t} or {v for v in vocab if t in v}
            ok &= bool(have & wanted)
        if ok:
            out.append(u)
    return out


@pytest.mark.parametrize("text", ["bread", "BEER", "milk", "bread, beer", "tea", "milk, bread, beer", "nothing"])
def test_record_search_matches_a_brute_force(baskets, text):
    match = TransactionRows(baskets).search(text)
    assert match.rows.tolist() == brute_force(baskets, [t.strip() for t in text.split(",")])


def test_record_search_on_random_data_matches_a_brute_force():
    rng = np.random.default_rng(7)
    data = TransactionData.from_id_lists([rng.choice(30, size=rng.integers(0, 8), replace=False)
                                          for _ in range(300)])
    rows = TransactionRows(data)
    for _ in range(20):
        terms = [str(t) for t in rng.choice(30, size=rng.integers(1, 3), replace=False)]
        assert rows.search(", ".join(terms)).rows.tolist() == brute_force(data, terms)


def test_record_search_words(baskets):
    rows = TransactionRows(baskets)
    assert rows.search("bread, beer").text == "records with item bread and item beer"
    assert rows.search("milk").text == "records with item milk"  # an exact name beats "Milk tea"
    assert rows.search("il").text == "records with an item containing “il” (2 items)"
    assert rows.search("zzz").text == "records with “zzz” (no such item)"
    assert rows.search("#4").rows.tolist() == [3] and rows.search("#40").rows.tolist() == []
    assert rows.search("#0").rows.tolist() == [] and rows.search("#6").text == "record 6"
    assert len(rows.search(" ").rows) == 6


def test_record_sorting(baskets):
    rows = TransactionRows(baskets, record_ids=["10", "9", "100", "1", "2", "3"])
    lengths = baskets.lengths
    assert rows.sort_order(2).tolist() == np.argsort(lengths, kind="stable").tolist()
    descending = rows.sort_order(2, descending=True).tolist()
    assert [lengths[u] for u in descending] == sorted(lengths, reverse=True)
    assert descending[0] == 3  # stable: ties keep record order
    assert rows.sort_order(1).tolist() == [3, 4, 5, 1, 0, 2]  # ids as numbers: 1, 2, 3, 9, 10, 100
    assert rows.sort_order(0, descending=True).tolist() == [5, 4, 3, 2, 1, 0]
    assert rows.sort_order(3) is None


@pytest.fixture
def people():
    frame = pd.DataFrame({
        "age": pd.array([34, None, 51, 34], dtype="Int64"),
        "income": [1.5, np.nan, 3.0, 2.25],
        "town": pd.Series(["Pisa", "Lucca", None, "pisa"], dtype="str"),
    })
    return Table(frame, {"town": Role.SENSITIVE}, "people")


def test_table_cells(people):
    rows = TableRows(people)
    assert rows.columns == ("row", "age", "income", "town")
    assert rows.cells(0) == ("1", "34", "1.5", "Pisa")  # rows are numbered from 1
    assert rows.cells(1) == ("2", None, None, "Lucca")
    assert rows.cells(2) == ("3", "51", "3", None)
    assert rows.right_aligned == frozenset({0, 1, 2})
    assert rows.column_tips[3] == "town: sensitive"


def test_table_sorting_puts_missing_values_last(people):
    rows = TableRows(people)
    assert rows.sort_order(1).tolist() == [0, 3, 2, 1]
    assert rows.sort_order(1, descending=True).tolist() == [2, 0, 3, 1]
    assert rows.sort_order(3).tolist() == [1, 0, 3, 2]


def test_table_search(people):
    rows = TableRows(people)
    assert rows.search("pisa").rows.tolist() == [0, 3]
    assert rows.search("town = Pisa").rows.tolist() == [0, 3]
    assert rows.search("age=34").rows.tolist() == [0, 3]
    assert rows.search("income = 2.25").rows.tolist() == [3]
    assert rows.search("age = old").rows.tolist() == []  # a word never matches a number column
    assert rows.search("34").text == "rows containing “34”"
    assert rows.search("nan").rows.tolist() == []  # a missing value is not the text "nan"
    assert rows.search("#2").rows.tolist() == [1]


def test_chip_columns(people):
    rows = TableRows(people, {"town": cell_chip})
    assert rows.cells(0)[3] == (Chip("Pisa", "value"),)
    assert rows.cells(2)[3] is None


@pytest.mark.parametrize("text, kind", [("*", "suppressed"), ("[20-29]", "general"), ("{a|b}", "general"),
                                        ("4550*", "general"), ("Pisa", "value"), ("-", "value")])
def test_cell_chip_kinds(text, kind):
    assert cell_chip(text, 3) == Chip(text, kind, 3)


def test_display_value():
    assert [display_value(v) for v in (3, np.int64(4), 2.0, 0.1, True, None, np.nan, pd.NA, "x")] == \
        ["3", "4", "2", "0.1", "True", None, None, None, "x"]


@pytest.mark.parametrize("slice_size", [7, 100_000])
def test_generalized_records_match_a_brute_force(monkeypatch, slice_size):
    import anonstudio.data.rows as rows_module

    monkeypatch.setattr(rows_module, "SIZES_SLICE", slice_size)
    rng = np.random.default_rng(3)
    data = TransactionData.from_id_lists([rng.choice(20, size=rng.integers(0, 9), replace=False)
                                          for _ in range(200)], n_items=20)
    group = rng.integers(0, 6, size=20)
    names = {g: f"P{g}" for g in range(6)}
    rows = GeneralizedRecords(data, group, names, group_word="partition")
    for u in range(data.n_records):
        expected = sorted({int(group[i]) for i in data.record(u)})
        cell = rows.cells(u)[2]
        assert [c.key for c in cell] == expected and labels(cell) == [f"P{g}" for g in expected]
        assert all(c.kind == "partition" for c in cell)
        assert rows.sizes()[u] == len(expected)
    assert rows.sort_order(1).tolist() == np.argsort(rows.sizes(), kind="stable").tolist()
    match = rows.search("p2")
    assert match.rows.tolist() == [u for u in range(data.n_records) if 2 in set(group[data.record(u)])]
    assert match.text == "records with partition P2"


def test_column_summaries(people):
    summary = {s.name: s for s in column_summaries(people)}
    assert summary["age"].type == "integer" and summary["income"].type == "number"
    assert summary["town"].type == "text"
    assert (summary["age"].distinct, summary["age"].missing) == (2, 1)
    assert summary["age"].top[0] == ("34", 2)
    assert summary["town"].role == "sensitive" and summary["age"].role == "quasi-identifier"
    assert summary["town"].to_json() == {"name": "town", "type": "text", "distinct": 3, "missing": 1,
                                         "role": "sensitive"}
