"""``data.arrays.sorted_distinct`` is ``np.unique`` of integers, for sorted and unsorted keys alike."""
import numpy as np

from anonstudio.data.arrays import sorted_distinct


def test_sorted_distinct_is_np_unique_and_leaves_its_input_alone():
    rng = np.random.default_rng(0)
    for n in (0, 1, 2, 3, 7, 100, 5000):
        for presorted in (False, True):
            keys = rng.integers(-50, 50, n)
            if presorted:
                keys = np.sort(keys)
            before = keys.copy()
            out = sorted_distinct(keys)
            assert out.tolist() == np.unique(keys).tolist()
            assert np.array_equal(keys, before)
            if n:  # a new array, never a view the caller's later writes would change
                assert not np.shares_memory(out, keys)
