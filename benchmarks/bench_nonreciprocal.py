"""Benchmark of nonreciprocal recoding (paper 001, §5 and Fig. 7; issue 9's performance table).

Workloads (each prints seconds per phase, peak RSS of this process, loading
included, the machine's load average and the measured utility):

* ``t10``: T10I4D100K, k = 10, Gray-TSP, end to end with the independent
  check; then the same with ``--order gray`` for the ER comparison.
* ``bms``: BMS-WebView-1, k = 5, end to end with the check.
* ``chess16``: chess x16 (copy c >= 1 replaces 2 random items per record,
  seeded; implementation note T13), k = 16: assignment extraction by closed
  walk vs both WMC backtracking baselines (T14), with step counts and ratios.
* ``l20k``: the first 20,000 records of BMS-WebView-1 with 14 labels drawn
  from the Adult occupation histogram, ℓ = 4: the label-spaced ring end to
  end with the check; the paper's greedy method and CAHD for comparison.

Usage::

    .venv/bin/python benchmarks/bench_nonreciprocal.py [t10 bms chess16 l20k] [--json out.json]

Run one workload per process for clean peak-memory numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_data import BENCH_DATA

SHARED = BENCH_DATA


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_avg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _load(name: str):
    from anonstudio.data.io import load_transactions

    t = time.perf_counter()
    data = load_transactions(SHARED / "transactions" / f"{name}.dat")
    return data, time.perf_counter() - t


def _warm() -> float:
    from anonstudio.kernels import (
        nonreciprocal_cahd,
        nonreciprocal_diversity,
        nonreciprocal_metrics,
        nonreciprocal_order,
        nonreciprocal_publish,
        nonreciprocal_tsp,
        nonreciprocal_verify,
        nonreciprocal_walk,
        nonreciprocal_wmc,
    )

    t = time.perf_counter()
    for mod in (nonreciprocal_order, nonreciprocal_tsp, nonreciprocal_walk, nonreciprocal_wmc, nonreciprocal_publish,
                nonreciprocal_metrics, nonreciprocal_diversity, nonreciprocal_cahd, nonreciprocal_verify):
        mod.warm_up()
    return time.perf_counter() - t


def end_to_end(data, params) -> dict:
    from anonstudio.methods.nonreciprocal.algorithm import run_nonreciprocal
    from anonstudio.verifiers.nonreciprocal import verify_result

    t = time.perf_counter()
    res = run_nonreciprocal(data, params)
    run_s = time.perf_counter() - t
    t = time.perf_counter()
    ver = verify_result(data, res, threads=params.threads)
    ver_s = time.perf_counter() - t
    out = {
        "records": data.n_records, "m": res.m, "mode": res.mode, "method": res.method, "order": res.order_kind,
        "phases": {k: round(v, 3) for k, v in res.seconds.items()}, "run_s": round(run_s, 3),
        "verify_s": round(ver_s, 3), "total_s": round(run_s + ver_s, 3),
        "hamming": [res.hamming_before, res.hamming_gray, res.hamming_after],
        "error_rate": res.error_rate, "qe": res.query_error.to_json(), "walk_steps": int(sum(res.walk_steps)),
        "label_failures": res.label_failures, "verified": ver.passed, "min_worlds": ver.min_worlds,
        "spacing": res.spacing, "hamming_ring": res.hamming_ring,
    }
    print(f"  {res.mode}={res.m} {res.method} {res.order_kind}: phases {out['phases']}, run {run_s:.2f} s, "
          f"check {ver_s:.2f} s ({'passed' if ver.passed else 'FAILED'}), total {run_s + ver_s:.2f} s", flush=True)
    print(f"    Hamming input/Gray/after {out['hamming']}, ER {res.error_rate:.4f}, QE I {res.query_error.type1:.5f} "
          f"II {res.query_error.type2:.5f} (|In|={res.query_error.in_size}, |Ex|={res.query_error.ex_size}), "
          f"walk steps {out['walk_steps']:,}, fewest worlds {ver.min_worlds}"
          + (f", label failures {res.label_failures:,}" if res.label_failures is not None else "")
          + (f", spacing {res.spacing}, ring Hamming {res.hamming_ring:,}" if res.spacing else ""), flush=True)
    return out


def bench_t10() -> dict:
    from anonstudio.methods.nonreciprocal.params import NonreciprocalParams

    data, load_s = _load("T10I4D100K")
    print(f"T10I4D100K: {data.n_records:,} records, load {load_s:.2f} s, load average {load_avg()}", flush=True)
    tsp = end_to_end(data, NonreciprocalParams(k=10))
    gray = end_to_end(data, NonreciprocalParams(k=10, order="gray"))
    print(f"  ER Gray-TSP {tsp['error_rate']:.4f} < Gray {gray['error_rate']:.4f}: "
          f"{tsp['error_rate'] < gray['error_rate']}; peak RSS {peak_rss_mb():.0f} MB", flush=True)
    return {"load_s": round(load_s, 3), "gray_tsp": tsp, "gray": gray, "peak_rss_mb": round(peak_rss_mb())}


def bench_bms() -> dict:
    from anonstudio.methods.nonreciprocal.params import NonreciprocalParams

    data, load_s = _load("BMS-WebView-1")
    print(f"BMS-WebView-1: {data.n_records:,} records, load {load_s:.2f} s, load average {load_avg()}", flush=True)
    tsp = end_to_end(data, NonreciprocalParams(k=5))
    gray = end_to_end(data, NonreciprocalParams(k=5, order="gray"))
    print(f"  peak RSS {peak_rss_mb():.0f} MB", flush=True)
    return {"load_s": round(load_s, 3), "gray_tsp": tsp, "gray": gray, "peak_rss_mb": round(peak_rss_mb())}


def perturbed_copies(data, copies: int, seed: int):
    """``copies`` versions of ``data``: copy 0 as is, copy c >= 1 with 2 random items of each record replaced."""
    from anonstudio.data.transactions import TransactionData

    rng = np.random.default_rng(seed)
    universe = np.flatnonzero(data.item_frequencies)
    records = [data.record(u) for u in range(data.n_records)]
    out = list(records)
    for _ in range(1, copies):
        for rec in records:
            rec = rec.copy()
            if len(rec) >= 2:
                drop = rng.choice(len(rec), size=2, replace=False)
                keep = np.delete(rec, drop)
                pool = np.setdiff1d(universe, rec)
                add = rng.choice(pool, size=min(2, len(pool)), replace=False)
                rec = np.union1d(keep, add)
            out.append(rec)
    return TransactionData.from_id_lists(out, n_items=data.n_items, vocab=data.vocab, name=f"{data.name} x{copies}")


def bench_chess16(budget_factor: int = 20) -> dict:
    from anonstudio.methods.nonreciprocal.order import gray_order
    from anonstudio.methods.nonreciprocal.walk import extract_assignments, ring_graph
    from anonstudio.methods.nonreciprocal.wmc import backtrack_assignments

    base, _ = _load("chess")
    out = {}
    for copies in (1, 2, 4, 8, 16):
        data = perturbed_copies(base, copies, seed=13)
        # the ring over the Gray order, with records renumbered by rank (as the pipeline's walk runs)
        gray_order(data)
        nbr = ring_graph(np.arange(data.n_records), 16)
        t = time.perf_counter()
        walk = extract_assignments(nbr, 1)
        walk_s = time.perf_counter() - t
        keep = backtrack_assignments(nbr, 1, "keep-marks")
        budget = budget_factor * walk.total_steps
        unmark = backtrack_assignments(nbr, 1, "unmark", budget=budget)
        row = {
            "records": data.n_records, "walk_s": round(walk_s, 3), "walk_steps": walk.total_steps,
            "keep_marks_s": round(keep.seconds, 3), "keep_marks_steps": keep.steps,
            "unmark_s": round(unmark.seconds, 3), "unmark_steps": unmark.steps,
            "unmark_over_budget": unmark.over_budget,
            "unmark_rounds": int(unmark.assignments.shape[0]),
        }
        out[f"x{copies}"] = row
        um = (f"over its budget of {budget:,} steps after {row['unmark_rounds']} of 16 rounds, {unmark.seconds:.2f} s"
              if unmark.over_budget else f"{unmark.steps:,} steps, {unmark.seconds:.2f} s")
        print(f"chess x{copies} ({data.n_records:,} records), k = 16: closed walk {walk.total_steps:,} steps "
              f"{walk_s:.2f} s; WMC keep-marks {keep.steps:,} steps {keep.seconds:.2f} s "
              f"(steps ratio WMC/walk {keep.steps / walk.total_steps:.2f}, time ratio "
              f"{keep.seconds / max(walk_s, 1e-9):.2f}); WMC un-mark {um}; load average {load_avg()}, "
              f"peak RSS {peak_rss_mb():.0f} MB", flush=True)
    return out


def adult_occupations() -> tuple[np.ndarray, list[str]]:
    counts: dict[str, int] = {}
    for line in (SHARED / "adult" / "adult.data").read_text().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) > 6 and parts[6] not in ("", "?"):
            counts[parts[6]] = counts.get(parts[6], 0) + 1
    names = sorted(counts)
    p = np.array([counts[s] for s in names], dtype=float)
    return p / p.sum(), names


def bench_l20k() -> dict:
    from anonstudio.data.io.record_labels import RecordLabels
    from anonstudio.methods.nonreciprocal.cahd import cahd
    from anonstudio.methods.nonreciprocal.params import NonreciprocalParams

    data, _ = _load("BMS-WebView-1")
    data = data.subset(np.arange(20_000))
    p, names = adult_occupations()
    codes = np.random.default_rng(7).choice(len(names), size=data.n_records, p=p)
    labels = RecordLabels.from_names([names[c] for c in codes])
    path = Path(tempfile.mkdtemp(prefix="bench-nonreciprocal-")) / "labels.csv"
    path.write_text("record,label\n" + "".join(f"{u + 1},{names[c]}\n" for u, c in enumerate(codes)))
    print(f"BMS-WebView-1 first 20,000 records, {labels.n_labels} labels (largest share "
          f"{labels.counts().max() / data.n_records:.3f}), l = 4, load average {load_avg()}", flush=True)
    out = {"ring": end_to_end(data, NonreciprocalParams(l=4, labels=path, l_method="ring"))}
    out["greedy"] = end_to_end(data, NonreciprocalParams(l=4, labels=path, l_method="greedy"))
    from anonstudio.methods.nonreciprocal.algorithm import run_nonreciprocal

    order = run_nonreciprocal(data, NonreciprocalParams(k=2)).order
    c = cahd(data, labels, 4, order, 1)
    out["cahd"] = c.summary()
    print(f"  CAHD (same Gray-TSP order): {c.summary()}; peak RSS {peak_rss_mb():.0f} MB", flush=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workloads", nargs="*", default=["t10", "bms", "chess16", "l20k"])
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    print(f"compiling/loading kernels: {_warm():.1f} s; cores {os.cpu_count()}, load average {load_avg()}",
          flush=True)
    results = {}
    for w in args.workloads:
        results[w] = {"t10": bench_t10, "bms": bench_bms, "chess16": bench_chess16, "l20k": bench_l20k}[w]()
    results["peak_rss_mb"] = round(peak_rss_mb())
    results["load_average"] = load_avg()
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
