"""Same seed, same release: runs compared with releases recorded before the speed work on σ-k^m.

``tests/data/kmanon/recorded_releases.json`` holds, for a few settings on
small synthetic cities, every level's item -> partition map and counts and the
independent check's counts, as the code of an earlier version computed them.
An optimisation (memos, cheaper rejection, smaller indexes, a faster check)
must leave them unchanged; a change of the random stream itself must re-record
them (``python tests/kmanon/test_recorded_release.py``) and say why in its commit.

The cities are big enough (3,000-6,000 people) that the frequent towers get
record bitsets, samples repeat and levels merge hundreds of times.
"""
from __future__ import annotations

import dataclasses
import json
import sys
from functools import cache
from pathlib import Path

import pytest

RECORDED = Path(__file__).resolve().parents[1] / "data" / "kmanon" / "recorded_releases.json"

#: name -> (city users, towers, km², run parameters beyond the defaults).
CASES = {
    "sampling-independent": (6000, 120, 6.0, dict(k=5, m=4, sigma=0.9, trials=1, seed=11,
                                                  exact_when_cheaper=False, verify_samples=2000)),
    "sampling-exact-when-cheaper": (6000, 120, 6.0, dict(k=8, m=4, sigma=0.95, trials=2, seed=12,
                                                         verify_samples=2000)),
    "per-level-exact-then-sampling": (3000, 80, 4.0, dict(k=5, m=3, sigma=0.9, sigma_levels=(1.0, 1.0, 0.9),
                                                          trials=1, seed=13, verify_samples=1000)),
    "mcmc": (3000, 80, 4.0, dict(k=5, m=3, sigma=0.9, sampler="mcmc", trials=1, seed=14,
                                 exact_when_cheaper=False, verify_samples=1000)),
}


@cache
def _city(users: int, towers: int, area: float):
    from anonstudio.data.synth_city import SynthCityParams, generate_city

    return generate_city(SynthCityParams(towers=towers, area_km2=area, users=users, mean_record_size=6.0,
                                         std_record_size=5.0, max_record_size=40, seed=5)).data


def _release(name: str) -> dict:
    """What a run of case ``name`` publishes and what its independent check finds, without timings."""
    from anonstudio.jobs import NullProgress
    from anonstudio.methods.contract import get_method, run_and_verify

    users, towers, area, overrides = CASES[name]
    spec = get_method("kmanon")
    _, params = spec.example()
    params = dataclasses.replace(params, **overrides)
    run = run_and_verify(spec, _city(users, towers, area), params, NullProgress())
    levels = [{"level": lv.level, "mode": lv.mode, "samples": lv.samples, "violations": lv.violations,
               "merges": lv.merges, "partitions": lv.partitions, "unfixable": lv.unfixable,
               "error": round(float(lv.error), 9), "labels": [int(x) for x in lv.labels]}
              for lv in run.result.levels]
    check = [{key: point[key] for key in ("ell", "method", "itemsets", "k_anonymous")}
             for point in run.verification.to_json()["levels"]]
    return {"levels": levels, "best_trial": list(run.result.best_trial), "check": check}


@pytest.mark.parametrize("name", sorted(CASES))
def test_release_is_the_recorded_one(name):
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))[name]
    got = _release(name)
    for want, have in zip(recorded["levels"], got["levels"]):
        assert {k: v for k, v in have.items() if k != "labels"} == {k: v for k, v in want.items() if k != "labels"}
        assert have["labels"] == want["labels"], f"level {want['level']}: another generalization"
    assert len(got["levels"]) == len(recorded["levels"])
    assert got["best_trial"] == recorded["best_trial"]
    assert got["check"] == recorded["check"]


if __name__ == "__main__":  # re-record (only for a deliberate change of the random stream)
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    RECORDED.write_text(json.dumps({name: _release(name) for name in sorted(CASES)}, indent=None,
                                   separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"recorded {RECORDED}")
