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
:data:`PERSON_EXPLANATION`).
"""
from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...data.transactions import TransactionData
from ...jobs import ChunkSizer, NullProgress, Progress, SubProgress, kernel_seeds
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
from ...params import ParameterError, param, seed_param, validate
from ...samplers.mcmc_sampler import PROPOSALS, ItemsetSampler

__all__ = [
    "UniquenessParams",
    "UniquenessPoint",
    "UniquenessResult",
    "RiskResult",
    "MEASURES",
    "uniqueness_curve",
    "person_unicity_curve",
    "hoeffding_samples",
    "hoeffding_half_width",
    "exact_uniqueness",
    "enumeration_cost",
    "exact_memory_plan",
    "ExactPlan",
    "default_memory_limit",
    "EXPLANATION",
    "PERSON_EXPLANATION",
]

#: Plain-language meaning of the itemset-level curve (for tooltips and plot captions).
EXPLANATION = (
    "Uniqueness(m): of all combinations of m items that occur in the data, the share "
    "that belongs to exactly one person. An attacker who knows such a combination "
    "about someone can single that person out."
)

#: Plain-language meaning of the person-level curve.
PERSON_EXPLANATION = (
    "Unicity(m): chance that a person is unique given m of their items -- pick a person "
    "with at least m items at random and m of their items at random; how often does "
    "no one else have all m? This is the person-level measure of de Montjoye et al. It "
    "is a different quantity from itemset uniqueness: it weights each person equally, "
    "so combinations shared by many people are drawn more often, and Acs et al. point "
    "out that it therefore comes out lower than the share of unique itemsets."
)

#: Keys per enumeration chunk (8 bytes each, twice for the radix sort's scratch).
_MAX_CHUNK_KEYS = 1 << 21

#: Bytes per enumerated key: the key itself and the radix sort's scratch copy.
BYTES_PER_KEY = 16


def default_memory_limit() -> int:
    """A quarter of the physical memory in bytes (1 GiB if the system does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")) // 4
    except (AttributeError, ValueError, OSError):
        return 1 << 30


MEASURES = ("both", "itemset", "person")


@dataclass(frozen=True)
class UniquenessParams:
    """Settings of the uniqueness curves (itemset uniqueness and person unicity vs m)."""

    measure: str = param("both", label="Measure", choices=MEASURES,
                         choice_labels=("Both curves", "Itemset uniqueness", "Person unicity"),
                         choice_tooltips=(EXPLANATION + " Then: " + PERSON_EXPLANATION, EXPLANATION,
                                          PERSON_EXPLANATION),
                         tooltip="Itemset uniqueness: the share of m-item combinations in the data held by one "
                                 "person. Person unicity: the chance that a person is unique given m of their "
                                 "items. They answer different questions; both are shown side by side.")
    max_m: int = param(5, label="Largest m", minimum=1, maximum=30, flag="--m", metavar="M",
                       tooltip="Compute uniqueness for itemsets of up to this many items (m = items the "
                               "attacker knows).")
    min_m: int = param(1, label="Smallest m", minimum=1, maximum=30, advanced=True,
                       tooltip="Start the curves at itemsets of this many items.")
    epsilon: float = param(0.01, label="Error ε", minimum=0.001, maximum=0.5, step=0.005, decimals=3,
                           tooltip="Sampled estimates are within ±ε of the true value (with confidence 1-δ). "
                                   "Halving ε needs four times as many samples.")
    delta: float = param(0.01, label="Failure chance δ", minimum=1e-6, maximum=0.5, step=0.005, decimals=4,
                         tooltip="Chance that a sampled estimate misses the ±ε band.")
    seed: int = seed_param(tooltip="Same seed, same samples: runs can be repeated exactly.")
    method: str = param("auto", label="Method", choices=("auto", "exact", "mcmc"),
                        choice_labels=("Automatic", "Exact (enumerate all)", "Sampling (MCMC)"),
                        choice_tooltips=("Count exactly when the records hold at most 'exact budget' "
                                         "combinations and the counting fits in memory; sample otherwise.",
                                         "Enumerate and count every m-item combination (exact, can be slow).",
                                         "Estimate from a uniform sample of itemsets (Algorithm 1's Markov "
                                         "chain), within ±ε with confidence 1-δ."),
                        tooltip="Exact counts every combination; sampling estimates from a uniform sample. "
                                "Automatic counts exactly when that is cheap enough (see exact budget).")
    exact_budget: int = param(100_000_000, label="Exact budget (combinations)", minimum=1,
                              maximum=1_000_000_000_000, log_scale=True, advanced=True,
                              enabled_when={"method": ("auto", "exact")},
                              tooltip="Count exactly only if the records hold at most this many m-item "
                                      "combinations in total (counting takes about 1 second per 15 million).")
    max_memory_gib: float | None = param(None, label="Exact memory limit (GiB)", minimum=0.001, maximum=4096.0,
                                         step=0.5, decimals=3, optional=True, advanced=True,
                                         none_means="a quarter of this computer's memory",
                                         flag="--max-memory", metavar="GIB",
                                         enabled_when={"method": ("auto", "exact")},
                                         tooltip="Exact counting sorts every combination in memory; refuse it (and "
                                                 "let Automatic sample instead) when it would need more than this. "
                                                 "Unset: a quarter of this computer's memory.")
    max_sample_factor: float = param(8.0, label="Sample budget ×", minimum=1.0, maximum=100.0, advanced=True,
                                     tooltip="When samples are correlated, keep sampling until they are worth "
                                             "as many independent ones as ε and δ ask for, up to this many times "
                                             "that number (1: never draw more).")
    proposal: str = param("size-weighted", label="Sampler proposal", choices=PROPOSALS, advanced=True,
                          choice_labels=("Records weighted by size (faster mixing)", "Records uniform (paper)"),
                          tooltip="How the sampler proposes itemsets. Both give uniform samples; weighting "
                                  "records by their number of combinations rejects fewer proposals.")

    def check(self) -> None:
        if self.min_m > self.max_m:
            raise ParameterError(f"Smallest m ({self.min_m}) is larger than largest m ({self.max_m})",
                                 name="min_m")


@dataclass(frozen=True)
class UniquenessPoint:
    """Uniqueness of one itemset size m.

    ``method`` is ``"exact"``, ``"mcmc"`` or ``"sampling"`` (person-level, i.i.d.).
    ``samples`` is the number of random draws the value rests on (0 for ``exact``,
    which draws nothing); ``itemsets`` is |Omega^m|, the number of distinct
    m-itemsets in the data, when it was counted (``exact``), else ``None``.
    ``precision_met`` is False when the interval is wider than the ±epsilon asked
    for (the sample cap was reached first); ``warning`` then says so in plain words.
    ``ci_kind`` says how the interval was made: ``"exact"`` (zero width),
    ``"hoeffding-ess"`` (Hoeffding at the effective sample size ``ess``) or
    ``"hoeffding"`` (i.i.d. samples). ``diagnostics`` holds method-specific numbers
    (burn-in steps, thinning, acceptance rate, Geweke z, counts).
    """

    m: int
    uniqueness: float
    ci_low: float
    ci_high: float
    method: str
    samples: int
    seconds: float
    ci_kind: str = "exact"
    ess: float = math.nan
    diagnostics: dict[str, Any] = field(default_factory=dict)
    itemsets: int | None = None
    precision_met: bool = True
    warning: str = ""


@dataclass(frozen=True)
class UniquenessResult:
    """Points of a uniqueness curve; ``complete=False`` when cancelled before the last m."""

    points: tuple[UniquenessPoint, ...]
    complete: bool
    kind: str = "itemset"
    epsilon: float = math.nan
    delta: float = math.nan

    @property
    def explanation(self) -> str:
        """Plain-language meaning of this curve (:data:`EXPLANATION` or :data:`PERSON_EXPLANATION`)."""
        return PERSON_EXPLANATION if self.kind == "person" else EXPLANATION

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON: one list per column, plus ``kind``, ``complete`` and diagnostics.

        ``samples`` counts random draws (0 for exact points); ``itemsets`` is the
        number of distinct m-itemsets for exact points (null otherwise);
        ``precision_met`` is false where the interval is wider than ±epsilon, with
        the reason in ``warnings``; ``complete`` is false when the run was cancelled
        (the lists then hold the finished m only).
        """
        pts = self.points
        return {
            "m": [p.m for p in pts],
            "uniqueness": [_num(p.uniqueness) for p in pts],
            "ci_low": [_num(p.ci_low) for p in pts],
            "ci_high": [_num(p.ci_high) for p in pts],
            "method": [p.method for p in pts],
            "samples": [p.samples for p in pts],
            "seconds": [round(p.seconds, 4) for p in pts],
            "itemsets": [p.itemsets for p in pts],
            "precision_met": [bool(p.precision_met) for p in pts],
            "warnings": [p.warning for p in pts],
            "kind": self.kind,
            "complete": self.complete,
            "epsilon": _num(self.epsilon),
            "delta": _num(self.delta),
            "ci_kind": [p.ci_kind for p in pts],
            "ess": [_num(p.ess) for p in pts],
            "diagnostics": [_jsonable(p.diagnostics) for p in pts],
        }


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
    threads: int = 2,
) -> ExactPlan:
    """Chunks and thread count whose sort buffers fit in ``max_memory_bytes``.

    Each thread holds two buffers (keys and sort scratch) as long as the largest
    chunk. Chunks are shrunk, then threads dropped, until that fits. The subsets
    sharing one smallest item cannot be split, so they set the least memory needed.

    Raises
    ------
    ParameterError
        When even one chunk on one thread does not fit.
    ValueError
        When m-itemsets cannot be packed into 64-bit keys.
    """
    budget = default_memory_limit() if max_memory_bytes is None else int(max_memory_bytes)
    per_item = _per_item_subsets(data, m)
    bits = item_bits(data.n_items)
    for t in range(max(threads, 1), 0, -1):
        cap = min(max_chunk_keys, budget // (BYTES_PER_KEY * t))
        if cap < 1:
            continue
        chunks = plan_chunks(per_item, m, bits, cap)
        size = max((c[2] for c in chunks), default=0)
        used = max(1, min(t, len(chunks)))
        peak = BYTES_PER_KEY * used * size
        if peak <= budget:
            return ExactPlan(m, tuple(chunks), used, peak)
    need = BYTES_PER_KEY * float(per_item.max(initial=0.0))
    raise ParameterError(
        f"exact counting of m={m} needs ~{_format_bytes(need)} of memory (limit {_format_bytes(budget)}); "
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
    threads: int = 2,
    max_memory_bytes: int | None = None,
) -> tuple[int, int] | None:
    """``(|Omega^m|, unique m-itemsets)`` by enumeration; None if cancelled.

    Chunks (ranges of smallest items, see :func:`~anonstudio.kernels.enumerate.plan_chunks`)
    are enumerated, radix-sorted and counted on ``threads`` threads at a time,
    each with its own buffers. :func:`exact_memory_plan` sizes the chunks so the
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

    def count(job: int, chunk: tuple[int, int, int]) -> tuple[int, int, int]:
        lo, hi, _ = chunk
        keys, tmp = buffers[job]
        n = enumerate_keys(data.indptr, data.indices, m, lo, hi, bits, keys)
        key_bits = (m - 1) * bits + max(int(hi - lo - 1).bit_length(), 1)
        d, s = count_runs(radix_sort(keys[:n], tmp[:n], key_bits))
        return n, int(d), int(s)

    distinct = unique = done = 0
    with budget.pool(threads, "enumerate") as pool:
        for start in range(0, len(chunks), threads):
            batch = chunks[start : start + threads]
            for n, d, s in pool.map(count, range(len(batch)), batch):
                distinct += d
                unique += s
                done += n
            progress.set(done / max(total, 1), f"m={m}: counted {done:,} of {total:,} combinations")
            if progress.cancelled():
                return None
    return distinct, unique


# ------------------------------------------------------------------------ curves
def uniqueness_curve(data: TransactionData, params: UniquenessParams, progress: Progress | None = None) -> UniquenessResult:
    """Uniqueness for m = ``min_m .. max_m``; a partial result is published after every m."""
    validate(params)
    return _curve(data, params, progress or NullProgress(), _itemset_point, "itemset")


def person_unicity_curve(data: TransactionData, params: UniquenessParams, progress: Progress | None = None) -> UniquenessResult:
    """Record-first unicity for m = ``min_m .. max_m`` (see :data:`PERSON_EXPLANATION`).

    Draws ``hoeffding_samples(eps, delta)`` (person, m of their items) pairs
    independently; the interval is the i.i.d. Hoeffding interval.
    """
    validate(params)
    return _curve(data, params, progress or NullProgress(), _person_point, "person")


uniqueness_curve.EXPLANATION = EXPLANATION


@dataclass(frozen=True)
class RiskResult:
    """The curves one Risk run computed (``measure`` says which); ``None`` for a curve not (yet) computed."""

    measure: str
    itemset: UniquenessResult | None = None
    person: UniquenessResult | None = None

    @property
    def curves(self) -> tuple[UniquenessResult, ...]:
        return tuple(c for c in (self.itemset, self.person) if c is not None)

    @property
    def complete(self) -> bool:
        wanted = {"both": ("itemset", "person"), "itemset": ("itemset",), "person": ("person",)}[self.measure]
        return all(getattr(self, k) is not None and getattr(self, k).complete for k in wanted)

    def to_json(self) -> dict[str, Any]:
        """The first curve's columns at the top level (as ``uniqueness --json`` always wrote); with both
        measures the person curve under ``"person"``."""
        first = self.itemset if self.measure != "person" else self.person
        doc = first.to_json() if first is not None else {"m": [], "kind": self.measure, "complete": False}
        if self.measure == "both":
            doc["person"] = self.person.to_json() if self.person is not None else None
        doc["complete"] = self.complete
        doc["measure"] = self.measure
        return doc

    def summary(self) -> dict[str, float]:
        """``uniqueness_m<m>`` and ``unicity_m<m>`` for every finished m."""
        out: dict[str, float] = {}
        for curve, prefix in ((self.itemset, "uniqueness"), (self.person, "unicity")):
            for p in curve.points if curve is not None else ():
                out[f"{prefix}_m{p.m}"] = p.uniqueness
        return out



person_unicity_curve.EXPLANATION = PERSON_EXPLANATION


def _curve(data, params, progress, point_fn, kind) -> UniquenessResult:
    ms = list(range(params.min_m, params.max_m + 1))
    points: list[UniquenessPoint] = []

    def result(complete: bool) -> UniquenessResult:
        return UniquenessResult(tuple(points), complete, kind, params.epsilon, params.delta)

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


def _itemset_point(data: TransactionData, m: int, params: UniquenessParams, progress: Progress) -> UniquenessPoint | None:
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
                           diagnostics={"omega": distinct, "unique": unique, "combinations": int(cost),
                                        "peak_bytes": plan.peak_bytes, "threads": plan.threads})


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


def _person_point(data: TransactionData, m: int, params: UniquenessParams, progress: Progress) -> UniquenessPoint | None:
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


# ------------------------------------------------------------------------ json
def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else float(x)


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return _num(float(obj))
    return obj
