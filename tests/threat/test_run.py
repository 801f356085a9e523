"""Job behaviour: seeds, chunking, cancel, partial results, parameters; diagnostics; measures."""
import numpy as np
import pytest

from anonstudio.jobs import RecordingProgress
from anonstudio.methods.threat import analysis
from anonstudio.methods.threat.analysis import analyze_threat, prepare
from anonstudio.methods.threat.diagnostics import geweke_from_batches, weiss_test
from anonstudio.methods.threat.measures import MEASURE_MEANINGS, table_measures, threat_shares
from anonstudio.methods.threat.params import ThreatParams
from anonstudio.methods.threat.sampler import ChainSet
from anonstudio.params import ParameterError, specs, validate
from tests.threat.builders import coded_release, example1_frame, example1_release

SMALL = dict(iterations=3_000, burn_in=500, thinning=2, chains=2)


def _vertical():
    groups = [0, 0, 0, 1, 1, 1, 2, 2]
    s = [0, 1, 2, 0, 1, 2, 1, 2]
    r = [[0, 1], [1, 1], [0, 2], [1, 0], [0, 0], [1, 2], [1, 1], [0, 0]]
    return coded_release("vertical", s, r, groups, [2, 3], 3)


@pytest.mark.parametrize("scheme", ["horizontal", "vertical"])
def test_same_seed_same_result_and_different_seed_differs(scheme):
    frame, release = (example1_frame(), example1_release()) if scheme == "horizontal" else _vertical()
    a = analyze_threat(frame, release, ThreatParams(seed=11, **SMALL))
    b = analyze_threat(frame, release, ThreatParams(seed=11, **SMALL))
    c = analyze_threat(frame, release, ThreatParams(seed=12, **SMALL))
    assert np.array_equal(a.p_A, b.p_A) and np.array_equal(a.p_L, b.p_L)
    assert a.measures.keys() == b.measures.keys()
    assert np.allclose(list(a.measures.values()), list(b.measures.values()), equal_nan=True, rtol=0, atol=0)
    assert not np.array_equal(a.p_L, c.p_L)


@pytest.mark.parametrize("scheme", ["horizontal", "vertical"])
def test_chunking_does_not_change_the_chain(scheme):
    frame, release = (example1_frame(), example1_release()) if scheme == "horizontal" else _vertical()
    params = ThreatParams(seed=4, **SMALL)
    prep = prepare(frame, release, params)
    one = ChainSet(prep.enc, prep.layout, prep.plan, 4, 2)
    many = ChainSet(prep.enc, prep.layout, prep.plan, 4, 2)
    for i in range(2):
        one._advance(i, params.iterations)
        done = 0
        for step in (1, 7, 100, 5000):
            many._advance(i, step)
            done += step
    for name in ("eval_acc", "pts_acc", "row_acc", "batch_sums", "trace", "track"):
        assert np.array_equal(one.pooled(name), many.pooled(name)), name


def test_cancel_returns_partial_marked_incomplete(monkeypatch):
    monkeypatch.setattr(analysis, "PARTIAL_EVERY", 0.0)
    frame, release = example1_frame(), example1_release()
    progress = RecordingProgress(cancel_after_partials=2)
    params = ThreatParams(iterations=5_000_000, burn_in=10, thinning=1, chains=2, seed=1)
    result = analyze_threat(frame, release, params, progress)
    assert result.complete is False
    assert 0 < result.sweeps < params.iterations and result.kept > 0
    assert len(progress.partials) == 2 and all(not p.complete for p in progress.partials)
    assert np.allclose(result.p_A.sum(axis=1), 1.0)
    assert progress.fractions == sorted(progress.fractions)


def test_parameters_are_validated_and_described():
    frame, release = example1_frame(), example1_release()
    # The pipeline validates the parameters once (contract.prepare); the analysis trusts them.
    with pytest.raises(ParameterError, match="Burn-in"):
        validate(ThreatParams(iterations=10, burn_in=10))
    with pytest.raises(ParameterError):
        validate(ThreatParams(chains=0))
    with pytest.raises(ParameterError, match="only know quasi-identifiers"):
        validate(ThreatParams(qi=("nationality", "zip"), known=("age",)))
    # What the data decides is still refused by the analysis itself.
    with pytest.raises(ValueError, match="not quasi-identifiers"):
        analyze_threat(frame, release, ThreatParams(known=("age",), **SMALL))
    assert all(spec.tooltip for spec in specs(ThreatParams))


def test_weiss_accepts_independent_draws_and_rejects_a_drift():
    rng = np.random.default_rng(0)
    iid = rng.integers(0, 3, 5000)
    stat, p, df = weiss_test(iid)
    assert df == 8 and p > 0.01
    drift = np.concatenate([rng.integers(0, 2, 2500), rng.integers(1, 3, 2500)])
    assert weiss_test(drift)[1] < 1e-6
    # Sticky but stationary chain: the autocorrelation adjustment keeps it acceptable.
    sticky = [0]
    for _ in range(4999):
        sticky.append(sticky[-1] if rng.random() < 0.8 else int(rng.integers(0, 3)))
    assert weiss_test(np.array(sticky))[1] > 0.001


def test_geweke_from_batch_means():
    rng = np.random.default_rng(1)
    flat = rng.normal(size=(100, 3))
    trend = flat + np.linspace(0, 5, 100)[:, None]
    counts = np.ones(100, dtype=np.int64)
    assert np.all(np.abs(geweke_from_batches(flat, counts)) < 3)
    assert np.all(np.abs(geweke_from_batches(trend, counts)) > 5)


def test_measures_on_a_hand_example():
    s = np.array([0, 1, 1, 2])
    p_a = np.array([[0.6, 0.4, 0.0], [0.5, 0.5, 0.0], [0.1, 0.8, 0.1], [0.5, 0.3, 0.2]])
    p_l = np.array([[0.3, 0.4, 0.3], [0.2, 0.6, 0.2], [0.2, 0.4, 0.4], [0.2, 0.3, 0.5]])
    hit, weight = threat_shares(p_a, s)
    assert hit.tolist() == [True, True, True, False]
    assert weight.tolist() == [1.0, 0.5, 1.0, 0.0]
    m = table_measures(p_a, p_l, p_a, p_l, s, 3, rf=0.7, rf_exact=True)
    assert m["GT_A"] == pytest.approx(2.5 / 4)
    assert m["GT_L"] == pytest.approx(2.5 / 4)  # rows 2 and 4, plus half of row 3 (tie 0.4 / 0.4)
    assert m["RGT_A"] == pytest.approx(m["GT_A"] - m["GT_L"])
    assert m["max_Ti"] == pytest.approx(2.0)  # row 1: 0.6 / 0.3
    assert m["ABS_A"] == pytest.approx(0.8 + 1.0 + 0.4 + 1.6)
    assert m["baseline_accuracy"] == pytest.approx(0.5)
    assert m["count_log2Ti_ge1"] == 2  # rows 1 (Ti 2) and 3 (Ti 2)
    assert set(m) <= set(MEASURE_MEANINGS)


def test_chosen_pi_components_are_traced():
    frame, release = example1_frame(), example1_release()
    names = ["pi_S[Flu]", "pi[zip=45501 | Heart]"]
    result = analyze_threat(frame, release, ThreatParams(seed=2, **SMALL), trace=names)
    d = result.diagnostics
    assert d.trace_names == names
    assert d.traces.shape == (2, result.kept // 2, 2)
    assert np.all((d.traces > 0) & (d.traces < 1))
    # pi_S[Flu] has the known posterior Dir(1 + counts): mean (1 + 3) / (5 + 8).
    assert d.traces[:, :, 0].mean() == pytest.approx(4 / 13, abs=0.02)
    assert d.geweke_z.shape == (2, len(d.component_names))
    with pytest.raises(ValueError, match="unknown pi component"):
        analyze_threat(frame, release, ThreatParams(seed=2, **SMALL), trace=["pi[zip=1 | Flu]"])


def test_faithfulness_stays_in_unit_interval_when_the_sampled_tv_overshoots():
    from anonstudio.methods.threat.measures import faithfulness

    assert faithfulness(0.25) == 0.75
    assert faithfulness(1.7) == 0.0
    assert faithfulness(0.0) == 1.0
