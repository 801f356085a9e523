"""Chain driver: several seeded chains run in chunks on threads (the kernels release the GIL).

Every chain owns its full state (RNG word, counts, current pairing, running
sums), so the results depend only on the seed, never on how the run was cut
into chunks or scheduled on threads.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ...jobs import ChunkSizer, Progress, kernel_seeds
from ...kernels import gibbs
from ...parallel import budget
from .layout import HorizontalLayout, VerticalLayout
from .model import EncodedRelease

__all__ = ["SamplerPlan", "ChainState", "ChainSet"]

N_BATCHES = 100  # batch means per chain kept for Geweke
BATCH_MEMORY = 40_000_000  # bytes per chain for them: huge domains get fewer (longer) batches


@dataclass(eq=False)
class SamplerPlan:
    """What to sample and what to accumulate.

    ``eval_d`` are the victim / learner tuples (flat codes, -1 = unknown
    attribute), ``pts_s``/``pts_d`` the points where ``p_L(s, r)`` is needed for
    faithfulness, ``trace_idx`` the pi components traced in full (index into
    ``[pi_S, pi_{R|S} flattened]``), ``track`` the rows diagnosed by Weiss.
    """

    iterations: int
    burn_in: int
    thinning: int
    mode: int  # 0 predictive, 1 average
    eval_d: np.ndarray
    pts_s: np.ndarray
    pts_d: np.ndarray
    trace_idx: np.ndarray
    track_rows: np.ndarray
    proposal_kind: int = 0
    moves_per_group: int = 1
    n_components: int = 1  # pi components: S + S * D

    @property
    def kept_total(self) -> int:
        return max(0, math.ceil((self.iterations - self.burn_in) / self.thinning))

    @property
    def batch_size(self) -> int:
        n_batches = min(N_BATCHES, max(10, BATCH_MEMORY // (8 * self.n_components)))
        return max(1, math.ceil(self.kept_total / n_batches))


@dataclass(eq=False)
class ChainState:
    rng: np.ndarray
    counts: np.ndarray
    pi_s: np.ndarray
    pi_r: np.ndarray
    eval_acc: np.ndarray
    pts_acc: np.ndarray
    row_acc: np.ndarray  # horizontal: marginal per pattern entry; vertical: (N, S) pairing counts
    batch_sums: np.ndarray
    batch_counts: np.ndarray
    trace: np.ndarray
    track: np.ndarray
    s_of_row: np.ndarray | None = None
    stats: np.ndarray = field(default_factory=lambda: np.zeros(2, dtype=np.int64))
    it: int = 0
    kept: int = 0


class ChainSet:
    """The chains of one analysis and their pooled running sums."""

    def __init__(self, enc: EncodedRelease, layout: HorizontalLayout | VerticalLayout, plan: SamplerPlan,
                 seed: int | None, n_chains: int):
        self.enc, self.layout, self.plan = enc, layout, plan
        self.horizontal = isinstance(layout, HorizontalLayout)
        seeds = kernel_seeds(seed, n_chains, "threat-gibbs")
        self.chains = [self._new_chain(np.uint64(s)) for s in seeds]
        self._cum = [np.empty(max(layout.max_cell(), 1)) if self.horizontal else None for _ in self.chains]

    def _new_chain(self, seed: np.uint64) -> ChainState:
        enc, plan = self.enc, self.plan
        n_s, width = enc.n_s, enc.width
        kept = plan.kept_total
        n_batches = math.ceil(kept / plan.batch_size) if kept else 0
        n_track = len(plan.track_rows)
        state = ChainState(
            rng=np.array([seed], dtype=np.uint64),
            counts=np.zeros((n_s, width), dtype=np.int64),
            pi_s=np.full(n_s, 1.0 / n_s), pi_r=np.ones((n_s, width)),
            eval_acc=np.zeros((plan.eval_d.shape[0], n_s)), pts_acc=np.zeros(plan.pts_s.shape[0]),
            row_acc=(np.zeros(self.layout.pat_vals.shape[0]) if self.horizontal else np.zeros((enc.n_rows, n_s))),
            batch_sums=np.zeros((n_batches, n_s + n_s * width)), batch_counts=np.zeros(n_batches, dtype=np.int64),
            trace=np.zeros((kept, len(plan.trace_idx))),
            track=np.full((kept, n_track, enc.n_attr if self.horizontal else 1), -1, dtype=np.int64),
        )
        lay = self.layout
        if self.horizontal:
            cum = np.empty(max(lay.max_cell(), 1))
            gibbs.horizontal_init(state.rng, lay.pat_s, lay.pat_n, lay.pat_ptr, lay.pat_vals, lay.base_counts,
                                  state.counts, cum)
        else:
            state.s_of_row = enc.s_code.copy()
            gibbs.vertical_init(state.rng, lay.group_ptr, lay.group_rows, state.s_of_row, enc.r_d, state.counts)
        return state

    # ------------------------------------------------------------------ running
    def _advance(self, index: int, n_sweeps: int) -> None:
        c, enc, plan, lay = self.chains[index], self.enc, self.plan, self.layout
        n = min(n_sweeps, plan.iterations - c.it)
        if n <= 0:
            return
        common_pre = (c.rng, c.it, n, plan.burn_in, plan.thinning, c.kept,
                      enc.alpha, enc.gamma_s, enc.beta, enc.beta0, enc.attr_off, enc.attr_of, enc.n_rows)
        if self.horizontal:
            c.kept = gibbs.horizontal_sweeps(
                *common_pre, lay.pat_s, lay.pat_n, lay.pat_ptr, lay.pat_vals, lay.base_counts,
                c.counts, c.pi_s, c.pi_r, self._cum[index],
                plan.mode, plan.eval_d, c.eval_acc, plan.pts_s, plan.pts_d, c.pts_acc, c.row_acc,
                plan.batch_size, c.batch_sums, c.batch_counts, plan.trace_idx, c.trace,
                enc.s_code[plan.track_rows], lay.row_pat[plan.track_rows], c.track)
        else:
            c.kept = gibbs.vertical_sweeps(
                *common_pre, lay.group_ptr, lay.group_rows, enc.r_d, c.s_of_row, plan.proposal_kind,
                plan.moves_per_group, c.counts, c.pi_s, c.pi_r, c.stats,
                plan.mode, plan.eval_d, c.eval_acc, plan.pts_s, plan.pts_d, c.pts_acc, c.row_acc,
                plan.batch_size, c.batch_sums, c.batch_counts, plan.trace_idx, c.trace,
                plan.track_rows, c.track)
        c.it += n

    @property
    def sweeps_done(self) -> int:
        return min(c.it for c in self.chains)

    @property
    def complete(self) -> bool:
        return all(c.it >= self.plan.iterations for c in self.chains)

    def run(self, progress: Progress, on_partial: Callable[[], None] | None = None,
            partial_every: float = 1.0) -> bool:
        """Sweep every chain to the end in chunks; False when cancelled first."""
        sizer = ChunkSizer(initial=8, target=0.15, minimum=1)
        last_partial = time.perf_counter()
        wait = partial_every
        total = self.plan.iterations
        # At most one thread per chain, within the studio's thread budget; chains own their state, so the
        # number of threads never changes the numbers.
        with budget.pool(len(self.chains), "threat-chain") as pool:
            while not self.complete:
                if progress.cancelled():
                    return False
                n = sizer.next_size()
                list(pool.map(lambda i, n=n: self._advance(i, n), range(len(self.chains))))
                sizer.done(n)
                done = self.sweeps_done
                phase = "burn-in" if done < self.plan.burn_in else "sampling"
                progress.set(done / total, f"{phase}: sweep {done:,} of {total:,}")
                now = time.perf_counter()
                if on_partial is not None and now - last_partial >= wait and self.kept > 0:
                    on_partial()
                    last_partial = time.perf_counter()
                    # An estimation pass over a large table takes a while; keep it under ~5% of the run.
                    wait = max(partial_every, 20.0 * (last_partial - now))
        return True

    # ------------------------------------------------------------------ pooled sums
    @property
    def kept(self) -> int:
        return sum(c.kept for c in self.chains)

    def pooled(self, name: str) -> np.ndarray:
        """Sum over chains of a running-sum array, divided by the kept samples."""
        total = sum(getattr(c, name) for c in self.chains)
        return total / max(self.kept, 1)

    def acceptance(self) -> list[float | None]:
        """Per chain: accepted / proposed Metropolis moves that change the pairing (vertical only)."""
        if self.horizontal:
            return [None for _ in self.chains]
        return [float(c.stats[1] / c.stats[0]) if c.stats[0] else None for c in self.chains]
