"""Uniqueness benchmarks: MCMC speed, speed-up over pure Python, accuracy against exact counts.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_uniqueness.py                      # T10I4D100K, m = 1..5
    .venv/bin/python benchmarks/bench_uniqueness.py --accuracy BMS-WebView-1 --m 1-4
    .venv/bin/python benchmarks/bench_uniqueness.py --kernels            # support strategies

Datasets are read from ``../shared/data/transactions/<name>.dat`` unless a path is given.
"""
from __future__ import annotations

import argparse
import bisect
import math
import random
import sys
import time
from pathlib import Path

import numpy as np
from bench_data import BENCH_DATA

from anonstudio.data.io import load_transactions
from anonstudio.kernels import support as K
from anonstudio.kernels.mcmc_sampler import subset_counts
from anonstudio.kernels.warmup import warm_up_all
from anonstudio.methods.uniqueness.algorithm import exact_uniqueness, hoeffding_samples, uniqueness_curve
from anonstudio.methods.uniqueness.params import UniquenessParams
from anonstudio.samplers.mcmc_sampler import ItemsetSampler

DATA = BENCH_DATA / "transactions"


def load(name: str):
    path = Path(name)
    return load_transactions(path if path.exists() else DATA / f"{name}.dat")


# ------------------------------------------------------------- pure Python
class PurePythonSampler:
    """The same independence Metropolis-Hastings chain in plain Python.

    Size-weighted proposal (record with probability C(|D_u|, ell), then ell items),
    support by walking the rarest item's posting list and testing set membership,
    with the kernel's two shortcuts: counting stops once the candidate is sure to
    be rejected, and exact supports are memoised (here in an unbounded dict).
    """

    def __init__(self, data, ell: int, seed: int):
        self.ell = ell
        self.rng = random.Random(seed)
        self.records = [data.record(u).tolist() for u in range(data.n_records)]
        self.sets = [set(r) for r in self.records]
        post_indptr, post_records = data.inverted()
        self.postings = [post_records[post_indptr[i]:post_indptr[i + 1]].tolist() for i in range(data.n_items)]
        self.eligible = [u for u, r in enumerate(self.records) if len(r) >= ell]
        weights = [math.comb(len(self.records[u]), ell) for u in self.eligible]
        self.cdf = []
        total = 0
        for w in weights:
            total += w
            self.cdf.append(total)
        self.state = None
        self.state_supp = 0
        self.memo: dict[tuple, int] = {}

    def support(self, items, limit: float) -> int:
        """Support, or any value >= limit once it is known to reach it."""
        if len(items) == 1:  # a single item's support is its posting list's length (the kernel's shortcut too)
            return len(self.postings[items[0]])
        rare = min(items, key=lambda i: len(self.postings[i]))
        others = [i for i in items if i != rare]
        count = 0
        for u in self.postings[rare]:
            if all(i in self.sets[u] for i in others):
                count += 1
                if count >= limit:
                    return count
        self.memo[items] = count
        return count

    def step(self) -> None:
        x = self.rng.random() * self.cdf[-1]
        u = self.eligible[bisect.bisect_right(self.cdf, x)]
        cand = tuple(sorted(self.rng.sample(self.records[u], self.ell)))
        if cand == self.state:
            return
        accept = self.rng.random()
        limit = self.state_supp / accept if self.state is not None and accept > 0 else math.inf
        supp = self.memo.get(cand)
        if supp is None:
            supp = self.support(cand, limit)
        if supp < limit:
            self.state, self.state_supp = cand, supp


SETTLE_STEPS = 200  # steps run before timing, so neither chain is timed from its arbitrary start


def pure_python_seconds_per_step(data, ell: int, steps: int) -> float:
    """Pure-Python seconds per step over steps ``SETTLE_STEPS .. SETTLE_STEPS + steps`` of a fresh chain."""
    sampler = PurePythonSampler(data, ell, seed=1)
    for _ in range(SETTLE_STEPS):
        sampler.step()
    t0 = time.perf_counter()
    for _ in range(steps):
        sampler.step()
    return (time.perf_counter() - t0) / steps


def kernel_seconds_per_step(data, ell: int, steps: int) -> float:
    """One numba chain's seconds per step over the same window of a fresh chain (same memo warm-up as Python)."""
    sampler = ItemsetSampler(data, ell, seed=1, chains=1)
    try:
        sampler._advance(SETTLE_STEPS, SETTLE_STEPS)
        t0 = time.perf_counter()
        sampler._advance(steps, steps)
        return (time.perf_counter() - t0) / steps
    finally:
        sampler.close()


def single_chain_run(data, ell: int, n: int) -> tuple[float, int]:
    """Seconds and steps of a whole single-chain estimate (burn-in + ``n`` thinned draws) on one thread."""
    sampler = ItemsetSampler(data, ell, seed=7, chains=1)
    try:
        t0 = time.perf_counter()
        sampler.burn_in()
        sampler.draw(n)
        seconds = time.perf_counter() - t0
        return seconds, int(sampler._states[0]["counters"][0])
    finally:
        sampler.close()


# ------------------------------------------------------------------ modes
def speed(name: str, ms: range, eps: float, delta: float, py_steps: int) -> None:
    """Print per-core and wall-clock speed-ups over the pure-Python sampler, labelled as such.

    * per core: one numba chain on one thread vs the single-threaded pure-Python
      sampler, both timed over the same window of ``py_steps`` steps of a fresh
      chain (so both memos are equally cold);
    * wall clock: the real estimate (two chains on two threads, burn-in, draws
      until the effective sample size is reached) vs the pure-Python per-step
      cost times the same number of steps.

    A second per-core figure uses the single-chain cost over a whole estimate
    (``1ch run us/step``: burn-in with its Geweke checks, thinned draws, ESS
    bookkeeping, all on one thread) against the same pure-Python per-step cost.
    """
    data = load(name)
    n = hoeffding_samples(eps, delta)
    print(f"{data.name}: {data.n_records:,} records, {data.n_items:,} items; eps = delta = {eps:g}/{delta:g}, "
          f"n = {n:,} samples per m, method mcmc")
    warm_up_all()
    t0 = time.perf_counter()
    ItemsetSampler(data, 1, seed=0).close()  # posting lists and bitsets, built once per dataset
    print(f"one-time index build (posting lists, bitsets): {time.perf_counter() - t0:.2f} s, not in the rows below")
    total = 0.0
    print(f"{'m':>2} | {'py us/step':>10} {'1ch us/step':>11} {'per-core':>8} | {'1ch run us/step':>15} "
          f"{'per-core':>8} | {'2ch wall s':>10} {'steps':>10} {'py est. s':>9} {'wall-clock':>10} | uniqueness [ci]")
    for m in ms:
        params = UniquenessParams(min_m=m, max_m=m, epsilon=eps, delta=delta, seed=7, method="mcmc")
        point = uniqueness_curve(data, params).points[0]
        d = point.diagnostics
        steps = d["chains"] * d["burn_in_steps"] + d["steps"]  # both chains' burn-in plus the draw
        py_step = pure_python_seconds_per_step(data, m, py_steps)
        k_step = kernel_seconds_per_step(data, m, py_steps)
        run_s, run_steps = single_chain_run(data, m, n)
        py_total = py_step * steps
        total += point.seconds
        flag = "" if point.precision_met else " (precision not met)"
        run_step = run_s / run_steps
        print(f"{m:>2} | {1e6 * py_step:>10.1f} {1e6 * k_step:>11.2f} {py_step / k_step:>7.0f}x | "
              f"{1e6 * run_step:>15.2f} {py_step / run_step:>7.0f}x | {point.seconds:>10.2f} {steps:>10,} "
              f"{py_total:>9.0f} "
              f"{py_total / point.seconds:>9.0f}x | {point.uniqueness:.4f} [{point.ci_low:.4f}, {point.ci_high:.4f}]"
              f"{flag}", flush=True)
    print(f"total {total:.1f} s (two chains, wall clock) for m = {ms.start}..{ms.stop - 1}")
    print("per-core = pure-Python us/step / one numba chain's us/step on one thread: first over the same")
    print("  window of steps of a fresh chain, then over a whole single-chain estimate (burn-in + draws);")
    print("wall-clock = (pure-Python us/step x steps of the two-chain run) / that run's wall time.")


def accuracy(name: str, ms: range, eps: float, delta: float) -> None:
    data = load(name)
    print(f"{data.name}: {data.n_records:,} records, {data.n_items:,} items; mcmc at eps = {eps:g}, delta = {delta:g}")
    print(f"{'m':>2} {'exact':>8} {'exact s':>8} {'mcmc':>8} {'ci':>17} {'error':>8} {'mcmc s':>7} "
          f"{'ess':>7} {'thin':>5} {'accept':>7} {'geweke z':>14}")
    for m in ms:
        t0 = time.perf_counter()
        omega, unique = exact_uniqueness(data, m)
        t_exact = time.perf_counter() - t0
        exact = unique / omega
        params = UniquenessParams(min_m=m, max_m=m, epsilon=eps, delta=delta, seed=7, method="mcmc")
        p = uniqueness_curve(data, params).points[0]
        d = p.diagnostics
        z = ",".join(f"{v:+.2f}" for v in d["geweke_z"])
        print(f"{m:>2} {exact:>8.4f} {t_exact:>8.1f} {p.uniqueness:>8.4f} [{p.ci_low:.4f},{p.ci_high:.4f}] "
              f"{p.uniqueness - exact:>+8.4f} {p.seconds:>7.2f} {p.ess:>7.0f} {d['thinning']:>5} "
              f"{d['acceptance_rate']:>7.3f} {z:>14}", flush=True)


def kernels(names: list[str], ell_values: list[int], count: int) -> None:
    """Time the support strategies on itemsets drawn from the data (as the sampler proposes them)."""
    K.warm_up()
    for name in names:
        data = load(name)
        post_indptr, post_records = data.inverted()
        bit_row, bits = K.build_bitsets(data.indptr, data.indices, data.n_items)
        none_row, none_bits = K.no_bitsets(data.n_items)
        rng = np.random.default_rng(1)
        print(f"{data.name}: {int((bit_row >= 0).sum())} of {data.n_items} items have bitsets "
              f"({bits.nbytes / 2**20:.1f} MiB)")
        for ell in ell_values:
            lengths = data.lengths
            eligible = np.flatnonzero(lengths >= ell)
            p = subset_counts(lengths[eligible], ell)
            rows = rng.choice(eligible, size=count, p=p / p.sum())
            itemsets = np.array([np.sort(rng.choice(data.record(u), ell, replace=False)) for u in rows],
                                dtype=np.int32)
            weights = np.ones(data.n_records)  # size-weighted proposal: q is the support
            line = [f"  ell={ell}:"]
            results = []
            for label, mode, row, bs in (("lists", K.MODE_LISTS, none_row, none_bits),
                                         ("lists+bit tests", K.MODE_AUTO, bit_row, bits),
                                         ("bitsets", K.MODE_BITSETS, bit_row, bits)):
                for fn in (lambda: K.support_weight_batch(itemsets, weights, data.indptr, data.indices, post_indptr,
                                                          post_records, row, bs, mode, 1.0),):
                    fn()
                    t0 = time.perf_counter()
                    s, _ = fn()
                    dt = time.perf_counter() - t0
                results.append(s)
                line.append(f"{label} {1e6 * dt / count:.2f} us")
            assert all(np.array_equal(results[0], r) for r in results)
            print("  ".join(line))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="T10I4D100K")
    ap.add_argument("--m", default="1-5")
    ap.add_argument("--epsilon", type=float, default=0.01)
    ap.add_argument("--delta", type=float, default=0.01)
    ap.add_argument("--python-steps", type=int, default=5000, help="pure-Python steps timed per m")
    ap.add_argument("--accuracy", metavar="DATASET", help="compare MCMC with exact counts on DATASET")
    ap.add_argument("--kernels", action="store_true", help="time support strategies on chess and T10I4D100K")
    args = ap.parse_args(argv)
    lo, hi = (int(x) for x in args.m.split("-")) if "-" in args.m else (1, int(args.m))
    ms = range(lo, hi + 1)
    if args.kernels:
        kernels(["chess", "T10I4D100K", "BMS-WebView-1"], [2, 3, 4], 20_000)
    elif args.accuracy:
        accuracy(args.accuracy, ms, args.epsilon, args.delta)
    else:
        speed(args.dataset, ms, args.epsilon, args.delta, args.python_steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
