"""Benchmark of personalized ρ-uncertainty (paper 002) on BMS-WebView-1, with ratios to the pure-Python reference.

Workloads (ρ = 0.5, 10 % sensitive items, seed 1):

``sample``   SUPPRESSOR exact on a 10 % sample of BMS-WebView-1′ (records of ≤ 5 items), fixed and personalized+
``primed``   SUPPRESSOR exact on all of BMS-WebView-1′, personalized+
``sampled``  SAMPLESUPPRESSOR on all of BMS-WebView-1, m = 5, ε = δ = 0.05, personalized+
``acceptance`` the issue's check on BMS-WebView-1′ with 10 % fixed E: exact SUPPRESSOR on a 10 % sample
             with an exhaustive independent check, SAMPLESUPPRESSOR (ε = δ = 0.05, m = 3) on the whole set
             with the verifier's exhaustive and sampled checks, utilities recomputed
``trends``   the paper's trends, mean ± sd over repetitions of 10 % samples (Figs. 1, 3-4, 7, 8)

Each prints seconds (the algorithm; loading and E are timed apart), passes,
suppressed items, util_info, peak RSS of the process (getrusage, loading
included) and, with ``--reference``, the reference's seconds, the ratio, and
whether both outputs are identical (they follow the same draw protocol).

Usage::

    .venv/bin/python benchmarks/bench_rho.py sample --reference
    .venv/bin/python benchmarks/bench_rho.py primed [--reference]
    .venv/bin/python benchmarks/bench_rho.py sampled [--reference] [--json out.json]

Run one workload per process for clean peak-memory numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_data import BENCH_DATA  # noqa: E402  (benchmarks/ is the script folder)

from anonstudio.data.io import load_transactions  # noqa: E402
from anonstudio.jobs import derive_seed  # noqa: E402
from anonstudio.kernels import rho_suppressor  # noqa: E402
from anonstudio.methods.rho.params import sample_size  # noqa: E402
from anonstudio.methods.rho.sensitive import generate_sensitive  # noqa: E402
from anonstudio.methods.rho.suppressor import suppress_exact, suppress_sampled  # noqa: E402
from anonstudio.methods.rho.utility import util_info  # noqa: E402
from tests.reference import rho_reference as ref  # noqa: E402

BMS = BENCH_DATA / "transactions" / "BMS-WebView-1.dat"
RHO = Fraction(1, 2)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def primed(data):
    return data.subset(np.flatnonzero(data.lengths <= 5))


def sample(data, seed: int = 1):
    rng = np.random.default_rng(derive_seed(seed, "bench-sample"))
    rows = np.sort(rng.choice(data.n_records, size=data.n_records // 10, replace=False))
    return data.subset(rows)


def _sets(data, e):
    return [set(int(i) for i in e.items_of(u) if i < data.n_items) for u in range(data.n_records)]


def run_one(name: str, data, setting: str, algorithm: str, reference: bool) -> dict:
    t0 = time.perf_counter()
    e = generate_sensitive(data, setting, 0.1, 1)
    e_seconds = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time()
    if algorithm == "exact":
        out = suppress_exact(data, e, RHO, None, 1)
    else:
        out = suppress_sampled(data, e, RHO, 5, sample_size(0.05, 0.05), "user", 1)
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - c0
    row = {"workload": name, "records": data.n_records, "setting": setting, "algorithm": algorithm,
           "seconds": round(seconds, 3), "cpu_seconds": round(cpu, 3), "sensitive_seconds": round(e_seconds, 3),
           "passes": out.iterations,
           "suppressed": out.suppressed_items, "util_info": round(util_info(data, out.published), 4),
           "peak_rss_mb": round(peak_rss_mb(), 1)}
    if algorithm == "sampled":
        checks = sum(lv.checked for rec in out.passes for lv in rec.levels)
        row["adversary_checks"] = checks
        row["us_per_check"] = round(seconds / max(checks, 1) * 1e6, 2)
    print(f"{name}: {data.n_records:,} records, {setting}, {algorithm}: {seconds:.3f} s (CPU {cpu:.3f} s), "
          f"{out.iterations} passes, "
          f"{out.suppressed_items:,} suppressed, util_info {row['util_info']}, peak RSS {row['peak_rss_mb']} MB",
          flush=True)
    if reference:
        records = [sorted(data.record(u).tolist()) for u in range(data.n_records)]
        sets = _sets(data, e)
        t0, c0 = time.perf_counter(), time.process_time()
        if algorithm == "exact":
            pub, passes, suppressed = ref.suppressor(records, sets, RHO, None, 1)
        else:
            pub, passes, suppressed = ref.sample_suppressor(records, sets, RHO, 5, sample_size(0.05, 0.05), "user", 1)
        ref_seconds = time.perf_counter() - t0
        ref_cpu = time.process_time() - c0
        same = pub == [sorted(out.published.record(u).tolist()) for u in range(data.n_records)]
        row.update({"reference_seconds": round(ref_seconds, 2), "reference_cpu_seconds": round(ref_cpu, 2),
                    "ratio": round(ref_seconds / seconds, 1), "cpu_ratio": round(ref_cpu / max(cpu, 1e-9), 1),
                    "identical_output": same, "reference_passes": passes})
        print(f"  reference: {ref_seconds:.2f} s, CPU {ref_cpu:.2f} s ({ref_seconds / seconds:.0f}x slower, "
              f"{ref_cpu / max(cpu, 1e-9):.0f}x in CPU), {passes} passes, "
              f"identical output: {same}", flush=True)
    return row


def _verified(data, params, label: str, **verify_kw) -> dict:
    from anonstudio.methods.rho.algorithm import run_rho
    from anonstudio.verifiers.rho import verify_rho

    res = run_rho(data, params)
    doc = res.to_json()
    reported = {k: doc[k] for k in ("suppressed_items", "util_info", "util_dist", "util_mining", "rules_original",
                                    "rules_published", "rules_common")}
    t0 = time.perf_counter()
    check = verify_rho(data, res.published, res.constraint.pairs(), params.rho_fraction, params.m,
                       epsilon=params.epsilon, sampler=params.sampler, reported=reported, seed=99, **verify_kw)
    row = {"check": label, "records": data.n_records, "seconds": round(res.seconds, 3), "passes": res.iterations,
           **{k: reported[k] for k in ("suppressed_items", "util_info", "util_dist", "util_mining")},
           "verify_seconds": round(time.perf_counter() - t0, 2), "passed": check.passed,
           "exhaustive": check.exhaustive, "unsafe": check.unsafe, "mismatches": list(check.mismatches),
           "levels": [lv.to_json() for lv in check.levels]}
    print(f"{label}: {data.n_records:,} records, {res.seconds:.2f} s, {res.iterations} passes, util_info "
          f"{res.util_info:.4f}, util_dist {res.util_dist:.5f}, util_mining {reported['util_mining']}", flush=True)
    for line in check.lines():
        print(f"    {line}", flush=True)
    print(f"    check {'PASSED' if check.passed else 'FAILED'} in {row['verify_seconds']} s", flush=True)
    return row


def acceptance(data) -> list[dict]:
    from anonstudio.methods.rho.params import RhoParams

    prime = primed(data)
    small = sample(prime)
    rows = [_verified(small, RhoParams(rho="0.5", setting="fixed", sensitive_fraction=0.1, seed=1),
                      "exact SUPPRESSOR, 10 % sample, exhaustive check")]
    sampled = RhoParams(rho="0.5", setting="fixed", sensitive_fraction=0.1, seed=1, epsilon=0.05, delta=0.05, m=3)
    rows.append(_verified(prime, sampled, "SAMPLESUPPRESSOR m=3, whole set, exhaustive check"))
    rows.append(_verified(prime, sampled, "SAMPLESUPPRESSOR m=3, whole set, sampled check (user)",
                          exhaustive_limit=0, samples=100_000))
    return rows


def _stats(values) -> str:
    arr = np.asarray(values, dtype=float)
    return f"{arr.mean():.4f} ± {arr.std(ddof=1) if len(arr) > 1 else 0.0:.4f}"


def trends(data, repeats: int) -> list[dict]:
    from anonstudio.methods.rho.algorithm import run_rho
    from anonstudio.methods.rho.params import RhoParams

    prime = primed(data)
    rows = []

    def point(figure, base, label, **params):
        infos, minings, secs, passes = [], [], [], []
        for r in range(repeats):
            part = sample(base, seed=100 + r)
            res = run_rho(part, RhoParams(seed=100 + r, **params))
            infos.append(res.util_info)
            secs.append(res.suppression.seconds)
            passes.append(res.iterations)
            if res.mining is not None and res.mining.value is not None:
                minings.append(res.mining.value)
        row = {"figure": figure, "point": label, "util_info": _stats(infos), "seconds": _stats(secs),
               "passes": _stats(passes), "util_mining": _stats(minings) if minings else None}
        print(f"{figure} {label}: util_info {row['util_info']}, util_mining {row['util_mining']}, "
              f"seconds {row['seconds']}, passes {row['passes']}", flush=True)
        rows.append(row)

    for setting in ("fixed", "personalized"):
        point("Fig. 1 (Alg. 1, rho 0.5, 40 %)", prime, setting, rho="0.5", setting=setting, sensitive_fraction=0.4)
    for setting in ("fixed", "personalized"):
        point("Fig. 2 (Alg. 2, m 5, eps=delta 0.05, 40 %)", data, setting, rho="0.5", setting=setting,
              sensitive_fraction=0.4, epsilon=0.05, delta=0.05, m=5)
    for rho in ("0.3", "0.5", "0.7"):
        for setting in ("fixed+", "personalized+"):
            point("Fig. 3 (Alg. 1, 10 %, vs rho)", prime, f"{setting} rho={rho}", rho=rho, setting=setting,
                  sensitive_fraction=0.1)
    for frac in (0.05, 0.2):
        for setting in ("fixed+", "personalized+"):
            point("Fig. 4 (Alg. 1, rho 0.5, vs % sensitive)", prime, f"{setting} {frac:.0%}", rho="0.5",
                  setting=setting, sensitive_fraction=frac)
    for m in (1, 2, 3, 4, 5):
        point("Fig. 7 (Alg. 2, personalized+ 10 %, vs m)", data, f"m={m}", rho="0.5", setting="personalized+",
              sensitive_fraction=0.1, epsilon=0.05, delta=0.05, m=m)
    for eps in (0.1, 0.05, 0.02):
        point("Fig. 8 (Alg. 2, personalized+ 10 %, m 5, vs eps=delta)", data, f"eps=delta={eps}", rho="0.5",
              setting="personalized+", sensitive_fraction=0.1, epsilon=eps, delta=eps, m=5)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("workload", choices=("sample", "primed", "sampled", "acceptance", "trends"))
    parser.add_argument("--repeats", type=int, default=10, help="trends: repetitions per point")
    parser.add_argument("--reference", action="store_true", help="also run the pure-Python reference")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    data = load_transactions(BMS)
    print(f"loaded {BMS.name}: {data.n_records:,} records in {time.perf_counter() - t0:.2f} s; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
    rho_suppressor.warm_up()
    rows = []
    if args.workload == "sample":
        small = sample(primed(data))
        for setting in ("fixed", "personalized+"):
            rows.append(run_one("10% of BMS-WebView-1'", small, setting, "exact", args.reference))
    elif args.workload == "primed":
        rows.append(run_one("BMS-WebView-1'", primed(data), "personalized+", "exact", args.reference))
    elif args.workload == "sampled":
        rows.append(run_one("BMS-WebView-1", data, "personalized+", "sampled", args.reference))
    elif args.workload == "acceptance":
        rows.extend(acceptance(data))
    else:
        rows.extend(trends(data, args.repeats))
    print(f"load average after: {os.getloadavg()[0]:.2f}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
