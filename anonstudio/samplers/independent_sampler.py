"""Exactly uniform, independent ell-itemsets of a dataset, by rejection.

:class:`IndependentItemsetSampler` is a drop-in alternative to
:class:`~anonstudio.samplers.mcmc_sampler.ItemsetSampler` (Algorithm 1's
Markov chain) with the same ``burn_in`` / ``draw`` interface. It proposes
itemsets as the chain's size-weighted proposal does and accepts each with
probability ``1 / supp`` (see :mod:`anonstudio.kernels.independent_sampler`),
so its samples are exactly uniform over Omega^ell and independent of each
other: what Theorem 1 of Acs et al. assumes of the samples, where a chain only
approaches it after burn-in and thinning. There is nothing to burn in.

Streams run on worker threads (numba releases the GIL); stream ``c`` fills rows
``c * ceil(n / streams)`` onwards of every draw, so the output depends on the
seed only, never on thread timing.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..data.transactions import TransactionData
from ..jobs import NullProgress, Progress, kernel_seeds
from ..kernels.independent_sampler import (
    build_alias,
    build_layout_rows,
    draw_independent,
    layout_postings,
    record_layout,
    summary_spans,
)
from ..kernels.mcmc_sampler import subset_counts
from ..kernels.rng import make_state
from ..kernels.support import MODE_AUTO
from .threads import ThreadedItemsetSampler

__all__ = ["IndependentItemsetSampler", "IndependentDrawReport", "BITSET_BYTES", "record_layout_of", "layout_order_of",
           "layout_postings_of", "layout_bitsets_of"]

#: Default memory for record bitsets of the items. They keep only their
#: non-zero words (:mod:`anonstudio.kernels.packed_bits`): all 1,303 towers of
#: a 1M-user city take 41 MB where dense rows took 163 MB. Testing one bit per
#: candidate record beats a binary search in the record by an order of magnitude.
BITSET_BYTES = 1 << 30

# Proposals per kernel call: small enough that cancel answers within ~0.1 s
# even when almost every proposal is rejected.
_PROPOSALS_PER_CALL = 20_000
# Cost model of expected_seconds_per_sample, measured on a 1,000,000-user
# synthetic city (1,303 towers, all with bitsets): ~1.4 us per proposal (pick,
# sort, a count that usually stops after a few matches) and, for the full count
# an accepted (mostly rare) itemset needs, 0.3-1.4 ns per bitset word of its
# rows with the two-level AND (ell = 5 to 3).
_SECONDS_PER_PROPOSAL = 1.4e-6
_SECONDS_PER_BITSET_WORD = 1e-9
# The pilot stops at whichever comes first (~0.3 s at most, when almost every
# proposal is rejected); it runs only when a cost prediction is asked for.
_PILOT_SAMPLES = 256
_PILOT_PROPOSALS = 200_000


def record_layout_of(data: TransactionData) -> np.ndarray:
    """The sampler's clustered numbering of ``data``'s records (``pos[u]``; built once per dataset).

    See :func:`anonstudio.kernels.independent_sampler.record_layout`.
    """
    return data.derived("sampler-record-layout",
                        lambda: record_layout(data.indptr, data.indices, data.n_items, data.coords))


def layout_order_of(data: TransactionData) -> np.ndarray:
    """``order[p]``: the record of ``data`` numbered ``p`` in :func:`record_layout_of` (int32; built once)."""

    def build() -> np.ndarray:
        order = np.empty(data.n_records, dtype=np.int32)
        order[record_layout_of(data)] = np.arange(data.n_records, dtype=np.int32)
        return order

    return data.derived("sampler-layout-order", build)


def layout_postings_of(data: TransactionData) -> tuple[np.ndarray, np.ndarray]:
    """Posting lists in the clustered numbering: ``(post_indptr int64, post_records int32)``, built once.

    One counting pass over the records (no sort), read-only like the data's own
    :meth:`~anonstudio.data.transactions.TransactionData.inverted`.
    """

    def build() -> tuple[np.ndarray, np.ndarray]:
        post_indptr = np.zeros(data.n_items + 1, dtype=np.int64)
        np.cumsum(np.bincount(data.indices, minlength=data.n_items), out=post_indptr[1:])
        post_records = np.empty(int(post_indptr[-1]), dtype=np.int32)
        layout_postings(data.indptr, data.indices, layout_order_of(data), post_indptr, post_records)
        post_indptr.setflags(write=False)
        post_records.setflags(write=False)
        return post_indptr, post_records

    return data.derived("sampler-layout-postings", build)


def layout_bitsets_of(data: TransactionData, bitset_bytes: int = BITSET_BYTES
                      ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``(bit_row, (summary, first, words))``: packed record bitsets of the items in the clustered numbering.

    Built once per budget. Row ``bit_row[i]`` (-1: none) has bit ``p`` set when
    record ``p`` of the layout holds item ``i`` (see
    :mod:`anonstudio.kernels.packed_bits`). The k^m check reads the rows of
    unmerged partitions from here instead of keeping copies.
    """

    def build():
        post_indptr, post_records = layout_postings_of(data)
        return build_layout_rows(post_indptr, post_records, data.n_records, int(bitset_bytes))

    return data.derived(("sampler-layout-bitsets", int(bitset_bytes)), build)


@dataclass(frozen=True)
class IndependentDrawReport:
    """Totals since the sampler was made.

    ``acceptance_rate`` estimates ``|Omega^ell| / Z``, with ``Z`` the number of
    (record, ell-subset) pairs; ``1 / acceptance_rate`` proposals make one sample.
    """

    proposals: int
    samples: int
    seconds: float

    @property
    def acceptance_rate(self) -> float:
        return self.samples / self.proposals if self.proposals else 0.0


class IndependentItemsetSampler(ThreadedItemsetSampler):
    """Uniform, independent samples from Omega^ell (the ell-itemsets with support >= 1).

    Parameters
    ----------
    data, ell
        The dataset and the itemset size (>= 1).
    seed
        Same seed, same samples (``None``: fresh entropy).
    streams
        Independent random streams, drawn on as many threads.
    bitset_bytes
        Memory for per-item record bitsets (most frequent items first).
    support_mode
        Support strategy (``anonstudio.kernels.support.MODE_*``).
    """

    def __init__(self, data: TransactionData, ell: int, seed: int | None = None, *, streams: int = 2,
                 bitset_bytes: int = BITSET_BYTES, support_mode: int = MODE_AUTO):
        self.streams = max(1, int(streams))
        super().__init__(data, ell, self.streams, "itemset-stream")
        self.support_mode = int(support_mode)
        if len(self.eligible):
            self.prob, self.alias = build_alias(subset_counts(data.lengths[self.eligible], self.ell))
        self.post_indptr, self.post_records = layout_postings_of(data)
        self.order = layout_order_of(data)
        # Bitsets over the records in a clustered order (see record_layout): the
        # same supports as in data order, read from far fewer words.
        self.bit_row, (self.summary, self.first, self.words) = layout_bitsets_of(data, int(bitset_bytes))
        self.spans = data.derived(("sampler-layout-spans", int(bitset_bytes)), lambda: summary_spans(self.summary))
        self._rngs = [make_state(s) for s in kernel_seeds(seed, self.streams, "independent-sampler", self.ell)]
        self._counters = [np.zeros(2, dtype=np.int64) for _ in range(self.streams)]
        self._seconds = 0.0
        self.seed = seed
        self._pilot_proposals_per_sample: float | None = None

    @property
    def report(self) -> IndependentDrawReport:
        return IndependentDrawReport(
            proposals=sum(int(c[0]) for c in self._counters),
            samples=sum(int(c[1]) for c in self._counters),
            seconds=self._seconds,
        )

    def burn_in(self, progress: Progress | None = None) -> IndependentDrawReport:
        """Nothing to burn in: every accepted proposal is already a uniform sample."""
        return self.report

    def expected_seconds_per_sample(self) -> float:
        """Predicted wall seconds per sample on one stream, for choosing between sampling and enumeration.

        Deterministic (no timing): the proposals per sample come from a pilot
        of :data:`_PILOT_SAMPLES` on a stream of its own, so the samples of
        :meth:`draw` are unaffected. Each proposal costs about
        :data:`_SECONDS_PER_PROPOSAL`; each accepted one is usually rare and
        counted in full, about ``ell`` bitset rows of ``n_records / 64`` words.
        """
        if self._pilot_proposals_per_sample is None:
            if self.empty:
                self._pilot_proposals_per_sample = 0.0
            else:
                counters = np.zeros(2, dtype=np.int64)
                items = np.empty((_PILOT_SAMPLES, self.ell), dtype=np.int32)
                supps = np.empty(_PILOT_SAMPLES, dtype=np.int64)
                rng = make_state(kernel_seeds(self.seed, 1, "independent-sampler-pilot", self.ell)[0])
                self._draw_into(rng, counters, _PILOT_SAMPLES, _PILOT_PROPOSALS, items, supps, 0)
                self._pilot_proposals_per_sample = counters[0] / max(int(counters[1]), 1)
        # Single items are read off their posting lists: no count at all.
        words = (self.data.n_records + 63) / 64 if self.ell > 1 else 0.0
        return (self._pilot_proposals_per_sample * _SECONDS_PER_PROPOSAL
                + self.ell * words * _SECONDS_PER_BITSET_WORD)

    def _draw_into(self, rng, counters, wanted, max_proposals, items, supps, start) -> int:
        return int(draw_independent(
            rng, counters, wanted, max_proposals, self.prob, self.alias, self.eligible, self.data.indptr,
            self.data.indices, self.post_indptr, self.post_records, self.order, self.bit_row, self.summary,
            self.first, self.words, self.spans, self.support_mode, items, supps, start,
        ))

    def draw(self, n: int, progress: Progress | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``n`` independent uniform samples; fewer if cancelled.

        Returns
        -------
        items : int32 (n, ell), item ids sorted within each row
        supports : int64 (n,), each itemset's support in the data
        """
        progress = progress or NullProgress()
        if self.empty or n <= 0:
            return np.zeros((0, self.ell), dtype=np.int32), np.zeros(0, dtype=np.int64)
        t0 = time.perf_counter()
        per_stream = -(-n // self.streams)

        def one(stream: int) -> tuple[np.ndarray, np.ndarray]:
            items = np.empty((per_stream, self.ell), dtype=np.int32)
            supps = np.empty(per_stream, dtype=np.int64)
            got = 0
            while got < per_stream and not progress.cancelled():
                got += self._draw_into(self._rngs[stream], self._counters[stream], per_stream - got,
                                       _PROPOSALS_PER_CALL, items, supps, got)
                if stream == 0:  # one reporter is enough: the streams advance together
                    progress.set(got / per_stream, f"sampling ell={self.ell}: {got:,}/{per_stream:,}")
            return items[:got], supps[:got]

        if self.streams == 1:
            parts = [one(0)]
        else:
            parts = list(self._pool.map(one, range(self.streams)))
        self._seconds += time.perf_counter() - t0
        items = np.concatenate([p[0] for p in parts])[:n]
        supps = np.concatenate([p[1] for p in parts])[:n]
        return items, supps

