"""Risk on one scale: prosecutor risk, share at risk and attribute disclosure for m known items.

For a target person and a known set K (m of their items drawn uniformly among
their m-item subsets, all of them when they have fewer), with C the candidates
(:mod:`anonstudio.kernels.evaluate_risk`) and "own" meaning the target's own
published record is in C:

* prosecutor risk: the mean over targets of [own] / |C|;
* share at risk: the share of (target, K) with own and |C| < k;
* attribute disclosure: the share of (target, K) with own and some sensitive
  value of the target, not in K, whose probability summed over C exceeds ρ |C|.

Each is a mean over targets of a mean over their known sets, so a target
counts once whatever the length of their record. *Exact* enumerates every
(target, K); *sampled* draws targets uniformly and K uniformly among theirs,
and reports a Hoeffding interval for the prosecutor risk (values in [0, 1])
and Wilson intervals for the two shares, at confidence 1 - δ.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from itertools import combinations, islice

import numpy as np

from ..jobs import NullProgress, Progress, kernel_seeds
from ..kernels.evaluate_risk import KIND_DIST, NO_BUDGET, exact_targets, sampled_pairs
from ..metrics.intervals import hoeffding_interval, hoeffding_samples, wilson_interval
from ..parallel import budget
from .model import People, Published

__all__ = ["Measure", "Level", "Context", "exact_level", "sampled_level", "known_set_at", "METHODS"]

METHODS = ("auto", "exact", "sampled")
#: Known sets per chunk of an exact count (progress and cancel between chunks).
_CHUNK_PAIRS = 1 << 16
#: Draws per independently seeded block of a sample (a result never depends on threads or chunking).
_BLOCK = 2048
#: Tolerance of "held by more than a fraction ρ", as in the kernel.
_TOL = 1e-9


@dataclass(frozen=True)
class Measure:
    """One risk figure: its value and interval (equal when exact) and how the interval was made."""

    value: float
    low: float
    high: float
    exact: bool
    interval: str

    def to_json(self) -> dict:
        return {"value": self.value, "low": self.low, "high": self.high, "exact": self.exact,
                "interval": self.interval}

    @classmethod
    def exactly(cls, value: float) -> Measure:
        return cls(value, value, value, True, "exact")


@dataclass
class Level:
    """The risk measures at one m, and what claims need (per target when exact, per draw when sampled)."""

    m: int
    method: str
    known_sets: int
    samples: int
    prosecutor_risk: Measure
    share_at_risk: Measure
    attribute_disclosure: Measure | None
    seconds: float
    complete: bool = True
    detail: dict = field(default_factory=dict, repr=False)

    def to_json(self) -> dict:
        return {
            "m": self.m, "method": self.method, "known_sets": self.known_sets,
            "samples": self.samples if self.method == "sampled" else None,
            "prosecutor_risk": self.prosecutor_risk.to_json(),
            "share_at_risk": self.share_at_risk.to_json(),
            "attribute_disclosure": self.attribute_disclosure.to_json() if self.attribute_disclosure else None,
            "complete": self.complete, "seconds": round(self.seconds, 4),
        }


#: Largest size of the per-item record bit sets (bytes); beyond it candidates are found from posting lists.
BITS_LIMIT = 512 * 1024 * 1024


def _writable(a: np.ndarray, dtype) -> np.ndarray:
    """A contiguous, writable array (loaded datasets are read-only, and numba compiles those apart)."""
    a = np.ascontiguousarray(a, dtype=dtype)
    return a if a.flags.writeable else a.copy()


@dataclass(eq=False)
class Context:
    """The arrays every kernel call takes, built once per evaluation."""

    people: People
    published: Published
    bits_limit: int = BITS_LIMIT

    def __post_init__(self) -> None:
        p, r = self.people, self.published
        n_record_atoms = p.atoms.qi_base
        self.n_record_atoms = max(n_record_atoms, 1)
        self.post_indptr, self.post_recs = r.record_postings(self.n_record_atoms)
        self.cs_indptr, self.cs_atoms, self.cs_sum = r.class_sums(np.unique(p.sens_atoms), self.n_record_atoms)
        self.valid = r.valid_bits()
        self.tuple_rows = p.tuple_rows()
        # Own record of every person (the release may lack someone: -1).
        self.own = np.ascontiguousarray(r.own, dtype=np.int64)
        self._bits()

    def _bits(self) -> None:
        """Per record atom, the records holding it as bits (releases of one class whose bit sets fit)."""
        r = self.published
        words = (r.n_records + 63) // 64
        size = self.n_record_atoms * max(words, 1) * 8 * (2 if r.worlds else 1)
        self.uses_bits = r.n_classes == 1 and r.n_records > 0 and size <= self.bits_limit
        if not self.uses_bits:
            self.abits = np.zeros((0, 1), dtype=np.uint64)
            self.nzw_indptr = np.zeros(1, dtype=np.int64)
            self.nzw = np.zeros(0, dtype=np.int64)
            self.uprob = np.zeros(0)
            self.dbits = np.zeros((0, 1), dtype=np.uint64)
            self.min_budget = np.int64(NO_BUDGET)
            return
        owner = np.repeat(np.arange(r.n_records, dtype=np.int64), np.diff(r.a_indptr))
        bit = np.left_shift(np.uint64(1), (owner & 63).astype(np.uint64))
        self.abits = np.zeros((self.n_record_atoms, words), dtype=np.uint64)
        np.bitwise_or.at(self.abits, (r.a_atoms, owner >> 6), bit)
        nonzero = self.abits != 0
        self.nzw_indptr = np.zeros(self.n_record_atoms + 1, dtype=np.int64)
        np.cumsum(nonzero.sum(axis=1), out=self.nzw_indptr[1:])
        self.nzw = np.ascontiguousarray(np.nonzero(nonzero)[1], dtype=np.int64)
        # An atom whose every entry has one probability (plain: 1, a partition's item: 1/|partition|) sums by
        # counting bits.
        lo = np.full(self.n_record_atoms, np.inf)
        hi = np.full(self.n_record_atoms, -np.inf)
        np.minimum.at(lo, r.a_atoms, r.a_prob)
        np.maximum.at(hi, r.a_atoms, r.a_prob)
        self.uprob = np.where(lo == hi, lo, -1.0)
        self.uprob[np.isinf(lo)] = 0.0  # an atom no record holds
        if r.worlds:
            dist = r.a_kind == KIND_DIST
            self.dbits = np.zeros_like(self.abits)
            np.bitwise_or.at(self.dbits, (r.a_atoms[dist], owner[dist] >> 6), bit[dist])
        else:
            self.dbits = np.zeros((0, 1), dtype=np.uint64)
        self.min_budget = np.int64(r.budget.min()) if r.n_records else np.int64(NO_BUDGET)

    def arrays(self, m: int) -> tuple:
        """The kernels' arguments for known sets of up to ``m`` items."""
        if getattr(self, "_arrays", None) is None:
            self._arrays = self._build_arrays()
        return self._arrays + (self._low_budget(m),)

    def _low_budget(self, m: int) -> np.ndarray:
        """Bits of the records whose threshold is below m (only they can reject m known items for it)."""
        r = self.published
        if not self.uses_bits or not r.worlds:
            return np.zeros(max(self.abits.shape[1], 1), dtype=np.uint64)
        words = self.abits.shape[1]
        low = np.flatnonzero(r.budget < m)
        bits = np.zeros(words, dtype=np.uint64)
        np.bitwise_or.at(bits, low >> 6, np.left_shift(np.uint64(1), (low & 63).astype(np.uint64)))
        return bits

    def _build_arrays(self) -> tuple:
        p, r = self.people, self.published
        return (_writable(p.pool_indptr, np.int64), _writable(p.pool_items, np.int32),
                _writable(p.sens_indptr, np.int64), _writable(p.sens_atoms, np.int64), self.own,
                _writable(p.tuple_of, np.int64), self.tuple_rows,
                r.colbits, self.valid, r.rec_class, r.class_size, self.cs_indptr, self.cs_atoms, self.cs_sum,
                r.a_indptr, r.a_atoms, r.a_kind, r.a_prob, r.budget, self.post_indptr, self.post_recs,
                self.n_record_atoms, self.abits, self.nzw_indptr, self.nzw, self.uprob, self.dbits, self.min_budget)


def _chunks(pairs: np.ndarray) -> list[tuple[int, int]]:
    """Contiguous target ranges of about ``_CHUNK_PAIRS`` known sets each."""
    cum = np.cumsum(pairs)
    out, lo = [], 0
    n = len(pairs)
    while lo < n:
        base = cum[lo - 1] if lo else 0
        hi = int(np.searchsorted(cum, base + _CHUNK_PAIRS, side="right"))
        hi = max(hi, lo + 1)
        out.append((lo, min(hi, n)))
        lo = hi
    return out


def pairs_per_person(people: People, m: int) -> np.ndarray:
    sizes = np.diff(people.pool_indptr)
    out = np.ones(len(sizes), dtype=np.int64)
    for size in np.unique(sizes[sizes > m]):
        out[sizes == size] = math.comb(int(size), m)
    return out


def exact_level(ctx: Context, m: int, k: int, rho: float, progress: Progress | None = None) -> Level:
    """Every (target, known set) at ``m``; ``complete=False`` with the finished targets only when cancelled."""
    progress = progress or NullProgress()
    t0 = time.perf_counter()
    people = ctx.people
    n = people.n
    order = np.argsort(people.tuple_of, kind="stable").astype(np.int64)
    per = pairs_per_person(people, m)[order]
    total = int(per.sum())
    outs = {
        "pairs": np.zeros(n, np.int64), "pr": np.zeros(n), "risk": np.zeros(n, np.int64), "attr": np.zeros(n, np.int64),
        "min_count": np.full(n, -1, np.int64), "min_at": np.full(n, -1, np.int64), "max_conf": np.full(n, -1.0),
        "conf_at": np.full(n, -1, np.int64), "conf_atom": np.full(n, -1, np.int64),
        "min_distinct": np.full(n, -1, np.int64),
    }
    keys = list(outs)
    arrays = ctx.arrays(m)
    chunks = _chunks(per)
    done_targets = np.zeros(n, dtype=bool)
    threads = max(1, budget.available())

    def work(lo: int, hi: int) -> None:
        views = [outs[key][lo:hi] for key in keys]
        exact_targets(order, lo, hi, m, k, rho, *arrays, *views)

    complete = True
    counted = 0
    with budget.pool(threads, "evaluate") as pool:
        for start in range(0, len(chunks), threads):
            batch = chunks[start:start + threads]
            list(pool.map(lambda c: work(*c), batch))
            for lo, hi in batch:
                done_targets[lo:hi] = True
                counted += int(per[lo:hi].sum())
            progress.set(counted / max(total, 1), f"m={m}: {counted:,} of {total:,} known sets")
            if progress.cancelled() and start + threads < len(chunks):
                complete = False
                break
    # Back from the chunk order to people.
    by_person = {key: np.empty_like(value) for key, value in outs.items()}
    for key, value in outs.items():
        by_person[key][order] = value
    finished = np.zeros(n, dtype=bool)
    finished[order] = done_targets
    pairs = np.maximum(by_person["pairs"], 1)
    sel = finished
    targets = int(sel.sum())
    pr = float(np.mean(by_person["pr"][sel] / pairs[sel])) if targets else math.nan
    risk = float(np.mean(by_person["risk"][sel] / pairs[sel])) if targets else math.nan
    attr = float(np.mean(by_person["attr"][sel] / pairs[sel])) if targets else math.nan
    detail = {"per_person": by_person, "finished": finished}
    return Level(
        m=m, method="exact", known_sets=total, samples=0,
        prosecutor_risk=Measure.exactly(pr), share_at_risk=Measure.exactly(risk),
        attribute_disclosure=Measure.exactly(attr) if people.sensitive_given else None,
        seconds=time.perf_counter() - t0, complete=complete, detail=detail,
    )


def samples_for(epsilon: float, delta: float) -> int:
    """Draws for ±epsilon at confidence 1 - delta (Hoeffding, which bounds the Wilson intervals too)."""
    return hoeffding_samples(epsilon, delta)


def sampled_level(ctx: Context, m: int, k: int, rho: float, n_draws: int, seed: int, delta: float,
                  progress: Progress | None = None) -> Level:
    """``n_draws`` uniform (target, K) at ``m`` in seeded blocks; intervals at confidence 1 - ``delta``."""
    progress = progress or NullProgress()
    t0 = time.perf_counter()
    people = ctx.people
    n_blocks = (n_draws + _BLOCK - 1) // _BLOCK
    seeds = kernel_seeds(seed, n_blocks, "evaluate-risk", m)
    target = np.zeros(n_draws, np.int64)
    known = np.full((n_draws, max(m, 1)), -1, np.int64)
    count = np.zeros(n_draws, np.int64)
    own = np.zeros(n_draws, np.bool_)
    conf = np.full(n_draws, -1.0)
    conf_atom = np.full(n_draws, -1, np.int64)
    arrays = ctx.arrays(m)
    threads = max(1, budget.available())

    def work(b: int) -> None:
        lo, hi = b * _BLOCK, min((b + 1) * _BLOCK, n_draws)
        state = np.array([np.uint64(seeds[b])], dtype=np.uint64)
        sampled_pairs(state, hi - lo, m, *arrays, target[lo:hi], known[lo:hi], count[lo:hi], own[lo:hi],
                      conf[lo:hi], conf_atom[lo:hi])

    done = 0
    complete = True
    with budget.pool(threads, "evaluate") as pool:
        for start in range(0, n_blocks, threads):
            blocks = list(range(start, min(start + threads, n_blocks)))
            list(pool.map(work, blocks))
            done = min((blocks[-1] + 1) * _BLOCK, n_draws)
            progress.set(done / n_draws, f"m={m}: {done:,} of {n_draws:,} sampled targets")
            if progress.cancelled() and done < n_draws:
                complete = False
                break
    s = slice(0, done)
    values = np.where(own[s], 1.0 / np.maximum(count[s], 1), 0.0)
    at_risk = own[s] & (count[s] < k)
    disclosed = own[s] & (conf[s] * count[s] > rho * count[s] + _TOL)
    pr = float(values.mean()) if done else math.nan
    lo_hi = hoeffding_interval(pr, done, delta) if done else (0.0, 1.0)
    share = float(at_risk.mean()) if done else math.nan
    attr = float(disclosed.mean()) if done else math.nan
    detail = {"target": target[s], "known": known[s], "count": count[s], "own": own[s], "conf": conf[s],
              "conf_atom": conf_atom[s]}
    return Level(
        m=m, method="sampled", known_sets=int(pairs_per_person(people, m).sum()), samples=done,
        prosecutor_risk=Measure(pr, *lo_hi, False, "hoeffding"),
        share_at_risk=Measure(share, *wilson_interval(int(at_risk.sum()), done, delta), False, "wilson"),
        attribute_disclosure=(Measure(attr, *wilson_interval(int(disclosed.sum()), done, delta), False, "wilson")
                              if people.sensitive_given else None),
        seconds=time.perf_counter() - t0, complete=complete, detail=detail,
    )


def known_set_at(people: People, u: int, m: int, index: int) -> list[int]:
    """The ``index``-th known set of person ``u`` at ``m``, in the exact count's (combinations) order."""
    pool = people.pool(u).tolist()
    if len(pool) <= m:
        return pool
    return list(next(islice(combinations(pool, m), index, None)))
