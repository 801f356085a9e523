"""Samplers against exact enumeration of every compatible cleartext table (tests/reference)."""
import numpy as np
import pytest

from anonstudio.methods.threat.analysis import analyze_threat
from anonstudio.methods.threat.params import ThreatParams
from tests.reference.threat_reference import (
    TinyModel,
    exact_learner_joint,
    exact_posteriors,
    horizontal_tables,
    vertical_tables,
)
from tests.threat.builders import coded_release

TOL = 0.025


def _random_horizontal(seed):
    rng = np.random.default_rng(seed)
    n_s, sizes = int(rng.integers(2, 4)), [int(rng.integers(2, 4)), int(rng.integers(2, 4))]
    n = 5
    s = rng.integers(0, n_s, n).tolist()
    r = [[int(rng.integers(0, k)) for k in sizes] for _ in range(n)]
    groups = [0, 0, 1, 1, 1]
    cells = []
    for g in range(2):
        members = [i for i in range(n) if groups[i] == g]
        cell = []
        for a, k in enumerate(sizes):
            vals = {r[i][a] for i in members}
            vals |= {v for v in range(k) if rng.random() < 0.4}
            cell.append(vals)
        cells.append(cell)
    return n_s, sizes, s, r, groups, cells


def _compare(result, model, s, tables, victims_rows, r):
    victims = [tuple(r[i]) for i in victims_rows]
    p_l, p_a, p_rw = exact_posteriors(model, s, tables(), victims)
    for k, i in enumerate(victims_rows):
        assert np.allclose(result.p_L[i], p_l[k], atol=TOL), ("p_L", i, result.p_L[i], p_l[k])
        assert np.allclose(result.p_A[i], p_a[k], atol=TOL), ("p_A", i, result.p_A[i], p_a[k])
        assert np.allclose(result.p_RW[i], p_rw[k], atol=1e-9), ("p_RW", i, result.p_RW[i], p_rw[k])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_horizontal_sampler_matches_enumeration(seed):
    n_s, sizes, s, r, groups, cells = _random_horizontal(seed)
    frame, release = coded_release("horizontal", s, r, groups, sizes, n_s, cells)
    result = analyze_threat(frame, release, ThreatParams(iterations=40_000, burn_in=1_000, thinning=1, chains=2,
                                                         seed=seed))
    model = TinyModel(n_s, sizes)
    row_cells = [[sorted(cells[groups[i]][a]) for a in range(len(sizes))] for i in range(len(s))]
    _compare(result, model, s, lambda: horizontal_tables(row_cells), range(len(s)), r)
    # Faithfulness is exact here (tiny value space): compare with the enumerated p_L joint.
    joint = exact_learner_joint(model, s, horizontal_tables(row_cells))
    ideal = {key: model.ideal_joint(s, r, key[0], key[1]) for key in joint}
    tv = 0.5 * sum(abs(ideal[k] - joint[k]) for k in joint)
    assert result.measures["RF_exact"] == 1.0
    assert result.measures["RF"] == pytest.approx(1 - tv, abs=0.01)


@pytest.mark.parametrize("proposal", ["swap", "permutation"])
@pytest.mark.parametrize("seed", [4, 5])
def test_vertical_sampler_matches_enumeration(seed, proposal):
    rng = np.random.default_rng(seed)
    n_s, sizes = 3, [2, 3]
    groups = [0, 0, 0, 1, 1, 1, 1]
    s = [0, 1, 2, 0, 1, 2, 2]
    r = [[int(rng.integers(0, k)) for k in sizes] for _ in groups]
    frame, release = coded_release("vertical", s, r, groups, sizes, n_s)
    result = analyze_threat(frame, release, ThreatParams(iterations=40_000, burn_in=1_000, thinning=1, chains=2,
                                                         seed=seed, proposal=proposal))
    model = TinyModel(n_s, sizes)
    _compare(result, model, s, lambda: vertical_tables(groups, r, s), range(len(s)), r)
    assert all(0.0 < a <= 1.0 for a in result.diagnostics.acceptance)


def test_partial_knowledge_attacker_matches_enumeration():
    n_s, sizes, s, r, groups, cells = _random_horizontal(11)
    frame, release = coded_release("horizontal", s, r, groups, sizes, n_s, cells)
    result = analyze_threat(frame, release, ThreatParams(iterations=40_000, burn_in=1_000, thinning=1, chains=2,
                                                         seed=3, known=("a1",)))
    assert result.known_qi == ["a1"]
    model = TinyModel(n_s, sizes)
    row_cells = [[sorted(cells[groups[i]][a]) for a in range(len(sizes))] for i in range(len(s))]
    victims = [(None, r[i][1]) for i in range(len(s))]
    p_l, p_a, p_rw = exact_posteriors(model, s, horizontal_tables(row_cells), victims)
    for i in range(len(s)):
        assert np.allclose(result.p_A[i], p_a[i], atol=TOL)
        assert np.allclose(result.p_L[i], p_l[i], atol=TOL)
        assert np.allclose(result.p_RW[i], p_rw[i], atol=1e-9)


def test_vertical_partial_knowledge_matches_enumeration():
    groups = [0, 0, 0, 1, 1, 1]
    s = [0, 1, 2, 0, 1, 1]
    r = [[0, 1], [1, 1], [0, 2], [1, 0], [0, 0], [1, 2]]
    frame, release = coded_release("vertical", s, r, groups, [2, 3], 3)
    result = analyze_threat(frame, release, ThreatParams(iterations=40_000, burn_in=1_000, thinning=1, chains=2,
                                                         seed=9, known=("a0",)))
    model = TinyModel(3, [2, 3])
    victims = [(r[i][0], None) for i in range(len(s))]
    p_l, p_a, p_rw = exact_posteriors(model, s, vertical_tables(groups, r, s), victims)
    for i in range(len(s)):
        assert np.allclose(result.p_A[i], p_a[i], atol=TOL)
        assert np.allclose(result.p_L[i], p_l[i], atol=TOL)
        assert np.allclose(result.p_RW[i], p_rw[i], atol=1e-9)
