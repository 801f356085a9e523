"""The shared NCP (anonstudio.metrics.ncp)."""
import numpy as np
import pytest

from anonstudio.metrics.ncp import count_loss, range_loss, record_loss


def test_range_loss():
    assert range_loss([19, 28], [22, 39], 51).tolist() == pytest.approx([3 / 51, 11 / 51])
    assert range_loss([5], [5], 0.0).tolist() == [0.0]  # constant column


def test_count_loss_xu_and_shifted():
    # Xu et al.: Europe covers 4 of 6 origins; a single value loses nothing.
    assert count_loss([4, 1, 6], 6).tolist() == pytest.approx([4 / 6, 0.0, 1.0])
    assert count_loss([4, 1, 6], 6, shifted=True).tolist() == pytest.approx([3 / 5, 0.0, 1.0])


def test_record_loss_weights_one_over_v():
    per_column = np.array([[3 / 51, 4 / 6, 0.0]])
    assert record_loss(per_column).tolist() == pytest.approx([37 / 153])
    assert record_loss(per_column, [1.0, 0.0, 0.0]).tolist() == pytest.approx([3 / 51])
