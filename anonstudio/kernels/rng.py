"""A tiny counter-free RNG for numba kernels whose state lives in a uint64 array.

Kernels run in chunks across threads; numba's built-in ``np.random`` keeps a
hidden per-thread state, so a chunked run would not be reproducible. Here the
whole state is one uint64 (``state[0]``) that the caller owns, saves between
chunks and seeds from :func:`anonstudio.jobs.kernel_seeds`.

The generator is splitmix64 (Steele, Lea, Flood 2014): a 64-bit Weyl sequence
through a strong mixer; it passes BigCrush and is ample for Monte Carlo here.

Slow reference: tests/reference/rng_reference.py::splitmix64
"""
from __future__ import annotations

import numpy as np
from numba import njit, uint64

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(nogil=True, cache=True, inline="always")
def next_u64(state):
    """Advance ``state[0]`` and return the next 64 random bits."""
    z = state[0] + _GOLDEN
    state[0] = z
    z = (z ^ (z >> uint64(30))) * _M1
    z = (z ^ (z >> uint64(27))) * _M2
    return z ^ (z >> uint64(31))


@njit(nogil=True, cache=True, inline="always")
def uniform(state):
    """A float64 uniform on [0, 1) with 53 random bits."""
    return (next_u64(state) >> uint64(11)) * (1.0 / 9007199254740992.0)


@njit(nogil=True, cache=True, inline="always")
def randbelow(state, n):
    """An int uniform on [0, n) for 1 <= n < 2**32 (multiply-shift; bias < n / 2**32)."""
    return np.int64(((next_u64(state) >> uint64(32)) * uint64(n)) >> uint64(32))


@njit(nogil=True, cache=True, inline="always")
def first_above(cum, size, x):
    """First index ``i < size`` with ``cum[i] > x``.

    ``cum`` holds non-decreasing cumulative weights; with ``x`` uniform on
    ``[0, cum[size - 1])`` the index is drawn in proportion to the weights.
    """
    lo = 0
    hi = size - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if cum[mid] > x:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(nogil=True, cache=True)
def sample_without_replacement(state, pool, size, out):
    """Write ``size`` distinct entries of ``pool`` into ``out`` (uniform, unsorted).

    Uses Floyd's algorithm on positions, so it costs O(size**2) and never
    copies ``pool``; ``size`` is small (an itemset length).
    """
    n = pool.shape[0]
    chosen = 0
    for j in range(n - size, n):
        t = randbelow(state, j + 1)
        dup = False
        for c in range(chosen):
            if out[c] == pool[t]:
                dup = True
                break
        out[chosen] = pool[j] if dup else pool[t]
        chosen += 1
    return out


def make_state(seed: int | np.uint64) -> np.ndarray:
    """A fresh one-word RNG state for the kernels in this module."""
    return np.array([np.uint64(seed)], dtype=np.uint64)


def warm_up() -> None:
    """Compile the kernels above on tiny inputs (see ``kernels.warmup``)."""
    state = make_state(1)
    out = np.empty(2, dtype=np.int32)
    sample_without_replacement(state, np.arange(4, dtype=np.int32), 2, out)
    first_above(np.array([1.0, 2.0]), 2, uniform(state))
