"""NCP, the normalized certainty penalty of a generalized value (Xu et al., KDD 2006): the one implementation.

A published value that stands for several original values loses part of its
information. For a number generalized to the range ``[lo, hi]`` the loss is
``(hi - lo) / (max - min)`` over the column's range. For a category (or an
item) generalized to a set or a hierarchy node covering ``size`` of the
``domain`` values there are two conventions in use, both 0 for an
ungeneralized value and 1 for the whole domain:

* ``"normalized"``: ``(size - 1) / (domain - 1)``, as ARX and most
  group-anonymization code use; σ-k^m anonymity's hierarchy and free-merge
  errors and global recoding use it;
* ``"xu"``: ``size / domain``, and 0 for a single value, as printed by Xu et
  al. and used by the RT-datasets paper (its worked example needs it).

The independent verifiers keep their own NCP on purpose (they share no code
with the methods they check).
"""
from __future__ import annotations

import numpy as np

__all__ = ["numeric_ncp", "categorical_ncp", "weighted_total", "CONVENTIONS"]

CONVENTIONS = ("normalized", "xu")


def numeric_ncp(lo, hi, span: float) -> np.ndarray:
    """``(hi - lo) / span`` per value; 0 everywhere when the column has a single value (``span <= 0``)."""
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    if span <= 0:
        return np.zeros(np.broadcast(lo, hi).shape)
    return (hi - lo) / float(span)


def categorical_ncp(size, domain: int, convention: str = "normalized") -> np.ndarray:
    """NCP of values generalized to sets of ``size`` original values out of ``domain`` (see the module docstring).

    A domain of one value loses nothing, whatever the convention.
    """
    size = np.asarray(size, dtype=np.float64)
    if domain <= 1:
        return np.zeros(size.shape)
    if convention == "normalized":
        return (size - 1.0) / (domain - 1.0)
    if convention == "xu":
        return np.where(size > 1, size / float(domain), 0.0)
    raise ValueError(f"unknown NCP convention {convention!r}; use one of {', '.join(CONVENTIONS)}")


def weighted_total(weights, ncp) -> np.ndarray | float:
    """``sum(weights * ncp)`` over the last axis: the NCP of ``weights`` records (or rows, or occurrences) each.

    Not ``weights @ ncp``: a BLAS ``dot`` picks its kernel by CPU (and splits long vectors over its threads), so
    the last bits of a loss, and with them a published number, a run's JSON or a search's choices, changed
    from one machine to another. numpy's pairwise sum of the products gives the same bits everywhere.
    """
    total = (np.asarray(weights, dtype=np.float64) * np.asarray(ncp, dtype=np.float64)).sum(axis=-1)
    return float(total) if np.ndim(total) == 0 else total
