"""Kernel warm-up: every module's hook runs, and afterwards the entry points are compiled."""
from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys

import pytest

from anonstudio import kernels
from anonstudio.jobs import RecordingProgress
from anonstudio.kernels import warmup

#: Entry points the uniqueness code calls from Python, per kernel module.
ENTRY_POINTS = {
    "support": ("support_batch", "support_weight_batch", "_fill_bitsets"),
    "mcmc_sampler": ("run_chain", "record_first_supports"),
    "enumerate": ("subsets_by_smallest_item", "enumerate_keys", "radix_sort", "count_runs"),
}


def test_warm_up_all_runs_every_modules_hook_once(monkeypatch):
    names = sorted(m.name for m in pkgutil.iter_modules(kernels.__path__) if m.name != "warmup")
    calls: list[str] = []
    with_hook = []
    for name in names:
        module = importlib.import_module(f"anonstudio.kernels.{name}")
        if callable(getattr(module, "warm_up", None)):
            with_hook.append(name)
            monkeypatch.setattr(module, "warm_up", lambda name=name: calls.append(name))
    progress = RecordingProgress()
    timings = warmup.warm_up_all(progress)
    assert set(ENTRY_POINTS) <= set(with_hook)
    assert calls == with_hook  # each hook once, in name order
    assert sorted(timings) == names and all(t >= 0 for t in timings.values())
    assert progress.fractions[-1] == 1.0


@pytest.mark.slow
def test_warm_up_compiles_the_entry_points_in_a_fresh_interpreter():
    # A fresh process, so kernels compiled by other tests cannot make this pass.
    code = (
        "import json, time, importlib\n"
        f"entry = {ENTRY_POINTS!r}\n"
        "out = {}\n"
        "for name, fns in entry.items():\n"
        "    mod = importlib.import_module('anonstudio.kernels.' + name)\n"
        "    before = {f: len(getattr(mod, f).signatures) for f in fns}\n"
        "    mod.warm_up()\n"
        "    after = {f: len(getattr(mod, f).signatures) for f in fns}\n"
        "    t0 = time.perf_counter(); mod.warm_up(); again = time.perf_counter() - t0\n"
        "    out[name] = [before, after, again]\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    for name, fns in ENTRY_POINTS.items():
        before, after, again = report[name]
        assert all(before[f] == 0 for f in fns), (name, before)
        assert all(after[f] >= 1 for f in fns), (name, after)
        assert again < 0.5, (name, again)  # compiled once: the second call only runs tiny inputs
