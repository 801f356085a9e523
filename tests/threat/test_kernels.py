"""Distribution checks of the sampler's building blocks."""
import numpy as np
import pytest
from scipy import stats

from anonstudio.kernels import gibbs
from anonstudio.kernels.rng import make_state


@pytest.mark.parametrize("n_rows,cell", [(5, 4), (3, 37), (20_000, 37), (20_000, 3)])
def test_cell_draws_follow_pi(n_rows, cell):
    # Small patterns use a binary search, large ones a guide table: both must be exact.
    rng = np.random.default_rng(cell)
    pi = rng.random((1, cell))
    pi[0, 1] = 0.0
    pi /= pi.sum()
    reps = max(1, 60_000 // n_rows)
    state = make_state(5)
    total = np.zeros(cell)
    counts = np.zeros((1, cell), dtype=np.int64)
    for _ in range(reps):
        gibbs._resample_patterns(state, np.array([0]), np.array([n_rows]), np.array([0, cell]),
                                 np.arange(cell, dtype=np.int64), np.zeros((1, cell), dtype=np.int64), pi,
                                 counts, np.empty(cell), False, np.zeros(cell))
        total += counts[0]
    assert total[1] == 0
    keep = pi[0] > 0
    expected = pi[0][keep] * total.sum()
    assert stats.chisquare(total[keep], expected).pvalue > 1e-3


@pytest.mark.parametrize("shape", [0.3, 1.0, 2.5, 40.0])
def test_gamma_draws_have_the_right_moments(shape):
    state = make_state(9)
    cache = np.zeros(2)
    x = np.array([gibbs.gamma_draw(state, shape, cache) for _ in range(40_000)])
    assert x.mean() == pytest.approx(shape, rel=0.03)
    assert x.var() == pytest.approx(shape, rel=0.08)
    assert stats.kstest(x, stats.gamma(shape).cdf).pvalue > 1e-3
