"""Independent check of a published k^m-anonymization (sigma-k^m-anonymity, Definition 1).

Given the ORIGINAL data and the published item -> partition map, estimate for
each ``l <= m`` the fraction of ell-itemsets of the original data (uniform over
Omega^ell) whose generalized support is at least ``k``, with a Clopper-Pearson
confidence interval. Small cases are enumerated exactly.

Shares no code with the anonymizer: its own exact rejection sampler (no MCMC),
its own posting lists and intersections (:mod:`anonstudio.kernels.kmanon_verify`).
Counting stops once a support is known to reach k (that is all the check asks).
"""
from __future__ import annotations

import contextlib
import csv
import dataclasses
import functools
import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..data.errors import DataFormatError
from ..data.transactions import TransactionData
from ..formatting import integer, percent
from ..jobs import NullProgress, Progress, derive_seed
from ..kernels.kmanon_verify import (
    draw_uniform_itemsets,
    generalized_supports,
    guide_table,
    list_bitsets,
    longest_first,
    pair_supports,
    records_of_lists_in_order,
)
from ..parallel import budget

#: Largest pair table (int32 cells) and pass over the records' pairs (increments) for ℓ = 2.
_PAIR_TABLE_CELLS = 1 << 24
_PAIR_TABLE_WORK = 4e9
#: Most memory for the partitions' record bitsets (33 MB for 265 partitions of a million people).
_PART_BITS_BYTES = 256 << 20

__all__ = ["KmVerifyPoint", "KmVerifyResult", "verify_km", "read_partition_map", "clopper_pearson"]


@dataclass(frozen=True)
class KmVerifyPoint:
    """The check of itemsets of one size ``ell``."""

    ell: int
    k: int
    method: str  # "exact" or "sampling"
    itemsets: int  # checked (all of Omega^ell when exact)
    k_anonymous: int
    fraction: float
    ci_low: float
    ci_high: float
    seconds: float
    proposals: int = 0
    #: The promised share of k-anonymous itemsets at this size.
    sigma: float = 1.0

    @property
    def verdict(self) -> str:
        """``confirmed``, ``no violation found``, ``consistent`` or ``below target``.

        An exact count confirms or breaks σ outright. A sample can never
        confirm σ = 1 (its interval always reaches below 1), so a sample
        without a single violation gets its own, reassuring verdict; the
        promise counts as broken only when the whole interval lies below σ.
        """
        if self.method == "exact":
            return "confirmed" if self.fraction >= self.sigma else "below target"
        if self.ci_low >= self.sigma:
            return "confirmed"
        if self.ci_high < self.sigma:
            return "below target"
        if self.k_anonymous == self.itemsets:
            return "no violation found"
        return "consistent"

    @property
    def passed(self) -> bool:
        return self.verdict != "below target"

    def line(self, confidence: float) -> str:
        """What was checked at this size and what it found, in one line.

        An enumeration says it was exhaustive; a sample says it was sampled, with the
        lower bound its interval puts on the k-anonymous share (rounded down, never up).
        """
        shared = f"shared by ≥ {integer(self.k)} people"
        target = f"σ = {self.sigma:g}: {self.verdict}"
        if self.method == "exact":
            return (f"ℓ = {self.ell}: exhaustive: {integer(self.k_anonymous)} of {integer(self.itemsets)} itemsets "
                    f"{shared} ({percent(self.fraction, 2)}), {target}")
        bound = percent(math.floor(self.ci_low * 1e4) / 1e4, 2)
        if self.k_anonymous == self.itemsets:
            return (f"ℓ = {self.ell}: sampled: no violation in {integer(self.itemsets)} itemsets (so at least "
                    f"{bound} are {shared}, {percent(confidence, 0)} confidence), {target}")
        return (f"ℓ = {self.ell}: sampled: {integer(self.k_anonymous)} of {integer(self.itemsets)} itemsets {shared} "
                f"({percent(self.fraction, 2)}; {percent(confidence, 0)} interval {bound} – "
                f"{percent(math.ceil(self.ci_high * 1e4) / 1e4, 2)}), {target}")

    def to_json(self) -> dict:
        return {
            "ell": self.ell, "k": self.k, "sigma": self.sigma, "method": self.method, "itemsets": self.itemsets,
            "k_anonymous": self.k_anonymous, "fraction": self.fraction,
            "ci_low": self.ci_low, "ci_high": self.ci_high, "verdict": self.verdict, "passed": self.passed,
            "seconds": round(self.seconds, 4),
        }


@dataclass(frozen=True)
class KmVerifyResult:
    """The check of every itemset size ``ℓ = 1..m`` (``points``); ``complete`` is False when it was cancelled."""

    points: tuple[KmVerifyPoint, ...]
    confidence: float
    complete: bool
    partitions: int = 0

    @property
    def passed(self) -> bool:
        """No itemset size is statistically below its promised σ (exact sizes: none below σ)."""
        return all(p.passed for p in self.points)

    def lines(self) -> list[str]:
        """One line per itemset size, saying whether it was exhaustive or sampled (:meth:`KmVerifyPoint.line`)."""
        return [p.line(self.confidence) for p in self.points]

    def summary(self) -> dict[str, float]:
        out: dict[str, float] = {"passed": float(self.passed)}
        for p in self.points:
            out[f"k_anonymous_share_l{p.ell}"] = p.fraction
        return out

    def to_json(self) -> dict:
        return {
            "confidence": self.confidence, "complete": self.complete, "passed": self.passed,
            "partitions": self.partitions, "levels": [p.to_json() for p in self.points],
        }


def clopper_pearson(successes: int, n: int, confidence: float) -> tuple[float, float]:
    """Exact two-sided binomial confidence interval for a proportion."""
    if n == 0:
        return 0.0, 1.0
    a = 1.0 - confidence
    # The beta quantiles by the inverse regularized incomplete beta function, which is what
    # scipy.stats.beta.ppf evaluates (the same values, bit for bit), without importing scipy.stats: that
    # import was the largest part of a small k^m command's whole process.
    if successes == n and 0.0 < a < 1.0:
        # Every draw passed (every passing σ = 1 check): the quantile of Beta(n, 1) is p^(1/n), which is
        # what betaincinv computes for b = 1 (Boost's ibeta_inv: x = pow(p, 1/a) when p < q), so the same
        # double without importing scipy.special (0.08-0.23 s after numba's own imports, at a load of 2.8).
        return (a / 2) ** (1.0 / n), 1.0
    from scipy.special import betaincinv

    lo = 0.0 if successes == 0 else float(betaincinv(successes, n - successes + 1, a / 2))
    hi = 1.0 if successes == n else float(betaincinv(successes + 1, n - successes, 1 - a / 2))
    return lo, hi


def subsets_per_record(lengths: np.ndarray, ell: int) -> np.ndarray:
    """``scipy.special.comb(lengths, ell)`` (floating point), the same doubles, for ``0 <= ell < 20``.

    The number of ell-subsets of each record, from its length. scipy's float ``binom`` multiplies
    ``(i + n - k) / i`` for ``i = 1..k`` with ``k`` reduced to ``n - k`` above ``n / 2``; the same products in
    the same order here give the same bits (the tests compare them) without importing scipy.special.
    """
    n = np.asarray(lengths).astype(np.float64)
    if not 0 <= ell < 20:
        from scipy.special import comb

        return comb(n, ell)
    k = np.where((ell > n / 2) & (n > 0), n - ell, float(ell))
    num = np.ones_like(n)
    den = np.ones_like(n)
    for i in range(1, ell + 1):
        live = i <= k
        num = np.where(live, num * ((i + n) - k), num)
        den = np.where(live, den * i, den)
        rescale = live & (np.abs(num) > 1e50)  # scipy's guard against overflow, kept for the same bits
        num = np.where(rescale, num / den, num)
        den = np.where(rescale, 1.0, den)
    out = num / den
    out[~((ell <= n) & (n >= 0))] = 0.0
    return out


def read_partition_map(path: str | Path, vocab: Sequence[str]) -> np.ndarray:
    """Read an ``item,partition`` CSV into an int array (item id -> partition index).

    Raises DataFormatError for a missing header, an unknown item, an item
    listed twice, or an item of the data missing from the map.
    """
    path = Path(path)
    index = {label: i for i, label in enumerate(vocab)}
    part_ids: dict[str, int] = {}
    labels = np.full(len(vocab), -1, dtype=np.int64)
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header is None or [h.strip().lower() for h in header[:2]] != ["item", "partition"]:
            raise DataFormatError(path, "the first line must be the header 'item,partition'", 1)
        for line, row in enumerate(reader, start=2):
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) < 2:
                raise DataFormatError(path, "expected two columns: item,partition", line)
            item, part = row[0].strip(), row[1].strip()
            if item not in index:
                raise DataFormatError(path, f"item {item!r} is not in the dataset", line)
            if labels[index[item]] >= 0:
                raise DataFormatError(path, f"item {item!r} is listed twice", line)
            labels[index[item]] = part_ids.setdefault(part, len(part_ids))
    missing = np.flatnonzero(labels < 0)
    if len(missing):
        raise DataFormatError(path, f"{len(missing)} item(s) of the dataset have no partition "
                                    f"(first: {vocab[missing[0]]!r})")
    return labels


def _exact_point(data, gen_sets, ell, k, t0) -> KmVerifyPoint:
    om = set()
    for u in range(data.n_records):
        rec = data.record(u).tolist()
        om.update(itertools.combinations(rec, ell))
    ok = 0
    for x in om:
        image = gen_sets["part"][list(x)]
        need = set(image.tolist())
        support = sum(1 for g in gen_sets["records"] if need <= g)
        ok += support >= k
    n = len(om)
    frac = ok / n if n else 1.0
    return KmVerifyPoint(ell, k, "exact", n, ok, frac, frac, frac, time.perf_counter() - t0)


def verify_km(
    data: TransactionData,
    labels: np.ndarray,
    k: int | Sequence[int],
    m: int,
    *,
    samples: int = 20_000,
    seed: int | None = 0,
    confidence: float = 0.95,
    exact_budget: int = 20_000,
    progress: Progress | None = None,
    sigma: float | Sequence[float] = 1.0,
) -> KmVerifyResult:
    """Estimate, for each ``ell <= m``, the share of ell-itemsets whose generalization is k-anonymous.

    Parameters
    ----------
    data
        The original dataset.
    labels
        Item id -> partition (any integers; equal means same partition).
    k
        One k, or one per level.
    sigma
        The promised share of k-anonymous itemsets, one or one per level; a
        level fails when its share is (statistically) below it.
    samples
        Uniform itemsets per level when not enumerating.
    exact_budget
        Enumerate Omega^ell exactly when the records hold at most this many
        ell-subsets in total.
    """
    progress = progress or NullProgress()
    labels = np.asarray(labels).reshape(-1)
    if len(labels) != data.n_items:
        raise ValueError(f"the map has {len(labels)} items, the data {data.n_items}")
    _, part = np.unique(labels, return_inverse=True)
    part = part.reshape(-1).astype(np.int64)
    n_parts = int(part.max()) + 1 if len(part) else 0
    ks = [int(k)] * m if np.isscalar(k) else [int(v) for v in k][:m]
    sigmas = [float(sigma)] * m if np.isscalar(sigma) else [float(v) for v in sigma][:m]
    lengths = np.diff(data.indptr)
    points: list[KmVerifyPoint] = []
    # Everything runs on the thread budget: the lists are built in ranges of records, the pair table in
    # ranges of records with a table each, and each batch of uniforms is drawn in one slice per thread,
    # the slices joined where one pass would have stopped. So the itemsets drawn (and every number of the
    # check) do not depend on the number of threads.
    workers = budget.available()  # the whole budget: the numbers do not depend on it
    with contextlib.ExitStack() as stack:
        pool = stack.enter_context(budget.pool(workers, "km-verify")) if workers > 1 else None
        # Own posting lists: records of each item, records of each partition. Built in kernels that
        # release the GIL, since the GUI runs this check on a worker thread (a sort-based build held the
        # GIL for seconds at a million people). Records are numbered longest first in these lists (the
        # counts stop at a cap, and the longest records hold most itemsets); the draws pick records in
        # data order.
        visit = longest_first(data.indptr)
        # several ranges of records per thread: a thread that finishes early takes the next one
        pieces, run = (4 * workers, functools.partial(_map, pool)) if pool is not None else (1, map)
        post_indptr, post_records = records_of_lists_in_order(data.n_items, data.indptr, data.indices,
                                                              np.arange(data.n_items, dtype=np.int64), visit,
                                                              pieces, run)
        part_indptr, part_records = records_of_lists_in_order(n_parts, data.indptr, data.indices, part, visit,
                                                              pieces, run)
        del visit
        complete = _check_levels(data, part, ks, sigmas, m, samples, seed, confidence, exact_budget, progress,
                                 lengths, post_indptr, post_records, part_indptr, part_records, pool, workers,
                                 points)
    progress.set(1.0, "verified")
    return KmVerifyResult(tuple(points), confidence, complete, n_parts)


def _check_levels(data, part, ks, sigmas, m, samples, seed, confidence, exact_budget, progress, lengths,
                  post_indptr, post_records, part_indptr, part_records, pool, workers, points) -> bool:
    """Append one :class:`KmVerifyPoint` per level to ``points``; False if cancelled."""
    gen_sets = None
    part_bits = None  # built at the first sampled size
    complete = True
    for ell in range(1, m + 1):
        t0 = time.perf_counter()
        progress.set((ell - 1) / m, f"verifying {ell}-itemsets")
        # ell-subsets per record (0 where shorter): each length's count once, then looked up (the same values)
        weights = subsets_per_record(np.arange(int(lengths.max(initial=0)) + 1), ell)[lengths]
        total = float(weights.sum())
        if total == 0:
            points.append(KmVerifyPoint(ell, ks[ell - 1], "exact", 0, 0, 1.0, 1.0, 1.0, 0.0, sigma=sigmas[ell - 1]))
            continue
        if ell == 1:
            # Omega^1 is the set of occurring items; a partition's support is its record count.
            occurring = np.flatnonzero(np.diff(post_indptr) > 0)  # items with records
            supp = np.diff(part_indptr)[part[occurring]]
            ok = int((supp >= ks[0]).sum())
            frac = ok / len(occurring) if len(occurring) else 1.0
            points.append(KmVerifyPoint(1, ks[0], "exact", len(occurring), ok, frac, frac, frac,
                                        time.perf_counter() - t0, sigma=sigmas[0]))
            continue
        if total <= exact_budget:
            if gen_sets is None:
                gen_sets = {"part": part,
                            "records": [set(part[data.record(u)].tolist()) for u in range(data.n_records)]}
            points.append(dataclasses.replace(_exact_point(data, gen_sets, ell, ks[ell - 1], t0),
                                              sigma=sigmas[ell - 1]))
            continue
        stream = _Uniforms(derive_seed(seed, "km-verify", ell), ell + 2)
        cum = np.cumsum(weights)
        guide = guide_table(cum)
        # Pairs: a table of every pair's support (3.4 MB for 1,303 towers) when the items are few enough;
        # its pass over the records' pairs costs far less than the lists' intersections it replaces.
        small = ell == 2 and data.n_items * (data.n_items - 1) // 2 <= _PAIR_TABLE_CELLS and total <= _PAIR_TABLE_WORK
        pairs = _pair_table(data, cum, progress, pool, workers) if small else np.zeros(0, dtype=np.int32)
        if pairs is None:
            return False
        out = np.empty((samples, ell), dtype=np.int64)

        def report(got: int, ell: int = ell) -> bool:
            progress.set((ell - 1 + got / samples) / m, f"verifying {ell}-itemsets: {got:,}/{samples:,}")
            return progress.cancelled()

        got, used, cancelled = _draw_level(pool, workers, stream, samples, samples * _PROPOSALS_PER_SAMPLE, cum,
                                           guide, data, post_indptr, post_records, ell, pairs, out, report)
        complete = complete and not cancelled
        supports = np.empty(got, dtype=np.int64)
        if part_bits is None:
            fits = len(part_indptr) - 1 > 0 and (len(part_indptr) - 1) * (data.n_records + 63) // 8 <= _PART_BITS_BYTES
            part_bits = (list_bitsets(part_indptr, part_records, data.n_records, workers, functools.partial(_map, pool))
                         if fits
                         else np.zeros((0, 0), dtype=np.uint64))
        list(_map(pool, functools.partial(_count_span, out, part, part_indptr, part_records, part_bits, ks[ell - 1],
                                          supports), _spans(got, workers)))
        ok = int((supports >= ks[ell - 1]).sum())
        lo, hi = clopper_pearson(ok, got, confidence)
        points.append(KmVerifyPoint(ell, ks[ell - 1], "sampling", got, ok, ok / got if got else 1.0, lo, hi,
                                    time.perf_counter() - t0, used, sigmas[ell - 1]))
        if not complete:
            break
    return complete


#: Most memory for the pair tables of the threads beyond the first (each counts a range of records).
_PAIR_TABLE_SPARE_BYTES = 128 << 20


def _pair_table(data: TransactionData, cum_pairs: np.ndarray, progress: Progress, pool, workers: int
                ) -> np.ndarray | None:
    """Every pair's support (:func:`pair_supports`), counted in chunks of records; None if cancelled.

    ``cum_pairs``: the records' cumulative numbers of pairs. On several threads the records are cut into
    ranges of about equal pairs, each counted into a table of its own (while the spare tables fit in
    :data:`_PAIR_TABLE_SPARE_BYTES`), and the tables are added: integer sums, the same in any order.
    """
    cells = data.n_items * (data.n_items - 1) // 2
    tables = max(1, min(workers, 1 + _PAIR_TABLE_SPARE_BYTES // max(4 * cells, 1), data.n_records))
    total = float(cum_pairs[-1]) if len(cum_pairs) else 0.0
    bounds = [0] + [int(np.searchsorted(cum_pairs, total * i / tables, side="right")) for i in range(1, tables)]
    bounds.append(data.n_records)
    parts = [np.zeros(cells, dtype=np.int32) for _ in range(tables)]
    # about 50 million pair increments per chunk: well under a second between two looks at a cancel
    chunk = max(1, int(data.n_records * 5e7 / max(total, 1.0)))

    def count(i: int) -> bool:
        for lo in range(bounds[i], bounds[i + 1], chunk):
            pair_supports(data.indptr, data.indices, parts[i], lo, min(lo + chunk, bounds[i + 1]))
            if progress.cancelled():
                return False
        return True

    done = list(_map(pool, count, range(tables)))
    if not all(done) or progress.cancelled():
        return None
    table = parts[0]
    for other in parts[1:]:
        table += other
    return table


def _spans(n: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous ranges covering ``0..n`` (the last ones may be empty)."""
    step = -(-n // max(parts, 1)) if n else 0
    return [(min(i * step, n), min((i + 1) * step, n)) for i in range(max(parts, 1))]


def _count_span(itemsets, part, part_indptr, part_records, part_bits, k, supports, span: tuple[int, int]) -> None:
    lo, hi = span
    generalized_supports(itemsets[lo:hi], part, part_indptr, part_records, part_bits, k, supports[lo:hi])


def _map(pool, fn, items):
    return map(fn, items) if pool is None else pool.map(fn, items)


class _Uniforms:
    """The uniforms of one level: rows of ``width`` doubles of ``np.random.default_rng(seed)``'s stream.

    Any rows can be drawn from their place in the stream (PCG64 advanced past the doubles before them:
    ``random`` takes one 64-bit draw per double), so the slices of a batch are drawn by the threads that
    use them, and the numbers are those of one ``random((rows, width))`` call after another.
    """

    def __init__(self, seed: int, width: int):
        self.seed, self.width, self.at = seed, width, 0

    def rows(self, lo: int, hi: int) -> np.ndarray:
        """Rows ``lo..hi-1`` after the ones skipped so far."""
        bits = np.random.PCG64(self.seed)
        bits.advance((self.at + lo) * self.width)
        return np.random.Generator(bits).random((hi - lo, self.width))

    def skip(self, rows: int) -> None:
        self.at += rows


def _draw(pool, workers, stream: _Uniforms, batch: int, cum, guide, data, post_indptr, post_records, ell, out, want,
          pairs, rows_of) -> tuple[int, int]:
    """Accept up to ``want`` itemsets from the next ``batch`` rows of ``stream`` in order; (accepted, rows used).

    The rows are cut into one slice per thread, each drawn and tried by its thread; slice ``i`` stops
    after ``want`` acceptances of its own. Joined in order, the first ``want`` acceptances and the row of
    the last one are exactly what a single pass over all rows gives. ``rows_of`` receives the row (from
    the first of the batch) of each acceptance.
    """
    spans = _spans(batch, workers)
    outs = [np.empty((want, ell), dtype=np.int64) for _ in spans]
    at = [np.empty(want, dtype=np.int64) for _ in spans]

    def one(i: int) -> tuple[int, int]:
        lo, hi = spans[i]
        n, rows = draw_uniform_itemsets(stream.rows(lo, hi), cum, guide, data.indptr, data.indices, post_indptr,
                                        post_records, ell, outs[i], want, at[i], pairs)
        return int(n), int(rows)

    results = list(_map(pool, one, range(len(spans))))
    got = 0
    for i, (n, _rows) in enumerate(results):
        take = min(n, want - got)
        out[got:got + take] = outs[i][:take]
        rows_of[got:got + take] = spans[i][0] + at[i][:take]
        got += take
        if got == want:
            return got, int(rows_of[got - 1]) + 1
    return got, batch


#: Most proposals a sampled level tries, per itemset asked for (acceptance rates below 1 in 2,000 stop there).
_PROPOSALS_PER_SAMPLE = 2000
#: Most rows of uniforms drawn in one round on the threads (15 MB of doubles at ℓ = 5).
_ROUND_ROWS = 1 << 18


def _draw_level(pool, workers, stream: _Uniforms, samples: int, cap: int, cum, guide, data, post_indptr, post_records,
                ell, pairs, out, report) -> tuple[int, int, bool]:
    """Draw ``samples`` itemsets of one level into ``out``; (accepted, proposals, cancelled).

    The numbers are those of a loop over batches of ``max(1024, 2 (samples - accepted))`` rows, one after
    the other, that stops at the ``samples``-th acceptance, or before a batch that would start at
    ``cap`` proposals or later. Rows are drawn here in rounds of the size the acceptance rate so far
    says is still needed (a few rounds a level instead of a hundred short ones, each a wait for the
    slowest thread): the acceptances and their rows do not depend on how rows are grouped, and where
    those batches would have started is recomputed from the rows of the acceptances, so the cap stops
    the draw at the same proposal. ``report(accepted)`` after each round says whether to stop (cancel).
    """
    if samples <= 0:
        return 0, 0, False
    rows_of = np.empty(samples, dtype=np.int64)  # the row of each acceptance
    got = done = 0  # acceptances, and rows tried (every row before ``done``)
    start = 0  # where the batch holding row ``done`` starts
    while True:
        want = samples - got
        if done == 0:
            size = max(1024, 2 * want)
        elif got == 0:
            size = 2 * done
        else:
            size = int(want * done / got * 1.02) + 1024
        size = min(size, _ROUND_ROWS)
        n, rows = _draw(pool, workers, stream, size, cum, guide, data, post_indptr, post_records, ell, out[got:],
                        want, pairs, rows_of[got:])
        stream.skip(size)
        rows_of[got:got + n] += done
        got += n
        done += rows
        # Walk over the batches the rows tried have finished (every row tried, and the samples-th
        # acceptance not in it): the next one starts after each, unless it would start at the cap.
        last = int(rows_of[samples - 1]) if got == samples else done
        while True:
            if start >= cap:
                accepted = int(np.searchsorted(rows_of[:got], start))
                return accepted, start, False
            following = start + max(1024, 2 * (samples - int(np.searchsorted(rows_of[:got], start))))
            if following > last:
                break
            start = following
        if got == samples:
            return got, done, False
        if report(got):
            return got, done, True
