"""Normalized certainty penalty (NCP, Xu et al., KDD 2006) of one generalized cell.

The scalar formulas, compiled for use inside other kernels; array versions
for Python callers are in :mod:`anonstudio.metrics.ncp`.

* A numeric cell ``[lo, hi]`` loses ``(hi - lo) / span``, ``span`` being the
  column's range in the data (0 when the column is constant).
* A categorical cell standing for ``covered`` of the column's ``total``
  values (hierarchy leaves, or the values of a set ``{a|b}``) loses
  ``covered / total`` as in Xu et al., and nothing when it stands for one
  value. The *shifted* form ``(covered - 1) / (total - 1)`` is 0 for one value
  and 1 for all of them.
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["range_ncp", "count_ncp", "shifted_count_ncp", "range_ncp_array", "count_ncp_array", "warm_up"]


@njit(nogil=True, cache=True, inline="always")
def range_ncp(lo, hi, span):
    """Loss of a numeric range ``[lo, hi]`` in a column spanning ``span``."""
    if span <= 0.0:
        return 0.0
    return (hi - lo) / span


@njit(nogil=True, cache=True, inline="always")
def count_ncp(covered, total):
    """Xu et al.'s categorical loss: 0 for a single value, else ``covered / total``."""
    if covered <= 1 or total <= 0:
        return 0.0
    return covered / total


@njit(nogil=True, cache=True, inline="always")
def shifted_count_ncp(covered, total):
    """``(covered - 1) / (total - 1)``: 0 for one value, 1 for the whole domain."""
    if total <= 1:
        return 0.0
    return (covered - 1.0) / (total - 1.0)


@njit(nogil=True, cache=True)
def range_ncp_array(lo, hi, span, out):
    for i in range(lo.shape[0]):
        out[i] = range_ncp(lo[i], hi[i], span)
    return out


@njit(nogil=True, cache=True)
def count_ncp_array(covered, total, shifted, out):
    for i in range(covered.shape[0]):
        out[i] = shifted_count_ncp(covered[i], total) if shifted else count_ncp(covered[i], total)
    return out


def warm_up() -> None:
    """Compile the kernels above on tiny inputs (see ``kernels.warmup``)."""
    a = np.array([1.0, 2.0])
    range_ncp_array(a, a + 1.0, 3.0, np.empty(2))
    count_ncp_array(a, 4.0, False, np.empty(2))
    count_ncp_array(a, 4.0, True, np.empty(2))
