"""Performance knobs never change the data: the same seed gives the same release for 1, 2 and 4 threads."""
from __future__ import annotations

import json

import numpy as np
import pytest

from anonstudio.jobs import NullProgress
from anonstudio.methods.contract import get_method, run_and_verify

THREADS = (1, 2, 4)


def _json(run) -> str:
    doc = run.to_json()
    doc["run"].pop("seconds", None)
    doc["run"].pop("started", None)
    doc["run"]["params"].pop("threads", None)
    return json.dumps(_without_times(doc), sort_keys=True)


def _without_times(obj):
    if isinstance(obj, dict):
        return {k: _without_times(v) for k, v in obj.items()
                if not any(w in k for w in ("seconds", "per_second", "rate_per"))}
    if isinstance(obj, list):
        return [_without_times(v) for v in obj]
    return obj


@pytest.mark.parametrize("sampler", ["independent", "mcmc"])
def test_kmanon_release_is_the_same_for_any_thread_count(sampler):
    import dataclasses

    spec = get_method("kmanon")
    data, params = spec.example()
    params = dataclasses.replace(params, trials=3, sampler=sampler, sigma=0.9, exact_when_cheaper=False)
    labels, docs = [], []
    for threads in THREADS:
        run = run_and_verify(spec, data, dataclasses.replace(params, threads=threads), NullProgress())
        labels.append(run.result.final.labels.tolist())
        docs.append(_json(run))
    assert labels[0] == labels[1] == labels[2]
    assert docs[0] == docs[1] == docs[2]


def test_exact_uniqueness_is_the_same_for_any_thread_count():
    from anonstudio.methods.uniqueness.algorithm import exact_uniqueness

    data, _ = get_method("uniqueness").example()
    counts = {threads: [exact_uniqueness(data, m, threads=threads, max_chunk_keys=64) for m in (1, 2, 3)]
              for threads in THREADS}
    assert counts[1] == counts[2] == counts[4]


def test_threat_estimates_do_not_depend_on_the_worker_count(monkeypatch):
    """Chains run on a pool of workers; how many run at once must not change a number."""
    from anonstudio import parallel

    spec = get_method("threat")
    data, params = spec.example()
    results = []
    # The chains' pool takes as many workers as the thread budget allows (one per chain at most).
    monkeypatch.setattr(parallel.budget, "_setting", parallel.budget.setting)
    for workers in THREADS:
        parallel.configure(threads=workers)
        import dataclasses

        run = run_and_verify(spec, data, dataclasses.replace(params, chains=4), NullProgress())
        results.append(_json(run))
    assert results[0] == results[1] == results[2]


def test_kmanon_release_is_the_same_whatever_the_chunk_sizes(monkeypatch):
    """Chunk sizes follow the machine's speed; they must not change which random numbers are drawn."""
    import dataclasses

    import anonstudio.jobs as jobs

    spec = get_method("kmanon")
    data, params = spec.example()
    params = dataclasses.replace(params, sigma=0.9, exact_when_cheaper=False)
    first = run_and_verify(spec, data, params, NullProgress()).result.final.labels
    original = jobs.ChunkSizer.__init__

    def tiny(self, initial=1024, target=0.1, minimum=1, maximum=1 << 30):
        original(self, initial=1, target=1e-6, minimum=1, maximum=3)

    monkeypatch.setattr(jobs.ChunkSizer, "__init__", tiny)
    second = run_and_verify(spec, data, params, NullProgress()).result.final.labels
    assert np.array_equal(first, second)
