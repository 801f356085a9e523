"""Anatomy (Xiao and Tao, VLDB 2006): l-diverse groups with separated sensitive values.

Rows are hashed into one bucket per sensitive value. While at least m buckets
(m = max(k, l)) are non-empty, a group is formed by taking one random row from
each of the m currently largest buckets; draining the largest buckets first is
what guarantees that at most m - 1 rows, all with different sensitive values,
are left over. Each leftover row joins a random group that does not yet hold
its sensitive value, so every group keeps m distinct sensitive values (groups
have m or m + 1 rows).

This works whenever no sensitive value occurs in more than n / m rows (the
paper's eligibility condition); otherwise no l-diverse partition with groups
of m distinct values exists and a ValueError says so.

The release is vertical: quasi-identifier tuples are published exactly per
group, sensitive values as an unordered multiset per group.
"""
from __future__ import annotations

import time

import numpy as np

from ...data.table import Table, value_text
from ...jobs import Progress, derive_seed
from .domains import EncodedTable
from .release import GroupRelease, canonical_group_ids, member_cells

__all__ = ["anatomy", "vertical_release_from_groups"]


def vertical_release_from_groups(enc: EncodedTable, row_group: np.ndarray) -> GroupRelease:
    """Vertical release; ``cells`` hold the quasi-identifier values present in each group."""
    row_group = canonical_group_ids(row_group)
    n_groups = int(row_group.max()) + 1
    cells = {c: member_cells(row_group, enc.codes[:, j], n_groups, len(enc.domains[c])) for j, c in enumerate(enc.qi)}
    return GroupRelease("vertical", list(enc.qi), enc.sensitive, enc.domains, row_group, cells)


def anatomy(table: Table, params, progress: Progress) -> tuple[GroupRelease | None, bool, dict]:
    """Anatomize ``table`` into groups of ``m = max(k, l)`` distinct sensitive values.

    Returns
    -------
    release, complete, info
        On cancel ``(None, False, info)``: a half-built partition is not a release.
    """
    enc = EncodedTable(table, params.qi, params.sensitive)
    m = max(int(params.k), int(params.l if params.l is not None else params.k))
    enc.check_feasible(m, m)
    n = enc.n_rows
    counts = np.bincount(enc.s_codes, minlength=len(enc.domains[enc.sensitive]))
    worst = int(np.argmax(counts))
    if counts[worst] * m > n:
        raise ValueError(
            f"Anatomy with groups of {m} distinct values needs every sensitive value in at most n/{m} = "
            f"{n / m:.1f} rows, but {value_text(enc.domains[enc.sensitive][worst])!r} occurs in {counts[worst]}"
        )
    rng = np.random.default_rng(derive_seed(params.seed, "anatomy"))
    # One bucket per sensitive value, shuffled so that "pop the last row" draws at random.
    order = np.argsort(enc.s_codes, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)])
    buckets = [rng.permutation(order[starts[s]:starts[s + 1]]) for s in range(len(counts))]
    remaining = counts.astype(np.int64).copy()
    row_group = np.full(n, -1, dtype=np.int64)
    n_groups = 0
    last = time.perf_counter()
    while np.count_nonzero(remaining) >= m:
        if progress.cancelled():
            return None, False, {"n_groups": n_groups}
        # The m largest buckets; ties broken by value order (stable sort on -count).
        chosen = np.argsort(-remaining, kind="stable")[:m]
        for s in chosen:
            remaining[s] -= 1
            row_group[buckets[s][remaining[s]]] = n_groups
        n_groups += 1
        if time.perf_counter() - last > 0.1:
            progress.set(0.9 * (n - remaining.sum()) / n, f"Anatomy: {n_groups} groups")
            last = time.perf_counter()
    leftovers = [buckets[s][i] for s in np.flatnonzero(remaining) for i in range(remaining[s])]
    for row in leftovers:
        s = enc.s_codes[row]
        holding = np.unique(row_group[(enc.s_codes == s) & (row_group >= 0)])
        free = np.setdiff1d(np.arange(n_groups), holding)
        if len(free) == 0:  # cannot happen under the eligibility condition; kept as a guard
            raise ValueError(f"Anatomy found no group lacking sensitive value {enc.domains[enc.sensitive][s]!r}")
        row_group[row] = free[rng.integers(len(free))]
    release = vertical_release_from_groups(enc, row_group)
    progress.set(1.0, f"Anatomy: {release.n_groups} groups")
    return release, True, {"n_groups": release.n_groups, "group_size": m, "leftover_rows": len(leftovers)}
