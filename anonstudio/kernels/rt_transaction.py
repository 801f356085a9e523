"""Kernels of the per-cluster transaction generalization T (``anonstudio.methods.rt.transaction``).

Inside one cluster the non-sensitive items are partitioned into *groups*;
each group is published as one generalized item of ``gsize`` dataset items
(``|ũ|``). Two strategies share the machinery:

* ``AA`` (Apriori Anonymization, Terrovitis et al.): groups are the cluster's
  items under the nodes of a hierarchy cut (an antichain). A move lifts a
  group to its lowest ancestor that covers another cluster item, merging all
  groups under it; ``gsize`` is the number of non-sensitive dataset items
  under the node.
* ``set`` (hierarchy-free, set-based): a move merges two groups;
  ``gsize`` is the number of items in the group.

Levels ``i = 1..m`` in turn: count the supports of all i-itemsets of groups
(records' distinct groups), and resolve each itemset of support in
``[1, k)`` by the move among its groups' options that gives the lowest
cluster UL (utility loss, canonical weights). Violations are taken in
order of (support, itemset); one counting pass applies moves for every
violation whose groups no earlier move of the pass touched, then counts
again. With ``l > 0`` the ℓ^m condition (every sensitive item in at most
``1/l`` of the records supporting an itemset) is resolved the same way
afterwards, and the levels repeat until both hold.

A cluster that no generalization can fix (fewer than ``k`` but some
records with non-sensitive items, or a sensitive item too frequent among
all records or among those with items) is returned with every item in one
group and ``ok = False``.

UL(r) = Σ_{|ũ| ≥ 2} (2^|ũ| − 1) / (2^σ(r) − 1), σ(r) = Σ|ũ| over r's distinct
groups, evaluated in log space (``2^σ`` overflows a double above 1023).

Slow reference: tests/reference/rt_reference.py::ref_km_violations, tests/reference/rt_reference.py::ref_ul
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import read_only
from .enumerate import enumerate_keys, subsets_by_smallest_item

__all__ = ["generalize_cluster", "record_ul", "log_two_pow_minus_one", "AA", "SET", "warm_up"]

AA = 0
SET = 1
_LN2 = float(np.log(2.0))


@njit(nogil=True, cache=True, inline="always")
def log_two_pow_minus_one(a):
    """``log(2**a - 1)`` for ``a >= 1`` without overflow."""
    x = a * _LN2
    return x + np.log1p(-np.exp(-x))


@njit(nogil=True, cache=True)
def record_ul(sizes, count):
    """UL of one record whose distinct generalized items have ``sizes[:count]`` dataset items each."""
    sigma = 0.0
    for j in range(count):
        sigma += sizes[j]
    if sigma < 1.0:
        return 0.0
    den = log_two_pow_minus_one(sigma)
    total = 0.0
    for j in range(count):
        if sizes[j] >= 2.0:
            total += np.exp(log_two_pow_minus_one(sizes[j]) - den)
    return total


@njit(nogil=True, cache=True)
def _gather(rows, indptr, indices, sens_id):
    """Cluster-local CSR of non-sensitive items (local ids) and of sensitive ids; the sorted item ids."""
    n_ns = 0
    n_s = 0
    for r in rows:
        for t in range(indptr[r], indptr[r + 1]):
            if sens_id[indices[t]] < 0:
                n_ns += 1
            else:
                n_s += 1
    flat = np.empty(n_ns, dtype=np.int64)
    rec_ptr = np.zeros(rows.shape[0] + 1, dtype=np.int64)
    s_ptr = np.zeros(rows.shape[0] + 1, dtype=np.int64)
    s_loc = np.empty(n_s, dtype=np.int64)
    a = 0
    b = 0
    for u in range(rows.shape[0]):
        r = rows[u]
        for t in range(indptr[r], indptr[r + 1]):
            item = indices[t]
            if sens_id[item] < 0:
                flat[a] = item
                a += 1
            else:
                s_loc[b] = sens_id[item]
                b += 1
        rec_ptr[u + 1] = a
        s_ptr[u + 1] = b
    items = np.unique(flat)
    rec_loc = np.searchsorted(items, flat).astype(np.int64)
    return items, rec_ptr, rec_loc, s_ptr, s_loc


@njit(nogil=True, cache=True)
def _record_groups(rec_ptr, rec_loc, grp, rg_ptr, rg):
    """Each record's distinct groups, sorted, into ``rg`` (CSR ``rg_ptr``)."""
    w = 0
    for u in range(rec_ptr.shape[0] - 1):
        start = w
        for t in range(rec_ptr[u], rec_ptr[u + 1]):
            g = grp[rec_loc[t]]
            # insertion into the sorted run, skipping duplicates (records are short)
            pos = w
            dup = False
            while pos > start and rg[pos - 1] >= g:
                if rg[pos - 1] == g:
                    dup = True
                    break
                pos -= 1
            if dup:
                continue
            for s in range(w, pos, -1):
                rg[s] = rg[s - 1]
            rg[pos] = g
            w += 1
        rg_ptr[u + 1] = w
    return w


@njit(nogil=True, cache=True)
def _itemset_counts(rg_ptr, rg, i, n_groups, bits):
    """Distinct i-itemsets of the records' groups (packed uint64 keys, sorted) and their supports."""
    total = int(subsets_by_smallest_item(rg_ptr, rg, n_groups, i).sum())
    keys = np.empty(total, dtype=np.uint64)
    n = enumerate_keys(rg_ptr, rg, i, 0, n_groups, bits, keys)
    return _run_lengths(np.sort(keys[:n]))


@njit(nogil=True, cache=True)
def _holding(rg_ptr, rg, s_ptr, s_loc, s, sub_ptr, sub):
    """CSR (``sub_ptr``, ``sub``) of the groups of the records that hold sensitive item ``s``."""
    w = 0
    for u in range(rg_ptr.shape[0] - 1):
        held = False
        for t in range(s_ptr[u], s_ptr[u + 1]):
            if s_loc[t] == s:
                held = True
        if held:
            for t in range(rg_ptr[u], rg_ptr[u + 1]):
                sub[w] = rg[t]
                w += 1
        sub_ptr[u + 1] = w


@njit(nogil=True, cache=True)
def _run_lengths(keys):
    if keys.shape[0] == 0:
        return keys[:0].copy(), np.zeros(0, dtype=np.int64)
    n_runs = 1
    for t in range(1, keys.shape[0]):
        if keys[t] != keys[t - 1]:
            n_runs += 1
    uniq = keys[:n_runs].copy()
    counts = np.zeros(n_runs, dtype=np.int64)
    r = 0
    uniq[0] = keys[0]
    for t in range(keys.shape[0]):
        if t > 0 and keys[t] != keys[t - 1]:
            r += 1
            uniq[r] = keys[t]
        counts[r] += 1
    return uniq, counts


@njit(nogil=True, cache=True)
def _decode(key, i, bits, out):
    """Group ids of a packed key (``kernels.enumerate`` layout: ``bits`` per id, first id highest)."""
    mask = (np.uint64(1) << np.uint64(bits)) - np.uint64(1)
    for j in range(i):
        out[j] = np.int64((key >> np.uint64((i - 1 - j) * bits)) & mask)


@njit(nogil=True, cache=True)
def _ul_with(u, rec_ptr, rec_loc, grp, gsize, mstamp, mcur, new_size, gstamp, gcur, sizes):
    """UL of local record ``u`` if the groups stamped ``mcur`` in ``mstamp`` were one group of ``new_size``."""
    count = 0
    merged_seen = False
    for t in range(rec_ptr[u], rec_ptr[u + 1]):
        g = grp[rec_loc[t]]
        if mstamp[g] == mcur:
            if not merged_seen:
                merged_seen = True
                sizes[count] = new_size
                count += 1
            continue
        if gstamp[g] == gcur:
            continue
        gstamp[g] = gcur
        sizes[count] = gsize[g]
        count += 1
    return record_ul(sizes, count)


@njit(nogil=True, cache=True)
def _move_cost(members, n_members, new_size, head, nxt, ipost_ptr, ipost, rec_ptr, rec_loc, grp, gsize, rec_ul,
               mstamp, rstamp, gstamp, counters, sizes, affected):
    """Change of the cluster's UL sum if groups ``members[:n_members]`` merged into one of ``new_size``.

    Fills ``affected`` with the records touched and returns (cost, how many).
    """
    counters[0] += 1
    mcur = counters[0]
    for a in range(n_members):
        mstamp[members[a]] = mcur
    n_aff = 0
    for a in range(n_members):
        j = head[members[a]]
        while j >= 0:
            for t in range(ipost_ptr[j], ipost_ptr[j + 1]):
                u = ipost[t]
                if rstamp[u] != mcur:
                    rstamp[u] = mcur
                    affected[n_aff] = u
                    n_aff += 1
            j = nxt[j]
    cost = 0.0
    for a in range(n_aff):
        u = affected[a]
        counters[1] += 1
        cost += _ul_with(u, rec_ptr, rec_loc, grp, gsize, mstamp, mcur, new_size, gstamp, counters[1], sizes)
        cost -= rec_ul[u]
    return cost, n_aff


@njit(nogil=True, cache=True)
def _count_under(pos_sorted, lo, hi):
    return np.searchsorted(pos_sorted, hi) - np.searchsorted(pos_sorted, lo)


@njit(nogil=True, cache=True)
def _lift_target(g, gnode, parent, span_lo, span_hi, pos_sorted):
    """Lowest proper ancestor of group ``g``'s node covering more cluster items; -1 if none."""
    v = gnode[g]
    have = _count_under(pos_sorted, span_lo[v], span_hi[v])
    t = parent[v]
    while t >= 0:
        if _count_under(pos_sorted, span_lo[t], span_hi[t]) > have:
            return t
        t = parent[t]
    return -1


@njit(nogil=True, cache=True)
def generalize_cluster(rows, indptr, indices, sens_id, n_sens, strategy, item_leaf, item_pos, parent, span_lo,
                       span_hi, node_items, root, k, m, l, coarsest):
    """Generalize the items of one cluster (module docstring).

    With ``coarsest`` every item goes to one group at once (a cheap valid
    generalization for a cancelled run); ``ok`` then says whether it is valid.

    Returns
    -------
    items
        The cluster's non-sensitive item ids, sorted (int64).
    group
        Group of each of them: the local index of the group's first item.
    gnode
        Per local index: the hierarchy node of the group it heads (AA), else -1.
    gsize
        Per local index: ``|ũ|`` of the group it heads.
    ul_sum
        Sum of UL over the cluster's records.
    ok
        False when the cluster cannot be made k^m-anonymous (ℓ^m-diverse).
    """
    items, rec_ptr, rec_loc, s_ptr, s_loc = _gather(rows, indptr, indices, sens_id)
    q = items.shape[0]
    nr = rows.shape[0]
    grp = np.arange(q, dtype=np.int64)
    gsize = np.ones(q, dtype=np.float64)
    gnode = np.full(q, -1, dtype=np.int64)
    head = np.arange(q, dtype=np.int64)
    tail = np.arange(q, dtype=np.int64)
    nxt = np.full(q, -1, dtype=np.int64)
    pos_sorted = np.zeros(0, dtype=np.int64)
    by_pos = np.zeros(0, dtype=np.int64)
    if strategy == AA:
        for j in range(q):
            gnode[j] = item_leaf[items[j]]
            gsize[j] = node_items[gnode[j]]
        pos = item_pos[items]
        by_pos = np.argsort(pos, kind="mergesort")
        pos_sorted = pos[by_pos]
    # item -> records posting lists (local)
    ipost_ptr = np.zeros(q + 1, dtype=np.int64)
    for t in range(rec_loc.shape[0]):
        ipost_ptr[rec_loc[t] + 1] += 1
    for j in range(q):
        ipost_ptr[j + 1] += ipost_ptr[j]
    ipost = np.empty(rec_loc.shape[0], dtype=np.int64)
    fill = ipost_ptr[:-1].copy()
    for u in range(nr):
        for t in range(rec_ptr[u], rec_ptr[u + 1]):
            j = rec_loc[t]
            ipost[fill[j]] = u
            fill[j] += 1

    # Can any generalization fix this cluster? (all items in one group is the coarsest)
    nonempty = 0
    for u in range(nr):
        if rec_ptr[u + 1] > rec_ptr[u]:
            nonempty += 1
    ok = not (0 < nonempty < k)
    if ok and l > 0 and n_sens > 0:
        all_cnt = np.zeros(n_sens, dtype=np.int64)
        ne_cnt = np.zeros(n_sens, dtype=np.int64)
        for u in range(nr):
            for t in range(s_ptr[u], s_ptr[u + 1]):
                all_cnt[s_loc[t]] += 1
                if rec_ptr[u + 1] > rec_ptr[u]:
                    ne_cnt[s_loc[t]] += 1
        for s in range(n_sens):
            if l * all_cnt[s] > nr or l * ne_cnt[s] > nonempty:
                ok = False
    sizes = np.empty(max(q, 1), dtype=np.float64)
    rec_ul = np.zeros(nr, dtype=np.float64)
    if coarsest or not ok:
        for j in range(q):
            grp[j] = 0
        if q > 0:
            gsize[0] = node_items[root] if strategy == AA else float(q)
            gnode[0] = root if strategy == AA else -1
        ul_sum = 0.0
        for u in range(nr):
            if rec_ptr[u + 1] > rec_ptr[u]:
                sizes[0] = gsize[0]
                ul_sum += record_ul(sizes, 1)
        return items, grp, gnode, gsize, ul_sum, ok

    mstamp = np.zeros(q, dtype=np.int64)
    gstamp = np.zeros(q, dtype=np.int64)
    touched = np.zeros(q, dtype=np.int64)
    rstamp = np.zeros(nr, dtype=np.int64)
    counters = np.zeros(2, dtype=np.int64)
    affected = np.empty(nr, dtype=np.int64)
    best_aff = np.empty(nr, dtype=np.int64)
    members = np.empty(max(q, 1), dtype=np.int64)
    best_members = np.empty(max(q, 1), dtype=np.int64)
    zero_stamp = np.full(q, -1, dtype=np.int64)
    for u in range(nr):
        counters[1] += 1
        rec_ul[u] = _ul_with(u, rec_ptr, rec_loc, grp, gsize, zero_stamp, 0, 0.0, gstamp, counters[1], sizes)
    rg_ptr = np.zeros(nr + 1, dtype=np.int64)
    rg = np.empty(rec_loc.shape[0], dtype=np.int64)
    dec = np.empty(max(m, 1), dtype=np.int64)
    bits = 1
    while (1 << bits) < q:
        bits += 1
    pass_id = 0
    sub_ptr = np.zeros(nr + 1, dtype=np.int64)
    sub = np.empty(rec_loc.shape[0], dtype=np.int64)
    while True:
        changed = False
        for phase in range(2):  # 0: k^m, 1: ℓ^m
            if phase == 1 and (l <= 0 or n_sens == 0):
                break
            for i in range(1, m + 1):
                while True:
                    _record_groups(rec_ptr, rec_loc, grp, rg_ptr, rg)
                    keys, counts = _itemset_counts(rg_ptr, rg, i, q, bits)
                    if phase == 0:
                        bad = np.flatnonzero(counts < k)
                    else:
                        flag = np.zeros(keys.shape[0], dtype=np.bool_)
                        for s in range(n_sens):
                            _holding(rg_ptr, rg, s_ptr, s_loc, s, sub_ptr, sub)
                            skeys, scounts = _itemset_counts(sub_ptr, sub, i, q, bits)
                            for t in range(skeys.shape[0]):
                                at = np.searchsorted(keys, skeys[t])
                                if l * scounts[t] > counts[at]:
                                    flag[at] = True
                        bad = np.flatnonzero(flag)
                    if bad.shape[0] == 0:
                        break
                    order = bad[np.argsort(counts[bad], kind="mergesort")]
                    pass_id += 1
                    moves = 0
                    for v in order:
                        _decode(keys[v], i, bits, dec)
                        skip = False
                        for j in range(i):
                            if touched[dec[j]] == pass_id:
                                skip = True
                        if skip:
                            continue
                        best_cost = np.inf
                        n_best = 0
                        best_size = 0.0
                        best_node = -1
                        best_naff = 0
                        for j in range(i):
                            g = dec[j]
                            if strategy == AA:
                                target = _lift_target(g, gnode, parent, span_lo, span_hi, pos_sorted)
                                if target < 0:
                                    continue
                                a = np.searchsorted(pos_sorted, span_lo[target])
                                b = np.searchsorted(pos_sorted, span_hi[target])
                                n_members = 0
                                counters[0] += 1
                                for p in range(a, b):
                                    h = grp[by_pos[p]]
                                    if mstamp[h] != counters[0]:
                                        mstamp[h] = counters[0]
                                        members[n_members] = h
                                        n_members += 1
                                cost, n_aff = _move_cost(members, n_members, node_items[target], head, nxt, ipost_ptr,
                                                         ipost, rec_ptr, rec_loc, grp, gsize, rec_ul, mstamp, rstamp,
                                                         gstamp, counters, sizes, affected)
                                if cost < best_cost:
                                    best_cost = cost
                                    n_best = n_members
                                    best_members[:n_members] = members[:n_members]
                                    best_size = node_items[target]
                                    best_node = target
                                    best_naff = n_aff
                                    best_aff[:n_aff] = affected[:n_aff]
                            else:
                                for h in range(q):
                                    if grp[h] != h or h == g:
                                        continue
                                    members[0] = g
                                    members[1] = h
                                    cost, n_aff = _move_cost(members, 2, gsize[g] + gsize[h], head, nxt, ipost_ptr,
                                                             ipost, rec_ptr, rec_loc, grp, gsize, rec_ul, mstamp,
                                                             rstamp, gstamp, counters, sizes, affected)
                                    if cost < best_cost:
                                        best_cost = cost
                                        n_best = 2
                                        best_members[0] = g
                                        best_members[1] = h
                                        best_size = gsize[g] + gsize[h]
                                        best_naff = n_aff
                                        best_aff[:n_aff] = affected[:n_aff]
                        if n_best == 0:
                            continue
                        # apply: the group with the smallest head index absorbs the others
                        rep = best_members[0]
                        for a in range(1, n_best):
                            rep = min(rep, best_members[a])
                        for a in range(n_best):
                            h = best_members[a]
                            touched[h] = pass_id
                            if h == rep:
                                continue
                            j = head[h]
                            while j >= 0:
                                grp[j] = rep
                                j = nxt[j]
                            nxt[tail[rep]] = head[h]
                            tail[rep] = tail[h]
                            head[h] = -1
                        gsize[rep] = best_size
                        gnode[rep] = best_node
                        for a in range(best_naff):
                            u = best_aff[a]
                            counters[1] += 1
                            rec_ul[u] = _ul_with(u, rec_ptr, rec_loc, grp, gsize, zero_stamp, 0, 0.0, gstamp,
                                                 counters[1], sizes)
                        moves += 1
                    if moves == 0:
                        # Nothing can move although some itemset fails: the cluster cannot be fixed.
                        return items, grp, gnode, gsize, rec_ul.sum(), False
                    if phase == 1:
                        changed = True
                        break
                if changed:
                    break
            if changed:
                break
        if not changed:
            break
    return items, grp, gnode, gsize, rec_ul.sum(), True


def warm_up() -> None:
    """Compile the kernels above on tiny inputs (see ``kernels.warmup``).

    Data arrays are read-only, as a dataset's are (``kernels.read_only``).
    """
    indptr = read_only(np.array([0, 2, 4, 5], dtype=np.int64))
    indices = read_only(np.array([0, 1, 1, 2, 0], dtype=np.int32))
    sens = np.array([-1, -1, 0], dtype=np.int32)
    # hierarchy: leaves 0, 1 under node 3; leaf 2 under root 4; node 3 under root
    parent = np.array([3, 3, 4, 4, -1], dtype=np.int64)  # the method passes int64 parents
    span_lo = np.array([0, 1, 2, 0, 0], dtype=np.int64)
    span_hi = np.array([1, 2, 3, 2, 3], dtype=np.int64)
    node_items = np.array([1.0, 1.0, 0.0, 2.0, 2.0])
    leaf = np.array([0, 1, 2], dtype=np.int64)
    pos = np.array([0, 1, 2], dtype=np.int64)
    rows = np.arange(3, dtype=np.int64)
    for strategy in (AA, SET):
        for coarsest in (False, True):
            generalize_cluster(rows, indptr, indices, sens, 1, strategy, leaf, pos, parent, span_lo, span_hi,
                               node_items, 4, 2, 2, 2, coarsest)

