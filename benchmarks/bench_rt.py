"""Benchmark and acceptance runs of RT anonymization on INFORMS (paper 003, Poulis et al. 2013).

INFORMS 2005 persons with at least one ICD-9 code (26,735 people, 599 codes),
quasi-identifiers month and year of birth, race (coded), years of education
and income; k = 25, m = 2, δ = 0.65 by default; the item hierarchy is a
balanced fan-out-5 tree over the codes in code order (the ICD-9 file's 19
chapters under the root collapse large clusters to ``*``).

Usage::

    .venv/bin/python benchmarks/bench_rt.py                  # Cluster + the six bound x merge runs, peak RSS
    .venv/bin/python benchmarks/bench_rt.py --order-ratio    # BTD vs exact-UL ordering on a 4,000-record subset
    .venv/bin/python benchmarks/bench_rt.py --acceptance OUT # checker on ANON.csv files, ℓ = 2, §5 trends

Seconds exclude kernel compilation (warmed up first and reported). Peak RSS
is this process's high-water mark (loading included).
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from bench_data import BENCH_DATA

INFORMS = BENCH_DATA / "informs"
QI = ("DOBMM", "DOBYY", "RACEX", "EDUCYEAR", "income")
COMBOS = [(b, m) for b in ("rum", "tum") for m in ("r", "t", "rt")]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load():
    from anonstudio.data.io.rt import load_rt_long

    t = time.perf_counter()
    data = load_rt_long(INFORMS / "demographics05test.csv", INFORMS / "conditions05.csv", person="DUPERSID",
                        item="ICD9CODX")
    print(f"loaded {data.table.n_rows:,} people, {data.transactions.n_items} codes in "
          f"{time.perf_counter() - t:.2f} s", flush=True)
    return data


def warm() -> None:
    from anonstudio.kernels import rt_btd, rt_cluster, rt_transaction

    t = time.perf_counter()
    for module in (rt_cluster, rt_transaction, rt_btd):
        module.warm_up()
    print(f"kernels warmed up in {time.perf_counter() - t:.2f} s", flush=True)


def base_params(**kw):
    from anonstudio.methods.rt.params import RTParams

    p = dict(qi=QI, items_column="ICD9CODX", categorical=("RACEX",), k=25, m=2, delta=0.65, item_fanout=5,
             item_order="code", seed=1)
    p.update(kw)
    return RTParams(**p)


def _line(tag: str, r, seconds: float) -> str:
    are = " ".join(f"{k} {v:.3f}" for k, v in r.are.items())
    tum = f"{r.tum:.4f}" if r.tum is not None else "-"
    return (f"{tag:<10} {seconds:6.2f} s  feasible {str(r.feasible):5}  Rum {r.rum:.4f}  Tum {tum}  "
            f"clusters {r.n_clusters:5}  largest {int(r.cluster_sizes.max()):5}  merges {r.merges:5}  ARE {are}")


def bench_main() -> dict:
    from anonstudio.methods.rt.algorithm import run_rt
    from anonstudio.methods.rt.cluster import cluster
    from anonstudio.methods.rt.prepare import prepare

    data = load()
    warm()
    params = base_params()
    problem = prepare(data, params)
    t = time.perf_counter()
    c = cluster(problem, params.k, params.seed)
    cluster_s = time.perf_counter() - t
    print(f"Cluster: {cluster_s:.2f} s, {c.n_clusters:,} clusters, Rum {c.rum():.4f} (goal < 10 s)", flush=True)
    out = {"cluster_seconds": cluster_s, "runs": {}}
    for bound, merge in COMBOS:
        t = time.perf_counter()
        r = run_rt(data, replace(params, bound=bound, merge=merge))
        s = time.perf_counter() - t
        print(_line(f"{bound}/{merge}", r, s) + "  (goal < 60 s)", flush=True)
        out["runs"][f"{bound}/{merge}"] = {"seconds": s, "phases": r.seconds, **r.summary()}
    out["peak_rss_mb"] = peak_rss_mb()
    print(f"peak RSS {out['peak_rss_mb']:.0f} MB", flush=True)
    return out


def subset(data, n: int, seed: int = 4000):
    from anonstudio.data.table import RTData, Table

    rows = np.sort(np.random.default_rng(seed).choice(data.table.n_rows, size=n, replace=False))
    frame = data.table.frame.iloc[rows].reset_index(drop=True)
    return RTData(Table(frame, name=f"informs-{n}"), data.transactions.subset(rows))


def bench_order_ratio(n: int = 4000) -> dict:
    """BTD against exact-UL ordering (Fig. 7c-f): same runs, candidates ranked two ways."""
    from anonstudio.methods.rt.algorithm import run_rt

    data = subset(load(), n)
    warm()
    out = {}
    for bound, merge in [("rum", "t"), ("rum", "rt"), ("tum", "t"), ("tum", "rt")]:
        row = {}
        for order in ("btd", "ul"):
            t = time.perf_counter()
            r = run_rt(data, base_params(bound=bound, merge=merge, order=order))
            row[order] = {"seconds": time.perf_counter() - t, "tum": r.tum, "rum": r.rum, "merges": r.merges,
                          "merge_seconds": r.seconds.get("merge", 0.0) + r.seconds.get("btd", 0.0)}
        ratio = row["ul"]["seconds"] / row["btd"]["seconds"]
        merge_ratio = row["ul"]["merge_seconds"] / max(row["btd"]["merge_seconds"], 1e-9)
        print(f"{bound}/{merge} on {n:,}: BTD {row['btd']['seconds']:.2f} s (Tum {row['btd']['tum']:.4f}), "
              f"exact UL {row['ul']['seconds']:.2f} s (Tum {row['ul']['tum']:.4f}); "
              f"ratio {ratio:.1f}x whole run, {merge_ratio:.1f}x merge phase", flush=True)
        out[f"{bound}/{merge}"] = {**row, "ratio": ratio, "merge_ratio": merge_ratio}
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def _sensitive_codes(data) -> list[str]:
    """Mental disorders (ICD-9 290-319) and HIV (042) present in the data."""
    vocab = data.transactions.vocab
    return sorted(c for c in vocab if c == "042" or (c.isdigit() and 290 <= int(c) <= 319))


def acceptance(out_dir: Path) -> dict:
    """Issue 11's first check: the six combinations and ℓ = 2, checked from the written ANON.csv files."""
    from anonstudio.data.io.jsonfile import write_json
    from anonstudio.methods.rt.algorithm import run_rt
    from anonstudio.methods.rt.export import write_anon_csv, write_item_hierarchy
    from anonstudio.verifiers.rt import RTCheck, check_anon_csv

    out_dir.mkdir(parents=True, exist_ok=True)
    data = load()
    warm()
    sens_file = out_dir / "sensitive.txt"
    sens_file.write_text("\n".join(_sensitive_codes(data)) + "\n", encoding="utf-8")
    report = {"runs": {}}
    for l in (None, 2):
        for bound, merge in COMBOS:
            params = base_params(bound=bound, merge=merge, l=l, sensitive_items=sens_file if l else None)
            tag = f"{bound}-{merge}" + (f"-l{l}" if l else "")
            t = time.perf_counter()
            r = run_rt(data, params)
            seconds = time.perf_counter() - t
            write_json(out_dir / f"{tag}.json", r.to_json())
            entry = {"seconds": seconds, "feasible": r.feasible, "rum": r.rum, "tum": r.tum, "are": r.are,
                     "clusters": r.n_clusters, "largest": int(r.cluster_sizes.max())}
            if r.feasible:
                anon = out_dir / f"{tag}.ANON.csv"
                write_anon_csv(anon, r)
                write_item_hierarchy(out_dir / "items_fanout5.csv", r)
                check = RTCheck(qi=QI, items_column="ICD9CODX", k=25, m=2, l=l, categorical=("RACEX",),
                                item_hierarchy=out_dir / "items_fanout5.csv", claimed_rum=r.rum, claimed_tum=r.tum)
                v = check_anon_csv(anon, data, check, sensitive_file=sens_file if l else None)
                bound_ok = (r.rum if bound == "rum" else r.tum) <= params.delta + 1e-12
                entry.update(violations=v.violations, passed=v.passed, checker_rum=v.rum, checker_tum=v.tum,
                             rum_diff=abs(v.rum - r.rum), tum_diff=abs(v.tum - r.tum), bound_holds=bound_ok)
                print(_line(tag, r, seconds) + f"  | checker: {v.violations} violations, "
                      f"|ΔRum| {abs(v.rum - r.rum):.1e}, |ΔTum| {abs(v.tum - r.tum):.1e}, bound holds {bound_ok}",
                      flush=True)
            else:
                print(_line(tag, r, seconds) + f"  | infeasible: {r.reason}", flush=True)
            report["runs"][tag] = entry
    report["trends"] = trends(data)
    report["peak_rss_mb"] = peak_rss_mb()
    (out_dir / "acceptance.json").write_text(json.dumps(report, indent=2, default=float) + "\n", encoding="utf-8")
    return report


def _inversions(values: list[float], rising: bool) -> int:
    steps = np.diff(np.asarray(values, dtype=float))
    return int(np.sum(steps < -1e-12) if rising else np.sum(steps > 1e-12))


def trends(data) -> dict:
    """§5: sweep δ for every merge heuristic, both bounds; one shared Cluster run (it does not depend on δ)."""
    from anonstudio.methods.rt.algorithm import run_rt
    from anonstudio.methods.rt.cluster import cluster
    from anonstudio.methods.rt.prepare import prepare

    params = base_params()
    start = cluster(prepare(data, params), params.k, params.seed)
    x = start.rum()
    rum_deltas = [round(float(d), 3) for d in np.linspace(np.ceil(x * 100) / 100, 0.95, 8)]
    out = {"cluster_rum": x, "rum": {}, "tum": {}}
    print(f"\n§5 trends, Rum-bound, δ from Cluster's Rum {x:.3f}: {rum_deltas}", flush=True)
    for merge in ("r", "t", "rt"):
        rows = [run_rt(data, replace(params, merge=merge, delta=d), initial=start.assignment) for d in rum_deltas]
        out["rum"][merge] = _curves(rows, rum_deltas)
        _print_curves(f"R_M{merge.upper()}", out["rum"][merge])
    one = run_rt(data, replace(params, bound="tum", merge="r", delta=0.0), initial=start.assignment)
    lo = one.tum  # Tum with everything merged: the least Tum reachable
    tum_deltas = [round(float(d), 3) for d in np.linspace(np.ceil(lo * 100) / 100, 0.95, 8)]
    print(f"Tum-bound, δ from one cluster's Tum {lo:.3f}: {tum_deltas}", flush=True)
    for merge in ("r", "t", "rt"):
        rows = [run_rt(data, replace(params, bound="tum", merge=merge, delta=d), initial=start.assignment)
                for d in tum_deltas]
        out["tum"][merge] = _curves(rows, tum_deltas)
        _print_curves(f"T_M{merge.upper()}", out["tum"][merge])
    # Fig. 6 at the default δ and Fig. 7g-h (Tum along the merges at δ = 1, 4,000 records)
    small = subset(data, 4000)
    trace = {}
    for bound in ("rum", "tum"):
        for merge in ("r", "t", "rt"):
            r = run_rt(small, base_params(bound=bound, merge=merge, delta=1.0 if bound == "rum" else 0.0))
            rises = int(np.sum(np.diff(r.tum_trace) > 1e-12))
            trace[f"{bound}/{merge}"] = {"merges": r.merges, "rises": rises, "first": r.tum_trace[0],
                                         "last": r.tum_trace[-1]}
            print(f"Fig. 7g-h {bound}/{merge}: {r.merges} merges, Tum {r.tum_trace[0]:.4f} -> {r.tum_trace[-1]:.4f}, "
                  f"{rises} merges raised Tum", flush=True)
    out["tum_trace_4k"] = trace
    return out


def _curves(rows, deltas) -> dict:
    return {
        "delta": deltas,
        "feasible": [bool(r.feasible) for r in rows],
        "rum": [r.rum for r in rows], "tum": [r.tum for r in rows],
        "largest": [int(r.cluster_sizes.max()) for r in rows],
        "are": {name: [r.are.get(name) for r in rows] for name in ("R2", "T2", "R1T2")},
    }


def _print_curves(tag: str, c: dict) -> None:
    print(f"  {tag}: Rum {[round(v, 3) for v in c['rum']]}", flush=True)
    print(f"  {tag}: Tum {[round(v, 3) for v in c['tum']]}  largest {c['largest']}", flush=True)
    for name, values in c["are"].items():
        print(f"  {tag}: ARE {name} {[round(v, 3) for v in values]}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--order-ratio", action="store_true", help="BTD vs exact-UL ordering on a 4,000-record subset")
    ap.add_argument("--acceptance", type=Path, metavar="DIR", help="write ANON.csv files, check them, §5 trends")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = ap.parse_args(argv)
    if not INFORMS.exists():
        print(f"INFORMS data not found in {INFORMS}", file=sys.stderr)
        return 2
    if args.acceptance:
        out = acceptance(args.acceptance)
    elif args.order_ratio:
        out = bench_order_ratio()
    else:
        out = bench_main()
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, default=float) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
