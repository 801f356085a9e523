"""Cancel reaches the stages that used to ignore it: export writing and hashing, and ρ's rule mining.

In-process and fast: each stage gets a cancel flag that turns on while it
runs, and the test asserts the stage stopped there (before these stages
polled the flag, each ran to its end: a report's release was written and
hashed, the mining finished and the run counted as complete).
"""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from efficient_apriori import itemsets_from_transactions

from anonstudio.data.io import load_transactions
from anonstudio.data.transactions import TransactionData
from anonstudio.jobs import Cancelled, NullProgress, RecordingProgress
from anonstudio.methods.contract import file_sha256, run_and_verify, write_outputs
from anonstudio.methods.rho.algorithm import run_rho
from anonstudio.methods.rho.params import RhoParams
from anonstudio.methods.rho.spec import SPEC
from anonstudio.methods.rho.utility import MiningCancelled, frequent_itemsets
from anonstudio.studio.report.model import output_files


def _records(seed: int, n: int, items: int, longest: int) -> TransactionData:
    rng = np.random.default_rng(seed)
    return TransactionData.from_id_lists([rng.integers(0, items, size=rng.integers(1, longest + 1)).tolist()
                                          for _ in range(n)], n_items=items)


def _library(data: TransactionData, min_count: int) -> dict:
    """What efficient-apriori's one-call mining finds (the miner used before the level-by-level one)."""
    records = [tuple(data.record(u).tolist()) for u in range(data.n_records)]
    found, _ = itemsets_from_transactions(records, min_support=(min_count - 0.5) / data.n_records,
                                          max_length=int(data.lengths.max()))
    return {tuple(sorted(k)): int(c) for level in found.values() for k, c in level.items() if c >= min_count}


@pytest.mark.parametrize("seed,min_count", [(1, 1), (2, 3), (3, 8), (4, 40)])
def test_level_by_level_mining_finds_what_the_library_finds(seed, min_count):
    data = _records(seed, 400, 25, 7)
    assert frequent_itemsets(data, min_count) == _library(data, min_count)


def test_mining_stops_within_a_fraction_of_a_second():
    data = _records(5, 20_000, 400, 6)  # ~80,000 pair candidates: seconds of counting
    flag = threading.Event()
    timer = threading.Timer(0.3, flag.set)
    timer.start()
    t0 = time.perf_counter()
    with pytest.raises(MiningCancelled):
        frequent_itemsets(data, 5, flag.is_set)
    timer.cancel()
    assert time.perf_counter() - t0 < 0.3 + 0.5


class _CancelAt(RecordingProgress):
    """Cancelled from the first status line holding ``word`` on."""

    def __init__(self, word: str):
        super().__init__()
        self.word = word

    def cancelled(self) -> bool:
        return any(self.word in s for s in self.statuses)


def test_a_cancel_during_the_mining_stops_the_rho_run(rho_example):
    result = run_rho(rho_example, RhoParams(rho="0.5", setting="fixed", sensitive_fraction=0.25, seed=1),
                     _CancelAt("mining"))
    assert not result.complete and result.mining is None


def test_hashing_polls_the_cancel_flag(tmp_path):
    path = tmp_path / "big.bin"
    path.write_bytes(b"x" * (3 << 20))
    with pytest.raises(Cancelled):
        file_sha256(path, lambda: True)
    assert len(file_sha256(path)) == 64  # and a cancel cached nothing


def test_report_export_stops_inside_the_release_not_after_it(rho_example, tmp_path):
    run = run_and_verify(SPEC, rho_example, RhoParams(rho="0.5", setting="fixed", sensitive_fraction=0.25, seed=1))
    assert run.guarantee_met
    with pytest.raises(Cancelled):
        write_outputs(run, {"release": tmp_path / "r.dat"}, cancelled=lambda: True)
    assert not (tmp_path / "r.dat").exists()
    # The report's exports: a cancel while the release is written leaves it out (before: written and hashed).
    outputs, _ = output_files(run, progress=_CancelAt("suppressed data"))
    assert not any(o.key == "release" and o.sha256 for o in outputs)
    outputs, _ = output_files(run, progress=NullProgress())
    assert any(o.key == "release" and o.sha256 for o in outputs)


@pytest.fixture
def rho_example(tmp_path) -> TransactionData:
    path = tmp_path / "baskets.dat"
    rng = np.random.default_rng(7)
    path.write_text("".join(" ".join(map(str, sorted(set(rng.integers(0, 12, size=4).tolist())))) + "\n"
                            for _ in range(60)))
    return load_transactions(path)
