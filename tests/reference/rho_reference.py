"""Slow, obvious pure-Python reference of personalized ρ-uncertainty (paper 002).

Records are Python sets, supports are intersections of Python sets of record
numbers. It follows the same readings (R-1 … R-9 of the implementation note)
and the same draw protocol as the fast code, so that both give the same
output for the same seed:

* record choice: one splitmix64 stream seeded ``derive_seed(seed, "suppress")``;
  a partial Fisher-Yates shuffle of the ascending records holding Q∪{e},
  ``t = j + randbelow(m - j)``;
* adversaries of pass p, size ℓ: a splitmix64 stream seeded
  ``derive_seed(seed, "samples", p, ℓ)``; a person by ``randbelow`` (user
  sampler) or by inverting cumulative weights C(|D_u|, ℓ) (pair sampler), then
  Floyd's subset of their record.

Also a brute-force enumeration of every adversary, for safety checks.
"""
from __future__ import annotations

import bisect
import itertools
import math
from fractions import Fraction

from anonstudio.jobs import derive_seed

MASK = (1 << 64) - 1


class SplitMix:
    def __init__(self, seed: int):
        self.state = seed & MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return ((self.next() >> 32) * n) >> 32

    def uniform(self) -> float:
        return (self.next() >> 11) * (1.0 / 9007199254740992.0)

    def floyd(self, pool: list[int], size: int) -> list[int]:
        out: list[int] = []
        n = len(pool)
        for j in range(n - size, n):
            t = self.below(j + 1)
            out.append(pool[j] if pool[t] in out else pool[t])
        return out


class Published:
    """D' with posting sets, and the original counts."""

    def __init__(self, records: list[list[int]]):
        self.records = [set(r) for r in records]
        self.post: dict[int, set[int]] = {}
        for u, r in enumerate(self.records):
            for i in r:
                self.post.setdefault(i, set()).add(u)
        self.c0 = {i: len(s) for i, s in self.post.items()}
        self.total0 = sum(self.c0.values())
        self.total = self.total0

    def holders(self, items) -> set[int]:
        sets = sorted((self.post.get(i, set()) for i in items), key=len)
        return sets[0].intersection(*sets[1:])

    def supp(self, items) -> int:
        items = tuple(items)
        return len(self.post.get(items[0], ())) if len(items) == 1 else len(self.holders(items))

    def remove(self, u: int, d: int) -> None:
        self.records[u].remove(d)
        self.post[d].remove(u)
        self.total -= 1


def broken(pub: Published, q: tuple[int, ...], e: int, rho: Fraction) -> bool:
    s_q = pub.supp(q)
    return s_q > 0 and Fraction(pub.supp(q + (e,)), s_q) > rho


def repair(pub: Published, q: tuple[int, ...], e: int, rho: Fraction, rng: SplitMix) -> int:
    """Alg. 1 lines 11-14 for one rule; returns the occurrences suppressed."""
    s_q = pub.supp(q)
    holders = sorted(pub.holders(q + (e,)))
    s_qe = len(holders)
    if s_q == 0 or Fraction(s_qe, s_q) <= rho:
        return 0
    excess = s_qe - rho * s_q
    n_e = math.ceil(excess)
    n_q = math.ceil(excess / (1 - rho))
    log_t, log_t1 = math.log(pub.total0), math.log(pub.total)

    def score(d, n):
        c = len(pub.post[d])
        return (c / pub.total) * ((math.log(c) - math.log(pub.c0[d])) + (log_t - log_t1)) / n

    # larger F, then smaller N, then d = e, then the smaller item
    candidates = [(score(e, n_e), -n_e, 1, -e, e, n_e)] + [(score(d, n_q), -n_q, 0, -d, d, n_q) for d in q]
    *_, d, n = max(candidates)
    for j in range(n):
        t = j + rng.below(len(holders) - j)
        holders[j], holders[t] = holders[t], holders[j]
    for r in holders[:n]:
        pub.remove(r, d)
    return n


def suppressor(records: list[list[int]], sensitive: list[set[int]], rho: Fraction, m: int | None, seed: int):
    """Alg. 1 (exact); returns (published records as sorted lists, passes, suppressed occurrences)."""
    pub = Published(records)
    rng = SplitMix(derive_seed(seed, "suppress"))
    longest = max((len(r) for r in records), default=0)
    top = longest if m is None else min(m, longest)
    passes = 0
    while True:
        passes += 1
        safe = True
        for ell in range(1, top + 1):
            for u, rec in enumerate(records):
                if len(rec) < ell or not sensitive[u]:
                    continue
                rules = [(q, e) for q in itertools.combinations(sorted(rec), ell)
                         for e in sorted(sensitive[u] - set(q)) if broken(pub, q, e, rho)]
                if rules:
                    safe = False
                for q, e in rules:
                    repair(pub, q, e, rho, rng)
        if safe:
            break
    return [sorted(r) for r in pub.records], passes, pub.total0 - pub.total


def sample_suppressor(records: list[list[int]], sensitive: list[set[int]], rho: Fraction, m: int, n_s: int,
                      sampler: str, seed: int):
    """Alg. 2; returns (published records, passes, suppressed occurrences)."""
    pub = Published(records)
    rng = SplitMix(derive_seed(seed, "suppress"))
    passes = 0
    while True:
        passes += 1
        safe = True
        for ell in range(1, m + 1):
            pool = [u for u, r in enumerate(records) if len(r) >= ell]
            if not pool:
                continue
            cum = list(itertools.accumulate(float(math.comb(len(records[u]), ell)) for u in pool))
            draws = SplitMix(derive_seed(seed, "samples", passes, ell))
            rules: list[tuple[tuple[int, ...], int]] = []
            seen = set()
            for _ in range(n_s):
                if sampler == "user":
                    u = pool[draws.below(len(pool))]
                else:
                    x = draws.uniform() * cum[-1]
                    u = pool[min(bisect.bisect_right(cum, x), len(pool) - 1)]
                q = tuple(sorted(draws.floyd(sorted(records[u]), ell)))
                for e in sorted(sensitive[u] - set(q)):
                    if broken(pub, q, e, rho) and (q, e) not in seen:
                        seen.add((q, e))
                        rules.append((q, e))
            if rules:
                safe = False
            for q, e in rules:
                repair(pub, q, e, rho, rng)
        if safe:
            break
    return [sorted(r) for r in pub.records], passes, pub.total0 - pub.total


def unsafe_adversaries(records, published, sensitive, rho: Fraction, m: int | None):
    """Every (u, Q, e) with Q ⊆ D_u, |Q| ≤ m, e ∈ E_u \\ Q and conf_D'(Q→e) > ρ (brute force)."""
    pub_sets = [set(r) for r in published]

    def supp(items):
        return sum(1 for r in pub_sets if items <= r)

    out = []
    for u, rec in enumerate(records):
        top = len(rec) if m is None else min(m, len(rec))
        for ell in range(1, top + 1):
            for q in itertools.combinations(sorted(rec), ell):
                s_q = supp(set(q))
                if s_q == 0:
                    continue
                for e in sorted(sensitive[u] - set(q)):
                    if Fraction(supp(set(q) | {e}), s_q) > rho:
                        out.append((u, q, e))
    return out


def mining_rules(records, minsup: Fraction, minconf: Fraction):
    """Association rules X→Y by counting every subset of every record (short records only)."""
    counts: dict[tuple[int, ...], int] = {}
    for r in records:
        r = sorted(set(r))
        for size in range(1, len(r) + 1):
            for z in itertools.combinations(r, size):
                counts[z] = counts.get(z, 0) + 1
    n = len(records)
    frequent = {z: c for z, c in counts.items() if c >= minsup * n and c >= 1}
    rules = set()
    for z, c in frequent.items():
        for size in range(1, len(z)):
            for x in itertools.combinations(z, size):
                if Fraction(c, frequent[x]) >= minconf:
                    rules.add((x, tuple(i for i in z if i not in x)))
    return rules


def kl(records, published) -> float | None:
    """KL(D'‖D) over item frequencies."""
    c0: dict[int, int] = {}
    c1: dict[int, int] = {}
    for r in records:
        for i in r:
            c0[i] = c0.get(i, 0) + 1
    for r in published:
        for i in r:
            c1[i] = c1.get(i, 0) + 1
    t0, t1 = sum(c0.values()), sum(c1.values())
    if t1 == 0:
        return None
    return sum((c / t1) * math.log((c / t1) / (c0[i] / t0)) for i, c in c1.items())


def e_pairs(n_records: int, records: list[int], items: list[int]) -> list[tuple[int, int]]:
    """E as ``SensitiveConstraint.pairs`` lists it, from the (record, item) pairs it was built from (−1: everyone).

    Each person's set E_u is the items of their pairs and of the −1 pairs; items in every E_u are listed once
    with record −1, ascending, then every other (u, item) in (u, item) order.
    """
    everyone = {i for r, i in zip(records, items) if r < 0}
    sets = [set(everyone) for _ in range(n_records)]
    for r, i in zip(records, items):
        if r >= 0:
            sets[r].add(i)
    star = set.intersection(*sets) if sets else set(everyone)
    return [(-1, i) for i in sorted(star)] + [(u, i) for u in range(n_records) for i in sorted(sets[u] - star)]
