"""BMS-WebView-1′ (records of ≤ 5 items, from /work/shared/data): a 10 % sample, checked exhaustively."""
from __future__ import annotations

import numpy as np
import pytest

from anonstudio.data.io import load_transactions
from anonstudio.jobs import derive_seed
from anonstudio.methods.rho import RhoParams, run_rho
from anonstudio.verifiers.rho import verify_rho
from tests.shared_data import SHARED_DATA

BMS = SHARED_DATA / "transactions" / "BMS-WebView-1.dat"

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not BMS.exists(), reason="benchmark data not available")]


@pytest.mark.parametrize("setting", ["fixed", "personalized+"])
def test_exact_on_a_sample_of_bms_webview_1_primed_is_safe(setting):
    data = load_transactions(BMS)
    primed = data.subset(np.flatnonzero(data.lengths <= 5))
    rng = np.random.default_rng(derive_seed(1, "bench-sample"))
    sample = primed.subset(np.sort(rng.choice(primed.n_records, size=primed.n_records // 10, replace=False)))
    res = run_rho(sample, RhoParams(rho="0.5", setting=setting, sensitive_fraction=0.1, seed=1))
    assert res.complete and res.iterations >= 2
    assert 0.01 < res.util_info < 0.1
    doc = res.to_json()
    reported = {k: doc[k] for k in ("suppressed_items", "util_info", "util_dist", "util_mining", "rules_original",
                                    "rules_published", "rules_common")}
    check = verify_rho(sample, res.published, res.constraint.pairs(), res.params.rho_fraction, reported=reported)
    assert check.exhaustive and check.unsafe == 0 and check.passed, check.lines()
    original = verify_rho(sample, sample, res.constraint.pairs(), res.params.rho_fraction)
    assert original.unsafe > 0
