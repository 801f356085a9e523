"""Speed-up on 2 threads over 1 thread of every stage the thread budget parallelizes (issue 20, "Every core used").

Each stage is a workload of a few seconds on one thread, on the real datasets in
``../shared/data`` (``ANONSTUDIO_BENCH_DATA``) or on a synthetic city. Every
measurement runs in a fresh process whose thread budget is set by
``ANONSTUDIO_THREADS`` (the studio's budget: every pool of the stage asks it), and
where a stage also has a thread parameter it is set to the same count. Runs
alternate 1, 2, 1, 2, 1, 2 threads and the table gives the medians of three:

* wall: seconds of the stage's work (loading, kernel compilation and the
  untimed set-up, such as the run a verifier checks, excluded);
* CPU: process CPU seconds over the same span (all threads);
* ratio: wall at 1 thread / wall at 2 threads (≥ 1.8 is the goal);
* peak RSS: the process's high-water mark (``ru_maxrss``), loading included.

The load average is printed beside the table: on a busy machine the ratio is
depressed (the second thread competes with other processes). The first stage,
``calibration``, is a pure compute loop split over the threads: its ratio is what
2 threads can give on the machine at that moment (about 2 when idle), the ceiling
to read the other rows against.

Usage::

    .venv/bin/python benchmarks/bench_threads.py                     # every stage, markdown table (< 6 min idle)
    .venv/bin/python benchmarks/bench_threads.py --stage rt-merge    # one stage (repeat --stage for several)
    .venv/bin/python benchmarks/bench_threads.py --quick             # smaller inputs (about a quarter)
    .venv/bin/python benchmarks/bench_threads.py --list              # the stages and what they run
    .venv/bin/python benchmarks/bench_threads.py --repeats 5 --threads 1,2,4

A stage whose work does not depend on the thread count (nothing to run in
parallel) is still listed, so the table shows where the cores stay idle.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from bench_data import BENCH_DATA  # noqa: E402  (benchmarks/ is the script folder)

TRANSACTIONS = BENCH_DATA / "transactions"
ADULT = BENCH_DATA / "adult" / "adult.data"
INFORMS = BENCH_DATA / "informs"


# --------------------------------------------------------------------------- workloads
# Each workload is ``setup(quick, threads) -> body``: setup loads data, compiles kernels and runs
# whatever the stage needs first (untimed); ``body()`` is the timed work and returns a dict of facts
# printed with ``-v`` (they must not depend on the thread count: the table says when they do). Facts whose
# name starts with "_" are timings of the stage's parts, printed with ``-v`` and never compared.


def _cached(key: str, make: Callable):
    """``make()``, kept on disk for the later runs of the same table (the untimed set-up costs once per stage).

    The folder is the parent's temporary one (``BENCH_THREADS_CACHE``); without it, nothing is kept.
    """
    import pickle

    folder = os.environ.get("BENCH_THREADS_CACHE")
    if not folder:
        return make()
    path = Path(folder) / f"{key}.pickle"
    if path.exists():
        with open(path, "rb") as fh:
            return pickle.load(fh)
    with open(path.with_suffix(".tmp"), "wb") as fh:
        pickle.dump(make(), fh, protocol=pickle.HIGHEST_PROTOCOL)
    path.with_suffix(".tmp").replace(path)
    with open(path, "rb") as fh:  # every run works on the same unpickled object, the first one too
        return pickle.load(fh)


def _digest(obj) -> str:
    """A short hash of ``obj.to_json()`` without timings: the same at every thread count, or the table says so."""
    def clean(doc):
        if isinstance(doc, dict):
            return {k: clean(v) for k, v in doc.items() if "second" not in k and k not in ("threads", "run")}
        if isinstance(doc, list | tuple):
            return [clean(v) for v in doc]
        return doc

    text = json.dumps(clean(obj.to_json()), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _with_run(data, run: Callable) -> tuple:
    """``(data, run(data))``, kept together: every run of a verifier stage sees the data as the method left it."""
    return data, run(data)


def _transactions(name: str):
    from anonstudio.data.io import load_transactions

    return load_transactions(TRANSACTIONS / name)


def _city(users: int):
    from anonstudio.data.synth_city import SynthCityParams, generate_city

    return _cached(f"city-{users}", lambda: generate_city(SynthCityParams(towers=1303, area_km2=128.0, users=users,
                                                                              seed=1)).data)


def _spec_run(name: str, data, params):
    """The family's method through the contract (validated like any front end), no check."""
    from anonstudio.jobs import NullProgress
    from anonstudio.methods.contract import StagedProgress, get_method, prepare

    spec = get_method(name)
    prepare(spec, data, params)
    return spec.run(data, params, StagedProgress(NullProgress(), spec.stages, params))


def _spec_verify(name: str, data, params, result):
    from anonstudio.jobs import NullProgress
    from anonstudio.methods.contract import get_method

    return get_method(name).verify(data, result, params, NullProgress())


def kmanon_trials(quick: bool, threads: int):
    """σ-k^m, r = 2 trials side by side (threads parameter = budget), k = 20, m = 3, σ = 0.99, FreeMerge."""
    from anonstudio.methods.kmanon.algorithm import kmanonymize
    from anonstudio.methods.kmanon.constraints import FreeMerge
    from anonstudio.methods.kmanon.params import KmAnonParams

    data = _city(12_000 if quick else 40_000)
    kmanonymize(_city(2_000), FreeMerge(), KmAnonParams(k=5, m=2, sigma=0.9, trials=2, threads=threads))
    params = KmAnonParams(k=20, m=3, sigma=0.99, trials=2, seed=1, threads=threads)

    def body():
        res = kmanonymize(data, FreeMerge(), params)
        labels = hashlib.sha256(res.final.labels.tobytes()).hexdigest()[:12]
        # each trial's seconds and samples drawn per level: trials of different seeds differ in length
        return {"complete": res.complete, "labels": labels, "error": res.final.error,
                "_trial_s": [round(t.seconds, 2) for t in res.trials],
                "samples": [[lv.samples for lv in t.levels] for t in res.trials]}
    return body


def kmanon_streams(quick: bool, threads: int):
    """σ-k^m's independent sampler, 2 streams, ℓ = 3, 100,000 draws on a 200,000-user city (burn-in untimed)."""
    from anonstudio.samplers.independent_sampler import IndependentItemsetSampler

    data = _city(100_000 if quick else 200_000)
    n = 30_000 if quick else 100_000
    sampler = IndependentItemsetSampler(data, 3, 1, streams=2)
    sampler.burn_in()
    sampler.draw(64)

    def body():
        items, supports = sampler.draw(n)
        return {"samples": len(supports), "support_sum": int(supports.sum())}
    return body


def kmanon_verify(quick: bool, threads: int):
    """The k^m verifier on a σ-k^m release of a synthetic city (the release is made untimed)."""
    from anonstudio.methods.kmanon.algorithm import kmanonymize
    from anonstudio.methods.kmanon.constraints import FreeMerge
    from anonstudio.methods.kmanon.params import KmAnonParams
    from anonstudio.verifiers.kmanon import verify_km

    data = _city(50_000 if quick else 200_000)
    params = KmAnonParams(k=20, m=3, sigma=0.99, trials=1, seed=1, threads=threads)
    labels = _cached(f"km-labels-{quick}", lambda: kmanonymize(data, FreeMerge(), params).final.labels)
    small = _city(2_000)
    verify_km(small, kmanonymize(small, FreeMerge(), KmAnonParams(k=5, m=2, sigma=0.9)).final.labels, 5, 2,
              samples=200, seed=2)

    def body():
        t0 = time.perf_counter()
        check = verify_km(data, labels, 20, 3, samples=20_000, seed=2, sigma=0.99)
        levels = [round(p.seconds, 3) for p in check.points]
        # the lists (built before the first level) and each level's seconds (ℓ = 2 includes its pair table)
        return {"passed": check.passed, "check": _digest(check),
                "_lists_s": round(time.perf_counter() - t0 - sum(levels), 3), "_level_s": levels}
    return body


def uniqueness_mcmc(quick: bool, threads: int):
    """Uniqueness by MCMC, m = 2..3 on T10I4D100K, ε = δ = 0.015 (its 2 chains on the budget's threads)."""
    from anonstudio.methods.uniqueness.algorithm import uniqueness_curve
    from anonstudio.methods.uniqueness.params import UniquenessParams

    data = _transactions("T10I4D100K.dat")
    eps = 0.03 if quick else 0.015
    uniqueness_curve(data, UniquenessParams(min_m=2, max_m=2, method="mcmc", epsilon=0.2, delta=0.2, seed=7))
    params = UniquenessParams(measure="itemset", min_m=2, max_m=3, method="mcmc", epsilon=eps, delta=eps, seed=7)

    def body():
        curve = uniqueness_curve(data, params)
        return {"u": [round(p.uniqueness, 6) for p in curve.points]}
    return body


def uniqueness_exact(quick: bool, threads: int):
    """Exact uniqueness (enumerate, radix-sort, count): m = 4 on mushroom, 72 M subsets (m = 3 with --quick)."""
    from anonstudio.methods.uniqueness.algorithm import exact_uniqueness

    data = _transactions("mushroom.dat")
    m = 3 if quick else 4
    exact_uniqueness(_transactions("chess.dat"), 2, threads=threads)

    def body():
        distinct, unique = exact_uniqueness(data, m, threads=threads)
        return {"distinct": distinct, "unique": unique}
    return body


def _nonreciprocal_params(threads: int, **kw):
    from anonstudio.methods.nonreciprocal.params import NonreciprocalParams

    values = dict(k=5, seed=1, threads=threads, tsp_kicks=1000)
    values.update(kw)
    return NonreciprocalParams(**values)


def nonreciprocal_tsp(quick: bool, threads: int):
    """Nonreciprocal recoding's TSP step: every Gray segment of BMS-WebView-1 reordered (k = 5)."""
    from anonstudio.methods.nonreciprocal.order import gray_order, segment_bounds
    from anonstudio.methods.nonreciprocal.tsp import improve_order

    data = _transactions("BMS-WebView-1.dat")
    if quick:
        data = data.subset(list(range(0, data.n_records, 3)))
    params = _nonreciprocal_params(threads)
    order = gray_order(data)
    bounds, _ = segment_bounds(data, order, params.seg_min, params.seg_max)
    improve_order(data, order, bounds[:3], params.seed, 5, threads)

    def body():
        out = improve_order(data, order, bounds, params.seed, params.tsp_kicks, threads)
        return {"path_after": out.path_after, "segments": out.segments_done}
    return body


def nonreciprocal_verify(quick: bool, threads: int):
    """The nonreciprocal verifier (possible worlds per record) on a k = 5 release of BMS-WebView-1 (made untimed)."""
    from anonstudio.methods.nonreciprocal.algorithm import run_nonreciprocal
    from anonstudio.verifiers.nonreciprocal import verify_result

    data = _transactions("BMS-WebView-1.dat")
    if quick:
        data = data.subset(list(range(20_000)))
    params = _nonreciprocal_params(threads, k=5, tsp_kicks=20, queries=50, cahd_baseline=False)
    data, result = _cached(f"nonreciprocal-{quick}", lambda: _with_run(data, lambda d: run_nonreciprocal(d, params)))
    small = data.subset(list(range(600)))  # the check's kernels load from numba's cache on first use: not timed
    verify_result(small, run_nonreciprocal(small, replace(params, seg_min=20, seg_max=30)), threads=threads)

    def body():
        check = verify_result(data, result, threads=threads)
        return {"passed": check.passed, "check": _digest(check)}
    return body


def _stack(data, copies: int):
    """``copies`` copies of ``data`` one after the other (a bigger input with the same shape)."""
    import numpy as np

    from anonstudio.data.transactions import TransactionData

    n = len(data.indices)
    indices = np.concatenate([data.indices] * copies)
    indptr = np.concatenate([data.indptr[:-1] + i * n for i in range(copies)] + [[copies * n]])
    return TransactionData(indptr, indices, data.vocab, name=f"{data.name} x{copies}")


def _rho_params(quick: bool):
    from anonstudio.methods.rho.params import RhoParams

    return RhoParams(rho="0.5", setting="personalized+", sensitive_fraction=0.1, seed=1, epsilon=0.05,
                     delta=0.05, m=3)


def _rho_data(quick: bool):
    import numpy as np

    data = _transactions("BMS-WebView-1.dat")
    rows = np.flatnonzero(data.lengths <= 5)
    return data.subset(rows[::2] if quick else rows)


def rho_run(quick: bool, threads: int):
    """ρ-uncertainty, SAMPLESUPPRESSOR (m = 3, ε = δ = 0.05) on BMS-WebView-1′ (records of ≤ 5 items), ρ = 0.5."""
    data, params = _rho_data(quick), _rho_params(quick)
    _spec_run("rho", data.subset(list(range(2000))), params)

    def body():
        return {"result": _digest(_spec_run("rho", data, params))}
    return body


def rho_verify(quick: bool, threads: int):
    """The ρ verifier on the SAMPLESUPPRESSOR release above (release made untimed)."""
    params = _rho_params(quick)
    data, result = _cached(f"rho-{quick}", lambda: _with_run(_rho_data(quick), lambda d: _spec_run("rho", d, params)))
    small = data.subset(list(range(2000)))  # the check's first use imports and loads what it needs: not timed
    _spec_verify("rho", small, params, _spec_run("rho", small, params))

    def body():
        check = _spec_verify("rho", data, params, result)
        return {"passed": check.passed, "check": _digest(check)}
    return body


def _rt_data():
    from anonstudio.data.io.rt import load_rt_long

    return _cached("informs", lambda: load_rt_long(INFORMS / "demographics05test.csv", INFORMS / "conditions05.csv",
                                                   person="DUPERSID", item="ICD9CODX"))


def _rt_params(**kw):
    from anonstudio.methods.rt.params import RTParams

    p = dict(qi=("DOBMM", "DOBYY", "RACEX", "EDUCYEAR", "income"), items_column="ICD9CODX", categorical=("RACEX",),
             k=25, m=2, delta=0.65, item_fanout=5, item_order="code", seed=1)
    p.update(kw)
    return RTParams(**p)


def rt_merge(quick: bool, threads: int):
    """RT anonymization of INFORMS (k = 25, m = 2, δ = 0.65, Rum bound, RT merge): the whole method."""
    from anonstudio.kernels import rt_btd, rt_cluster, rt_transaction

    for module in (rt_cluster, rt_transaction, rt_btd):
        module.warm_up()
    data = _rt_data()
    params = _rt_params(k=50) if quick else _rt_params()

    def body():
        return {"result": _digest(_spec_run("rt", data, params))}
    return body


def rt_verify(quick: bool, threads: int):
    """The RT verifier on the release above (release made untimed)."""
    params = _rt_params()
    data, result = _cached("rt", lambda: _with_run(_rt_data(), lambda d: _spec_run("rt", d, params)))

    def body():
        check = _spec_verify("rt", data, params, result)
        return {"passed": check.passed, "check": _digest(check)}
    return body


def _adult(rows: int | None):
    import pandas as pd

    from anonstudio.data.table import Table

    columns = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
               "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
               "salary"]
    used = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary",
            "occupation"]
    frame = pd.read_csv(ADULT, header=None, names=columns, skipinitialspace=True, na_values="?")
    frame = frame[used].dropna().reset_index(drop=True)
    if rows is not None:
        frame = frame.sample(rows, random_state=0).reset_index(drop=True)
    return Table(frame), tuple(used[:-1])


def threat_gibbs(quick: bool, threads: int):
    """Relative-threat analysis, 2 chains × 6,000 sweeps, on a Mondrian (k = l = 4) release of 5,692 Adult rows."""
    from anonstudio.methods.group_anonymize.algorithm import anonymize
    from anonstudio.methods.group_anonymize.params import GroupAnonymizeParams
    from anonstudio.methods.threat.analysis import analyze_threat
    from anonstudio.methods.threat.params import ThreatParams

    table, qi = _adult(5692)
    release = anonymize(table, GroupAnonymizeParams(scheme="mondrian", k=4, l=4, qi=qi,
                                                    sensitive="occupation")).release
    frame = table.frame
    analyze_threat(frame, release, ThreatParams(iterations=20, burn_in=10, thinning=1, chains=2, seed=1))
    sweeps = 1_500 if quick else 6_000
    params = ThreatParams(iterations=sweeps, burn_in=sweeps // 2, thinning=10, chains=2, seed=1)

    def body():
        res = analyze_threat(frame, release, params)
        return {"GT_A": round(float(res.measures["GT_A"]), 6)}
    return body


def group_verify(quick: bool, threads: int):
    """The group-anonymization verifier on a Mondrian (k = 5, ℓ = 2) release of Adult (release made untimed)."""
    from anonstudio.methods.group_anonymize.params import GroupAnonymizeParams

    table, qi = _adult(8000 if quick else None)
    params = GroupAnonymizeParams(scheme="mondrian", k=5, l=2, qi=qi, sensitive="occupation")
    table, result = _cached(f"group-{quick}", lambda: _with_run(table, lambda t: _spec_run("group-anonymize", t,
                                                                                            params)))

    def body():
        check = _spec_verify("group-anonymize", table, params, result)
        return {"passed": check.passed, "check": _digest(check)}
    return body


def calibration(quick: bool, threads: int):
    """A pure compute loop split over the budget's threads: what 2 threads can give on the machine right now."""
    from concurrent.futures import ThreadPoolExecutor

    from numba import njit

    @njit(nogil=True, cache=True)
    def spin(n):
        x = 1
        for i in range(n):
            x = (x * 48271 + i) % 2147483647  # a dependent chain the compiler cannot shorten
        return x

    spin(10)
    work = 30_000_000 if quick else 100_000_000

    def body():
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(spin, [work // threads] * threads))
        return {}
    return body


@dataclass(frozen=True)
class Stage:
    name: str
    setup: Callable
    parallel: str  # what the budget's threads run side by side


STAGES = [
    Stage("calibration", calibration, "a compute loop (the machine's ceiling)"),
    Stage("kmanon-trials", kmanon_trials, "σ-k^m trials"),
    Stage("kmanon-streams", kmanon_streams, "sampler streams"),
    Stage("kmanon-verify", kmanon_verify, "k^m check: record ranges, sample slices"),
    Stage("uniqueness-mcmc", uniqueness_mcmc, "MCMC chains"),
    Stage("uniqueness-exact", uniqueness_exact, "item-range chunks"),
    Stage("nonreciprocal-tsp", nonreciprocal_tsp, "TSP segments"),
    Stage("nonreciprocal-verify", nonreciprocal_verify, "possible-world slices"),
    Stage("rho-run", rho_run, "(none today)"),
    Stage("rho-verify", rho_verify, "groups of adversaries"),
    Stage("rt-merge", rt_merge, "(none today)"),
    Stage("rt-verify", rt_verify, "(none today)"),
    Stage("threat-gibbs", threat_gibbs, "Gibbs chains"),
    Stage("group-verify", group_verify, "(none today)"),
]
BY_NAME = {s.name: s for s in STAGES}


# --------------------------------------------------------------------------- one measurement (child process)
def child(name: str, threads: int, quick: bool) -> None:
    from anonstudio import parallel

    parallel.configure(threads=threads)
    body = BY_NAME[name].setup(quick, threads)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    facts = body()
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print("@@" + json.dumps({"wall": wall, "cpu": cpu, "peak_mib": usage.ru_maxrss / 1024,
                             "process_cpu": usage.ru_utime + usage.ru_stime, "facts": facts}, default=str),
          flush=True)


def measure(name: str, threads: int, quick: bool, cache: str) -> dict:
    env = dict(os.environ, ANONSTUDIO_THREADS=str(threads), PYTHONPATH=str(ROOT), BENCH_THREADS_CACHE=cache)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", name, "--threads", str(threads)]
    if quick:
        cmd.append("--quick")
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("@@"):
            out = json.loads(line[2:])
            out["process_s"] = time.perf_counter() - t0
            return out
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return {"error": tail}


# --------------------------------------------------------------------------- the table
def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def run_stage(stage: Stage, counts: list[int], repeats: int, quick: bool, verbose: bool, cache: str) -> dict:
    runs: dict[int, list[dict]] = {t: [] for t in counts}
    loads = []
    for _ in range(repeats):
        for t in counts:  # alternating: 1, 2, 1, 2, ...
            loads.append(os.getloadavg()[0])
            out = measure(stage.name, t, quick, cache)
            if "error" in out:
                return {"stage": stage.name, "error": out["error"]}
            runs[t].append(out)
            if verbose:
                print(f"  {stage.name} threads={t}: {out['wall']:.2f} s wall, {out['cpu']:.2f} s CPU, "
                      f"{out['peak_mib']:.0f} MiB, facts {out['facts']} (process {out['process_s']:.1f} s)",
                      file=sys.stderr, flush=True)
    row = {"stage": stage.name, "parallel": stage.parallel, "load": statistics.median(loads),
           "process_cpu": sum(r.get("process_cpu", 0.0) for t in counts for r in runs[t])}
    for t in counts:
        row[t] = {key: statistics.median(r[key] for r in runs[t]) for key in ("wall", "cpu", "peak_mib")}
    facts = {json.dumps({k: v for k, v in r["facts"].items() if not k.startswith("_")}, sort_keys=True)
             for t in counts for r in runs[t]}
    row["same_facts"] = len(facts) == 1
    return row


def table(rows: list[dict], counts: list[int]) -> str:
    base = counts[0]
    head = ["stage", "parallel work"]
    for t in counts:
        head += [f"wall {t} thr (s)", f"CPU {t} thr (s)"]
    head += [f"ratio {base}/{t}" for t in counts[1:]] + [f"peak RSS {t} thr (MiB)" for t in counts] + ["load"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * (len(head) - 2)]
    for row in rows:
        if "error" in row:
            lines.append(f"| {row['stage']} | failed: {row['error']} |")
            continue
        cells = [row["stage"], row["parallel"]]
        for t in counts:
            cells += [f"{row[t]['wall']:.2f}", f"{row[t]['cpu']:.2f}"]
        cells += [f"{row[base]['wall'] / row[t]['wall']:.2f}x" for t in counts[1:]]
        cells += [f"{row[t]['peak_mib']:.0f}" for t in counts]
        cells.append(f"{row['load']:.1f}")
        if not row["same_facts"]:
            cells[0] += " (results differ!)"
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stage", action="append", choices=list(BY_NAME), help="run this stage only (repeatable)")
    ap.add_argument("--quick", action="store_true", help="smaller inputs")
    ap.add_argument("--repeats", type=int, default=3, help="runs per thread count (median; default 3)")
    ap.add_argument("--threads", default="1,2", help="thread counts, the first is the baseline (default 1,2)")
    ap.add_argument("--list", action="store_true", help="list the stages and exit")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every run on stderr")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child, int(args.threads), args.quick)
        return 0
    if args.list:
        for s in STAGES:
            print(f"{s.name:<22} {(s.setup.__doc__ or '').strip().splitlines()[0]}")
        return 0
    counts = [int(x) for x in args.threads.split(",")]
    stages = [BY_NAME[n] for n in args.stage] if args.stage else STAGES
    t0 = time.perf_counter()
    print(f"load average before: {load_average()} on {os.cpu_count()} cores; "
          f"{'quick' if args.quick else 'default'} inputs, medians of {args.repeats}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-threads-") as cache:
        for stage in stages:
            rows.append(report_stage(stage, counts, args, cache))
    print()
    print(table(rows, counts))
    # On an idle machine the whole run takes about the processes' CPU seconds (most of each process runs on one
    # thread): a figure that does not depend on how busy the machine is now.
    cpu = sum(r.get("process_cpu", 0.0) for r in rows)
    print(f"\nload average after: {load_average()}; {time.perf_counter() - t0:.0f} s in all, the processes used "
          f"{cpu:.0f} s of CPU")
    return 0


def report_stage(stage: Stage, counts: list[int], args, cache: str) -> dict:
    """Measure one stage and print its line as soon as it is known."""
    row = run_stage(stage, counts, args.repeats, args.quick, args.verbose, cache)
    if "error" in row:
        print(f"{stage.name}: failed: {row['error']}", flush=True)
    else:
        ratio = row[counts[0]]["wall"] / row[counts[-1]]["wall"]
        print(f"{stage.name}: {row[counts[0]]['wall']:.2f} s -> {row[counts[-1]]['wall']:.2f} s, "
              f"{ratio:.2f}x (load {row['load']:.1f})", flush=True)
    return row


if __name__ == "__main__":
    sys.exit(main())
