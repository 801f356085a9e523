"""SUPPRESSOR (Alg. 1, exact ρ and ρ^m) and SAMPLESUPPRESSOR (Alg. 2, (ε, δ)-ρ^m) by partial suppression.

Readings of the paper where its text is garbled or silent (R-1 … R-8):

* R-1: an adversary (u, Q) knows Q ⊆ D_u of the ORIGINAL record, Q ≠ ∅.
* R-2/R-6: supports, confidences and the suppression numbers N_s of eq. (7)
  are computed on the current published D'.
* R-3: ρ = p/q is exact; a rule breaks ρ iff q·supp(Q∪{e}) > p·supp(Q);
  supp_D'(Q) = 0 over all records is safe.
* R-4: e ranges over E_u \\ Q (Q may hold u's other sensitive items).
* R-7/R-8: F(d) = D'(d)·ln(D'(d)/D(d)) / N_s(d) with item frequencies
  normalized over all occurrences; ties go to the smaller N_s, then to
  d = e, then to the smaller item id. While D' = D every F is 0, so the first
  repairs suppress the sensitive item.
* The model is not monotone: passes repeat until one finds no violation
  (``iterations`` counts the clean pass too). No divide-and-conquer: it is
  unsound for personalized E.

Seeds: record choice uses one splitmix64 stream ``derive_seed(seed,
"suppress")`` for the whole run; the adversaries of pass p, size ℓ come from
``derive_seed(seed, "samples", p, ℓ)``, fresh every pass. Chunk sizes never
change which numbers are drawn.

Cancel: every kernel call is bounded by a work budget sized for about
:data:`CHUNK_SECONDS` (adversaries checked in the exact algorithm, even within
one person's combinations; draws and repairs in the sampled one), with one
:class:`ChunkSizer` per level because a level's cost per adversary differs by
orders of magnitude from the next one's. The cancel flag is read between
calls, so a cancel takes effect within a fraction of a second.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np

from ...data.transactions import TransactionData
from ...jobs import ChunkSizer, NullProgress, Progress, derive_seed
from ...kernels import read_only
from ...kernels.rho_suppressor import (
    LOG_COLUMNS,
    NEED_LOG,
    NEED_RULES,
    OK,
    RESUME_SLOTS,
    active_users,
    draw_and_check,
    exact_chunk,
    record_bits,
    repair_rules,
)
from ...kernels.rng import make_state
from .sensitive import SensitiveConstraint

__all__ = [
    "LevelStats", "PassRecord", "RepairLog", "Suppression", "SuppressionProgress",
    "suppress_exact", "suppress_sampled", "adversary_count", "published_from_alive", "SuppressionState",
]


@dataclass(frozen=True)
class LevelStats:
    """One level ℓ of one pass.

    ``checked`` counts adversaries (u, Q) looked at (all of them in the exact
    algorithm, n_S samples in the sampled one); ``unsafe`` those with at
    least one rule above ρ (exact: people with R_u^ℓ ≠ ∅); ``rules`` the
    rules listed for repair; ``repaired`` those still above ρ when their turn
    came; ``suppressed`` item occurrences removed.
    """

    level: int
    checked: int
    unsafe: int
    rules: int
    repaired: int
    suppressed: int

    def to_json(self) -> dict:
        return {"level": self.level, "checked": self.checked, "unsafe": self.unsafe, "rules": self.rules,
                "repaired": self.repaired, "suppressed": self.suppressed}


@dataclass(frozen=True)
class PassRecord:
    """One pass of the outer loop (a point of the live plots)."""

    number: int
    levels: tuple[LevelStats, ...]
    suppressed_total: int
    util_info: float
    seconds: float
    complete: bool = True

    @property
    def clean(self) -> bool:
        return self.complete and all(lv.rules == 0 for lv in self.levels)

    def to_json(self) -> dict:
        return {"pass": self.number, "suppressed_total": self.suppressed_total, "util_info": self.util_info,
                "seconds": round(self.seconds, 4), "complete": self.complete,
                "levels": [lv.to_json() for lv in self.levels]}


@dataclass(frozen=True)
class RepairLog:
    """Every repaired rule Q→e: when, for whom, what was suppressed and where.

    ``meta`` has the columns of :data:`LOG_COLUMNS` (``user`` is −1 in the
    sampled algorithm, whose rules are pooled over sampled people); ``q``
    holds Q's item ids padded with −1; the records edited by entry ``j`` are
    ``records[meta[j, rec_start] : meta[j, rec_start] + meta[j, n]]``.
    """

    meta: np.ndarray
    q: np.ndarray
    records: np.ndarray

    def __len__(self) -> int:
        return len(self.meta)

    def column(self, name: str) -> np.ndarray:
        return self.meta[:, LOG_COLUMNS.index(name)]

    def antecedent(self, j: int) -> tuple[int, ...]:
        return tuple(int(v) for v in self.q[j] if v >= 0)

    def records_of(self, j: int) -> np.ndarray:
        start = int(self.meta[j, LOG_COLUMNS.index("rec_start")])
        return self.records[start:start + int(self.meta[j, LOG_COLUMNS.index("n")])]


@dataclass(frozen=True)
class SuppressionProgress:
    """What a running suppressor publishes after every pass (for live plots)."""

    algorithm: str
    passes: tuple[PassRecord, ...]
    complete: bool = False


@dataclass(frozen=True)
class Suppression:
    """What the suppressor produced: the published data and how it got there."""

    algorithm: str  # "exact" or "sampled"
    published: TransactionData
    passes: tuple[PassRecord, ...]
    log: RepairLog
    levels: int
    samples_per_level: int | None
    complete: bool
    seconds: float
    active_users: int = 0

    @property
    def iterations(self) -> int:
        return len(self.passes)

    @property
    def suppressed_items(self) -> int:
        return self.passes[-1].suppressed_total if self.passes else 0


def adversary_count(lengths: np.ndarray, max_level: int) -> int:
    """Σ_u Σ_{ℓ ≤ max_level} C(|D_u|, ℓ): the (person, itemset) pairs one exact pass examines."""
    values, counts = np.unique(np.asarray(lengths, dtype=np.int64), return_counts=True)
    total = 0
    for k, c in zip(values.tolist(), counts.tolist()):
        total += c * sum(comb(k, ell) for ell in range(1, min(k, max_level) + 1))
    return total


def published_from_alive(data: TransactionData, alive: np.ndarray) -> TransactionData:
    """D' as a dataset: the same records in the same order, without the suppressed occurrences."""
    n = data.n_records
    keep = alive.astype(bool)
    rows = np.repeat(np.arange(n, dtype=np.int64), data.lengths)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows[keep], minlength=n), out=indptr[1:])
    return TransactionData(indptr, data.indices[keep], data.vocab, coords=data.coords,
                           name=f"{data.name} (ρ-suppressed)", source=None)


#: Seconds of kernel work between two looks at the cancel flag (and progress updates).
CHUNK_SECONDS = 0.1

#: Largest record bitset index (bytes) kept for intersections; above it only posting lists are used.
_BITS_BUDGET = 256 * 2**20
#: Largest item count for the per-item candidate cache at ℓ = 1 (n_items² int32).
_CACHE_ITEMS = 4096


class SuppressionState:
    """The kernels' tuples for D' (see :mod:`anonstudio.kernels.rho_suppressor`) plus the repair log."""

    def __init__(self, data: TransactionData, constraint: SensitiveConstraint, width: int):
        self.data = data
        n, ni = data.n_records, data.n_items
        c0 = data.item_frequencies.astype(np.int64)
        post_start, post_rec = data.inverted()
        # The data's arrays reach the kernels read-only, loaded or built in memory: one compiled variant.
        self.indptr, self.indices = read_only(data.indptr), read_only(data.indices)
        words = (n + 63) >> 6
        if ni * words * 8 <= _BITS_BUDGET:
            bits = record_bits(self.indptr, self.indices, ni)
        else:
            bits = np.zeros((0, 0), dtype=np.uint64)
        self.alive = np.ones(len(data.indices), dtype=np.uint8)
        self.tot = np.array([len(data.indices), len(data.indices)], dtype=np.int64)
        self.dp = (self.indptr, self.indices, self.alive, read_only(np.ascontiguousarray(post_start, dtype=np.int64)),
                   c0.copy(), np.array(post_rec, dtype=np.int32), c0, self.tot, bits,
                   np.zeros(max(ni, 1), dtype=np.int64), np.zeros(1, dtype=np.int64))
        self.ep = constraint.kernel_arrays()
        cache_width = ni if ni <= _CACHE_ITEMS else 0
        self.cache = (np.full(max(ni, 1), -1, dtype=np.int64), np.zeros(max(ni, 1), dtype=np.int64),
                      np.zeros(max(ni, 1), dtype=np.int64), np.zeros((max(ni, 1), cache_width), dtype=np.int32))
        self.width = max(width, 1)
        self.work = (np.empty(max(n, 1), dtype=np.int32), np.empty(max(n, 1), dtype=np.int32),
                     np.zeros(max(ni, 1), dtype=np.int64), np.empty(max(ni, 1), dtype=np.int32),
                     np.empty(max(ni, 1), dtype=np.int32), np.empty(max(bits.shape[1], 1), dtype=np.uint64),
                     np.empty(self.width, dtype=np.int32), np.empty(self.width, dtype=np.int64),
                     np.empty(self.width, dtype=np.int32))
        self.log = (np.empty((1024, len(LOG_COLUMNS)), dtype=np.int64), np.empty((1024, self.width), dtype=np.int32),
                    np.empty(max(len(data.indices), 1), dtype=np.int32), np.zeros(2, dtype=np.int64))
        self.rule_u = np.empty(1024, dtype=np.int32)
        self.rule_q = np.empty((1024, self.width), dtype=np.int32)
        self.rule_e = np.empty(1024, dtype=np.int32)

    @property
    def suppressed(self) -> int:
        return int(self.tot[0] - self.tot[1])

    def util_info(self) -> float:
        return self.suppressed / self.tot[0] if self.tot[0] else 0.0

    def grow_rules(self, need: int) -> None:
        cap = max(2 * len(self.rule_e), need)
        self.rule_u = np.resize(self.rule_u, cap)
        self.rule_e = np.resize(self.rule_e, cap)
        rule_q = np.empty((cap, self.width), dtype=np.int32)
        rule_q[:len(self.rule_q)] = self.rule_q
        self.rule_q = rule_q

    def ensure_log(self, extra: int) -> None:
        log_meta, log_q, log_recs, ctr = self.log
        need = int(ctr[0]) + extra
        if need <= len(log_meta):
            return
        cap = max(2 * len(log_meta), need)
        meta = np.empty((cap, len(LOG_COLUMNS)), dtype=np.int64)
        meta[:len(log_meta)] = log_meta
        q = np.empty((cap, self.width), dtype=np.int32)
        q[:len(log_q)] = log_q
        self.log = (meta, q, log_recs, ctr)

    def repair_log(self) -> RepairLog:
        log_meta, log_q, log_recs, ctr = self.log
        k = int(ctr[0])
        return RepairLog(log_meta[:k].copy(), log_q[:k].copy(), log_recs[:int(ctr[1])].copy())


def _start(data: TransactionData, constraint: SensitiveConstraint, rho: Fraction, seed: int | None, width: int):
    """The state, ρ = p/qd and the record-choice stream every run starts from."""
    return (SuppressionState(data, constraint, width), rho.numerator, rho.denominator,
            make_state(derive_seed(seed, "suppress")))


def _overall(passes_done: int, within: float) -> float:
    """A progress fraction for a loop of unknown length: x/(x+1) over passes done, monotone."""
    x = passes_done + within
    return x / (x + 1.0)


def _finish(algorithm: str, state: SuppressionState, passes: list[PassRecord], levels: int, n_s: int | None,
            complete: bool, t0: float, active: int) -> Suppression:
    return Suppression(algorithm, published_from_alive(state.data, state.alive), tuple(passes), state.repair_log(),
                       levels, n_s, complete, time.perf_counter() - t0, active)


def suppress_exact(data: TransactionData, constraint: SensitiveConstraint, rho: Fraction, m: int | None,
                   seed: int | None, progress: Progress | None = None) -> Suppression:
    """SUPPRESSOR (Alg. 1): personalized ρ-uncertainty (``m=None``) or ρ^m-uncertainty.

    Every adversary (u, Q), Q ⊆ D_u, |Q| ≤ L with L = max |D_u| (or m) is
    checked in each pass; passes repeat until one is clean. On cancel, the
    current D' is returned with ``complete=False``: it is unsafe so far.
    """
    progress = progress or NullProgress()
    t0 = time.perf_counter()
    n = data.n_records
    max_len = int(data.lengths.max()) if n else 0
    top = max_len if m is None else min(int(m), max_len)
    state, p, qd, rng = _start(data, constraint, rho, seed, top)
    active = active_users(state.indptr, state.indices, data.n_items, state.ep)
    n_active = int(active.sum())
    # Budgets count adversaries checked; the people range only bounds the progress line.
    sizers = {level: ChunkSizer(initial=1024, target=CHUNK_SECONDS) for level in range(1, top + 1)}
    resume = np.zeros(RESUME_SLOTS, dtype=np.int64)
    passes: list[PassRecord] = []
    last_report = 0.0
    pass_no = 0
    while True:
        pass_no += 1
        level_stats: list[LevelStats] = []
        for level in range(1, top + 1):
            stats = np.zeros(5, dtype=np.int64)
            sizer = sizers[level]
            u = 0
            while u < n:
                if progress.cancelled():
                    level_stats.append(_level(level, stats))
                    passes.append(_pass(pass_no, level_stats, state, t0, complete=False))
                    return _finish("exact", state, passes, top, None, False, t0, n_active)
                budget = sizer.next_size()
                nxt, code, _ = exact_chunk(level, u, n, pass_no, True, p, qd, state.dp, state.ep, active,
                                           state.cache, rng, state.rule_u, state.rule_q, state.rule_e, 0,
                                           state.work, state.log, stats, budget, resume)
                sizer.done(max(int(resume[4]), 1))
                if code == NEED_RULES:
                    state.grow_rules(2 * len(state.rule_e))
                elif code == NEED_LOG:
                    state.ensure_log(len(state.rule_e))
                u = nxt
                now = time.perf_counter()
                if now - last_report > 0.1 or u >= n:
                    last_report = now
                    within = (level - 1 + u / max(n, 1)) / max(top, 1)
                    progress.set(_overall(pass_no - 1, within),
                                 f"pass {pass_no}, {level} known item{'s' if level > 1 else ''}: "
                                 f"{u:,}/{n:,} people, {state.suppressed:,} items suppressed")
            level_stats.append(_level(level, stats))
        record = _pass(pass_no, level_stats, state, t0)
        passes.append(record)
        progress.partial(SuppressionProgress("exact", tuple(passes)))
        if record.clean:
            break
    return _finish("exact", state, passes, top, None, True, t0, n_active)


def _level(level: int, stats: np.ndarray) -> LevelStats:
    return LevelStats(level, int(stats[4]), int(stats[0]), int(stats[1]), int(stats[2]), int(stats[3]))


def _pass(number: int, levels: list[LevelStats], state: SuppressionState, t0: float,
          complete: bool = True) -> PassRecord:
    return PassRecord(number, tuple(levels), state.suppressed, state.util_info(), time.perf_counter() - t0, complete)


def _pools(data: TransactionData, m: int, sampler: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per level ℓ = 1..m: users with ≥ ℓ original items, and the pair sampler's cumulative weights."""
    lengths = data.lengths
    out = []
    for ell in range(1, m + 1):
        pool = np.flatnonzero(lengths >= ell).astype(np.int32)
        if sampler == "pair" and len(pool):
            weights = np.array([float(comb(int(k), ell)) for k in lengths[pool]], dtype=np.float64)
            cum = np.cumsum(weights)
        else:
            cum = np.zeros(0, dtype=np.float64)
        out.append((pool, cum))
    return out


def suppress_sampled(data: TransactionData, constraint: SensitiveConstraint, rho: Fraction, m: int, n_s: int,
                     sampler: str, seed: int | None, progress: Progress | None = None) -> Suppression:
    """SAMPLESUPPRESSOR (Alg. 2): personalized (ε, δ)-ρ^m-uncertainty with ``n_s`` adversaries per level.

    Each pass draws ``n_s`` fresh adversaries for every ℓ ≤ m (skipping sizes
    no record reaches), lists the distinct rules they break (in order of first
    appearance) and repairs them; the run stops after a pass in which no
    sampled adversary breaks ρ, so the output is exactly the state those
    samples were checked on.
    """
    if sampler not in ("user", "pair"):
        raise ValueError(f"sampler must be 'user' or 'pair' (got {sampler!r})")
    progress = progress or NullProgress()
    t0 = time.perf_counter()
    m = int(m)
    state, p, qd, rng = _start(data, constraint, rho, seed, m)
    pools = _pools(data, m, sampler)
    draw_sizers = {level: ChunkSizer(initial=256, target=CHUNK_SECONDS) for level in range(1, m + 1)}
    repair_sizer = ChunkSizer(initial=64, target=CHUNK_SECONDS)
    passes: list[PassRecord] = []
    last_report = 0.0
    pass_no = 0

    def stopped(level_stats: list[LevelStats]) -> Suppression:
        passes.append(_pass(pass_no, level_stats, state, t0, complete=False))
        return _finish("sampled", state, passes, m, n_s, False, t0, 0)

    while True:
        pass_no += 1
        level_stats: list[LevelStats] = []
        for level in range(1, m + 1):
            if progress.cancelled():
                return stopped(level_stats)
            pool, cum = pools[level - 1]
            if not len(pool):
                level_stats.append(LevelStats(level, 0, 0, 0, 0, 0))
                continue
            level_seed = derive_seed(seed, "samples", pass_no, level)
            sizer = draw_sizers[level]
            while True:  # the level's draws, in chunks; again from its seed if the rule list must grow
                table = np.zeros(_pow2(2 * len(state.rule_e)), dtype=np.int64)
                stream = make_state(level_seed)
                acc = np.zeros(2, dtype=np.int64)
                drawn, n_rules, code = 0, 0, OK
                while drawn < n_s:
                    if progress.cancelled():
                        return stopped(level_stats)
                    k = min(n_s - drawn, sizer.next_size())
                    n_rules, code = draw_and_check(level, k, pool, cum, stream, p, qd, state.dp, state.ep,
                                                   state.cache, state.work, state.rule_q, state.rule_e, table, acc)
                    sizer.done(k)
                    if code == NEED_RULES:
                        break
                    drawn += k
                if code != NEED_RULES:
                    break
                state.grow_rules(4 * len(state.rule_e))
            state.ensure_log(n_rules)
            fixed = np.zeros(2, dtype=np.int64)
            j = 0
            while j < n_rules:
                if progress.cancelled():
                    return stopped(level_stats)
                j1 = min(n_rules, j + repair_sizer.next_size())
                repair_rules(pass_no, level, j, j1, state.rule_q, state.rule_e, p, qd, state.dp, rng, state.work,
                             state.log, fixed)
                repair_sizer.done(j1 - j)
                j = j1
            level_stats.append(LevelStats(level, n_s, int(acc[1]), int(n_rules), int(fixed[0]), int(fixed[1])))
            now = time.perf_counter()
            if now - last_report > 0.1:
                last_report = now
                progress.set(_overall(pass_no - 1, level / m),
                             f"pass {pass_no}: {n_s:,} attackers per size, {state.suppressed:,} items suppressed")
        record = _pass(pass_no, level_stats, state, t0)
        passes.append(record)
        progress.partial(SuppressionProgress("sampled", tuple(passes)))
        if record.clean:
            break
    return _finish("sampled", state, passes, m, n_s, True, t0, 0)


def _pow2(x: int) -> int:
    return 1 << max(int(x) - 1, 1).bit_length()
