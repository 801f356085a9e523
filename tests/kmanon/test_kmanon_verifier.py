"""The independent verifier against brute force."""

import numpy as np
import pytest

from anonstudio.data.errors import DataFormatError
from anonstudio.kernels import read_only
from anonstudio.kernels.kmanon_verify import draw_uniform_itemsets, guide_table
from anonstudio.verifiers.kmanon import read_partition_map, verify_km
from tests.reference.kmanon_reference import fraction_k_anonymous, omega, partition_records, random_data


def _random_labels(n_items, n_parts, seed):
    return np.random.default_rng(seed).integers(0, n_parts, n_items)


@pytest.mark.parametrize("seed", [0, 1])
def test_exact_enumeration_equals_brute_force(seed):
    data = random_data(seed, 80, 15, 5)
    labels = _random_labels(15, 8, seed)
    res = verify_km(data, labels, 3, 3, exact_budget=10**6)
    for p in res.points:
        assert p.method == "exact"
        assert p.itemsets == len(omega(data, p.ell))
        assert p.fraction == pytest.approx(fraction_k_anonymous(data, labels, 3, p.ell))


@pytest.mark.parametrize("seed", [2, 3])
def test_sampling_estimate_covers_the_truth(seed):
    data = random_data(seed, 300, 30, 6)
    labels = _random_labels(30, 12, seed)
    res = verify_km(data, labels, 4, 3, samples=4000, seed=seed, exact_budget=0, confidence=0.999)
    for p in res.points:
        # single items are always enumerated (Omega^1 is just the occurring items)
        assert (p.method, p.itemsets) == (("exact", 30) if p.ell == 1 else ("sampling", 4000))
        truth = fraction_k_anonymous(data, labels, 4, p.ell)
        assert p.ci_low <= truth <= p.ci_high


def test_rejection_sampler_is_uniform_over_omega():
    # Two records share {0, 1}; a record-first sampler would pick it twice as often.
    from anonstudio.data.transactions import TransactionData

    data = TransactionData.from_id_lists([[0, 1], [0, 1], [1, 2], [2, 3]])
    lengths = np.diff(data.indptr)
    cum = np.cumsum(np.ones(4))
    record_of = np.repeat(np.arange(4), lengths)
    order = np.lexsort((record_of, data.indices))
    post_indptr = np.zeros(5, np.int64)
    np.cumsum(np.bincount(data.indices, minlength=4), out=post_indptr[1:])
    post_records = record_of[order].astype(np.int32)  # as the verifier's lists are (the variant warm_up compiles)
    rng = np.random.default_rng(0)
    out = np.empty((30000, 2), np.int64)
    got, _ = draw_uniform_itemsets(rng.random((200000, 4)), cum, guide_table(cum), data.indptr, data.indices,
                                   post_indptr, post_records, 2, out, 30000, np.empty(30000, np.int64),
                                   np.zeros(0, np.int32))
    assert got == 30000
    keys, counts = np.unique(out[:got, 0] * 10 + out[:got, 1], return_counts=True)
    assert keys.tolist() == [1, 12, 23]
    assert np.all(np.abs(counts / got - 1 / 3) < 0.015)


def test_read_partition_map(tmp_path):
    vocab = ("a", "b", "c")
    path = tmp_path / "map.csv"
    path.write_text("item,partition\na,p1\nb,p1\nc,p2\n")
    labels = read_partition_map(path, vocab)
    assert labels[0] == labels[1] != labels[2]
    path.write_text("item,partition\na,p1\nb,p1\n")
    with pytest.raises(DataFormatError, match="no partition"):
        read_partition_map(path, vocab)
    path.write_text("item,partition\na,p1\nzz,p1\n")
    with pytest.raises(DataFormatError, match="line 3"):
        read_partition_map(path, vocab)


def test_verifier_lists_hold_each_record_once_in_order():
    from anonstudio.kernels.kmanon_verify import records_of_lists

    rng = np.random.default_rng(5)
    records = [sorted(rng.choice(9, size=rng.integers(0, 6), replace=False).tolist()) for _ in range(40)]
    # The data's arrays as a dataset holds them (read-only int64 and int32): the kernel variant the verifier uses.
    indptr = read_only(np.cumsum([0] + [len(r) for r in records]).astype(np.int64))
    indices = read_only(np.array([i for r in records for i in r], dtype=np.int32))
    part = rng.integers(0, 4, size=9)  # several items share a partition: repeats within a record
    lists_indptr, lists = records_of_lists(4, indptr, indices, part)
    expected = partition_records(records, part)
    for p in range(4):
        assert lists[lists_indptr[p]:lists_indptr[p + 1]].tolist() == expected.get(p, [])


def test_lists_built_in_ranges_of_records_on_threads_are_the_lists_built_in_one():
    """Each range of record numbers is counted and written by a task of its own, each range of lists' bitsets
    filled by one: the lists and bitsets do not change."""
    from concurrent.futures import ThreadPoolExecutor

    from anonstudio.kernels.kmanon_verify import list_bitsets, longest_first, records_of_lists_in_order

    rng = np.random.default_rng(11)
    records = [sorted(rng.choice(12, size=rng.integers(0, 8), replace=False).tolist()) for _ in range(300)]
    indptr = read_only(np.cumsum([0] + [len(r) for r in records]).astype(np.int64))
    indices = read_only(np.array([i for r in records for i in r], dtype=np.int32))
    part = rng.integers(0, 5, size=12)  # repeats within a record
    visit = longest_first(indptr)
    one_indptr, one = records_of_lists_in_order(5, indptr, indices, part, visit)
    expected = partition_records([records[u] for u in visit], part)  # numbered in visiting order
    for p in range(5):
        assert one[one_indptr[p]:one_indptr[p + 1]].tolist() == expected.get(p, [])
    bits = list_bitsets(one_indptr, one, 300)
    for p in range(5):
        rows = np.flatnonzero(np.unpackbits(bits[p].view(np.uint8), bitorder="little")[:300])
        assert rows.tolist() == expected.get(p, [])
    with ThreadPoolExecutor(3) as pool:
        for pieces in (2, 3, 7, 300, 1000):
            got_indptr, got = records_of_lists_in_order(5, indptr, indices, part, visit, pieces, pool.map)
            assert np.array_equal(got_indptr, one_indptr) and np.array_equal(got, one)
            assert np.array_equal(list_bitsets(one_indptr, one, 300, pieces, pool.map), bits)


def test_longest_first_is_a_stable_sort_by_length_descending():
    from anonstudio.kernels.kmanon_verify import longest_first

    lengths = np.random.default_rng(3).integers(0, 9, size=500)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    assert np.array_equal(longest_first(indptr), np.argsort(-lengths, kind="stable"))
    assert len(longest_first(np.zeros(1, dtype=np.int64))) == 0


def test_uniforms_drawn_from_their_place_are_the_stream_of_one_generator():
    """Slices of a batch drawn apart (on threads) are the rows that ``default_rng(seed).random`` gives in turn."""
    from anonstudio.verifiers.kmanon import _Uniforms

    rng = np.random.default_rng(2**62 + 5)
    first, second = rng.random((1000, 4)), rng.random((300, 4))
    stream = _Uniforms(2**62 + 5, 4)
    assert np.array_equal(np.concatenate([stream.rows(0, 1), stream.rows(1, 640), stream.rows(640, 1000)]), first)
    stream.skip(1000)
    assert np.array_equal(stream.rows(17, 300), second[17:])


def test_pair_table_counted_in_ranges_with_a_table_each_is_the_one_table(monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    import anonstudio.verifiers.kmanon as verifier
    from anonstudio.jobs import NullProgress

    data = random_data(12, 500, 30, 9)
    cum = np.cumsum(np.diff(data.indptr) * (np.diff(data.indptr) - 1) / 2)
    one = verifier._pair_table(data, cum, NullProgress(), None, 1)
    with ThreadPoolExecutor(3) as pool:
        for spare in (verifier._PAIR_TABLE_SPARE_BYTES, 4 * 435):  # three tables, then two (one spare fits)
            monkeypatch.setattr(verifier, "_PAIR_TABLE_SPARE_BYTES", spare)
            assert np.array_equal(verifier._pair_table(data, cum, NullProgress(), pool, 3), one)
    assert one.sum() == cum[-1]


@pytest.mark.parametrize("threads", [2, 3])
def test_check_is_the_same_on_one_thread_or_several(threads):
    """The check takes the whole budget; batches cut into slices per thread are joined where one pass would
    stop: same itemsets, same counts."""
    from anonstudio.parallel import budget

    data = random_data(6, 400, 40, 8)
    labels = _random_labels(40, 10, 6)
    runs = []
    for workers in (1, threads):
        with budget.limit(workers):
            res = verify_km(data, labels, 6, 4, samples=1500, seed=4, exact_budget=0)
        runs.append([(p.ell, p.itemsets, p.k_anonymous, p.proposals) for p in res.points])
    assert runs[0] == runs[1]
    assert any(k_anon < n for _, n, k_anon, _ in runs[0])  # some itemsets fail: the counts are informative


def _batch_by_batch(data, ell, samples, seed, cap):
    """(accepted, proposals) of the check's draw as one loop over batches of ``max(1024, 2 (samples - accepted))``
    rows of ``default_rng``, stopping at the last acceptance or before a batch that would start at ``cap``."""
    from scipy.special import comb

    from anonstudio.jobs import derive_seed
    from anonstudio.kernels.kmanon_verify import records_of_lists

    post_indptr, post_records = records_of_lists(data.n_items, data.indptr, data.indices, np.arange(data.n_items))
    cum = np.cumsum(comb(np.diff(data.indptr), ell))
    rng = np.random.default_rng(derive_seed(seed, "km-verify", ell))
    got = used = 0
    out = np.empty((samples, ell), dtype=np.int64)
    while got < samples and used < cap:
        batch = max(1024, 2 * (samples - got))
        n, rows = draw_uniform_itemsets(rng.random((batch, ell + 2)), cum, guide_table(cum), data.indptr,
                                        data.indices, post_indptr, post_records, ell, out[got:], samples - got,
                                        np.empty(samples, np.int64), np.zeros(0, np.int32))
        used += batch if got + n < samples else rows
        got += n
    return got, used


@pytest.mark.parametrize(("per_sample", "capped"), [(2000, 0), (6, 1), (2, 2)])
def test_draws_in_rounds_stop_where_the_batches_would(monkeypatch, per_sample, capped):
    """Rounds of any size on any number of threads accept the itemsets, and stop at the proposal, of one loop over
    batches, also where the cap on proposals stops it (at 6 proposals per sample, after a few batches of ℓ = 2; at
    2, after the first batch of ℓ = 2 and of ℓ = 3)."""
    import anonstudio.verifiers.kmanon as verifier
    from anonstudio.parallel import budget

    data = random_data(13, 400, 30, 8)
    labels = _random_labels(30, 8, 13)
    monkeypatch.setattr(verifier, "_PROPOSALS_PER_SAMPLE", per_sample)
    expected = [_batch_by_batch(data, ell, 700, 5, 700 * per_sample) for ell in (2, 3, 4)]
    assert [got < 700 for got, _ in expected] == [True] * capped + [False] * (3 - capped)
    runs = []
    for rows, threads in ((verifier._ROUND_ROWS, 1), (1500, 1), (1500, 3), (333, 2)):
        monkeypatch.setattr(verifier, "_ROUND_ROWS", rows)
        with budget.limit(threads):
            res = verify_km(data, labels, 5, 4, samples=700, seed=5, exact_budget=0)
        assert [(p.itemsets, p.proposals) for p in res.points[1:]] == expected
        runs.append(res.to_json()["levels"])
    for levels in runs:
        assert [{k: v for k, v in p.items() if k != "seconds"} for p in levels] == \
            [{k: v for k, v in p.items() if k != "seconds"} for p in runs[0]]


def test_pair_table_holds_every_pair_support_and_decides_as_the_lists_do(monkeypatch):
    import itertools

    import anonstudio.verifiers.kmanon as verifier
    from anonstudio.kernels.kmanon_verify import pair_supports

    data = random_data(8, 300, 25, 7)
    table = np.zeros(data.n_items * (data.n_items - 1) // 2, dtype=np.int32)
    for lo in range(0, data.n_records, 70):  # in chunks of records, as the check counts them
        pair_supports(data.indptr, data.indices, table, lo, min(lo + 70, data.n_records))
    records = [set(data.record(u).tolist()) for u in range(data.n_records)]
    for a, b in itertools.combinations(range(data.n_items), 2):
        assert table[b * (b - 1) // 2 + a] == sum(1 for r in records if a in r and b in r)
    labels = _random_labels(25, 9, 8)
    runs = []
    for cells in (verifier._PAIR_TABLE_CELLS, 0):  # with the table, then intersecting lists
        monkeypatch.setattr(verifier, "_PAIR_TABLE_CELLS", cells)
        res = verify_km(data, labels, 5, 2, samples=2000, seed=9, exact_budget=0)
        runs.append([(p.ell, p.itemsets, p.k_anonymous, p.proposals) for p in res.points])
    assert runs[0] == runs[1] and runs[0][1][0] == 2 and runs[0][1][1] == 2000


def test_capped_generalized_supports_by_lists_and_by_bitsets_match_brute_force():
    from anonstudio.kernels.kmanon_verify import generalized_supports, list_bitsets, records_of_lists
    from tests.reference.kmanon_reference import generalized_support, records_of

    data = random_data(9, 700, 20, 8)  # 11 bitset words: one full block of 8 and a partial one
    part = _random_labels(20, 6, 9).astype(np.int64)
    indptr, records = records_of_lists(6, data.indptr, data.indices, part)
    bits = list_bitsets(indptr, records, data.n_records)
    rng = np.random.default_rng(9)
    itemsets = np.array([rng.choice(20, 3, replace=False) for _ in range(300)], dtype=np.int64)
    truth = np.array([generalized_support(records_of(data), part, row) for row in itemsets])
    for cap in (1, 5, 40, 10**6):
        for part_bits in (np.zeros((0, 0), dtype=np.uint64), bits):
            out = np.empty(len(itemsets), dtype=np.int64)
            generalized_supports(itemsets, part, indptr, records, part_bits, cap, out)
            assert np.array_equal(np.minimum(out, cap), np.minimum(truth, cap))


def test_cancel_while_counting_pairs_gives_an_incomplete_check():
    from anonstudio.jobs import NullProgress

    class CancelNow(NullProgress):
        def cancelled(self):
            return True

    data = random_data(8, 300, 25, 7)
    res = verify_km(data, _random_labels(25, 9, 8), 5, 3, samples=500, seed=9, exact_budget=0, progress=CancelNow())
    assert not res.complete and [p.ell for p in res.points] == [1]


def test_subsets_per_record_are_scipys_comb_bit_for_bit():
    from scipy.special import comb

    from anonstudio.verifiers.kmanon import subsets_per_record

    lengths = np.concatenate([np.arange(0, 50_001), [10**6, 2**31, 10**9 + 7, 10**12, 2**53 - 1]]).astype(np.int64)
    for ell in range(0, 21):  # 20 and up are scipy's own
        ours, theirs = subsets_per_record(lengths, ell), comb(lengths, ell)
        assert ours.dtype == theirs.dtype == np.float64
        assert np.array_equal(ours.view(np.int64), theirs.view(np.int64)), ell


@pytest.mark.parametrize("confidence", [0.95, 0.99, 0.999, 0.9, 0.5])
def test_bounds_of_an_all_passing_sample_are_scipys_bit_for_bit(confidence):
    from scipy.special import betaincinv

    from anonstudio.verifiers.kmanon import clopper_pearson

    a = 1.0 - confidence
    for n in list(range(1, 3001)) + [20_000, 65_537, 10**6, 2**31 - 1]:
        lo, hi = clopper_pearson(n, n, confidence)
        assert hi == 1.0
        assert lo.hex() == float(betaincinv(n, 1, a / 2)).hex(), n
    # Any failure takes scipy's path (the same expression as before).
    assert clopper_pearson(9, 10, confidence) == (float(betaincinv(9, 2, a / 2)), float(betaincinv(10, 1, 1 - a / 2)))


def test_a_passing_sampled_check_imports_no_scipy_special():
    import subprocess
    import sys

    code = ("import sys, numpy as np; from anonstudio.verifiers.kmanon import verify_km; "
            "from tests.reference.kmanon_reference import random_data; "
            "data = random_data(0, 300, 12, 5); "
            "res = verify_km(data, np.zeros(12, dtype=np.int64), 1, 3, samples=500, exact_budget=0); "
            "assert res.passed and any(p.method == 'sampling' for p in res.points); "
            "print('scipy.special' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
