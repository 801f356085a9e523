"""σ-k^m on the thread budget: the exact level's count on several threads, the draws on one."""
from __future__ import annotations

from anonstudio.methods.kmanon import trial as trial_module
from anonstudio.methods.kmanon.algorithm import kmanonymize
from anonstudio.methods.kmanon.constraints import FreeMerge
from anonstudio.methods.kmanon.params import KmAnonParams
from anonstudio.parallel import budget
from tests.reference.kmanon_reference import is_km_anonymous, random_data


def test_dense_counts_split_over_threads_give_the_same_release(monkeypatch):
    data = random_data(3, 300, 14, 6)
    params = KmAnonParams(k=4, m=3, sigma=1.0, trials=1, seed=2)
    one = kmanonymize(data, FreeMerge(), params)
    # Thread every dense count (the real threshold keeps small datasets on one thread).
    monkeypatch.setattr(trial_module, "_THREADED_RECORDS", 0)
    count = trial_module.dense_count
    slices: list[tuple[int, int]] = []

    def recording_count(*args):
        slices.append(args[-2:])
        return count(*args)

    monkeypatch.setattr(trial_module, "dense_count", recording_count)
    exact_levels = [lv.mode for lv in one.levels].count("exact")
    assert exact_levels >= 2
    for threads in (1, 3):
        slices.clear()
        with budget.limit(threads):
            res = kmanonymize(data, FreeMerge(), params)
        # 300 records make one chunk a level, cut into a slice per thread
        assert len(slices) == threads * exact_levels
        assert sum(hi - lo for lo, hi in slices) == exact_levels * data.n_records
        assert [lv.mode for lv in res.levels] == [lv.mode for lv in one.levels]
        assert [lv.labels.tolist() for lv in res.levels] == [lv.labels.tolist() for lv in one.levels]
        assert all(is_km_anonymous(data, lv.labels, 4, lv.level) for lv in res.levels)


def test_key_counts_add_up_over_slices_of_the_records():
    import numpy as np

    from anonstudio.kernels.generalized_support import count_keys

    data = random_data(5, 400, 20, 9)
    label = (np.arange(data.n_items) // 2).astype(np.int32)  # pairs of items share a partition
    max_len = int(data.lengths.max())
    whole = count_keys(data.indptr, data.indices, label, 3, max_len, 0, data.n_records)
    cuts = [0, 1, 150, 151, 399, 400]
    parts = [count_keys(data.indptr, data.indices, label, 3, max_len, lo, hi) for lo, hi in zip(cuts, cuts[1:])]
    assert sum(parts) == whole > 0


def test_a_one_thread_budget_draws_without_a_helper_thread(monkeypatch):
    data = random_data(4, 300, 14, 6)
    params = KmAnonParams(k=4, m=3, sigma=0.9, trials=1, seed=3, exact_when_cheaper=False)
    pools: list[str] = []
    make_pool = budget.pool

    def recording_pool(wanted, name="anonstudio"):
        pools.append(name)
        return make_pool(wanted, name)

    monkeypatch.setattr(budget, "pool", recording_pool)
    runs = {}
    for threads in (1, 2):
        pools.clear()
        with budget.limit(threads):
            runs[threads] = kmanonymize(data, FreeMerge(), params)
        assert ("kmanon-draw" in pools) == (threads > 1)
        assert "sampling" in [lv.mode for lv in runs[threads].levels]
    assert [lv.labels.tolist() for lv in runs[1].levels] == [lv.labels.tolist() for lv in runs[2].levels]
