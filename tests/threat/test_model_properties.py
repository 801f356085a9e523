"""Closed forms and special cases of the model: p_I (20), the Island Problem (Remark 2), p_A = p_L, Remark 5."""
import itertools

import numpy as np
import pytest

from anonstudio.methods.threat.analysis import analyze_threat
from anonstudio.methods.threat.estimates import ideal_conditional, ideal_joint, victim_tuples
from anonstudio.methods.threat.model import Priors, encode_release
from anonstudio.methods.threat.params import ThreatParams
from tests.threat.builders import coded_release, example1_frame, example1_release

FAST = dict(iterations=20_000, burn_in=1_000, thinning=1, chains=2, seed=5)


def test_ideal_closed_form_matches_direct_counting():
    frame, release = example1_frame(), example1_release()
    enc = encode_release(frame, release)
    rows = list(zip(frame["disease"], frame["nationality"], frame["zip"]))
    s_values, nat, zips = release.domains["disease"], release.domains["nationality"], release.domains["zip"]
    n = len(rows)
    total = 0.0
    for si, ni, zi in itertools.product(range(5), range(4), range(22)):
        s, na, z = s_values[si], nat[ni], zips[zi]
        gamma = sum(1 for r in rows if r[0] == s)
        d_nat = sum(1 for r in rows if r[0] == s and r[1] == na)
        d_zip = sum(1 for r in rows if r[0] == s and r[2] == z)
        want = (1 + gamma) / (5 + n) * (1 + d_nat) / (4 + gamma) * (1 + d_zip) / (22 + gamma)
        got = ideal_joint(enc, np.array([si]), np.array([[ni, 4 + zi]]))[0]
        assert got == pytest.approx(want, rel=1e-12)
        total += got
    assert total == pytest.approx(1.0, abs=1e-12)


def test_ideal_closed_form_is_the_posterior_mean_of_f():
    # Monte Carlo over pi ~ Dir posterior given the cleartext table.
    frame, release = example1_frame(), example1_release()
    enc = encode_release(frame, release)
    rng = np.random.default_rng(0)
    counts = enc.true_counts()
    m = 200_000
    pi_s = rng.dirichlet(enc.alpha + enc.gamma_s, size=m)
    s, r = 2, np.array([0, 4 + 1])  # (China, 45501) under Stomach... any point will do
    pi_nat = rng.dirichlet(enc.beta[s, 0:4] + counts[s, 0:4], size=m)
    pi_zip = rng.dirichlet(enc.beta[s, 4:] + counts[s, 4:], size=m)
    mc = np.mean(pi_s[:, s] * pi_nat[:, r[0]] * pi_zip[:, r[1] - 4])
    assert ideal_joint(enc, np.array([s]), r[None, :])[0] == pytest.approx(mc, rel=0.02)


@pytest.mark.parametrize("n,p", [(10, 0.1), (5, 0.25)])
def test_island_problem(n, p):
    # Remark 2: N inhabitants, one group each; the culprit (s=1) shows the trait (r=1),
    # the innocents' trait is hidden ('*'). Prior on the trait among innocents has mean p.
    s = [1] + [0] * (n - 1)
    r = [[1]] + [[0]] * (n - 1)
    cells = [[{1}]] + [[{0, 1}] for _ in range(n - 1)]
    frame, release = coded_release("horizontal", s, r, list(range(n)), [2], 2, cells)
    b = np.array([[1 - p, p], [1.0, 1.0]]) * 10  # row s=0: mean p of trait 1
    priors = Priors(alpha=np.ones(2), beta={"a0": b})
    result = analyze_threat(frame, release, ThreatParams(**FAST), priors=priors)
    assert result.p_A[0, 1] == pytest.approx(1 / (1 + (n - 1) * p), abs=0.01)


def test_attacker_equals_learner_when_the_release_hides_everything():
    # One group, every cell the whole domain: the attacker's only extra knowledge is
    # "the victim is one of these rows". With alpha proportional to the counts of
    # sensitive values, Lemma 1 gives exactly the learner's predictive conditional.
    rng = np.random.default_rng(2)
    n, sizes, n_s = 12, [3, 2], 3
    s = rng.integers(0, n_s, n).tolist()
    r = [[int(rng.integers(0, k)) for k in sizes] for _ in range(n)]
    cells = [[set(range(k)) for k in sizes]]
    frame, release = coded_release("horizontal", s, r, [0] * n, sizes, n_s, cells)
    gamma = np.bincount(s, minlength=n_s)
    priors = Priors(alpha=gamma * 0.5, beta={"a0": np.ones((n_s, 3)), "a1": np.ones((n_s, 2))})
    result = analyze_threat(frame, release, ThreatParams(**FAST), priors=priors)
    assert np.allclose(result.p_A, result.p_L, atol=0.02)


def test_release_without_generalization_teaches_the_ideal_model():
    # Remark 5: t* = t. Nothing is latent, so p_L = p_I exactly and RF = 1.
    frame = example1_frame()
    release = example1_release()
    groups = np.arange(8)
    cells = {c: np.zeros((8, len(release.domains[c])), dtype=bool) for c in release.qi}
    enc = encode_release(frame, release)
    for a, c in enumerate(release.qi):
        cells[c][groups, enc.r_code[:, a]] = True
    from anonstudio.methods.group_anonymize.release import GroupRelease
    clear = GroupRelease("horizontal", release.qi, release.sensitive, release.domains, groups, cells)
    result = analyze_threat(frame, clear, ThreatParams(iterations=200, burn_in=100, thinning=1, chains=1, seed=1))
    assert np.allclose(result.p_L, result.p_I, atol=1e-12)
    assert result.measures["RF"] == pytest.approx(1.0, abs=1e-12)
    # The attacker knows each victim's row exactly: p_A is certain wherever r is unique.
    assert result.p_A[0, release.domains["disease"].index("Heart")] == pytest.approx(1.0)
    tuples, inverse = victim_tuples(enc, np.ones(2, dtype=bool))
    assert np.allclose(ideal_conditional(enc, tuples)[inverse], result.p_I)
