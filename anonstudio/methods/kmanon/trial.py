"""One trial of Algorithm 2 and the fan-in that gathers the trials.

A :class:`Trial` runs the levels ``l = 1..m`` with its own seed stream (see
:mod:`.algorithm` for the algorithm and its readings of the paper); a
:class:`TrialHub` collects the progress, partial results and cancel of all the
trials of a run. Both live here, below :mod:`.algorithm` and :mod:`.cluster`,
because the local pool (:func:`.algorithm.kmanonymize`) and the cluster tasks
(:mod:`.cluster`) run the very same trial.
"""
from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import numpy as np

from ...data.transactions import TransactionData
from ...jobs import CancelOnly, ChunkSizer, Progress, derive_seed
from ...kernels.generalized_support import (
    binomial_table,
    check_batch,
    count_keys,
    dense_count,
    dense_offsets,
    dense_violators,
    enumerate_keys,
    key_bits,
    remap_and_shuffle,
    unpack_keys,
    violating_keys,
)
from ...kernels.rng import make_state
from ...parallel import budget
from .gamma import sample_bound
from .params import KmAnonParams
from .partition_state import PartitionState
from .result import KmAnonResult, LevelResult, TrialResult

__all__ = ["Trial", "TrialHub", "TrialStop", "SamplerFactory", "close_sampler"]

#: ``factory(data, ell, seed, chains)`` -> object with ``burn_in(progress)`` and
#: ``draw(n, progress) -> (items (n, ell) int32, supports)``; optionally
#: ``expected_seconds_per_sample()`` (deterministic), without which "exact when
#: cheaper" never replaces its sampling.
SamplerFactory = Callable[[TransactionData, int, int, int], Any]

# Draw sizes per sampler call: fixed (not timing-based) so that the sequence of
# samples, and hence the result, depends on the seed only.
_DRAW_SCHEDULE = (512, 1024, 2048, 4096, 8192, 16384)
_PARTIAL_EVERY = 1.0  # seconds between partial results inside a level
# Cost model of "exact when cheaper" (see Trial._exact_is_cheaper), per
# (record, itemset) pair including the re-check of the violators found, as
# measured on 100,000- and 1,000,000-user synthetic cities: dense counters
# that fit in the cache (1.2e-8 s at 1M users, level 2), dense counters with
# random access into hundreds of MB, and sorted 8-byte keys.
_SECONDS_PER_KEY = 3e-7
_SECONDS_PER_CACHED_INCREMENT = 1.5e-8
_SECONDS_PER_INCREMENT = 1e-7
_CACHED_COUNTER_BYTES = 32 << 20
_AUTO_EXACT_SECONDS = 100.0
# Below this many records a pass over them is over before threads would pay off.
_THREADED_RECORDS = 50_000


class TrialStop(Exception):
    """A level cannot run as asked (e.g. exact enumeration over budget)."""


class TrialHub:
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


class Trial:
    """One run of Algorithm 2 with its own seed stream."""

    def __init__(self, data, constraint, error, params: KmAnonParams, trial: int, seed: int,
                 hub: TrialHub, sampler_factory: SamplerFactory, chains: int):
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
        except TrialStop as stop:
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
            return self._exact_level(ell, k, refine=True)
        sampler = self._burnt_in_sampler(ell)
        if self._exact_is_cheaper(ell, sigma, sampler):
            close_sampler(sampler)
            return self._exact_level(ell, k, refine=False)
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
        # The next chunk is drawn on a helper thread while this one is checked,
        # when the trial's budget has a second thread for it (on one thread the
        # chunk is drawn here, before it is checked); chunk sizes and order stay
        # fixed, so the samples do not change.
        steps = iter(range(1 << 62))
        prefetch = budget.pool(1, "kmanon-draw") if budget.available() > 1 else _InlineDraws()

        def draw_next():
            size = _DRAW_SCHEDULE[min(next(steps), len(_DRAW_SCHEDULE) - 1)]
            return prefetch.submit(sampler.draw, size, draw_progress)

        try:
            pending = draw_next()
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
                    fail, passed, checks = check_batch(items, row, state.label, state.base, state.pool, state.start,
                                                       state.length, state.bits, state.item_rows, state.bit_row, k,
                                                       gamma - run)
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
            close_sampler(sampler)
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
            data, label = self.data, self.state.label
            max_len = int(data.lengths.max())
            self._pairs = int(sum(self._in_slices(
                lambda lo, hi: count_keys(data.indptr, data.indices, label, ell, max_len, lo, hi))))
            self._pairs_key = key
        return self._pairs

    def _in_slices(self, work: Callable[[int, int], Any]) -> list[Any]:
        """``work(lo, hi)`` over a slice of the records per thread of the budget (one below 50,000 records)."""
        n = self.data.n_records
        threads = budget.available() if n >= _THREADED_RECORDS else 1
        if threads == 1:
            return [work(0, n)]
        cuts = np.linspace(0, n, threads + 1).astype(np.int64)
        with budget.pool(threads, "kmanon-count") as pool:
            return [f.result() for f in [pool.submit(work, int(cuts[t]), int(cuts[t + 1])) for t in range(threads)]]

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
        max_len = int(data.lengths.max())
        # Each thread counts a slice of every chunk into counters of its own;
        # the sums and ORs are the one-thread counts, whatever the thread count.
        # Extra counters cost 5 bytes a cell each: only while they stay small.
        small = 5 * int(offsets[-1]) <= _CACHED_COUNTER_BYTES
        threads = budget.available() if data.n_records >= _THREADED_RECORDS and small else 1
        counts = [np.zeros(int(offsets[-1]), dtype=np.int32) for _ in range(threads)]
        flags = [np.zeros(int(offsets[-1]), dtype=np.uint8) for _ in range(threads)]

        def count(t: int, lo: int, hi: int) -> None:
            dense_count(data.indptr, data.indices, compact, ell, max_len, binom, offsets, counts[t], flags[t], lo, hi)

        if threads == 1:
            if not self._over_records(ell, lambda lo, hi: count(0, lo, hi)):
                return None
        else:
            with budget.pool(threads, "kmanon-exact") as pool:
                def chunk(lo: int, hi: int) -> None:
                    cuts = np.linspace(lo, hi, threads + 1).astype(np.int64)
                    for done in [pool.submit(count, t, int(cuts[t]), int(cuts[t + 1])) for t in range(threads)]:
                        done.result()

                if not self._over_records(ell, chunk):
                    return None
        for t in range(1, threads):
            counts[0] += counts[t]
            flags[0] |= flags[t]
        counts, flags = counts[0], flags[0]
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

    def _exact_level(self, ell: int, k: int, refine: bool) -> LevelResult:
        """Enumerate every generalized ell-itemset and repair the violators.

        ``refine`` (sigma = 1 asked for): once every violator is repaired, the
        constraint may undo generalization the level does not need
        (``exact_relax``). A sigma < 1 level that is enumerated because that is
        cheaper stays as its repairs leave it, as a sampled level would.
        """
        state = self.state
        self._progress(ell, 0.0, f"level {ell}: planning exact enumeration")
        plan, _ = self._exact_plan(ell)
        if plan not in ("dense", "sorted"):
            raise TrialStop(plan)
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
            fail, passed, checks = check_batch(rows, row, state.label, state.base, state.pool, state.start,
                                               state.length, state.bits, state.item_rows, state.bit_row, k, n_viol + 1)
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
        if complete and refine:
            self._progress(ell, 1.0, f"level {ell}: undoing generalization that k^{ell} does not need")
            self.cons.exact_relax(self.data, ell, k, self.err, self.params.exact_budget, self.hub.cancelled)
        return self._snapshot(ell, k, 1.0, 0, "exact", int(n_flagged), violations, merges, unfixable, complete)


class _InlineDraws:
    """A stand-in for the prefetch pool on a one-thread budget: ``submit`` draws at once."""

    def submit(self, fn: Callable, *args: Any) -> Future:
        done: Future = Future()
        done.set_result(fn(*args))  # a failing draw raises here, inside the level's try (the sampler is closed)
        return done

    def shutdown(self, wait: bool = True) -> None:
        pass


def close_sampler(sampler) -> None:
    """Release a sampler's resources (threads, pools) if it holds any."""
    close = getattr(sampler, "close", None)
    if callable(close):
        close()
