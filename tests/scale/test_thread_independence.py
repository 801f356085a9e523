"""Results never depend on the number of threads: trials, sampler streams and threat chains under any budget."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from anonstudio import parallel
from anonstudio.methods.contract import get_method, run_and_verify
from anonstudio.methods.kmanon.algorithm import kmanonymize
from anonstudio.methods.kmanon.constraints import FreeMerge
from anonstudio.samplers.independent_sampler import IndependentItemsetSampler
from anonstudio.samplers.mcmc_sampler import ItemsetSampler
from tests.scale.scale_helpers import city, levels_key, quick, trials_key


@pytest.fixture
def threads(monkeypatch):
    """Set the studio's thread budget for one test."""
    monkeypatch.delenv(parallel.ENV_THREADS, raising=False)
    before = parallel.budget.setting

    def set_to(n):
        parallel.configure(threads=n)

    yield set_to
    parallel.configure(threads=before)


def test_kmanon_trials_are_the_same_on_one_thread_or_several(threads):
    results = {}
    for budget, trial_threads in ((1, 4), (2, 2), (4, 4), (4, 1)):
        threads(budget)
        params = quick(trials=4, threads=trial_threads, m=3, seed=7)
        results[(budget, trial_threads)] = kmanonymize(city(), FreeMerge(), params)
    first = next(iter(results.values()))
    assert first.complete and len(first.trials) == 4
    for result in results.values():
        assert trials_key(result) == trials_key(first)
        assert levels_key(result) == levels_key(first) and result.best_trial == first.best_trial


def test_trials_in_a_pool_get_a_share_of_the_budget(threads, monkeypatch):
    """With a budget of 4 and 2 trials side by side, each trial's sampler may use 2 threads, not 4."""
    import anonstudio.methods.kmanon.algorithm as algorithm

    threads(4)
    seen = []
    real = algorithm.SAMPLER_FACTORIES["independent"]

    def spy(data, ell, seed, chains):
        sampler = real(data, ell, seed, chains)
        seen.append(parallel.budget.available())
        return sampler

    monkeypatch.setitem(algorithm.SAMPLER_FACTORIES, "independent", spy)
    kmanonymize(city(), FreeMerge(), quick(trials=2, threads=2, sigma=0.8, exact_when_cheaper=False))
    assert seen and set(seen) == {2}


@pytest.mark.parametrize("sampler_cls, keyword", [(IndependentItemsetSampler, "streams"), (ItemsetSampler, "chains")])
def test_sampler_streams_draw_the_same_samples_under_any_budget(threads, sampler_cls, keyword):
    draws = []
    for budget in (1, 3):
        threads(budget)
        sampler = sampler_cls(city(), 2, 11, **{keyword: 3})
        assert sampler._pool.workers == min(budget, 3)
        try:
            sampler.burn_in()
            items, supports = sampler.draw(600)
        finally:
            sampler.close()
        draws.append((items.tobytes(), supports.tobytes()))
    assert draws[0] == draws[1]


@pytest.mark.parametrize("name", ["threat", "nonreciprocal", "uniqueness"])
def test_families_with_pools_give_the_same_json_under_any_budget(threads, name):
    """Threat chains, nonreciprocal TSP segments and its check, uniqueness counting: pools capped by the budget."""
    spec = get_method(name)
    data, params = spec.example()
    if "threads" in {f for f in params.__dataclass_fields__}:
        params = replace(params, threads=2)
    docs = []
    for budget in (1, 2):
        threads(budget)
        run = run_and_verify(spec, data, params)
        assert run.complete
        doc = run.to_json()
        doc.pop("run")
        docs.append(json.dumps(_without_timing(doc), sort_keys=True))
    assert docs[0] == docs[1]


def _without_timing(doc):
    if isinstance(doc, dict):
        return {k: _without_timing(v) for k, v in doc.items() if "seconds" not in k and "per_second" not in k}
    if isinstance(doc, list):
        return [_without_timing(v) for v in doc]
    return doc


def test_the_threat_chain_pool_is_capped_by_the_budget(threads, monkeypatch):
    from anonstudio.methods.threat import sampler as threat_sampler

    threads(1)
    sizes = []
    real_pool = parallel.budget.pool

    def recording_pool(wanted, name="anonstudio"):
        pool = real_pool(wanted, name)
        sizes.append((name, wanted, pool.workers))
        return pool

    monkeypatch.setattr(threat_sampler.budget, "pool", recording_pool)
    spec = get_method("threat")
    data, params = spec.example()
    run_and_verify(spec, data, params)
    chains = [s for s in sizes if s[0] == "threat-chain"]
    assert chains and all(workers == 1 for _, _, workers in chains)
    assert any(wanted > 1 for _, wanted, _ in chains)


def test_exact_uniqueness_uses_the_budget_and_reads_the_same_under_any_budget(threads, monkeypatch):
    """Exact counting plans for the budget's threads (no fixed 2), cuts more chunks to spread them, same points."""
    from anonstudio.methods.uniqueness import algorithm

    monkeypatch.setattr(algorithm, "_MIN_SPREAD_KEYS", 1)  # the bundled sample is small: spread it anyway
    plans = []
    real = algorithm.exact_memory_plan

    def spy(*args, **kwargs):
        plans.append(real(*args, **kwargs))
        return plans[-1]

    monkeypatch.setattr(algorithm, "exact_memory_plan", spy)
    spec = get_method("uniqueness")
    data, params = spec.example()
    params = replace(params, method="exact", measure="itemset")
    docs = {}
    for budget in (1, 3):
        threads(budget)
        plans.clear()
        curve = algorithm.uniqueness_curve(data, params)
        docs[budget] = json.dumps(_without_timing(curve.to_json()), sort_keys=True)
        assert {p.threads for p in plans if len(p.chunks) >= budget} == {budget}
    assert docs[1] == docs[3]


def test_exact_uniqueness_on_threads_stops_at_a_cancel(threads):
    """Chunks handed to free threads still stop at a cancel: the chunks not started are dropped, None comes back."""
    from anonstudio.jobs import NullProgress
    from anonstudio.methods.uniqueness.algorithm import exact_memory_plan, exact_uniqueness

    class CancelAfterFirst(NullProgress):
        def __init__(self):
            self.sets = 0

        def set(self, fraction, status=""):
            self.sets += 1

        def cancelled(self):
            return self.sets >= 1

    threads(3)
    data, _ = get_method("uniqueness").example()
    plan = exact_memory_plan(data, 3, max_chunk_keys=64)
    assert len(plan.chunks) > 6 and plan.threads == 3
    progress = CancelAfterFirst()
    assert exact_uniqueness(data, 3, progress, max_chunk_keys=64) is None
    assert progress.sets < len(plan.chunks)
    assert exact_uniqueness(data, 3, max_chunk_keys=64) is not None
