"""A cancel reaches the ρ suppressor within a fraction of a second, and how its work is split never changes the result.

Each kernel call is bounded by a work budget (adversaries checked, draws,
repairs), so the cancel flag is read often even inside one person whose
record has thousands of item pairs. The data below is built so that one
call per level (the old behaviour) runs for many seconds after the request.
"""
from __future__ import annotations

import threading
import time
from fractions import Fraction

import numpy as np
import pytest

from anonstudio.data.transactions import TransactionData
from anonstudio.methods.rho import suppressor as suppressor_module
from anonstudio.methods.rho.sensitive import generate_sensitive
from anonstudio.methods.rho.suppressor import suppress_exact, suppress_sampled

#: Seconds from the cancel request to the return that the tests accept (the target is ~0.1 s).
BOUND = 2.0


class TimedCancel:
    """A Progress cancelled ``after`` seconds from its creation, remembering when the request was made."""

    def __init__(self, after: float):
        self.requested: float | None = None
        self._timer = threading.Timer(after, self._request)
        self._timer.start()

    def _request(self) -> None:
        self.requested = time.perf_counter()

    def set(self, fraction: float, status: str = "") -> None:
        pass

    def partial(self, result) -> None:
        pass

    def cancelled(self) -> bool:
        return self.requested is not None


def _long_records(n_people: int = 40, length: int = 300, n_items: int = 600, seed: int = 3) -> TransactionData:
    """People with hundreds of items each: ~45,000 pairs per person at level 2, a whole level takes seconds."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, n_items + 1) ** 0.6
    weights /= weights.sum()
    records = [np.sort(rng.choice(n_items, size=length, replace=False, p=weights)) for _ in range(n_people)]
    return TransactionData.from_id_lists(records, n_items=n_items)


def _cancel_latency(run, after: float) -> tuple[float, object]:
    progress = TimedCancel(after)
    result = run(progress)
    returned = time.perf_counter()
    assert progress.requested is not None, "the run ended before the cancel: make the work larger"
    return returned - progress.requested, result


def test_exact_cancel_inside_one_level_returns_fast():
    data = _long_records()
    e = generate_sensitive(data, "fixed", 0.1, 1)
    latency, result = _cancel_latency(lambda pr: suppress_exact(data, e, Fraction(1, 2), 2, 1, pr), 1.0)
    assert not result.complete and not result.passes[-1].complete
    assert latency < BOUND, f"the cancel took {latency:.2f} s"


def test_sampled_cancel_inside_one_level_returns_fast():
    data = _long_records()
    e = generate_sensitive(data, "fixed", 0.1, 1)
    # 3 million draws of a level: one kernel call for them all ran for tens of seconds (the first level, cached,
    # is over in about a second, so the request lands in the second).
    latency, result = _cancel_latency(
        lambda pr: suppress_sampled(data, e, Fraction(1, 2), 3, 3_000_000, "user", 1, pr), 2.5)
    assert not result.complete
    assert latency < BOUND, f"the cancel took {latency:.2f} s"


def _fingerprint(sup) -> tuple:
    return (sup.published.indptr.tobytes(), sup.published.indices.tobytes(), sup.log.meta.tobytes(),
            sup.log.q.tobytes(), sup.log.records.tobytes(), [p.to_json()["levels"] for p in sup.passes])


@pytest.mark.parametrize("algorithm", ["exact", "sampled"])
def test_how_the_work_is_split_never_changes_the_result(monkeypatch, algorithm):
    rng = np.random.default_rng(4)
    records = [rng.choice(40, size=rng.integers(1, 12), replace=False).tolist() for _ in range(300)]
    data = TransactionData.from_id_lists(records, n_items=40)
    e = generate_sensitive(data, "personalized+", 0.2, 2)

    def run():
        if algorithm == "exact":
            return suppress_exact(data, e, Fraction(2, 5), 3, 7)
        return suppress_sampled(data, e, Fraction(2, 5), 3, 500, "pair", 7)

    normal = run()
    assert normal.suppressed_items > 0
    # Chunks of one adversary, one draw, one repair: the listing of a person is split at every combination.
    monkeypatch.setattr(suppressor_module, "CHUNK_SECONDS", 0.0)
    tiny = run()
    assert _fingerprint(tiny) == _fingerprint(normal)


def test_independent_check_stops_within_the_bound_and_says_it_is_incomplete():
    from anonstudio.verifiers.rho import verify_rho

    data = _long_records()
    e = generate_sensitive(data, "fixed", 0.1, 1)
    progress = TimedCancel(1.0)
    check = verify_rho(data, data, e.pairs(), Fraction(1, 2), 2, exhaustive_limit=10_000_000, progress=progress)
    assert progress.requested is not None
    latency = time.perf_counter() - progress.requested
    assert not check.complete
    assert latency < BOUND, f"the cancel took {latency:.2f} s"
