"""Probabilistic k^m-anonymization by greedy constrained generalization (Algorithm 2 of Acs et al.).

Levels ``l = 1..m`` run in order on one generalization (item -> partition):

* sampling level (sigma_l < 1): draw ell-itemsets uniformly from the ORIGINAL
  data, map them through the current partitions and check that at least ``k_l``
  generalized records contain them. A failing sample triggers the least-error
  neighbour merge at one of its partitions (lines 13-14) and resets the run of
  k-anonymous samples to ``{s}`` (line 15). The level ends after ``gamma``
  consecutive k-anonymous samples (Theorem 1, see :mod:`.gamma`) or when one
  partition is left.
* exact level (sigma_l = 1, Section VI-D): every generalized itemset that is
  the image of an ell-itemset of some record is enumerated (apriori style,
  counted by sorting packed keys) and each one with support below ``k_l`` is
  repaired the same way. Merging only ever raises supports, so one pass over
  the violators of the enumeration leaves every ell-itemset k-anonymous.
  Counting uses dense counters indexed by the combinatorial number system
  when ``sum_j C(P, j)`` fits the budget (P partitions), sorted packed keys
  otherwise. With ``exact_when_cheaper`` a sigma < 1 level is enumerated
  instead when a deterministic cost model says that is cheaper than sampling
  (typically l = 1, 2): the guarantee is then sigma = 1, which implies sigma.

Reading of line 8: the paper draws with its Markov chain (Algorithm 1,
:class:`~anonstudio.samplers.mcmc_sampler.ItemsetSampler`, ``sampler="mcmc"``).
Theorem 1 needs the samples uniform and independent, which a chain only
approximates after burn-in and thinning. By default we draw them with
:class:`~anonstudio.samplers.independent_sampler.IndependentItemsetSampler`,
which gives exactly that (rejection with the chain's own proposal) and is about
ten times faster on a million people, where the chain's steps dominated the run.

Reading of line 15: the paper puts ``s`` into ``S`` right after one merge, but
one merge need not make ``s`` k-anonymous (e.g. when two of its items sit in
rare partitions), and a non-k-anonymous member of ``S`` breaks Condition 2 of
Theorem 1. We re-check ``s`` after each merge and merge again until it passes;
when one merge suffices (as in Example 1) this is exactly the paper's step.

``r`` independent trials (seeded streams) run on up to ``threads`` threads,
within the studio's thread budget (:mod:`anonstudio.parallel`); the support
kernels and the sampler release the GIL. When a Dask scheduler is chosen for
the run (``--scheduler``, the studio's setting), the trials run as tasks on
that cluster instead (:mod:`.cluster`); either way a trial's numbers depend on
its seed only. Per level, the trial with the least error is reported, so one
run to ``m = M`` gives results for all ``m <= M``.
"""
from __future__ import annotations

import dataclasses
import math
import threading
import time
from typing import Any, Callable

import numpy as np

from ...data.transactions import TransactionData
from ...jobs import CancelOnly, ChunkSizer, NullProgress, PartialRelay, Progress, derive_seed
from ...parallel import budget, remote_client
from ...kernels.generalized_support import (
    binomial_table,
    check_batch,
    dense_count,
    dense_offsets,
    dense_violators,
    remap_and_shuffle,
    count_keys,
    enumerate_keys,
    key_bits,
    unpack_keys,
    violating_keys,
)
from ...kernels.rng import make_state
from .constraints.base import Constraint, ErrorFunction
from ..contract import StagedProgress
from .gamma import sample_bound
from .inputs import prepare_run
from .params import KmAnonParams
from .partition_state import PartitionState
from .result import KmAnonResult, LevelResult, TrialResult

__all__ = ["run_kmanon", "kmanonymize", "SamplerFactory", "SAMPLER_FACTORIES"]

#: ``factory(data, ell, seed, chains)`` -> object with ``burn_in(progress)`` and
#: ``draw(n, progress) -> (items (n, ell) int32, supports)``; optionally
#: ``expected_seconds_per_sample()`` (deterministic), without which "exact when
#: cheaper" never replaces its sampling.
SamplerFactory = Callable[[TransactionData, int, int, int], Any]

# Draw sizes per sampler call: fixed (not timing-based) so that the sequence of
# samples, and hence the result, depends on the seed only.
_DRAW_SCHEDULE = (512, 1024, 2048, 4096, 8192, 16384)
_PARTIAL_EVERY = 1.0  # seconds between partial results inside a level
# Cost model of "exact when cheaper" (see _Trial._exact_is_cheaper), per
# (record, itemset) pair including the re-check of the violators found, as
# measured on 100,000- and 1,000,000-user synthetic cities: dense counters
# that fit in the cache (1.2e-8 s at 1M users, level 2), dense counters with
# random access into hundreds of MB, and sorted 8-byte keys.
_SECONDS_PER_KEY = 3e-7
_SECONDS_PER_CACHED_INCREMENT = 1.5e-8
_SECONDS_PER_INCREMENT = 1e-7
_CACHED_COUNTER_BYTES = 32 << 20
_AUTO_EXACT_SECONDS = 100.0


def mcmc_sampler_factory(data: TransactionData, ell: int, seed: int, chains: int):
    """The MCMC sampler of Algorithm 1 over the original data."""
    from ...samplers.mcmc_sampler import ItemsetSampler

    return ItemsetSampler(data, ell, seed, chains=chains)


def independent_sampler_factory(data: TransactionData, ell: int, seed: int, chains: int):
    """Exactly uniform, independent draws over the original data (rejection; no chain)."""
    from ...samplers.independent_sampler import IndependentItemsetSampler

    return IndependentItemsetSampler(data, ell, seed, streams=chains)


#: ``KmAnonParams.sampler`` -> factory.
SAMPLER_FACTORIES: dict[str, SamplerFactory] = {
    "independent": independent_sampler_factory,
    "mcmc": mcmc_sampler_factory,
}


class _Stop(Exception):
    """A level cannot run as asked (e.g. exact enumeration over budget)."""


class _Hub:
    """Thread-safe fan-in of the trials' progress, partial results and cancel."""

    def __init__(self, progress: Progress, n_trials: int, m: int):
        self.progress = progress
        self.lock = threading.Lock()
        self.fraction = [0.0] * n_trials
        self.m = m
        self.finished: list[list[LevelResult]] = [[] for _ in range(n_trials)]
        self.current: dict[int, LevelResult] = {}
        self.summarize: Callable[..., KmAnonResult] | None = None

    def set(self, trial: int, fraction: float, status: str) -> None:
        with self.lock:
            self.fraction[trial] = max(self.fraction[trial], min(fraction, 1.0))
            total = sum(self.fraction) / len(self.fraction)
            self.progress.set(total, f"trial {trial + 1}: {status}" if len(self.fraction) > 1 else status)

    def level_done(self, trial: int, level: LevelResult) -> None:
        with self.lock:
            self.finished[trial].append(level)
            self.current.pop(trial, None)
            self._publish()

    def live(self, trial: int, level: LevelResult) -> None:
        with self.lock:
            self.current[trial] = level
            self._publish()

    def trial_done(self, trial: int, levels: list[LevelResult]) -> None:
        """A trial that ran elsewhere (a cluster) finished: take its levels at once."""
        with self.lock:
            self.finished[trial] = list(levels)
            self.fraction[trial] = 1.0
            self.current.pop(trial, None)
            self._publish()

    def _publish(self) -> None:
        if self.summarize is not None:
            self.progress.partial(self.summarize(self.finished, tuple(self.current.values())))

    def cancelled(self) -> bool:
        return bool(self.progress.cancelled())


class _Trial:
    """One run of Algorithm 2 with its own seed stream."""

    def __init__(self, data, constraint, error, params: KmAnonParams, trial: int, seed: int,
                 hub: _Hub, sampler_factory: SamplerFactory, chains: int):
        self.data = data
        self.params = params
        self.trial = trial
        self.seed = seed
        self.hub = hub
        self.sampler_factory = sampler_factory
        self.chains = chains
        self.constraint = constraint
        self.error = error
        self.t0 = time.perf_counter()
        self.checks = 0
        self.check_seconds = 0.0
        self.levels: list[LevelResult] = []
        self.level_checks0 = 0
        self.sampling_seconds = 0.0
        self.level_sampling0 = 0.0
        self.level_check_seconds0 = 0.0
        self.complete = True
        self._pairs_key: tuple[int, int] | None = None
        self._pairs = 0
        self.stopped_reason = ""

    # ------------------------------------------------------------ repairing
    def _repair(self, reps: np.ndarray, k: int) -> tuple[bool, int]:
        """Merge until the partitions of the items ``reps`` are k-anonymous.

        Returns (repaired, merges). ``reps`` are item ids; their current
        partitions are looked up after every merge.
        """
        state = self.state
        merges = 0
        while True:
            parts = state.parts_of(reps)
            if state.support_at_least(parts, k) >= k:
                return True, merges
            best = self.cons.best_move(parts, self.err)
            if best is None:
                return False, merges
            move = best[1]
            keep = state.merge(move)
            self.err.merged(move, keep)
            self.cons.merged(move, keep)
            merges += 1

    # ------------------------------------------------------------ snapshots
    def _snapshot(self, level, k, sigma, gamma, mode, samples, violations, merges, unfixable, complete):
        state = self.state
        ids = state.partition_ids()
        names = {}
        if self.cons.partition_name(int(ids[0])) is not None:
            names = {int(p): self.cons.partition_name(int(p)) for p in ids}
        area = None
        if self.err.partition_area(int(ids[0])) is not None:
            users = np.array([state.users(int(p)) for p in ids], dtype=np.float64)
            areas = np.array([self.err.partition_area(int(p)) for p in ids], dtype=np.float64)
            area = float((areas * users).sum() / users.sum() / 1e6) if users.sum() > 0 else 0.0
        return LevelResult(
            level=level, k=k, sigma=sigma, gamma=gamma, mode=mode, samples=samples, violations=violations,
            merges=merges, partitions=state.n_partitions, error=float(self.err.value), avg_area_km2=area,
            seconds=time.perf_counter() - self.t0, support_checks=self.checks - self.level_checks0, unfixable=unfixable,
            complete=complete, labels=state.labels_copy(), names=names,
            sampling_seconds=self.sampling_seconds - self.level_sampling0,
            check_seconds=self.check_seconds - self.level_check_seconds0,
        )

    # ----------------------------------------------------------------- run
    def run(self) -> TrialResult:
        p = self.params
        ks, sigmas = p.k_vector(), p.sigma_vector()
        # Built here, not in __init__, so only running trials hold posting pools.
        self.t0 = time.perf_counter()
        self.state = PartitionState(self.data)
        self._pairs_key = None  # counts of an earlier state never apply
        # Constraint first: some error functions read the constraint's state.
        self.cons = self.constraint.bind(self.state)
        self.err = self.error.bind(self.state)
        try:
            for ell in range(1, p.m + 1):
                level = self._level(ell, ks[ell - 1], sigmas[ell - 1])
                self.levels.append(level)
                self.hub.level_done(self.trial, level)
                if not level.complete:
                    self.complete = False
                    break
        except _Stop as stop:
            self.complete = False
            self.stopped_reason = str(stop)
        return TrialResult(
            trial=self.trial, seed=self.seed, levels=tuple(self.levels), complete=self.complete,
            seconds=time.perf_counter() - self.t0, support_checks=self.checks, check_seconds=self.check_seconds,
        )

    def _level(self, ell: int, k: int, sigma: float) -> LevelResult:
        self.level_checks0 = self.checks
        self.level_sampling0 = self.sampling_seconds
        self.level_check_seconds0 = self.check_seconds
        if self.state.n_partitions <= 1:
            return self._snapshot(ell, k, sigma, 0, "single", 0, 0, 0, 0, True)
        if not np.any(self.data.lengths >= ell):
            return self._snapshot(ell, k, sigma, 0, "empty", 0, 0, 0, 0, True)
        if sigma >= 1.0:
            return self._exact_level(ell, k)
        sampler = self._burnt_in_sampler(ell)
        if self._exact_is_cheaper(ell, sigma, sampler):
            _close(sampler)
            return self._exact_level(ell, k)
        return self._sampling_level(ell, k, sigma, sampler)

    def _exact_is_cheaper(self, ell: int, sigma: float, sampler) -> bool:
        """Would enumerating every ell-itemset cost less than drawing the samples?

        The sampler predicts its cost per sample (``expected_seconds_per_sample``,
        deterministic: from the seeded burn-in or pilot, never from timing), and
        a level draws about ``2 gamma`` samples; :meth:`_exact_plan` predicts
        the enumeration. So the choice depends on the seed only.
        """
        if not self.params.exact_when_cheaper:
            return False
        per_sample = getattr(sampler, "expected_seconds_per_sample", None)
        if per_sample is None:
            return False
        samples = 2 * sample_bound(sigma, self.params.bound).samples
        _, exact_cost = self._exact_plan(ell)
        # The model's error grows with the violators' count, unknown before
        # counting; beyond ~100 s of predicted enumeration, do as the paper does.
        return exact_cost <= min(samples * per_sample() / max(self.chains, 1), _AUTO_EXACT_SECONDS)

    def _progress(self, ell: int, within: float, status: str) -> None:
        self.hub.set(self.trial, (ell - 1 + min(max(within, 0.0), 1.0)) / self.params.m, status)

    # -------------------------------------------------------- sampling level
    def _burnt_in_sampler(self, ell: int):
        """The level's uniform sampler over Omega^ell of the original data, after burn-in."""
        seed = derive_seed(self.seed, "kmanon-sampler", ell)
        sampler = self.sampler_factory(self.data, ell, seed, self.chains)
        self._progress(ell, 0.0, f"level {ell}: preparing the itemset sampler")
        t = time.perf_counter()
        sampler.burn_in(CancelOnly(self.hub.cancelled))
        self.sampling_seconds += time.perf_counter() - t
        return sampler

    def _sampling_level(self, ell: int, k: int, sigma: float, sampler) -> LevelResult:
        state = self.state
        gamma = sample_bound(sigma, self.params.bound).samples
        draw_progress = CancelOnly(self.hub.cancelled)
        run = 0  # |S|: consecutive k-anonymous samples
        drawn = violations = merges = unfixable = 0
        last_partial = time.perf_counter()
        cancelled = False
        # The next chunk is drawn on a helper thread while this one is checked;
        # chunk sizes and order stay fixed, so the samples do not change.
        steps = iter(range(1 << 62))
        prefetch = budget.pool(1, "kmanon-draw")

        def draw_next():
            size = _DRAW_SCHEDULE[min(next(steps), len(_DRAW_SCHEDULE) - 1)]
            return prefetch.submit(sampler.draw, size, draw_progress)

        pending = draw_next()
        try:
            while run < gamma and state.n_partitions > 1:
                if self.hub.cancelled():
                    cancelled = True
                    break
                t = time.perf_counter()
                items, _ = pending.result()
                self.sampling_seconds += time.perf_counter() - t
                # Prefetch unless this chunk may already finish the level.
                pending = draw_next() if gamma - run > len(items) else None
                if len(items) == 0:
                    cancelled = self.hub.cancelled()
                    break
                items = np.ascontiguousarray(items, dtype=np.int32)
                row = 0
                while row < len(items) and run < gamma and state.n_partitions > 1:
                    t = time.perf_counter()
                    fail, passed, checks = check_batch(items, row, state.label, state.pool, state.start,
                                                       state.length, state.bits, state.bit_row, k, gamma - run)
                    self.check_seconds += time.perf_counter() - t
                    self.checks += int(checks)
                    run += int(passed)
                    drawn += int(passed)
                    if fail < 0:
                        break
                    drawn += 1
                    violations += 1
                    ok, n_merged = self._repair(items[fail], k)
                    merges += n_merged
                    if ok:
                        run = 1  # S := {s}
                    else:
                        # No allowed merge can repair s (a disconnected map): it
                        # neither joins S nor resets it; reported as unfixable.
                        unfixable += 1
                        if unfixable > gamma:
                            break
                    row = fail + 1
                self._progress(ell, run / gamma, f"level {ell}: {run:,}/{gamma:,} k-anonymous in a row, "
                                                 f"{state.n_partitions:,} partitions")
                if time.perf_counter() - last_partial > _PARTIAL_EVERY:
                    last_partial = time.perf_counter()
                    self.hub.live(self.trial, self._snapshot(ell, k, sigma, gamma, "sampling", drawn, violations,
                                                             merges, unfixable, False))
                if unfixable > gamma:
                    break
                if pending is None and run < gamma and state.n_partitions > 1:
                    pending = draw_next()
        finally:
            prefetch.shutdown(wait=True)
            _close(sampler)
        complete = not cancelled
        return self._snapshot(ell, k, sigma, gamma, "sampling", drawn, violations, merges, unfixable, complete)

    # ----------------------------------------------------------- exact level
    def _record_itemset_pairs(self, ell: int) -> int:
        """(record, generalized ell-itemset) pairs under the current partitions.

        Kept until the next merge: planning, the cost model and the sorted
        enumeration all ask for it (a full pass over the records, 0.4 s at
        4.4 million people).
        """
        key = (ell, self.state.merges)
        if self._pairs_key != key:
            data = self.data
            self._pairs = int(count_keys(data.indptr, data.indices, self.state.label, ell, int(data.lengths.max())))
            self._pairs_key = key
        return self._pairs

    def _exact_plan(self, ell: int) -> tuple[str, float]:
        """How a level would be enumerated: ("dense" | "sorted" | reason it cannot, estimated seconds).

        Dense counting needs one cell per possible generalized itemset,
        ``sum_j C(P, j)`` (fine once partitions are few); sorting needs one
        8-byte key per (record, itemset) pair. Either must fit the budget.
        """
        data, state = self.data, self.state
        budget = self.params.exact_budget
        increments = self._record_itemset_pairs(ell)
        cells = sum(math.comb(state.n_partitions, j) for j in range(1, ell + 1))
        if cells <= budget:
            cached = 4 * cells <= _CACHED_COUNTER_BYTES
            per_increment = _SECONDS_PER_CACHED_INCREMENT if cached else _SECONDS_PER_INCREMENT
            return "dense", (increments + cells) * per_increment
        if increments <= budget and ell * key_bits(data.n_items) + 1 <= 64:
            return "sorted", increments * _SECONDS_PER_KEY
        return (f"level {ell}: exact enumeration needs {increments:,.0f} (record, itemset) pairs or "
                f"{cells:,} counters, over the budget of {budget:,}; use sigma < 1 for this level or raise "
                f"the budget"), math.inf

    def _over_records(self, ell: int, work: Callable[[int, int], Any]) -> bool:
        """Run ``work(lo, hi)`` over all records in ~0.1 s chunks; False if cancelled.

        Enumerating every itemset of a level can take minutes, so progress and
        cancel must happen between chunks rather than after one long kernel call.
        """
        n = self.data.n_records
        sizer = ChunkSizer(initial=1024, target=0.1)
        lo = 0
        while lo < n:
            hi = min(n, lo + sizer.next_size())
            work(lo, hi)
            sizer.done(hi - lo)
            lo = hi
            self._progress(ell, 0.5 * lo / n, f"level {ell}: enumerating itemsets of {lo:,}/{n:,} records")
            if self.hub.cancelled():
                return False
        return True

    def _dense_violators(self, ell: int, k: int) -> tuple[np.ndarray, np.ndarray, int] | None:
        """(rows of compact partition indices, their partition ids, flagged itemsets); None if cancelled."""
        data, state = self.data, self.state
        ids = state.partition_ids().astype(np.int32)
        compact = np.searchsorted(ids, state.label).astype(np.int32)
        binom = binomial_table(len(ids), ell)
        offsets = dense_offsets(len(ids), ell, binom)
        counts = np.zeros(int(offsets[-1]), dtype=np.int32)
        flags = np.zeros(int(offsets[-1]), dtype=np.uint8)
        max_len = int(data.lengths.max())
        if not self._over_records(ell, lambda lo, hi: dense_count(data.indptr, data.indices, compact, ell, max_len,
                                                                 binom, offsets, counts, flags, lo, hi)):
            return None
        n_bad = int(np.count_nonzero(flags & (counts < k)))
        rows = np.empty((n_bad, ell), dtype=np.int32)
        n_viol, n_flagged = dense_violators(counts, flags, k, offsets, binom, len(ids), ell, rows)
        return rows[:n_viol], ids, int(n_flagged)

    def _sorted_violators(self, ell: int, k: int) -> tuple[np.ndarray, np.ndarray, int] | None:
        """(rows of partition ids, identity lookup, flagged itemsets); None if cancelled."""
        data, state = self.data, self.state
        bits = key_bits(data.n_items)
        max_len = int(data.lengths.max())
        keys = np.empty(self._record_itemset_pairs(ell) + 1, dtype=np.uint64)
        written = [0]

        def chunk(lo: int, hi: int) -> None:
            written[0] = enumerate_keys(data.indptr, data.indices, state.label, ell, bits, max_len, keys, lo, hi,
                                        written[0])

        if not self._over_records(ell, chunk):
            return None
        n = written[0]
        keys = keys[:n]
        keys.sort()
        # Violators overwrite the front of the sorted keys (never ahead of the read position).
        n_viol, n_flagged = violating_keys(keys, n, k, keys)
        rows = np.empty((n_viol, ell), dtype=np.int32)
        unpack_keys(keys[:n_viol], bits, rows)
        return rows, np.arange(data.n_items, dtype=np.int32), int(n_flagged)

    def _exact_level(self, ell: int, k: int) -> LevelResult:
        state = self.state
        self._progress(ell, 0.0, f"level {ell}: planning exact enumeration")
        plan, _ = self._exact_plan(ell)
        if plan not in ("dense", "sorted"):
            raise _Stop(plan)
        self._progress(ell, 0.0, f"level {ell}: enumerating all {ell}-itemsets ({plan})")
        found = self._dense_violators(ell, k) if plan == "dense" else self._sorted_violators(ell, k)
        if found is None:  # cancelled while counting: nothing merged yet, the map is still valid
            return self._snapshot(ell, k, 1.0, 0, "exact", 0, 0, 0, 0, False)
        rows, ids, n_flagged = found
        n_viol = len(rows)
        # Violators are repaired in a random order (one stream per trial) so
        # that trials explore different generalizations, as sampling would.
        # Rows become item ids (a partition id is the id of one of its items),
        # so they are checked and repaired like drawn samples.
        remap_and_shuffle(rows, ids, make_state(derive_seed(self.seed, "kmanon-exact", ell)))
        last = time.perf_counter()
        violations = merges = unfixable = 0
        complete = True
        row = 0
        while row < n_viol:
            t = time.perf_counter()
            fail, passed, checks = check_batch(rows, row, state.label, state.pool, state.start, state.length,
                                               state.bits, state.bit_row, k, n_viol + 1)
            self.check_seconds += time.perf_counter() - t
            self.checks += int(checks)
            if fail < 0:
                break
            violations += 1
            ok, n_merged = self._repair(rows[fail], k)
            merges += n_merged
            if not ok:
                unfixable += 1
            row = fail + 1
            if time.perf_counter() - last > 0.1:
                last = time.perf_counter()
                self._progress(ell, row / max(n_viol, 1), f"level {ell}: exact, {row:,}/{n_viol:,} violators")
                if self.hub.cancelled():
                    complete = False
                    break
        return self._snapshot(ell, k, 1.0, 0, "exact", int(n_flagged), violations, merges, unfixable, complete)


def _close(sampler) -> None:
    close = getattr(sampler, "close", None)
    if callable(close):
        close()


def _best_per_level(finished: list[list[LevelResult]], m: int) -> tuple[tuple[LevelResult, ...], tuple[int, ...]]:
    levels: list[LevelResult] = []
    best: list[int] = []
    for ell in range(1, m + 1):
        cands = [(not lv[ell - 1].complete, lv[ell - 1].error, t) for t, lv in enumerate(finished) if len(lv) >= ell]
        if not cands:
            break
        incomplete, _, t = min(cands)
        levels.append(finished[t][ell - 1])
        best.append(t)
        if incomplete:
            break
    return tuple(levels), tuple(best)


def kmanonymize(
    data: TransactionData,
    constraint: Constraint,
    params: KmAnonParams,
    progress: Progress | None = None,
    *,
    error: ErrorFunction | None = None,
    sampler_factory: SamplerFactory | None = None,
) -> KmAnonResult:
    """Run Algorithm 2 ``params.trials`` times and keep the least-error result per level.

    Parameters
    ----------
    data
        The original set-valued data.
    constraint
        Which merges are allowed (:mod:`.constraints`).
    params
        k, m, sigma (or per-level vectors), bound, trials, seed.
    progress
        Receives progress, a partial :class:`KmAnonResult` after every level
        (and every second within one), and may cancel: the result then holds
        the generalization reached so far, marked incomplete.
    error
        Error function; default: the constraint's own.
    sampler_factory
        Uniform sampler over Omega^ell of the original data (default: the one
        ``params.sampler`` names).

    The params are not validated here: the pipeline (:func:`anonstudio.methods.contract.run_and_verify`)
    does it once, before any work.
    """
    progress = progress or NullProgress()
    error = error or constraint.default_error()
    factory = sampler_factory or SAMPLER_FACTORIES[params.sampler]
    r = params.trials
    # Sampler streams per trial depend on the trials only, never on the
    # threads: a performance knob must not change the data.
    chains = 2 if r == 1 else 1
    hub = _Hub(progress, r, params.m)
    t0 = time.perf_counter()

    def summarize(finished, current=(), trials=(), complete=False, reason=""):
        levels, best = _best_per_level(finished, params.m)
        if not trials:
            # Partial results carry every trial's finished levels too, so the
            # per-trial points of the plots vs m fill in while trials run.
            trials = tuple(TrialResult(t, seeds[t], tuple(done), False, 0.0, 0, 0.0)
                           for t, done in enumerate(finished) if done)
        return KmAnonResult(
            levels=levels, best_trial=best, trials=tuple(trials), complete=complete,
            constraint=constraint.name, error_name=error.name, error_unit=error.unit, m=params.m,
            seconds=time.perf_counter() - t0, stopped_reason=reason, current=tuple(current),
            sampler=params.sampler if sampler_factory is None else getattr(factory, "__name__", "custom"),
        )

    hub.summarize = summarize
    seeds = [derive_seed(params.seed, "kmanon-trial", t) for t in range(r)]
    # One trial gains nothing from a cluster (its streams are threads of one process): it runs here.
    client = remote_client() if r > 1 else None
    if client is not None:
        from .cluster import run_trials_on_cluster

        results, reasons = run_trials_on_cluster(client, data, constraint, error, params, seeds, hub, factory,
                                                 chains)
    else:
        trials = [_Trial(data, constraint, error, params, t, seeds[t], hub, factory, chains) for t in range(r)]
        # Trials one after another (each then has the whole thread budget for its streams) or side by side,
        # each with its share: the threads parameter caps the trials at once, the budget caps the threads.
        if budget.workers(min(params.threads, r)) == 1:
            results = [t.run() for t in trials]
        else:
            with budget.pool(min(params.threads, r), "kmanon-trial") as pool:
                results = list(pool.map(lambda t: t.run(), trials))
        reasons = [t.stopped_reason for t in trials]
    finished = [list(res.levels) for res in results]
    reason = next((text for text in reasons if text), "")
    complete = all(res.complete for res in results) and not reason
    out = summarize(finished, (), results, complete, reason)
    progress.set(1.0, "done" if complete else "stopped")
    return out


def run_kmanon(data: TransactionData, params: KmAnonParams, progress: Progress | None = None) -> KmAnonResult:
    """Anonymize ``data`` as ``params`` say: load the merge rule's files, then run :func:`kmanonymize`.

    The result (and every partial result published through ``progress``) carries the dataset the
    partitions refer to and, for touching-towers merging, the items' cells. Given the pipeline's
    :class:`~anonstudio.methods.contract.StagedProgress`, the work reports in its ``anonymize`` stage.
    """
    progress = progress or NullProgress()
    if isinstance(progress, StagedProgress):
        progress = progress.stage("anonymize")
    prepared = prepare_run(data, params)

    def attach(result: KmAnonResult) -> KmAnonResult:
        return dataclasses.replace(result, data=prepared.data, cells=prepared.cells, projection=prepared.projection)

    result = kmanonymize(prepared.data, prepared.constraint, params, PartialRelay(progress, attach))
    return attach(result)
