"""Kernels of the independent nonreciprocal-release verifier (``anonstudio.verifiers.nonreciprocal``).

Deliberately separate from the method's kernels. A bitmap ``w`` is a
possible world of slot ``j`` when it equals the published base outside the
distance bitmap ``d_j`` and differs from the base in at most ``t_j`` bits.
For an original record ``r`` that means: every item of ``r`` is in
``base_j ∪ d_j``, every base item outside ``d_j`` is in ``r``, and
``|r Δ base_j| <= t_j``.

The exact count of the slots whose worlds contain each original avoids the
``n^2`` pair tests with bitsets: per block of slots, one bit row per item
marks the slots whose ``base ∪ d`` holds it; AND-ing the rows of a record's
items leaves the only slots that can contain it, which are then tested in
full. The slot recount below walks the preimages of a slot the way the
method's publication does; the repetition is on purpose (the verifier must
not call the code it checks).

Slow reference: tests/reference/nonreciprocal_reference.py::world_matches
"""
from __future__ import annotations

import numpy as np
from numba import njit, types, uint64
from numba.extending import intrinsic

from . import read_only

__all__ = ["in_worlds", "world_counts", "edges_in_worlds", "recount_slots", "warm_up"]


@intrinsic
def _trailing_zeros(typingctx, x):
    """Index of the lowest set bit of a non-zero uint64 (LLVM ``cttz``)."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, True))

    return sig, codegen


@njit(nogil=True, cache=True)
def in_worlds(rec_items, r_lo, r_hi, base_items, b_lo, b_hi, dist_items, d_lo, d_hi, thr):
    """True when the record ``rec_items[r_lo:r_hi]`` is a possible world of the slot (sorted lists)."""
    # symmetric difference of record and base, each element must lie in the distance list
    i = r_lo
    j = b_lo
    k = d_lo
    diff = 0
    while i < r_hi or j < b_hi:
        if j >= b_hi or (i < r_hi and rec_items[i] < base_items[j]):
            v = rec_items[i]
            i += 1
        elif i >= r_hi or base_items[j] < rec_items[i]:
            v = base_items[j]
            j += 1
        else:
            i += 1
            j += 1
            continue
        diff += 1
        if diff > thr:
            return False
        while k < d_hi and dist_items[k] < v:
            k += 1
        if k >= d_hi or dist_items[k] != v:
            return False
    return True


@njit(nogil=True, cache=True)
def world_counts(rec_indptr, rec_items, base_indptr, base_items, dist_indptr, dist_items, thr, n_items,
                 block_words, first_slot, last_slot, counts):
    """Add to ``counts[i]`` the slots in ``[first_slot, last_slot)`` whose worlds contain record ``i``."""
    n_rec = rec_indptr.shape[0] - 1
    bits = np.zeros((block_words, n_items), dtype=np.uint64)
    s0 = first_slot
    while s0 < last_slot:
        s1 = min(s0 + 64 * block_words, last_slot)
        words = (s1 - s0 + 63) // 64
        bits[:words, :] = 0
        for j in range(s0, s1):
            w = (j - s0) >> 6
            bit = uint64(1) << uint64((j - s0) & 63)
            for p in range(base_indptr[j], base_indptr[j + 1]):
                bits[w, base_items[p]] |= bit
            for p in range(dist_indptr[j], dist_indptr[j + 1]):
                bits[w, dist_items[p]] |= bit
        for w in range(words):
            valid = s1 - s0 - 64 * w
            full = ~uint64(0) if valid >= 64 else (uint64(1) << uint64(valid)) - uint64(1)
            row = bits[w]
            for i in range(n_rec):
                lo = rec_indptr[i]
                hi = rec_indptr[i + 1]
                acc = full
                for p in range(lo, hi):
                    acc &= row[rec_items[p]]
                    if acc == 0:
                        break
                while acc != 0:
                    b = _trailing_zeros(acc)
                    acc &= acc - uint64(1)
                    j = s0 + 64 * w + b
                    if in_worlds(rec_items, lo, hi, base_items, base_indptr[j], base_indptr[j + 1], dist_items,
                                 dist_indptr[j], dist_indptr[j + 1], thr[j]):
                        counts[i] += 1
        s0 = s1


@njit(nogil=True, cache=True)
def edges_in_worlds(rec_indptr, rec_items, base_indptr, base_items, dist_indptr, dist_items, thr, originals, slots):
    """For every edge ``(originals[e], slots[e])``: is the original a possible world of the slot?"""
    out = np.zeros(originals.shape[0], dtype=np.bool_)
    for e in range(originals.shape[0]):
        i = originals[e]
        j = slots[e]
        out[e] = in_worlds(rec_items, rec_indptr[i], rec_indptr[i + 1], base_items, base_indptr[j],
                           base_indptr[j + 1], dist_items, dist_indptr[j], dist_indptr[j + 1], thr[j])
    return out


@njit(nogil=True, cache=True)
def recount_slots(rec_indptr, rec_items, pre_indptr, pre, base_indptr, base_items, dist_indptr, dist_items, thr,
                  n_items, problems):
    """Check every slot's base (a strict majority decides; ties free), distance and threshold.

    ``problems[j]`` gets a bit mask: 1 base disagrees with a strict majority,
    2 base holds an item no preimage holds, 4 distance bitmap not exactly the
    disagreeing items, 8 threshold below the largest preimage distance
    (a preimage outside the worlds), 16 threshold above it (not tight).
    """
    count = np.zeros(n_items, dtype=np.int64)
    mark = np.zeros(n_items, dtype=np.int8)  # 1 base, 2 dist, 3 both
    n_slots = pre_indptr.shape[0] - 1
    for j in range(n_slots):
        m = pre_indptr[j + 1] - pre_indptr[j]
        flags = 0
        for q in range(pre_indptr[j], pre_indptr[j + 1]):
            x = pre[q]
            for p in range(rec_indptr[x], rec_indptr[x + 1]):
                count[rec_items[p]] += 1
        for p in range(base_indptr[j], base_indptr[j + 1]):
            mark[base_items[p]] |= 1
        for p in range(dist_indptr[j], dist_indptr[j + 1]):
            mark[dist_items[p]] |= 2
        # items the preimages hold
        for q in range(pre_indptr[j], pre_indptr[j + 1]):
            x = pre[q]
            for p in range(rec_indptr[x], rec_indptr[x + 1]):
                it = rec_items[p]
                c = count[it]
                if c < 0:
                    continue  # seen already
                in_base = (mark[it] & 1) != 0
                in_dist = (mark[it] & 2) != 0
                if 2 * c > m and not in_base:
                    flags |= 1
                if 2 * c < m and in_base:
                    flags |= 1
                if (c < m) != in_dist:
                    flags |= 4
                count[it] = -1
        # base or distance items that no preimage holds
        for p in range(base_indptr[j], base_indptr[j + 1]):
            if count[base_items[p]] == 0:
                flags |= 2
        for p in range(dist_indptr[j], dist_indptr[j + 1]):
            if count[dist_items[p]] == 0:
                flags |= 4
        worst = 0
        nb = base_indptr[j + 1] - base_indptr[j]
        for q in range(pre_indptr[j], pre_indptr[j + 1]):
            x = pre[q]
            inter = 0
            for p in range(rec_indptr[x], rec_indptr[x + 1]):
                if mark[rec_items[p]] & 1:
                    inter += 1
            h = (rec_indptr[x + 1] - rec_indptr[x]) + nb - 2 * inter
            if h > worst:
                worst = h
        if thr[j] < worst:
            flags |= 8
        elif thr[j] > worst:
            flags |= 16
        problems[j] = flags
        for q in range(pre_indptr[j], pre_indptr[j + 1]):
            x = pre[q]
            for p in range(rec_indptr[x], rec_indptr[x + 1]):
                count[rec_items[p]] = 0
        for p in range(base_indptr[j], base_indptr[j + 1]):
            mark[base_items[p]] = 0
        for p in range(dist_indptr[j], dist_indptr[j + 1]):
            mark[dist_items[p]] = 0


def warm_up() -> None:
    """Compile the kernels above on the paper's slot r'_5 (base 1100, d 0011, t 1).

    Data arrays are read-only, as a dataset's are (``kernels.read_only``).
    """
    rec_indptr = read_only(np.array([0, 2, 5], dtype=np.int64))
    rec_items = read_only(np.array([0, 1, 0, 1, 2], dtype=np.int32))
    base_indptr = np.array([0, 2], dtype=np.int64)
    base_items = np.array([0, 1], dtype=np.int32)
    dist_indptr = np.array([0, 2], dtype=np.int64)
    dist_items = np.array([2, 3], dtype=np.int32)
    thr = np.array([1], dtype=np.int64)
    counts = np.zeros(2, dtype=np.int64)
    world_counts(rec_indptr, rec_items, base_indptr, base_items, dist_indptr, dist_items, thr, 4, 1, 0, 1, counts)
    edges_in_worlds(rec_indptr, rec_items, base_indptr, base_items, dist_indptr, dist_items, thr,
                    np.array([0, 1], dtype=np.int64), np.array([0, 0], dtype=np.int64))
    problems = np.zeros(1, dtype=np.int64)
    recount_slots(rec_indptr, rec_items, np.array([0, 2], dtype=np.int64), np.array([0, 1], dtype=np.int64),
                  base_indptr, base_items, dist_indptr, dist_items, thr, 4, problems)

