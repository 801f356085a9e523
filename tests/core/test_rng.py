import numpy as np

from anonstudio.kernels.rng import first_above, make_state, sample_without_replacement, uniform


def test_first_above_matches_searchsorted_right():
    rng = np.random.default_rng(0)
    for _ in range(200):
        size = int(rng.integers(1, 30))
        cum = np.cumsum(rng.integers(0, 4, size=size + 5).astype(np.float64))
        if cum[size - 1] == 0:
            continue
        x = rng.uniform(0, cum[size - 1])
        assert first_above(cum, size, x) == np.searchsorted(cum[:size], x, side="right")


def test_same_seed_same_stream_and_uniform_range():
    a, b = make_state(11), make_state(11)
    xs = [uniform(a) for _ in range(1000)]
    assert xs == [uniform(b) for _ in range(1000)]
    assert 0.0 <= min(xs) and max(xs) < 1.0 and abs(np.mean(xs) - 0.5) < 0.05


def test_sample_without_replacement_is_distinct_and_uniform():
    state = make_state(5)
    pool = np.arange(8, dtype=np.int32)
    out = np.empty(3, dtype=np.int32)
    counts = np.zeros(8)
    for _ in range(4000):
        sample_without_replacement(state, pool, 3, out)
        assert len(set(out.tolist())) == 3
        counts[out] += 1
    assert np.allclose(counts / 4000, 3 / 8, atol=0.03)


def test_splitmix64_matches_the_plain_python_reference():
    from anonstudio.kernels.rng import next_u64
    from tests.reference.rng_reference import splitmix64
    from tests.reference.rng_reference import uniform as reference_uniform

    for seed in (0, 1, 2**63 + 12345, 2**64 - 1):
        state = np.array([seed], dtype=np.uint64)
        words, after = splitmix64(seed, 50)
        assert [int(next_u64(state)) for _ in range(50)] == words
        assert int(state[0]) == after
        state = np.array([seed], dtype=np.uint64)
        assert [uniform(state) for _ in range(50)] == [reference_uniform(w) for w in words]
