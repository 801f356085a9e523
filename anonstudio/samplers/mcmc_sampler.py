"""Uniform sampling of the ell-itemsets that occur in a dataset (Acs et al., Algorithm 1).

:class:`ItemsetSampler` runs independent Metropolis-Hastings chains (the kernel is
:func:`anonstudio.kernels.mcmc_sampler.run_chain`) on worker threads; numba releases the
GIL, so two chains use two cores. Each chain has its own RNG stream derived from
the seed and owns all of its state, and results are gathered in chain order, so
the output depends on the seed only, never on thread timing.

Typical use::

    sampler = ItemsetSampler(data, ell=3, seed=7)
    report = sampler.burn_in()          # Geweke-based, also picks the thinning
    items, supports = sampler.draw(26_492)
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..data.transactions import TransactionData
from ..jobs import ChunkSizer, NullProgress, Progress, SubProgress, kernel_seeds
from ..kernels.mcmc_sampler import new_chain_state, record_weights, run_chain, subset_counts
from ..kernels.support import MODE_AUTO, build_bitsets
from ..metrics.convergence import ACF_THRESHOLD, choose_thinning, effective_sample_size, geweke_z
from .threads import ThreadedItemsetSampler

__all__ = ["ItemsetSampler", "BurnInReport", "DrawDiagnostics", "PROPOSALS", "burn_in_status"]

#: Proposal distributions of the independence chain (both have the uniform
#: distribution over Omega^ell as their stationary distribution):
#:
#: ``"uniform-record"``
#:     Algorithm 1 as printed: a record uniformly among those with >= ell items,
#:     then ell of its items. Proposes itemsets of short records far more often
#:     than those of long ones, so on data with a few very long records (e.g.
#:     BMS-WebView-1, one record of 267 items holding most 4-itemsets) the chain
#:     sticks to rare states and mixes very slowly.
#: ``"size-weighted"`` (default)
#:     A record with probability proportional to C(|D_u|, ell), then ell of its
#:     items: proposes x with probability proportional to supp(x), which is much
#:     closer to uniform (exactly uniform on unique itemsets), so far fewer
#:     proposals are rejected.
PROPOSALS = ("size-weighted", "uniform-record")

_SECONDS_PER_ENTRY = 7e-9  # one posting-list entry of a chain step (cost model only)


@dataclass(frozen=True)
class BurnInReport:
    """What the burn-in found (per-chain numbers are in chain order).

    Attributes
    ----------
    steps
        Burn-in steps per chain.
    converged
        Every chain's Geweke ``|z| <= 1`` before the step cap was reached.
    geweke_z
        Final z-score of each chain's support trace.
    thinning
        Keep every ``thinning``-th state when drawing (smallest lag with
        autocorrelation below ``acf_threshold`` for support and uniqueness indicator).
    acceptance_rate
        Accepted proposals / steps over all chains during burn-in.
    acf_support, acf_unique
        Autocorrelation (lags 0..) averaged over chains, measured on the second
        half of the burn-in trace.
    seconds
        Wall time.
    """

    steps: int
    converged: bool
    geweke_z: tuple[float, ...]
    thinning: int
    acceptance_rate: float
    acf_support: np.ndarray = field(repr=False)
    acf_unique: np.ndarray = field(repr=False)
    acf_threshold: float = ACF_THRESHOLD
    seconds: float = 0.0


@dataclass(frozen=True)
class DrawDiagnostics:
    """Quality of the last :meth:`ItemsetSampler.draw`.

    ``ess_unique`` is the effective sample size of the uniqueness indicator
    (support == 1) summed over chains; ``ess_support`` likewise for the support.
    """

    samples: int
    steps: int
    acceptance_rate: float
    ess_support: float
    ess_unique: float
    seconds: float


class ItemsetSampler(ThreadedItemsetSampler):
    """Uniform sampler over Omega^ell, the ell-itemsets with support >= 1.

    Parameters
    ----------
    data, ell
        The dataset and the itemset size (>= 1).
    seed
        Same seed, same samples (``None``: fresh entropy).
    chains
        Independent chains, run on as many threads (default 2).
    min_burn_in
        Burn-in steps per chain before the Geweke test is first applied.
    max_burn_in
        Step cap per chain; if Geweke never passes, sampling continues and the
        report says ``converged=False``. ``None``: ``max(200_000, 20 |U|)``.
    max_thinning
        Cap on the thinning lag.
    acf_threshold
        Thinning is the smallest lag whose autocorrelation is below this.
    support_mode
        Support strategy (``anonstudio.kernels.support.MODE_*``); auto picks
        bitsets or posting lists per itemset from a cost model.
    proposal
        ``"size-weighted"`` (default) or ``"uniform-record"`` (Algorithm 1 as
        printed); see :data:`PROPOSALS`.
    """

    def __init__(
        self,
        data: TransactionData,
        ell: int,
        seed: int | None = None,
        *,
        chains: int = 2,
        min_burn_in: int = 4000,
        max_burn_in: int | None = None,
        acf_threshold: float = ACF_THRESHOLD,
        max_thinning: int = 50,
        support_mode: int = MODE_AUTO,
        proposal: str = "size-weighted",
    ):
        if proposal not in PROPOSALS:
            raise ValueError(f"proposal must be one of {', '.join(PROPOSALS)}")
        self.chains = int(chains)
        super().__init__(data, ell, self.chains, "itemset-chain")
        self.seed = seed
        self.min_burn_in = int(min_burn_in)
        self.acf_threshold = float(acf_threshold)
        self.max_thinning = int(max_thinning)
        self.support_mode = int(support_mode)
        self.proposal = proposal
        lengths = data.lengths
        self.max_burn_in = int(max_burn_in) if max_burn_in is not None else max(200_000, 20 * len(self.eligible))
        if proposal == "uniform-record":
            self.cdf = np.zeros(0)
            self.weights = record_weights(lengths, self.ell)
        else:
            # Record u drawn with probability C(|D_u|, ell) / Z, then ell of its items
            # uniformly: itemset x is proposed with probability supp(x) / Z, so the
            # q of the acceptance step is just the support (all weights 1).
            self.cdf = np.cumsum(subset_counts(lengths[self.eligible], self.ell))
            self.weights = (lengths >= self.ell).astype(np.float64)
        eligible_lengths = lengths[self.eligible]
        # When every record that can hold an ell-itemset has the same weight (always
        # for size-weighted proposals; for chess-like data with the paper's), q is
        # the support times that weight and the kernels only count.
        same = len(self.eligible) and (proposal == "size-weighted" or eligible_lengths.min() == eligible_lengths.max())
        self.uniform_weight = float(self.weights[self.eligible[0]]) if same else 0.0
        self.post_indptr, self.post_records = data.inverted()
        self.bit_row, self.bits = _cached_bitsets(data)
        seeds = kernel_seeds(seed, self.chains, "itemset-sampler", self.ell)
        self._states = [new_chain_state(self.ell, s) for s in seeds]
        self.report: BurnInReport | None = None
        self.last_draw: DrawDiagnostics | None = None

    # ---------------------------------------------------------------- basics
    @property
    def thinning(self) -> int:
        return self.report.thinning if self.report is not None else 1

    def expected_seconds_per_sample(self) -> float:
        """Predicted wall seconds per thinned sample on one chain (deterministic; call after burn-in).

        One step intersects ``ell`` posting lists of size-biased mean length
        ``sum f_i^2 / sum f_i`` at ~:data:`_SECONDS_PER_ENTRY` per entry
        (measured on synthetic cities), and a sample costs ``thinning`` steps.
        """
        f = self.data.item_frequencies.astype(np.float64)
        size_biased = float((f * f).sum() / max(f.sum(), 1.0))
        return self.thinning * self.ell * size_biased * _SECONDS_PER_ENTRY

    def _advance(self, steps: int, every: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Run every chain ``steps`` steps in parallel; return its recorded (items, supports)."""

        def one(state):
            n_out = steps // every
            out_items = np.empty((n_out, self.ell), dtype=np.int32)
            out_supp = np.empty(n_out, dtype=np.int64)
            run_chain(
                state["cur_items"], state["cur_q"], state["counters"], state["rng"], steps, every,
                self.eligible, self.cdf, self.weights, self.data.indptr, self.data.indices,
                self.post_indptr, self.post_records, self.bit_row, self.bits,
                self.support_mode, self.uniform_weight,
                state["cache_items"], state["cache_supp"], state["cache_q"], out_items, out_supp,
            )
            return out_items, out_supp

        if self.chains == 1:
            return [one(self._states[0])]
        return list(self._pool.map(one, self._states))

    def _counters(self) -> tuple[int, int]:
        steps = sum(int(s["counters"][0]) for s in self._states)
        accepts = sum(int(s["counters"][1]) for s in self._states)
        return steps, accepts

    # --------------------------------------------------------------- burn-in
    def burn_in(self, progress: Progress | None = None) -> BurnInReport:
        """Run the chains until Geweke's |z| <= 1 on each support trace; pick the thinning.

        Chunks are sized for ~0.1 s; between chunks the progress is updated and a
        cancel stops the burn-in early (the report then says ``converged=False``).
        """
        progress = progress or NullProgress()
        t0 = time.perf_counter()
        if self.empty:
            self.report = BurnInReport(0, True, (), 1, 0.0, np.ones(1), np.ones(1), self.acf_threshold, 0.0)
            return self.report
        traces: list[list[np.ndarray]] = [[] for _ in self._states]
        done = 0
        sizer = ChunkSizer(initial=2000, minimum=500, maximum=self.max_burn_in)
        # Geweke is evaluated at fixed step counts (not at timing-dependent chunk
        # ends) so that the burn-in length depends on the seed only.
        checkpoint = min(self.min_burn_in, self.max_burn_in)
        z = tuple(math.inf for _ in self._states)
        converged = False
        while done < self.max_burn_in:
            n = min(sizer.next_size(), checkpoint - done)
            outs = self._advance(n, 1)
            sizer.done(n)
            for trace, (_, supp) in zip(traces, outs):
                trace.append(supp)
            done += n
            if done == checkpoint:
                full = [np.concatenate(t) for t in traces]
                traces = [[f] for f in full]
                z = tuple(geweke_z(f) for f in full)
                if all(abs(v) <= 1.0 for v in z):
                    converged = True
                    break
                checkpoint = min(int(checkpoint * 1.25), self.max_burn_in)
            progress.set(min(done / checkpoint, 0.99), burn_in_status(done, z))
            if progress.cancelled():
                break
        full = [np.concatenate(t) if t else np.zeros(0, np.int64) for t in traces]
        # Autocorrelation after convergence: the second half of each burn-in trace.
        tails = [f[len(f) // 2 :] for f in full]
        series = [t.astype(np.float64) for t in tails] + [(t == 1).astype(np.float64) for t in tails]
        thinning, acfs = choose_thinning(series, self.acf_threshold, self.max_thinning)
        k = len(self._states)
        acf_support = _mean_curves(acfs[:k])
        acf_unique = _mean_curves(acfs[k:])
        steps, accepts = self._counters()
        self.report = BurnInReport(
            steps=done,
            converged=converged,
            geweke_z=z,
            thinning=thinning,
            acceptance_rate=accepts / max(steps, 1),
            acf_support=acf_support,
            acf_unique=acf_unique,
            acf_threshold=self.acf_threshold,
            seconds=time.perf_counter() - t0,
        )
        progress.set(1.0, f"burn-in ell={self.ell}: done, thinning {thinning}")
        return self.report

    # ------------------------------------------------------------------ draw
    def draw(self, n: int, progress: Progress | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``n`` (approximately independent) uniform samples from Omega^ell.

        Runs :meth:`burn_in` first if it has not run. Chain ``c`` contributes rows
        ``c * ceil(n / chains)`` onwards. On cancel, fewer than ``n`` rows come back.

        Returns
        -------
        items : int32 (n, ell), item ids sorted within each row
        supports : int64 (n,)
        """
        progress = progress or NullProgress()
        if self.report is None:
            self.burn_in(SubProgress(progress, 0.0, 0.2))
            inner = SubProgress(progress, 0.2, 1.0)
        else:
            inner = progress
        t0 = time.perf_counter()
        steps0, accepts0 = self._counters()
        if self.empty or n <= 0:
            self.last_draw = DrawDiagnostics(0, 0, 0.0, 0.0, 0.0, 0.0)
            return np.zeros((0, self.ell), dtype=np.int32), np.zeros(0, dtype=np.int64)
        thin = self.thinning
        per_chain = -(-n // self.chains)
        parts: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in self._states]
        got = 0
        sizer = ChunkSizer(initial=max(256 // thin, 16), minimum=1, maximum=per_chain)
        while got < per_chain:
            k = min(sizer.next_size(), per_chain - got)
            outs = self._advance(k * thin, thin)
            sizer.done(k)
            for part, out in zip(parts, outs):
                part.append(out)
            got += k
            inner.set(got / per_chain, f"sampling ell={self.ell}: {got * self.chains:,}/{per_chain * self.chains:,}")
            if inner.cancelled():
                break
        items = [np.concatenate([p[0] for p in part]) for part in parts]
        supps = [np.concatenate([p[1] for p in part]) for part in parts]
        steps1, accepts1 = self._counters()
        self.last_draw = DrawDiagnostics(
            samples=min(got * self.chains, n),
            steps=steps1 - steps0,
            acceptance_rate=(accepts1 - accepts0) / max(steps1 - steps0, 1),
            ess_support=sum(effective_sample_size(s) for s in supps),
            ess_unique=sum(effective_sample_size((s == 1).astype(np.float64)) for s in supps),
            seconds=time.perf_counter() - t0,
        )
        all_items = np.concatenate(items)[:n]
        all_supps = np.concatenate(supps)[:n]
        return all_items, all_supps


def _cached_bitsets(data: TransactionData) -> tuple[np.ndarray, np.ndarray]:
    """Bitsets of the dense items, built once per dataset (they do not depend on ell)."""
    return data.derived("support-bitsets", lambda: build_bitsets(data.indptr, data.indices, data.n_items))


def _mean_curves(curves: list[np.ndarray]) -> np.ndarray:
    if not curves:
        return np.ones(1)
    size = min(len(c) for c in curves)
    return np.mean([c[:size] for c in curves], axis=0)


def burn_in_status(steps: int, z: tuple[float, ...]) -> str:
    """Progress text of the burn-in: the Geweke z-scores once every chain has a finite one.

    Before the first test (or while a chain's trace is still degenerate) there is
    no meaningful z to show, so the text says the check is still running.
    """
    if z and all(math.isfinite(v) for v in z):
        return f"burn-in: {steps:,} steps, Geweke z " + ", ".join(f"{v:+.2f}" for v in z)
    return f"burn-in: checking convergence… ({steps:,} steps)"
