"""MCMC against exact uniqueness on the bundled real samples (chess: dense, BMS-WebView-1: sparse)."""
from __future__ import annotations

import pytest

from anonstudio.data.samples import get_sample, load_sample
from anonstudio.methods.uniqueness.algorithm import uniqueness_curve
from anonstudio.methods.uniqueness.params import UniquenessParams


def _sample(name):
    try:
        return load_sample(get_sample(name))
    except KeyError:
        pytest.skip(f"bundled sample {name} not installed")


@pytest.mark.parametrize("name", ["chess", "bms-webview-1"])
def test_mcmc_within_interval_of_exact_on_bundled_sample(name):
    data = _sample(name)
    exact = uniqueness_curve(data, UniquenessParams(max_m=3, method="exact"))
    est = uniqueness_curve(data, UniquenessParams(max_m=3, method="mcmc", epsilon=0.02, delta=0.01, seed=1))
    for e, x in zip(est.points, exact.points):
        assert e.ci_low - 1e-12 <= x.uniqueness <= e.ci_high + 1e-12, (name, e.m, e.uniqueness, x.uniqueness)
        assert abs(e.uniqueness - x.uniqueness) <= 0.02
    if name == "bms-webview-1":
        assert [round(p.uniqueness, 2) for p in exact.points] == [0.03, 0.18, 0.35]
