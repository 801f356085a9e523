"""The ρ checker's util_mining recount: the kernel against the slow reference, thread counts, cancel, fallback."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from anonstudio.data.transactions import TransactionData
from anonstudio.kernels.rho_verify import count_subsets, decode_keys, merge_counts
from anonstudio.parallel import budget
from anonstudio.verifiers import rho as verifier
from tests.reference.rho_recount_reference import all_subset_counts


def _data(records: list[list[int]], n_items: int) -> TransactionData:
    indptr = np.zeros(len(records) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(r) for r in records])
    indices = np.array([i for r in records for i in sorted(r)], dtype=np.int32)
    return TransactionData(indptr, indices, tuple(str(i) for i in range(n_items)))


def _random_records(seed: int, n: int, n_items: int, longest: int) -> list[list[int]]:
    """Records with empty ones, repeated ones (so counts above 1) and a few of the longest length."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        if out and rng.random() < 0.2:
            out.append(list(out[rng.integers(len(out))]))
        else:
            k = int(rng.integers(0, longest + 1))
            out.append(sorted(rng.choice(n_items, size=k, replace=False).tolist()))
    return out


def _as_dict(keys: np.ndarray, counts: np.ndarray, bits: int) -> dict[tuple[int, ...], int]:
    width = 64 // bits
    items = np.empty((len(keys), width), dtype=np.int64)
    lengths = decode_keys(keys, bits, width, items)
    return {tuple(row[:k]): c for row, k, c in zip(items.tolist(), lengths.tolist(), counts.tolist())}


class Cancelling:
    """A Progress cancelled from the ``after``-th look at the flag on."""

    def __init__(self, after: int):
        self.looks = 0
        self.after = after

    def set(self, fraction: float, status: str = "") -> None:
        pass

    def cancelled(self) -> bool:
        self.looks += 1
        return self.looks >= self.after


@pytest.mark.parametrize("seed", range(6))
def test_kernel_counts_every_subset_like_the_reference(seed):
    records = _random_records(seed, 60, 12, 6)
    data = _data(records, 12)
    bits = 4
    total = sum(2 ** len(r) - 1 for r in records)
    keys, counts = count_subsets(data.indptr, data.indices, 0, len(records), bits, total)
    assert np.all(np.diff(keys.astype(np.float64)) > 0) or len(keys) < 2
    assert _as_dict(keys, counts, bits) == all_subset_counts(records)
    # Blocks of records counted apart then merged give the same arrays as one block.
    cut = len(records) // 3
    first = count_subsets(data.indptr, data.indices, 0, cut, bits, total)
    second = count_subsets(data.indptr, data.indices, cut, len(records), bits, total)
    merged = merge_counts(np.concatenate((first[0], second[0])), np.concatenate((first[1], second[1])))
    assert np.array_equal(merged[0], keys) and np.array_equal(merged[1], counts)


def test_only_empty_records_count_nothing():
    data = _data([[], [], []], 3)
    keys, counts = count_subsets(data.indptr, data.indices, 0, 3, 2, 0)
    assert len(keys) == 0 and len(counts) == 0
    assert verifier._frequent_itemsets([data, data], 1000, 1) == [{}, {}]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("min_count", [1, 2, 5])
def test_frequent_itemsets_match_the_reference(seed, min_count, monkeypatch):
    # Small blocks so that the records are cut into many of them.
    monkeypatch.setattr(verifier, "_SUBSETS_PER_BLOCK", 1 << 16)
    a = _random_records(seed, 400, 20, 7)
    b = [r[: len(r) // 2] for r in a]
    got = verifier._frequent_itemsets([_data(a, 20), _data(b, 20)], 10_000_000, min_count)
    for records, mine in zip((a, b), got):
        want = {z: c for z, c in all_subset_counts(records).items() if c >= min_count}
        assert mine == want


def test_the_numbers_do_not_depend_on_the_thread_count(monkeypatch):
    monkeypatch.setattr(verifier, "_SUBSETS_PER_BLOCK", 1 << 16)
    records = _random_records(7, 30_000, 40, 6)
    datas = [_data(records, 40), _data([r[1:] for r in records], 40)]
    bits = verifier._key_bits(datas)
    assert bits == 6
    runs = {}
    for threads in (1, 2, 3):
        with budget.limit(threads):
            runs[threads] = verifier._subset_counts_kernel(datas, bits, verifier.NullProgress())
    for threads in (2, 3):
        for (k1, c1), (k, c) in zip(runs[1], runs[threads]):
            assert np.array_equal(k1, k) and np.array_equal(c1, c)
    assert _as_dict(*runs[1][1], bits) == all_subset_counts([r[1:] for r in records])


@pytest.mark.parametrize("threads", [1, 2])
def test_a_cancel_in_the_middle_stops_the_recount(threads, monkeypatch):
    monkeypatch.setattr(verifier, "_SUBSETS_PER_BLOCK", 1 << 16)
    records = _random_records(3, 30_000, 40, 6)
    datas = [_data(records, 40), _data(records, 40)]
    bits = verifier._key_bits(datas)
    with budget.limit(threads):
        progress = Cancelling(after=3)
        assert verifier._subset_counts_kernel(datas, bits, progress) is None
        assert 3 <= progress.looks
        with pytest.raises(verifier._Stopped):
            verifier._frequent_itemsets(datas, 10_000_000, 1, Cancelling(after=2))
        assert verifier.recompute_utilities(datas[0], datas[1], Fraction(1, 100), Fraction(3, 10), 12,
                                            progress=Cancelling(after=2)) is None
        # Not cancelled: the same call gives numbers.
        done = verifier.recompute_utilities(datas[0], datas[1], Fraction(1, 1000), Fraction(1, 20), 12)
        assert done is not None and done["util_mining"] == 0.0 and done["rules_common"] > 0


def test_keys_wider_than_64_bits_take_the_python_recount():
    # 300 items need 9 bits; 8 items a record need 72 bits: the Python Counter counts them.
    records = _random_records(11, 80, 300, 8)
    records.append(list(range(8)))
    datas = [_data(records, 300), _data([r[:-1] for r in records], 300)]
    assert verifier._key_bits(datas) is None
    got = verifier._frequent_itemsets(datas, 10_000_000, 2)
    assert got[0] == {z: c for z, c in all_subset_counts(records).items() if c >= 2}


def test_unsorted_records_take_the_python_recount():
    data = _data([[0, 1], [1, 2]], 3)
    unsorted = TransactionData(data.indptr, np.array([1, 0, 2, 1], dtype=np.int32), data.vocab)
    assert verifier._key_bits([data]) == 2
    assert verifier._key_bits([data, unsorted]) is None


def test_rules_from_the_kernel_counts_match_the_reference():
    records = _random_records(5, 500, 15, 6)
    published = [r[::2] for r in records]
    got = verifier.recompute_utilities(_data(records, 15), _data(published, 15), Fraction(1, 50), Fraction(3, 10), 12)
    min_count = 10
    r0 = verifier._rules({z: c for z, c in all_subset_counts(records).items() if c >= min_count}, Fraction(3, 10))
    r1 = verifier._rules({z: c for z, c in all_subset_counts(published).items() if c >= min_count}, Fraction(3, 10))
    assert got["rules_original"] == len(r0) and got["rules_published"] == len(r1)
    assert got["rules_common"] == len(r0 & r1)
