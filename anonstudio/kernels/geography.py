"""Kernels for the geographic error of tower partitions (paper 000, Section VI-C).

A partition's members are kept as a singly linked list (``head[p]`` is its
first item, ``nxt[i]`` the item after ``i``, -1 at the end), so merging two
partitions is O(1) and an Algorithm-2 kernel can call these functions directly.

Centroid identity. The centre of a partition is the centroid of the union of
its members' Voronoi cells (footnote 7). Cells overlap only on their
boundaries, so the union's area is the sum of the cell areas and its first
moment the sum of the cells' moments:

    centroid(union) = sum_i a_i c_i / sum_i a_i

where ``a_i`` is cell ``i``'s area and ``c_i`` its centroid. A partition is
therefore summarised by ``(A, Mx, My) = (sum a_i, sum a_i c_ix, sum a_i c_iy)``
and the centroid of a merge needs no polygon union.

The error of a partition, ``E_p = sum_{i in p} f_i * |x_i - centroid(p)|``
(``f_i`` = occurrences of item ``i``), has no such closed form because the
distance is not quadratic, so a merge walks both member lists once.

Slow reference: tests/reference/geography_reference.py::error
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["merged_centroid", "list_error_sum", "merge_error_delta", "merge_error_deltas", "link_merge", "warm_up"]


@njit(nogil=True, cache=True)
def merged_centroid(area_a, mx_a, my_a, area_b, mx_b, my_b):
    """Centroid ``(x, y)`` of the union of two disjoint regions given their (area, moments)."""
    area = area_a + area_b
    return (mx_a + mx_b) / area, (my_a + my_b) / area


@njit(nogil=True, cache=True)
def list_error_sum(head, nxt, x, y, f, cx, cy):
    """``sum f_i * dist(item i, (cx, cy))`` over the linked list starting at ``head``."""
    total = 0.0
    i = head
    while i >= 0:
        total += f[i] * math.hypot(x[i] - cx, y[i] - cy)
        i = nxt[i]
    return total


@njit(nogil=True, cache=True)
def merge_error_delta(a, b, head, nxt, x, y, f, part_area, part_mx, part_my, part_err):
    """Change of the summed error ``sum_p E_p`` if partitions ``a`` and ``b`` merge.

    Divide by the total occurrences to get the change of the paper's average
    error in metres.
    """
    cx, cy = merged_centroid(part_area[a], part_mx[a], part_my[a], part_area[b], part_mx[b], part_my[b])
    merged = list_error_sum(head[a], nxt, x, y, f, cx, cy) + list_error_sum(head[b], nxt, x, y, f, cx, cy)
    return merged - part_err[a] - part_err[b]


@njit(nogil=True, cache=True)
def merge_error_deltas(a, others, out, head, nxt, x, y, f, part_area, part_mx, part_my, part_err):
    """:func:`merge_error_delta` of ``a`` with each partition in ``others``, into ``out``."""
    for k in range(others.shape[0]):
        out[k] = merge_error_delta(a, others[k], head, nxt, x, y, f, part_area, part_mx, part_my, part_err)
    return out


@njit(nogil=True, cache=True)
def link_merge(keep, gone, head, tail, nxt, size, label, part_area, part_mx, part_my, part_w, part_err, x, y, f):
    """Merge partition ``gone`` into ``keep`` in place; return the new error sum of ``keep``."""
    i = head[gone]
    while i >= 0:
        label[i] = keep
        i = nxt[i]
    nxt[tail[keep]] = head[gone]
    tail[keep] = tail[gone]
    size[keep] += size[gone]
    part_area[keep] += part_area[gone]
    part_mx[keep] += part_mx[gone]
    part_my[keep] += part_my[gone]
    part_w[keep] += part_w[gone]
    cx = part_mx[keep] / part_area[keep]
    cy = part_my[keep] / part_area[keep]
    part_err[keep] = list_error_sum(head[keep], nxt, x, y, f, cx, cy)
    head[gone] = -1
    tail[gone] = -1
    size[gone] = 0
    part_area[gone] = 0.0
    part_mx[gone] = 0.0
    part_my[gone] = 0.0
    part_w[gone] = 0.0
    part_err[gone] = 0.0
    return part_err[keep]


def warm_up() -> None:
    """Compile the kernels above on a two-item example."""
    head = np.array([0, 1], dtype=np.int32)
    tail = head.copy()
    nxt = np.array([-1, -1], dtype=np.int32)
    size = np.ones(2, dtype=np.int32)
    label = np.arange(2, dtype=np.int32)
    xy = np.array([0.0, 1.0])
    ones = np.ones(2)
    moments = np.array([0.5, 1.5])
    err = np.zeros(2)
    merge_error_delta(0, 1, head, nxt, xy, xy, ones, ones.copy(), moments.copy(), moments.copy(), err)
    merge_error_deltas(0, np.array([1], dtype=np.int32), np.empty(1), head, nxt, xy, xy, ones, ones.copy(),
                       moments.copy(), moments.copy(), err)
    link_merge(0, 1, head, tail, nxt, size, label, ones.copy(), moments.copy(), moments.copy(), ones.copy(), err,
               xy, xy, ones)
