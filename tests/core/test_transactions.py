import numpy as np
import pytest

from anonstudio.data import TransactionData


@pytest.fixture
def toy():
    # Table I of the probabilistic k^m-anonymity paper.
    return TransactionData.from_records(
        [["LA"], ["LA", "Seattle"], ["New York", "Boston"], ["New York", "Boston"],
         ["LA", "Seattle", "New York"], ["LA", "Seattle", "New York"], ["LA", "Seattle", "New York", "Boston"]],
        name="table1",
    )


def test_csr_layout_and_vocab(toy):
    assert toy.vocab == ("Boston", "LA", "New York", "Seattle")
    assert toy.n_records == 7 and toy.n_items == 4
    assert list(toy.indptr) == [0, 1, 3, 5, 7, 10, 13, 17]
    assert toy.record_labels(6) == ["Boston", "LA", "New York", "Seattle"]
    assert list(toy.item_frequencies) == [3, 5, 5, 4]


def test_inverted_index_matches_records(toy):
    post_indptr, post = toy.inverted()
    for item in range(toy.n_items):
        rows = post[post_indptr[item]:post_indptr[item + 1]]
        expected = [u for u in range(toy.n_records) if item in toy.record(u)]
        assert list(rows) == expected


def test_duplicates_dropped_and_numeric_labels_sorted_numerically():
    d = TransactionData.from_records([["10", "9", "10"], ["100"]])
    assert d.vocab == ("9", "10", "100")
    assert d.record_labels(0) == ["9", "10"]


def test_arrays_are_read_only(toy):
    with pytest.raises(ValueError):
        toy.indices[0] = 3


def test_summary(toy):
    s = toy.summary()
    assert (s.records, s.items, s.occurrences, s.max_length, s.min_length) == (7, 4, 17, 4, 1)
    assert s.mean_length == pytest.approx(17 / 7)


def test_bad_construction_rejected():
    with pytest.raises(ValueError):
        TransactionData(np.array([0, 2]), np.array([0, 5]), ("a", "b"))
    with pytest.raises(ValueError):
        TransactionData(np.array([0, 1]), np.array([0]), ("a",), coords=np.zeros((2, 2)))


def test_subset_keeps_vocab(toy):
    s = toy.subset(np.array([6, 0]))
    assert s.n_records == 2 and s.vocab == toy.vocab and s.record_labels(1) == ["LA"]
