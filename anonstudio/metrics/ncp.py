"""Normalized certainty penalty (NCP): the information loss of generalized cells.

One implementation for the methods (the scalar formulas are the kernels of
:mod:`anonstudio.kernels.ncp`, so compiled code and Python agree to the bit):

* numeric cell ``[lo, hi]``: ``(hi - lo) / (column max - column min)``;
* categorical cell covering ``c`` of ``t`` values: ``c / t`` (Xu et al.,
  KDD 2006; 0 for one value) or, with ``shifted=True``, ``(c - 1) / (t - 1)``;
* a record's NCP is the weighted sum over its columns (weights ``1/v`` by
  default, so it lies in [0, 1]); a table's is the mean over records.
"""
from __future__ import annotations

import numpy as np

from ..kernels.ncp import count_ncp_array, range_ncp_array

__all__ = ["range_loss", "count_loss", "record_loss"]


def range_loss(lo, hi, span: float) -> np.ndarray:
    """NCP of numeric ranges ``[lo, hi]`` (arrays) in a column of range ``span``."""
    lo = np.ascontiguousarray(lo, dtype=np.float64).reshape(-1)
    hi = np.ascontiguousarray(hi, dtype=np.float64).reshape(-1)
    return range_ncp_array(lo, hi, float(span), np.empty(len(lo)))


def count_loss(covered, total: float, *, shifted: bool = False) -> np.ndarray:
    """NCP of categorical cells covering ``covered`` (array) of ``total`` values."""
    covered = np.ascontiguousarray(covered, dtype=np.float64).reshape(-1)
    return count_ncp_array(covered, float(total), bool(shifted), np.empty(len(covered)))


def record_loss(per_column: np.ndarray, weights=None) -> np.ndarray:
    """Weighted sum over columns of a ``(records, columns)`` NCP array (weights default ``1/v``)."""
    per_column = np.asarray(per_column, dtype=np.float64)
    v = per_column.shape[1]
    w = np.full(v, 1.0 / v) if weights is None else np.asarray(weights, dtype=np.float64)
    return per_column @ w
