"""How unique are the m-itemsets of a dataset? (Acs et al., BigData 2015, Section VI-B)

``Uniqueness(m) = |{x : |x| = m, supp(x) = 1}| / |{x : |x| = m, supp(x) >= 1}|``: the
share of the m-itemsets occurring in the data that occur in exactly one record.
An attacker who learns one such itemset of a person (drawn uniformly from all
itemsets in the data) singles that person out with this probability.

Two ways to get it, recorded per point in ``method``:

* ``exact``: enumerate every m-subset of every record (:mod:`anonstudio.kernels.enumerate`);
  ``auto`` uses it when the number of subsets ``sum_u C(|D_u|, m)`` is at most
  ``exact_budget`` and the sort buffers fit in the memory limit (``max_memory_gib``,
  default a quarter of the physical memory). The buffers of one chunk cannot be
  smaller than the subsets sharing one smallest item; when even those do not fit,
  ``exact`` is refused with a :class:`~anonstudio.params.ParameterError` rather
  than letting the machine swap or die.
* ``mcmc``: draw ``n = ceil(ln(2/delta) / (2 eps^2))`` itemsets uniformly from
  Omega^m with :class:`~anonstudio.samplers.mcmc_sampler.ItemsetSampler` and
  report the share with support 1. The paper's text prints ``2 ln(2/delta)/eps^2``
  samples, but its own figure of 26,492 samples at eps = delta = 0.01 is the
  two-sided Hoeffding bound used here. The interval is the Hoeffding half-width
  ``sqrt(ln(2/delta) / (2 n_eff))`` at the *effective* sample size of the chain
  (``ci_kind = "hoeffding-ess"``), so autocorrelation left after thinning widens it.
  Sampling continues until the effective sample size reaches n (at most
  ``max_sample_factor * n`` draws). When that cap stops it first, the interval is
  wider than ±eps; the point then says ``precision_met=False`` and carries a
  plain-language ``warning`` (raise ``max_sample_factor`` or count exactly).

  Limitation: the interval assumes the chain has visited Omega^m in proportion.
  An itemset the proposal almost never offers (e.g. the one item of T10I4D100K
  that occurs once, among a million item occurrences) may never be visited in a
  run, and a series of identical indicators then looks perfectly precise. Such
  cases are cheap to count exactly, which ``auto`` does.

:func:`person_unicity_curve` answers a different, person-level question (see
:data:`~.params.PERSON_EXPLANATION`).
"""
from __future__ import annotations

import concurrent.futures
import math
import os
import queue
import time
from dataclasses import dataclass

import numpy as np

from ...data.transactions import TransactionData
from ...jobs import ChunkSizer, NullProgress, PartialRelay, Progress, SubProgress, kernel_seeds
from ...kernels.enumerate import (
    count_runs,
    enumerate_keys,
    item_bits,
    plan_chunks,
    radix_sort,
    subsets_by_smallest_item,
)
from ...kernels.mcmc_sampler import record_first_supports
from ...parallel import budget
from ...params import ParameterError
from ...samplers.mcmc_sampler import ItemsetSampler
from ..contract import StagedProgress
from .params import UniquenessParams
from .result import CURVES, UniquenessCurve, UniquenessPoint, UniquenessResult

__all__ = [
    "run_uniqueness",
    "uniqueness_curve",
    "person_unicity_curve",
    "hoeffding_samples",
    "hoeffding_half_width",
    "exact_uniqueness",
    "enumeration_cost",
    "exact_memory_plan",
    "ExactPlan",
    "default_memory_limit",
]

#: Keys per enumeration chunk (8 bytes each, twice for the radix sort's scratch).
_MAX_CHUNK_KEYS = 1 << 21
#: Smallest chunk cut for the sake of spreading work over threads (each chunk scans every record once).
_MIN_SPREAD_KEYS = 1 << 18

#: Bytes per enumerated key: the key itself and the radix sort's scratch copy.
BYTES_PER_KEY = 16


def default_memory_limit() -> int:
    """A quarter of the physical memory in bytes (1 GiB if the system does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")) // 4
    except (AttributeError, ValueError, OSError):
        return 1 << 30


# ----------------------------------------------------------------- sample sizes
def hoeffding_samples(epsilon: float, delta: float) -> int:
    """Samples for ``P(|estimate - truth| > eps) <= delta``: ``ceil(ln(2/delta) / (2 eps^2))``.

    26,492 at eps = delta = 0.01, the number Acs et al. report (their text's
    ``2 ln(2/delta)/eps^2`` would be four times larger).
    """
    return int(math.ceil(math.log(2.0 / delta) / (2.0 * epsilon * epsilon)))


def hoeffding_half_width(n: float, delta: float) -> float:
    """Two-sided Hoeffding half-width for a mean of ``n`` values in [0, 1]."""
    if n <= 0:
        return math.inf
    return math.sqrt(math.log(2.0 / delta) / (2.0 * n))


# ------------------------------------------------------------------------ exact
def enumeration_cost(data: TransactionData, m: int) -> float:
    """``sum_u C(|D_u|, m)``: keys exact enumeration would sort."""
    return float(_per_item_subsets(data, m).sum())


def _per_item_subsets(data: TransactionData, m: int) -> np.ndarray:
    return subsets_by_smallest_item(data.indptr, data.indices, data.n_items, m)


@dataclass(frozen=True)
class ExactPlan:
    """How exact counting of one m will run: item-range chunks, threads and peak buffer bytes."""

    m: int
    chunks: tuple[tuple[int, int, int], ...]
    threads: int
    peak_bytes: int


def exact_memory_plan(
    data: TransactionData,
    m: int,
    max_memory_bytes: int | None = None,
    max_chunk_keys: int = _MAX_CHUNK_KEYS,
    threads: int | None = None,
) -> ExactPlan:
    """Chunks and thread count whose sort buffers fit in ``max_memory_bytes``.

    Each thread holds two buffers (keys and sort scratch) as long as the largest
    chunk. Chunks are shrunk, then threads dropped, until that fits. The subsets
    sharing one smallest item cannot be split, so they set the least memory needed.
    ``threads`` None: the thread budget available here (:data:`anonstudio.parallel.budget`).

    Raises
    ------
    ParameterError
        When even one chunk on one thread does not fit.
    ValueError
        When m-itemsets cannot be packed into 64-bit keys.
    """
    threads = budget.available() if threads is None else threads
    limit = default_memory_limit() if max_memory_bytes is None else int(max_memory_bytes)
    per_item = _per_item_subsets(data, m)
    bits = item_bits(data.n_items)
    # On several threads the chunks are cut smaller, about 8 per thread, so that threads finishing early take the
    # next chunk instead of waiting for one long last chunk (the counts do not depend on the chunks).
    spread = max(_MIN_SPREAD_KEYS, -(-int(per_item.sum()) // (8 * threads))) if threads > 1 else max_chunk_keys
    for t in range(max(threads, 1), 0, -1):
        cap = min(max_chunk_keys, spread, limit // (BYTES_PER_KEY * t))
        if cap < 1:
            continue
        chunks = plan_chunks(per_item, m, bits, cap)
        size = max((c[2] for c in chunks), default=0)
        used = max(1, min(t, len(chunks)))
        peak = BYTES_PER_KEY * used * size
        if peak <= limit:
            return ExactPlan(m, tuple(chunks), used, peak)
    need = BYTES_PER_KEY * float(per_item.max(initial=0.0))
    raise ParameterError(
        f"exact counting of m={m} needs ~{_format_bytes(need)} of memory (limit {_format_bytes(limit)}); "
        "use sampling (method mcmc) or a higher memory limit",
        name="method",
    )


def _format_bytes(n: float) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} bytes"


def exact_uniqueness(
    data: TransactionData,
    m: int,
    progress: Progress | None = None,
    max_chunk_keys: int = _MAX_CHUNK_KEYS,
    threads: int | None = None,
    max_memory_bytes: int | None = None,
) -> tuple[int, int] | None:
    """``(|Omega^m|, unique m-itemsets)`` by enumeration; None if cancelled.

    Chunks (ranges of smallest items, see :func:`~anonstudio.kernels.enumerate.plan_chunks`)
    are enumerated, radix-sorted and counted on ``threads`` threads at a time
    (None: the thread budget), each with its own buffers. :func:`exact_memory_plan` sizes the chunks so the
    buffers stay within ``max_memory_bytes`` (default: a quarter of the memory).

    Raises
    ------
    ParameterError
        When the counting cannot fit in ``max_memory_bytes``.
    ValueError
        When m-itemsets cannot be packed into 64-bit keys (huge m and vocabulary).
    """
    plan = exact_memory_plan(data, m, max_memory_bytes, max_chunk_keys, threads)
    return _run_exact(data, plan, progress or NullProgress())


def _run_exact(data: TransactionData, plan: ExactPlan, progress: Progress) -> tuple[int, int] | None:
    m, chunks, threads = plan.m, plan.chunks, plan.threads
    bits = item_bits(data.n_items)
    total = sum(c[2] for c in chunks)
    size = max((c[2] for c in chunks), default=0)
    buffers = [(np.empty(size, dtype=np.uint64), np.empty(size, dtype=np.uint64)) for _ in range(threads)]

    def count(pair: tuple[np.ndarray, np.ndarray], chunk: tuple[int, int, int]) -> tuple[int, int, int]:
        lo, hi, _ = chunk
        keys, tmp = pair
        n = enumerate_keys(data.indptr, data.indices, m, lo, hi, bits, keys)
        key_bits = (m - 1) * bits + max(int(hi - lo - 1).bit_length(), 1)
        d, s = count_runs(radix_sort(keys[:n], tmp[:n], key_bits))
        return n, int(d), int(s)

    # Each chunk takes a free pair of buffers; the pool has at most as many workers as pairs. Chunks are handed out
    # as threads free up (no join per batch), and the integer counts add up the same in any order.
    free: queue.SimpleQueue = queue.SimpleQueue()
    for pair in buffers:
        free.put(pair)

    def counted(chunk: tuple[int, int, int]) -> tuple[int, int, int]:
        pair = free.get()
        try:
            return count(pair, chunk)
        finally:
            free.put(pair)

    distinct = unique = done = 0
    with budget.pool(threads, "enumerate") as pool:
        futures = [pool.submit(counted, chunk) for chunk in chunks]
        for future in concurrent.futures.as_completed(futures):
            n, d, s = future.result()
            distinct += d
            unique += s
            done += n
            progress.set(done / max(total, 1), f"m={m}: counted {done:,} of {total:,} combinations")
            if progress.cancelled():
                for f in futures:  # the chunks not started yet; the running ones end within a chunk
                    f.cancel()
                return None
    return distinct, unique


# ------------------------------------------------------------------------ curves
def run_uniqueness(data: TransactionData, params: UniquenessParams,
                   progress: Progress | None = None) -> UniquenessResult:
    """The curves ``params.measure`` asks for: itemset uniqueness first, then person unicity.

    A partial :class:`UniquenessResult` is published after every m; a cancel returns the finished points,
    marked incomplete. Given the pipeline's :class:`~anonstudio.methods.contract.StagedProgress`, each curve
    reports in its stage (``itemset``, ``person``). The params are validated by the pipeline
    (:func:`anonstudio.methods.contract.run_and_verify`), not again here.
    """
    progress = progress or NullProgress()
    wanted = CURVES[params.measure]
    itemset = None
    if "itemset" in wanted:
        itemset = uniqueness_curve(data, params, PartialRelay(
            _stage(progress, "itemset"), lambda c: UniquenessResult(params.measure, c, None)))
        if not itemset.complete:
            return UniquenessResult(params.measure, itemset, None)
    person = None
    if "person" in wanted:
        person = person_unicity_curve(data, params, PartialRelay(
            _stage(progress, "person"), lambda c: UniquenessResult(params.measure, itemset, c)))
    return UniquenessResult(params.measure, itemset, person)


def _stage(progress: Progress, key: str) -> Progress:
    """The sub-progress of stage ``key`` of the pipeline's staged progress; a direct caller's progress as it is."""
    return progress.stage(key) if isinstance(progress, StagedProgress) else progress


def uniqueness_curve(data: TransactionData, params: UniquenessParams,
                     progress: Progress | None = None) -> UniquenessCurve:
    """Uniqueness for m = ``min_m .. max_m``; a partial curve is published after every m."""
    return _curve(data, params, progress or NullProgress(), _itemset_point, "itemset")


def person_unicity_curve(data: TransactionData, params: UniquenessParams,
                         progress: Progress | None = None) -> UniquenessCurve:
    """Record-first unicity for m = ``min_m .. max_m`` (see :data:`~.params.PERSON_EXPLANATION`).

    Draws ``hoeffding_samples(eps, delta)`` (person, m of their items) pairs
    independently; the interval is the i.i.d. Hoeffding interval.
    """
    return _curve(data, params, progress or NullProgress(), _person_point, "person")


def _curve(data, params, progress, point_fn, kind) -> UniquenessCurve:
    ms = list(range(params.min_m, params.max_m + 1))
    points: list[UniquenessPoint] = []

    def result(complete: bool) -> UniquenessCurve:
        return UniquenessCurve(tuple(points), complete, kind, params.epsilon, params.delta)

    for i, m in enumerate(ms):
        point = point_fn(data, m, params, SubProgress(progress, i / len(ms), (i + 1) / len(ms)))
        if point is None:  # cancelled inside this m: keep the finished ones
            return result(False)
        points.append(point)
        last = i == len(ms) - 1
        progress.partial(result(last))
        if not last and progress.cancelled():
            return result(False)
    progress.set(1.0, "done")
    return result(True)


def _itemset_point(data: TransactionData, m: int, params: UniquenessParams,
                   progress: Progress) -> UniquenessPoint | None:
    t0 = time.perf_counter()
    cost = enumeration_cost(data, m)
    if cost == 0:  # no record has m items: Omega^m is empty, uniqueness undefined
        method = "mcmc" if params.method == "mcmc" else "exact"
        return UniquenessPoint(m, math.nan, math.nan, math.nan, method, 0, time.perf_counter() - t0,
                               ci_kind="exact", itemsets=0,
                               diagnostics={"omega": 0, "unique": 0, "combinations": 0})
    plan = _exact_plan(data, m, params, cost)
    if plan is None:
        return _mcmc_point(data, m, params, progress, t0)
    counts = _run_exact(data, plan, progress)
    if counts is None:
        return None
    distinct, unique = counts
    u = unique / distinct
    return UniquenessPoint(m, u, u, u, "exact", 0, time.perf_counter() - t0, ci_kind="exact", itemsets=distinct,
                           # The memory plan's threads and peak bytes follow the thread budget: left out, so that
                           # a point reads the same at any thread count.
                           diagnostics={"omega": distinct, "unique": unique, "combinations": int(cost)})


def _exact_plan(data: TransactionData, m: int, params: UniquenessParams, cost: float) -> ExactPlan | None:
    """The exact-counting plan if exact counting is to be used, None for sampling.

    ``auto`` counts exactly only when it is cheap, packable and fits in memory;
    ``exact`` raises :class:`ParameterError` when it cannot run.
    """
    if params.method == "mcmc":
        return None
    limit = None if params.max_memory_gib is None else int(params.max_memory_gib * (1 << 30))
    if params.method == "auto":
        if cost > params.exact_budget or not _packable(data, m):
            return None
        try:
            return exact_memory_plan(data, m, limit)
        except ParameterError:
            return None
    if not _packable(data, m):
        raise ParameterError(f"exact counting of {m}-itemsets over {data.n_items:,} items is not supported; "
                             "use sampling", name="method")
    return exact_memory_plan(data, m, limit)


def _packable(data: TransactionData, m: int) -> bool:
    return (m - 1) * item_bits(data.n_items) <= 63


def _mcmc_point(data, m, params, progress, t0) -> UniquenessPoint | None:
    """Estimate from n uniform samples, drawing more while the effective sample size is below n.

    Thinning removes most but not all autocorrelation; on data where the chain
    lingers in rare states (dense data such as chess) the effective sample size
    of n thinned draws can be far below n. Drawing on until it reaches n (at most
    ``max_sample_factor * n`` draws) keeps the interval near the requested ±eps.
    """
    n = hoeffding_samples(params.epsilon, params.delta)
    cap = int(params.max_sample_factor * n)
    sampler = ItemsetSampler(data, m, seed=params.seed, proposal=params.proposal)
    parts: list[np.ndarray] = []
    ess = ess_support = 0.0
    steps = accepted = 0.0
    try:
        report = sampler.burn_in(SubProgress(progress, 0.0, 0.15, prefix=f"m={m} "))
        want = n
        while want > 0:
            if progress.cancelled():
                return None
            drawn = sum(len(p) for p in parts)
            lo = 0.15 + 0.85 * drawn / cap
            hi = 0.15 + 0.85 * (drawn + want) / cap
            _, supports = sampler.draw(want, SubProgress(progress, lo, hi, prefix=f"m={m} "))
            if len(supports) < want:
                return None
            parts.append(supports)
            d = sampler.last_draw
            ess += d.ess_unique
            ess_support += d.ess_support
            steps += d.steps
            accepted += d.acceptance_rate * d.steps
            drawn += want
            if ess >= n or drawn >= cap:
                break
            # Draws needed at the ESS-per-draw seen so far, at least a quarter of n more.
            per_draw = max(ess / drawn, 1e-9)
            want = min(max(int(math.ceil((n - ess) / per_draw)), n // 4, 1), cap - drawn)
    finally:
        sampler.close()
    supports = np.concatenate(parts)
    u = float(np.mean(supports == 1))
    ess = min(ess, float(len(supports)))
    h = hoeffding_half_width(ess, params.delta)
    diagnostics = {
        "burn_in_steps": report.steps,
        "converged": report.converged,
        "geweke_z": list(report.geweke_z),
        "thinning": report.thinning,
        "acceptance_rate": accepted / max(steps, 1.0),
        "burn_in_acceptance_rate": report.acceptance_rate,
        "steps": int(steps),
        "samples_needed": n,
        "ess_unique": ess,
        "ess_support": ess_support,
        "chains": sampler.chains,
        "proposal": sampler.proposal,
        "combinations": enumeration_cost(data, m),
    }
    met, warning = _precision(h, params.epsilon, len(supports), cap)
    return UniquenessPoint(m, u, max(u - h, 0.0), min(u + h, 1.0), "mcmc", len(supports), time.perf_counter() - t0,
                           ci_kind="hoeffding-ess", ess=ess, diagnostics=diagnostics,
                           precision_met=met, warning=warning)


def _precision(half_width: float, epsilon: float, drawn: int, cap: int) -> tuple[bool, str]:
    """Whether the interval is within ±epsilon, and a plain-language warning if not."""
    # A hair of tolerance: the half-width at exactly the requested sample size equals epsilon.
    if half_width <= epsilon * (1.0 + 1e-9):
        return True, ""
    return False, (f"precision not reached: ±{half_width:.4f} instead of ±{epsilon:g}, because the samples are "
                   f"correlated and the cap of {cap:,} draws was reached ({drawn:,} drawn); raise the sample "
                   "budget or count exactly")


def _person_point(data: TransactionData, m: int, params: UniquenessParams,
                  progress: Progress) -> UniquenessPoint | None:
    t0 = time.perf_counter()
    n = hoeffding_samples(params.epsilon, params.delta)
    eligible = np.flatnonzero(data.lengths >= m).astype(np.int32)
    if len(eligible) == 0:
        return UniquenessPoint(m, math.nan, math.nan, math.nan, "sampling", 0, time.perf_counter() - t0,
                               ci_kind="hoeffding")
    post_indptr, post_records = data.inverted()
    rng = np.array(kernel_seeds(params.seed, 1, "person-unicity", m), dtype=np.uint64)
    supports = np.empty(n, dtype=np.int64)
    done = 0
    sizer = ChunkSizer(initial=4096, minimum=256)
    while done < n:
        k = min(sizer.next_size(), n - done)
        record_first_supports(rng, eligible, data.indptr, data.indices, post_indptr, post_records, m,
                              supports[done:done + k])
        sizer.done(k)
        done += k
        progress.set(done / n, f"m={m}: {done:,}/{n:,} people")
        if progress.cancelled():
            return None
    u = float(np.mean(supports == 1))
    h = hoeffding_half_width(n, params.delta)
    return UniquenessPoint(m, u, max(u - h, 0.0), min(u + h, 1.0), "sampling", n, time.perf_counter() - t0,
                           ci_kind="hoeffding", ess=float(n), diagnostics={"people": int(len(eligible))})
