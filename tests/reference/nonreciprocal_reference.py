"""Slow, obvious references for nonreciprocal-recoding tests.

Records are Python frozensets of item ids; bitmaps are Python ints with bit 0
(the most significant) = the smallest item id, as in the product.
"""
from __future__ import annotations

import functools
import itertools

import numpy as np

from anonstudio.kernels.rng import make_state, randbelow


def records_of(data) -> list[frozenset[int]]:
    return [frozenset(int(i) for i in data.record(u)) for u in range(data.n_records)]


def hamming(a: frozenset, b: frozenset) -> int:
    return len(a ^ b)


# ------------------------------------------------------------------ Gray order
def gray_rank(record: frozenset, b: int) -> int:
    """Rank of the record's bitmap in the reflected Gray code (big integers)."""
    g = sum(1 << (b - 1 - p) for p in record)
    rank = g
    shift = g >> 1
    while shift:
        rank ^= shift
        shift >>= 1
    return rank


def gray_order_bigint(records: list[frozenset], b: int) -> list[int]:
    """Stable sort by big-integer Gray rank."""
    return sorted(range(len(records)), key=lambda u: gray_rank(records[u], b))


def gray_order_lexsort(records: list[frozenset], b: int) -> list[int]:
    """The note's sort key (-p0, +p1, -p2, ..., closed by -/+(b+1)), compared lexicographically."""
    def key(rec):
        pos = sorted(rec)
        k = [(-p if t % 2 == 0 else p) for t, p in enumerate(pos)]
        k.append(-(b + 1) if len(pos) % 2 == 0 else b + 1)
        return k
    return sorted(range(len(records)), key=lambda u: key(records[u]))


def cyclic_sum(records, order) -> int:
    n = len(order)
    return sum(hamming(records[order[t]], records[order[(t + 1) % n]]) for t in range(n)) if n > 1 else 0


def linear_sum(records, order) -> int:
    return sum(hamming(records[order[t]], records[order[t + 1]]) for t in range(len(order) - 1))


# ------------------------------------------------------------------ segmentation
def compositions(n: int, lo: int, hi: int):
    """All tuples of sizes in [lo, hi] summing to n."""
    if n == 0:
        yield ()
        return
    for s in range(lo, min(hi, n) + 1):
        for rest in compositions(n - s, lo, hi):
            yield (s,) + rest


def segmentations(n: int, lo: int, hi: int) -> list[tuple[int, ...]]:
    """Allowed segmentations: strict sizes, else a shorter last segment (any size 1..hi)."""
    strict = list(compositions(n, lo, hi))
    if strict or n == 0:
        return strict
    out = []
    for last in range(1, min(hi, n) + 1):
        out += [c + (last,) for c in compositions(n - last, lo, hi)]
    return out


def cut_cost(adj: list[int], sizes: tuple[int, ...]) -> int:
    """Sum of adj[j - 1] over segment starts j > 0."""
    total, start = 0, 0
    for s in sizes[:-1]:
        start += s
        total += adj[start - 1]
    return total


# ------------------------------------------------------------------ TSP
def best_paths(d: np.ndarray) -> tuple[int, list[tuple[int, ...]]]:
    """All shortest paths from node 0 to node s-1 through every node (brute force)."""
    s = d.shape[0]
    if s <= 2:
        return (int(d[0, s - 1]) if s == 2 else 0), [tuple(range(s))]
    best, paths = None, []
    for perm in itertools.permutations(range(1, s - 1)):
        tour = (0,) + perm + (s - 1,)
        c = sum(int(d[tour[t], tour[t + 1]]) for t in range(s - 1))
        if best is None or c < best:
            best, paths = c, [tour]
        elif c == best:
            paths.append(tour)
    return best, paths


# ------------------------------------------------------------------ graphs and walks
def ring_edges(order: list[int], m: int) -> set[tuple[int, int]]:
    n = len(order)
    return {(order[t], order[(t + d) % n]) for t in range(n) for d in range(m)}


def closed_walk_reference(nbr: np.ndarray, seed_of_round) -> tuple[list[list[int]], list[int]]:
    """Alg. 1 in plain Python, drawing the same random numbers as the kernel.

    Returns the assignments (record -> slot per round) and the steps per round.
    """
    n, m = nbr.shape
    free = [list(range(m)) for _ in range(n)]  # unused edges, in the kernel's order (swap-remove)
    rounds, steps = [], []
    for r in range(m):
        state = make_state(seed_of_round(r))
        post = list(range(n))
        post_edge = [-1] * n
        owner = list(range(n))
        todo = list(range(n))
        pos = list(range(n))
        taken = 0
        while todo:
            u0 = todo[int(randbelow(state, len(todo)))]
            target = post[u0]
            visited, entered = set(), set()
            child, child_edge = {}, {}
            cur, x = target, u0
            while True:
                fresh = [c for c in free[x] if (x, c) not in visited and int(nbr[x, c]) not in entered]
                seen = [c for c in free[x] if (x, c) not in visited and int(nbr[x, c]) in entered]
                pool = fresh or seen
                assert pool, "closed walk stuck"
                c = pool[int(randbelow(state, len(pool)))]
                visited.add((x, c))
                y = int(nbr[x, c])
                child[cur], child_edge[cur] = y, c
                taken += 1
                if y == target:
                    break
                entered.add(y)
                cur, x = y, owner[y]
            chain, s = [], target
            while True:
                chain.append(s)
                s = child[s]
                if s == target:
                    break
            movers = [owner[s] for s in chain]
            for s, mover in zip(chain, movers):
                y = child[s]
                post[mover], post_edge[mover], owner[y] = y, child_edge[s], mover
                if pos[mover] >= 0:
                    last = todo[-1]
                    todo[pos[mover]] = last
                    pos[last] = pos[mover]
                    todo.pop()
                    pos[mover] = -1
        for x in range(n):
            q = free[x].index(post_edge[x])
            free[x][q] = free[x][-1]
            free[x][-1] = post_edge[x]
            free[x].pop()
        rounds.append(post)
        steps.append(taken)
    return rounds, steps


def is_perfect_matching(assign, edges: set[tuple[int, int]]) -> bool:
    n = len(assign)
    return sorted(assign) == list(range(n)) and all((x, int(assign[x])) in edges for x in range(n))


def perfect_matchings(n: int, edges: set[tuple[int, int]]) -> list[tuple[int, ...]]:
    """All perfect matchings (record -> slot) inside ``edges`` (tiny n only)."""
    return [p for p in itertools.permutations(range(n)) if all((x, p[x]) in edges for x in range(n))]


# ------------------------------------------------------------------ publication
def vote(preimages: list[frozenset]) -> tuple[frozenset, frozenset, int]:
    """(base, distance, threshold) of one slot, ties -> 0."""
    m = len(preimages)
    items = set().union(*preimages) if preimages else set()
    count = {i: sum(1 for p in preimages if i in p) for i in items}
    base = frozenset(i for i, c in count.items() if 2 * c > m)
    dist = frozenset(i for i, c in count.items() if c < m)
    thr = max((hamming(base, p) for p in preimages), default=0)
    return base, dist, thr


def publish_reference(records: list[frozenset], edges: set[tuple[int, int]]):
    n = len(records)
    return [vote([records[x] for x in range(n) if (x, j) in edges]) for j in range(n)]


def in_worlds(record: frozenset, base: frozenset, dist: frozenset, thr: int) -> bool:
    diff = record ^ base
    return diff <= dist and len(diff) <= thr


def world_matches(records, published) -> list[list[int]]:
    """For every original, the slots whose possible worlds contain it."""
    return [[j for j, (b, d, t) in enumerate(published) if in_worlds(r, b, d, t)] for r in records]


def error_rate(records, published, alpha) -> float:
    vals = [hamming(r, published[alpha[i]][0]) / len(r) for i, r in enumerate(records) if r]
    return sum(vals) / len(vals) if vals else 0.0


def held_karp(d: np.ndarray) -> int:
    """Length of the shortest path 0 -> s-1 through all nodes (plain-Python DP over subsets)."""
    s = d.shape[0]
    if s <= 2:
        return int(d[0, s - 1]) if s == 2 else 0
    inner = list(range(1, s - 1))
    best = {(1 << i, v): int(d[0, v]) for i, v in enumerate(inner)}
    for size in range(2, len(inner) + 1):
        for combo in itertools.combinations(range(len(inner)), size):
            mask = sum(1 << i for i in combo)
            for i in combo:
                prev = mask ^ (1 << i)
                best[(mask, inner[i])] = min(best[(prev, inner[j])] + int(d[inner[j], inner[i]])
                                             for j in combo if j != i)
    full = (1 << len(inner)) - 1
    return min(best[(full, v)] + int(d[v, s - 1]) for v in inner)


# ------------------------------------------------------------------ query error
def query_error(records: list[frozenset], bases: list[frozenset], q_in: list[set],
                q_ex: list[set]) -> tuple[float, float]:
    """(Type I, Type II) query error: mean |count in the records - count in the bases| / n over the queries.

    Type I counts people holding every item of a query, Type II people holding none of them.
    """
    n = len(records)
    t1 = [abs(sum(q <= r for r in records) - sum(q <= b for b in bases)) / n for q in q_in]
    t2 = [abs(sum(not (q & r) for r in records) - sum(not (q & b) for b in bases)) / n for q in q_ex]
    return sum(t1) / len(t1), sum(t2) / len(t2)


# ------------------------------------------------------------------ diversity
def windows_distinct(order: list[int], labels: list[int], w: int) -> bool:
    """Whether every cyclic window of ``w`` consecutive records of ``order`` carries ``w`` different labels."""
    n = len(order)
    return all(len({labels[order[(t + d) % n]] for d in range(min(w, n))}) == min(w, n) for t in range(n))


# ------------------------------------------------------------------ CAHD baseline
def _cahd_nearest_rank(ungrouped: list[int], at: int, label_at, wanted: set) -> int | None:
    """The ungrouped rank nearest to position ``at`` of ``ungrouped`` with a wanted label (after before before)."""
    a, b = at + 1, at - 1
    while a < len(ungrouped) or b >= 0:
        if a < len(ungrouped):
            if label_at(ungrouped[a]) in wanted:
                return ungrouped[a]
            a += 1
        if b >= 0:
            if label_at(ungrouped[b]) in wanted:
                return ungrouped[b]
            b -= 1
    return None


def _cahd_pick(candidates: list[int], ungrouped: list[int], at: int, label_at, distance, wanted: set) -> int:
    """The candidate with a wanted label nearest the seed (``distance``; the first of equals), else the rank."""
    best, best_h = None, None
    for rank in candidates:
        if label_at(rank) in wanted:
            h = distance(rank)
            if best is None or h < best_h:
                best, best_h = rank, h
    return best if best is not None else _cahd_nearest_rank(ungrouped, at, label_at, wanted)


def cahd_groups(order: list[int], labels: list[int], n_labels: int, l: int, alpha: int,
                records: list[frozenset]) -> tuple[list[int], int]:
    """CAHD's groups along ``order`` with plain lists: (group of every record, number of groups).

    The first ungrouped record seeds a group (the first record of a critical label instead, when exactly ℓ
    labels are critical, i.e. hold more than 1/ℓ of the records left after this group). Candidates are up
    to ``alpha (ℓ - 1)`` ungrouped records after, then before the seed with another label; each critical
    label not in the group yet takes the candidate of that label nearest the seed by Hamming distance (the
    first of equals), else the nearest ungrouped record of it in the order (after before before); then new
    labels likewise until ℓ members. Fewer than 2ℓ records left, or more than ℓ critical labels: the rest is
    the last group.
    """
    order = [int(x) for x in order]
    labels = [int(x) for x in labels]
    n = len(order)
    group = [-1] * n
    counts = [0] * n_labels
    for x in order:
        counts[labels[x]] += 1

    def label_at(rank: int) -> int:
        return labels[order[rank]]

    ungrouped = list(range(n))  # ranks in the order, ascending
    g = 0
    while ungrouped:
        left = len(ungrouped)
        critical = [counts[lab] * l > left - l for lab in range(n_labels)]
        if left < 2 * l or sum(critical) > l:
            for rank in ungrouped:
                group[order[rank]] = g
            g += 1
            break
        t = ungrouped[0]
        if sum(critical) == l and not critical[label_at(t)]:
            t = next(rank for rank in ungrouped[1:] if critical[label_at(rank)])
        seed = records[order[t]]
        seed_label = label_at(t)
        at = ungrouped.index(t)
        after = [rank for rank in ungrouped[at + 1:] if label_at(rank) != seed_label][:alpha * (l - 1)]
        before = [rank for rank in reversed(ungrouped[:at]) if label_at(rank) != seed_label][:alpha * (l - 1)]
        candidates = after + before
        distance = functools.partial(_hamming_to, records, order, seed)
        chosen = [t]
        in_group = {seed_label}
        for lab in range(n_labels):
            if critical[lab] and lab not in in_group:
                chosen.append(_cahd_pick(candidates, ungrouped, at, label_at, distance, {lab}))
                in_group.add(lab)
        while len(chosen) < l:
            best = _cahd_pick(candidates, ungrouped, at, label_at, distance, set(range(n_labels)) - in_group)
            chosen.append(best)
            in_group.add(label_at(best))
        for rank in chosen:
            group[order[rank]] = g
            counts[label_at(rank)] -= 1
        ungrouped = [rank for rank in ungrouped if rank not in set(chosen)]
        g += 1
    return group, g


def _hamming_to(records: list[frozenset], order: list[int], seed: frozenset, rank: int) -> int:
    return hamming(records[order[rank]], seed)
