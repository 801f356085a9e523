"""Benchmark of the independent evaluator (``anonstudio.evaluate``) on BMS-WebView-1 (59,602 people, 497 items).

Releases (built here from the original, with no method code):

``original``       the original as its own release (plain set-valued data)
``generalized``    items merged into random groups of 3 (a partition map and its release)
``nonreciprocal``  every record published with a random distance bitmap of 5 items and threshold 2

Methods: ``sampled`` (every m sampled, ±0.01 at 95 %), ``exact`` (every m counted), ``auto`` (the CLI's
default: exact up to 2,000,000 known sets per m, sampled beyond). Each run evaluates m = 1..M with 1,000
count queries and prints seconds per stage, the figures with their intervals, the peak RSS of the process
(getrusage, loading included) and the load average of the machine before and after.

Usage::

    .venv/bin/python benchmarks/bench_evaluate.py --release original --method sampled --m 3
    .venv/bin/python benchmarks/bench_evaluate.py --release generalized --method exact --m 2

Run one workload per process for clean peak-memory numbers. The first run after a change to the
kernels compiles them (excluded: the script warms them up first and says how long that took).
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_data import BENCH_DATA  # noqa: E402  (benchmarks/ is the script folder)

from anonstudio.data.io import load_transactions  # noqa: E402
from anonstudio.evaluate import EvaluateOptions, SideFiles, evaluate  # noqa: E402


def write_release(data, kind: str, folder: Path) -> tuple[Path, SideFiles]:
    """A release of ``data`` of ``kind`` (original, generalized, else nonreciprocal-style) in ``folder``."""
    rng = np.random.default_rng(1)
    vocab = data.vocab
    if kind == "original":
        return BENCH_DATA / "transactions" / "BMS-WebView-1.dat", SideFiles()
    if kind == "generalized":
        order = rng.permutation(len(vocab))
        group = np.empty(len(vocab), dtype=np.int64)
        group[order] = np.arange(len(vocab)) // 3
        (folder / "map.csv").write_text("item,partition\n" + "".join(f"{vocab[i]},G{group[i]}\n"
                                                                     for i in range(len(vocab))))
        lines = [" ".join(sorted({f"G{group[i]}" for i in data.record(u)})) for u in range(data.n_records)]
        (folder / "generalized.dat").write_text("\n".join(lines) + "\n")
        return folder / "generalized.dat", SideFiles(map=folder / "map.csv")
    rows = ["record,base,distance,threshold,label"]
    for u in range(data.n_records):
        base = [vocab[i] for i in data.record(u)]
        dist = [vocab[i] for i in rng.choice(len(vocab), 5, replace=False)]
        rows.append(f"{u + 1},{';'.join(base)},{';'.join(dist)},2,")
    (folder / "published.csv").write_text("\n".join(rows) + "\n")
    return folder / "published.csv", SideFiles()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", choices=("original", "generalized", "nonreciprocal"), default="original")
    parser.add_argument("--method", choices=("sampled", "exact", "auto"), default="sampled")
    parser.add_argument("--m", type=int, default=3)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--folder", type=Path, default=Path("/tmp"))
    args = parser.parse_args()
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    from anonstudio.kernels import evaluate_risk, evaluate_utility

    evaluate_risk.warm_up()
    evaluate_utility.warm_up()
    warm = time.perf_counter() - t0
    t0 = time.perf_counter()
    data = load_transactions(BENCH_DATA / "transactions" / "BMS-WebView-1.dat")
    load = time.perf_counter() - t0
    path, side = write_release(data, args.release, args.folder)
    options = EvaluateOptions(m=args.m, k=args.k, queries=args.queries, method=args.method, seed=1)
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    ev = evaluate(data, path, side=side, options=options)
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"release {args.release} ({ev.kind}), method {args.method}, m = 1..{args.m}, {args.queries} queries")
    print(f"kernel warm-up {warm:.1f} s (excluded), loading the original {load:.2f} s (excluded)")
    for level in ev.levels:
        pr, sr = level.prosecutor_risk, level.share_at_risk
        half = (pr.high - pr.low) / 2
        print(f"  m={level.m}: {level.method:<7} {level.seconds:6.2f} s  known sets {level.known_sets:>12,}  "
              f"samples {level.samples:>6,}  prosecutor {pr.value:.4f} ±{half:.4f}  "
              f"share at risk {sr.value:.4f} [{sr.low:.4f}, {sr.high:.4f}]")
    risk = sum(level.seconds for level in ev.levels)
    print(f"count-query error {ev.count_query_error['value']:.4f}, frequency distortion "
          f"{ev.frequency_distortion['value']:.4f}")
    print(f"evaluate(): {seconds:.2f} s wall ({cpu:.2f} s CPU over all threads); risk {risk:.2f} s, reading and "
          f"utility {seconds - risk:.2f} s; peak RSS {peak:.0f} MiB")
    print(f"load average before {load_before[0]:.1f}, after {os.getloadavg()[0]:.1f} (2 cores)")


if __name__ == "__main__":
    main()
