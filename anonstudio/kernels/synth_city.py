"""Kernels of the synthetic city generator (:mod:`anonstudio.data.synth_city`).

Every user has an own random stream, seeded from the run's base seed and the
user's index, so a run is reproducible whatever the chunk sizes were.

Places (home, work, random visits) are points in the square city; the tower
"visited" at a point is the one whose Voronoi cell holds it, looked up in a
raster of nearest-tower ids (``owner[row, col]``).

Slow reference: tests/reference/geography_reference.py::nearest_site
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, uint64

from .rng import next_u64, uniform

__all__ = ["user_state", "draw_record_sizes", "fill_records", "warm_up"]

_USER_MIX = np.uint64(0xD1B54A32D192ED03)


@njit(nogil=True, cache=True)
def user_state(base, user, state):
    """Seed ``state`` with the stream of ``user`` (a mixed, well-separated start)."""
    state[0] = base ^ (uint64(user + 1) * _USER_MIX)
    state[0] = next_u64(state)


@njit(nogil=True, cache=True)
def _size(state, size_cdf):
    # size_cdf[k] = P(size <= k + 1)
    return np.searchsorted(size_cdf, uniform(state), side="right") + 1


@njit(nogil=True, cache=True)
def draw_record_sizes(base, first_user, out, size_cdf):
    """Record size of users ``first_user ..`` into ``out`` (the first draw of each stream)."""
    state = np.empty(1, dtype=np.uint64)
    for k in range(out.shape[0]):
        user_state(base, first_user + k, state)
        out[k] = min(_size(state, size_cdf), size_cdf.shape[0])


@njit(nogil=True, cache=True)
def _normal(state):
    u1 = uniform(state)
    u2 = uniform(state)
    return math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)


@njit(nogil=True, cache=True)
def _place(state, side, core_x, core_y, core_sigma, core_fraction):
    """A point of the mixture "Gaussian core + uniform background" inside the square."""
    while True:
        if uniform(state) < core_fraction:
            x = core_x + core_sigma * _normal(state)
            y = core_y + core_sigma * _normal(state)
        else:
            x = side * uniform(state)
            y = side * uniform(state)
        if 0.0 <= x < side and 0.0 <= y < side:
            return x, y


@njit(nogil=True, cache=True)
def _tower_at(x, y, owner, pixel):
    return owner[int(y / pixel), int(x / pixel)]


@njit(nogil=True, cache=True)
def fill_records(base, first_user, indptr, indices, seen, owner, pixel, side, n_towers, size_cdf,
                 home_mix, work_mix, visit_mix, decay_m, mean_size):
    """Visited towers of users ``first_user ..``; ``indptr`` is local to the chunk.

    ``home_mix``/``work_mix`` = (core_x, core_y, core_sigma, core_fraction) of
    where homes and workplaces lie; ``visit_mix`` = (p_home, p_work) is the
    chance a visit lies near home or work (the rest: anywhere, by population).
    Visits near an anchor lie at an exponential distance with mean
    ``decay_m * sqrt(size / mean_size)`` (at least ``decay_m``): people with
    many distinct towers roam further. ``seen[t] == user + 1`` marks towers
    already in the current record.
    """
    state = np.empty(1, dtype=np.uint64)
    for k in range(indptr.shape[0] - 1):
        user = first_user + k
        user_state(base, user, state)
        size = min(_size(state, size_cdf), size_cdf.shape[0])
        start = indptr[k]
        assert indptr[k + 1] - start == size
        hx, hy = _place(state, side, home_mix[0], home_mix[1], home_mix[2], home_mix[3])
        wx, wy = _place(state, side, work_mix[0], work_mix[1], work_mix[2], work_mix[3])
        scale = decay_m * max(1.0, math.sqrt(size / mean_size))
        stamp = user + 1
        count = 0
        attempts = 0
        while count < size:
            if attempts == 0:
                t = _tower_at(hx, hy, owner, pixel)  # everyone is seen at home
            elif attempts == 1:
                t = _tower_at(wx, wy, owner, pixel)
            elif attempts > 40 * size + 100:
                # Anchored draws keep hitting known towers: finish with
                # uniformly random ones so the loop always ends.
                t = np.int64(uniform(state) * n_towers)
            else:
                r = uniform(state)
                if r < visit_mix[0] + visit_mix[1]:
                    ax, ay = (hx, hy) if r < visit_mix[0] else (wx, wy)
                    d = -scale * math.log(1.0 - uniform(state))
                    a = 2.0 * math.pi * uniform(state)
                    x = ax + d * math.cos(a)
                    y = ay + d * math.sin(a)
                    if not (0.0 <= x < side and 0.0 <= y < side):
                        attempts += 1
                        continue
                else:
                    x, y = _place(state, side, home_mix[0], home_mix[1], home_mix[2], home_mix[3])
                t = _tower_at(x, y, owner, pixel)
            attempts += 1
            if seen[t] != stamp:
                seen[t] = stamp
                indices[start + count] = t
                count += 1
        indices[start : start + size].sort()


def warm_up() -> None:
    """Compile the kernels on a two-tower city."""
    cdf = np.array([0.5, 1.0])
    sizes = np.empty(3, dtype=np.int64)
    draw_record_sizes(np.uint64(1), 0, sizes, cdf)
    indptr = np.zeros(4, dtype=np.int64)
    np.cumsum(sizes, out=indptr[1:])
    indices = np.empty(indptr[-1], dtype=np.int32)
    owner = np.array([[0, 1], [0, 1]], dtype=np.int32)
    mix = np.array([1.0, 1.0, 0.5, 0.5])
    fill_records(np.uint64(1), 0, indptr, indices, np.zeros(2, dtype=np.int64), owner, 1.0, 2.0, 2, cdf,
                 mix, mix, np.array([0.5, 0.3]), 0.5, 1.5)
