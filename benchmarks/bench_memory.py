"""Peak memory of every family's largest benchmark, against the size of its final data structures (issue 20).

For each family the largest workload of its own benchmark (``bench_<family>.py`` and its section of
``benchmarks/README.md``) runs in a fresh process, twice:

* **imports**: a process that only imports the workload's modules and loads its kernels (each kernel
  module's ``warm_up()``: numba's cached machine code and its compiler, a fixed cost per process),
  measured the second time (the first compiles any changed kernel into numba's cache);
* **run**: the same, then the workload (loading included).

Both report their peak resident memory (``ru_maxrss``). The run also reports the bytes of the
**final structures**: the arrays of the input as loaded (a ``TransactionData``'s CSR ``indptr`` and
``indices``, its vocabulary and coordinates; a table's columns, ``DataFrame.memory_usage(deep=True)``)
plus the arrays the result holds (release, labels, measures; anything reachable from the input, such as
its lazily built indexes, is not counted twice). The table's ratio is (peak − imports) / final
structures; the issue's goal is at most 4×, or a reason written next to it.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_memory.py                 # every family, one table
    .venv/bin/python benchmarks/bench_memory.py --family rt     # one family
    .venv/bin/python benchmarks/bench_memory.py --family rho --sample 0.05   # + RSS over time

Each workload marks the end of its loading; the run then also prints loading's peak and the work's
peak above the data as loaded (``/proc/self/clear_refs`` resets the kernel's high-water mark there).
``--sample S`` samples the run's resident memory every S seconds (``/proc/self/statm``) and prints the
largest sample of each stage, to find where the peak is. σ-k^m runs the 1M-user city (its largest,
4.4M users, takes over 5 minutes); ``BENCH_MEMORY_KMANON_USERS`` sets another size. Memory figures do
not depend on the machine's load; the seconds printed beside them do (the machine is shared).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
from bench_data import BENCH_DATA

ROOT = Path(__file__).resolve().parents[1]
DATA = BENCH_DATA / "transactions"
MIB = 2**20


# ---------------------------------------------------------------- sizes
def deep_nbytes(obj, seen: set[int] | None = None, depth: int = 0) -> int:
    """Bytes of the numpy arrays and pandas columns reachable from ``obj``, each buffer counted once.

    ``seen`` holds the ids of buffers (and containers) already counted; pass the same set to count
    several objects without counting what they share twice.
    """
    pd = sys.modules.get("pandas")  # never imported here: importing pandas alone adds about 50 MB to the peak
    seen = set() if seen is None else seen
    if obj is None or depth > 12 or isinstance(obj, (str, bytes, int, float, bool, complex, Path, type)):
        return 0
    if isinstance(obj, np.ndarray):
        base = obj
        while isinstance(base.base, np.ndarray):
            base = base.base
        if id(base) in seen:
            return 0
        seen.add(id(base))
        total = base.nbytes
        if base.dtype == object:
            total += sum(deep_nbytes(x, seen, depth + 1) for x in base.ravel()[:100_000])
        return total
    if isinstance(obj, (list, tuple, set, frozenset)):
        # Not added to ``seen`` (a list of a million tuples would make the set itself tens of MB); lists of
        # plain values (labels, numbers) hold no arrays.
        if not obj or isinstance(next(iter(obj)), (str, bytes, int, float, bool)):
            return 0
        return sum(deep_nbytes(v, seen, depth + 1) for v in obj)
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    if pd is not None and isinstance(obj, (pd.DataFrame, pd.Series, pd.Index)):
        usage = obj.memory_usage(deep=True)
        return int(usage.sum() if hasattr(usage, "sum") else usage)
    if isinstance(obj, dict):
        return sum(deep_nbytes(v, seen, depth + 1) for v in obj.values())
    module = type(obj).__module__ or ""
    if not module.startswith("anonstudio"):
        return 0  # a lock, a thread pool, a numba dispatcher: not data
    if dataclasses.is_dataclass(obj):
        values = [getattr(obj, f.name, None) for f in dataclasses.fields(obj)]
    else:
        values = []
    if hasattr(obj, "__dict__"):
        values += list(vars(obj).values())
    for slot in getattr(type(obj), "__slots__", ()):
        values.append(getattr(obj, slot, None))
    return sum(deep_nbytes(v, seen, depth + 1) for v in values)


def transactions_nbytes(data) -> int:
    """A loaded ``TransactionData``'s own arrays (CSR, vocabulary, coordinates), not its lazy indexes."""
    total = data.indptr.nbytes + data.indices.nbytes
    vocab = getattr(data, "vocab", None)
    if isinstance(vocab, np.ndarray):
        total += deep_nbytes(vocab)
    elif vocab is not None:
        total += sum(sys.getsizeof(v) for v in vocab) + sys.getsizeof(vocab)
    coords = getattr(data, "coords", None)
    if coords is not None:
        total += coords.nbytes
    return total


# ---------------------------------------------------------------- workloads
@dataclasses.dataclass
class Outcome:
    """What a workload ran: its input's bytes, its release (bytes, or the result to count) and a line about it."""

    input_bytes: int
    release: object
    note: str
    input_obj: object = None

    def release_bytes(self) -> int:
        """The release's bytes (counted after the peak is read: walking a result allocates)."""
        return self.release if isinstance(self.release, int) else _release_bytes(self.release, self.input_obj)


_STAGE = ["setup"]  # the stage running now, for --sample
_LOADED: dict[str, float] = {}  # peak and resident memory when the input was loaded (MiB)


def stage(name: str) -> None:
    _STAGE[0] = name


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def loaded() -> None:
    """Mark the input as loaded: the peak so far is the loading's, and the peak is reset to what is resident now.

    Writing 5 to ``/proc/self/clear_refs`` resets the kernel's high-water mark (``ru_maxrss`` as well), so the
    work's own peak above the loaded data can be read at the end; the whole run's peak is the larger of the two.
    """
    _LOADED.update(peak=_peak_mib(), rss=_rss_bytes() / MIB)
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        _LOADED["no_reset"] = 1.0


def _load(name: str):
    from anonstudio.data.io import load_transactions

    stage("load")
    data = load_transactions(DATA / f"{name}.dat")
    loaded()
    return data


def _release_bytes(result, input_obj) -> int:
    """Bytes of ``result``'s arrays that are not the input's (its arrays and lazy indexes excluded)."""
    seen: set[int] = set()
    deep_nbytes(input_obj, seen)
    return deep_nbytes(result, seen)


# Each family: (workload as the README names it, setup, run). ``setup`` imports and loads the kernels;
# ``run`` does the work and returns an Outcome.
def _setup_uniqueness():
    import anonstudio.methods.uniqueness.algorithm  # noqa: F401
    from anonstudio.kernels import enumerate as enum_k
    from anonstudio.kernels import fimi, mcmc_sampler, support

    for mod in (fimi, support, mcmc_sampler, enum_k):
        _warm(mod)


def _run_uniqueness() -> Outcome:
    from anonstudio.methods.uniqueness.algorithm import uniqueness_curve
    from anonstudio.methods.uniqueness.params import UniquenessParams

    data = _load("T10I4D100K")
    inp = transactions_nbytes(data)
    stage("uniqueness m = 1..5")
    curve = uniqueness_curve(data, UniquenessParams(min_m=1, max_m=5, epsilon=0.01, delta=0.01, seed=7,
                                                    method="mcmc"))
    estimates = ", ".join(f"{p.uniqueness:.4f}" for p in curve.points)
    return Outcome(inp, curve, f"estimates {estimates}", data)


def _setup_kmanon():
    import anonstudio.data.geo
    import anonstudio.methods.kmanon.algorithm
    import anonstudio.verifiers.kmanon  # noqa: F401
    from anonstudio.kernels import (
        generalized_support,
        geography,
        independent_sampler,
        kmanon_verify,
        mcmc_sampler,
        support,
        synth_city,
    )

    for mod in (synth_city, geography, support, mcmc_sampler, independent_sampler, generalized_support,
                kmanon_verify):
        _warm(mod)


KMANON_USERS = int(os.environ.get("BENCH_MEMORY_KMANON_USERS", "1000000"))


def _run_kmanon() -> Outcome:
    from anonstudio.data.geo import build_voronoi
    from anonstudio.data.synth_city import SynthCityParams, generate_city
    from anonstudio.methods.kmanon.algorithm import kmanonymize
    from anonstudio.methods.kmanon.constraints import Contiguity
    from anonstudio.methods.kmanon.params import KmAnonParams
    from anonstudio.verifiers.kmanon import verify_km

    stage("generate the city")
    city = generate_city(SynthCityParams(towers=1303, area_km2=128.0, users=KMANON_USERS, seed=1))
    data = city.data
    inp = transactions_nbytes(data)
    loaded()
    stage("Voronoi")
    cells = build_voronoi(data.coords, city.boundary)
    stage("anonymize")
    res = kmanonymize(data, Contiguity(cells), KmAnonParams(k=20, m=5, sigma=0.99, trials=1, seed=1))
    stage("check")
    check = verify_km(data, res.final.labels, 20, 5, samples=20_000, seed=1)
    return Outcome(inp, (res, check), f"{res.levels[-1].partitions:,} partitions at m = 5; "
                                      f"check {'passed' if check.passed else 'FAILED'}", data)


def _setup_nonreciprocal():
    import anonstudio.methods.nonreciprocal.algorithm
    import anonstudio.verifiers.nonreciprocal  # noqa: F401
    from anonstudio.kernels import (
        fimi,
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

    for mod in (fimi, nonreciprocal_order, nonreciprocal_tsp, nonreciprocal_walk, nonreciprocal_wmc,
                nonreciprocal_publish, nonreciprocal_metrics, nonreciprocal_diversity, nonreciprocal_cahd,
                nonreciprocal_verify):
        _warm(mod)


def _run_nonreciprocal() -> Outcome:
    from anonstudio.methods.nonreciprocal.algorithm import run_nonreciprocal
    from anonstudio.methods.nonreciprocal.params import NonreciprocalParams
    from anonstudio.verifiers.nonreciprocal import verify_result

    data = _load("T10I4D100K")
    inp = transactions_nbytes(data)
    params = NonreciprocalParams(k=10)
    stage("run")
    res = run_nonreciprocal(data, params)
    stage("check")
    ver = verify_result(data, res, threads=params.threads)
    return Outcome(inp, (res, ver), f"ER {res.error_rate:.4f}, check {'passed' if ver.passed else 'FAILED'}", data)


def _setup_rho():
    import anonstudio.methods.rho.suppressor
    import anonstudio.methods.rho.utility  # noqa: F401
    from anonstudio.kernels import fimi, rho_suppressor

    for mod in (fimi, rho_suppressor):
        _warm(mod)


def _run_rho() -> Outcome:
    from fractions import Fraction

    from anonstudio.methods.rho.params import sample_size
    from anonstudio.methods.rho.sensitive import generate_sensitive
    from anonstudio.methods.rho.suppressor import suppress_sampled
    from anonstudio.methods.rho.utility import util_info

    data = _load("BMS-WebView-1")
    inp = transactions_nbytes(data)
    stage("sensitive items")
    e = generate_sensitive(data, "personalized+", 0.1, 1)
    stage("SAMPLESUPPRESSOR")
    out = suppress_sampled(data, e, Fraction(1, 2), 5, sample_size(0.05, 0.05), "user", 1)
    stage("util_info")
    info = util_info(data, out.published)
    return Outcome(inp + deep_nbytes(e), out,
                   f"{out.iterations} passes, {out.suppressed_items:,} suppressed, util_info {info:.4f}", (data, e))


def _setup_rt():
    import anonstudio.data.io.rt
    import anonstudio.methods.rt.algorithm  # noqa: F401
    from anonstudio.kernels import rt_btd, rt_cluster, rt_transaction

    for mod in (rt_cluster, rt_transaction, rt_btd):
        _warm(mod)


def _run_rt() -> Outcome:
    from dataclasses import replace

    from anonstudio.data.io.rt import load_rt_long
    from anonstudio.methods.rt.algorithm import run_rt
    from anonstudio.methods.rt.params import RTParams

    stage("load")
    informs = BENCH_DATA / "informs"
    data = load_rt_long(informs / "demographics05test.csv", informs / "conditions05.csv", person="DUPERSID",
                        item="ICD9CODX")
    loaded()
    inp = deep_nbytes(data.table.frame) + transactions_nbytes(data.transactions)
    params = RTParams(qi=("DOBMM", "DOBYY", "RACEX", "EDUCYEAR", "income"), items_column="ICD9CODX",
                      categorical=("RACEX",), k=25, m=2, delta=0.65, item_fanout=5, item_order="code", seed=1)
    largest, feasible = 0, 0
    for bound in ("rum", "tum"):
        for merge in ("r", "t", "rt"):
            stage(f"{bound}/{merge}")
            r = run_rt(data, replace(params, bound=bound, merge=merge))
            largest = max(largest, _release_bytes(r, data))
            feasible += bool(r.feasible)
            del r
    return Outcome(inp, largest, f"{data.table.n_rows:,} people, {feasible} of 6 combinations feasible")


ADULT_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
                 "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
                 "salary"]
THREAT_USED = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary",
               "occupation"]


def _setup_group_anonymize():
    import anonstudio.data.io
    import anonstudio.methods.group_anonymize.algorithm
    import anonstudio.verifiers.group_anonymize  # noqa: F401


def _run_group_anonymize() -> Outcome:
    from anonstudio.data.io import load_table
    from anonstudio.methods.contract import get_method, run_and_verify
    from anonstudio.methods.group_anonymize.params import GroupAnonymizeParams

    stage("load")
    table = load_table(BENCH_DATA / "adult" / "adult.data")
    loaded()
    inp = deep_nbytes(table.frame)
    params = GroupAnonymizeParams(scheme="mondrian", k=4, qi=("age", "sex", "race", "marital-status"),
                                  sensitive="occupation")
    stage("run and check")
    run = run_and_verify(get_method("group-anonymize"), table, params)
    return Outcome(inp, (run.result, run.verification), f"{table.n_rows:,} rows, status {run.status}", table)


def _setup_threat():
    import pandas  # noqa: F401

    import anonstudio.methods.group_anonymize.algorithm
    import anonstudio.methods.threat.analysis  # noqa: F401
    from anonstudio.kernels import gibbs, threat_attack

    for mod in (gibbs, threat_attack):
        _warm(mod)


def _run_threat() -> Outcome:
    import pandas as pd

    from anonstudio.data.table import Table
    from anonstudio.methods.group_anonymize.algorithm import anonymize
    from anonstudio.methods.group_anonymize.params import GroupAnonymizeParams
    from anonstudio.methods.threat.analysis import analyze_threat
    from anonstudio.methods.threat.params import ThreatParams

    stage("load")
    frame = pd.read_csv(BENCH_DATA / "adult" / "adult.data", header=None, names=ADULT_COLUMNS,
                        skipinitialspace=True, na_values="?")
    frame = frame[THREAT_USED].dropna().reset_index(drop=True)
    loaded()
    stage("Mondrian release")
    release = anonymize(Table(frame), GroupAnonymizeParams(scheme="mondrian", k=4, l=4, qi=tuple(THREAT_USED[:-1]),
                                                          sensitive="occupation")).release
    inp = deep_nbytes(frame)
    stage("Gibbs sampler")
    result = analyze_threat(frame, release, ThreatParams(iterations=20_000, burn_in=10_000, thinning=10, chains=2,
                                                         seed=1))
    m = result.measures
    return Outcome(inp, (release, result), f"{len(frame):,} rows, GT_A {m['GT_A']:.4f}, RF {m['RF']:.4f}", frame)


def _setup_evaluate():
    import anonstudio.data.io
    import anonstudio.evaluate.evaluation  # noqa: F401
    from anonstudio.kernels import evaluate_risk, evaluate_utility, fimi

    for mod in (fimi, evaluate_risk, evaluate_utility):
        _warm(mod)


def _run_evaluate() -> Outcome:
    import tempfile

    from anonstudio.evaluate import EvaluateOptions, evaluate

    data = _load("BMS-WebView-1")
    inp = transactions_nbytes(data)
    stage("write the release")
    # bench_evaluate.py's nonreciprocal-style release: every record with a random distance bitmap of 5 items
    from bench_evaluate import write_release

    release, side = write_release(data, "nonreciprocal", Path(tempfile.mkdtemp(prefix="bench-memory-")))
    stage("evaluate")
    ev = evaluate(data, release, side=side,
                  options=EvaluateOptions(m=2, k=5, queries=1000, method="exact", seed=1))
    risks = ", ".join(f"{lv.prosecutor_risk.value:.4f}" for lv in ev.levels)
    return Outcome(inp, ev, f"prosecutor risk per m {risks}", data)


FAMILIES = {
    "uniqueness": ("T10I4D100K (100,000 records), MCMC m = 1..5, ε = δ = 0.01", _setup_uniqueness,
                   _run_uniqueness),
    "kmanon": (f"synthetic city, {KMANON_USERS:,} users, k = 20, m = 5, σ = 0.99, check 20,000 per ℓ",
               _setup_kmanon, _run_kmanon),
    "nonreciprocal": ("`t10`: T10I4D100K (100,000 records), k = 10, Gray-TSP, checked", _setup_nonreciprocal,
                      _run_nonreciprocal),
    "rho": ("`sampled`: BMS-WebView-1, SAMPLESUPPRESSOR m = 5, ε = δ = 0.05, personalized+", _setup_rho,
            _run_rho),
    "rt": ("INFORMS (26,735 people), k = 25, m = 2, δ = 0.65, six bound × merge runs", _setup_rt, _run_rt),
    "group_anonymize": ("UCI Adult (32,561 rows), Mondrian k = 4, checked", _setup_group_anonymize,
                        _run_group_anonymize),
    "threat": ("full Adult (30,162 rows), Mondrian k = ℓ = 4, 2 chains × 20,000 sweeps", _setup_threat,
               _run_threat),
    "evaluate": ("BMS-WebView-1, nonreciprocal-style release, exact m = 1..2, 1,000 queries", _setup_evaluate,
                 _run_evaluate),
}


def _warm(module) -> None:
    hook = getattr(module, "warm_up", None)
    if hook is None:
        return
    hook()


# ---------------------------------------------------------------- the child process
def _rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def child(family: str, mode: str, sample: float) -> None:
    """Run in a fresh process: the family's setup, then (mode ``run``) its workload; print one JSON line."""
    _, setup, run = FAMILIES[family]
    t0 = time.perf_counter()
    setup()
    setup_s = time.perf_counter() - t0
    report: dict = {"setup_s": setup_s, "after_setup_mib": _rss_bytes() / MIB}
    samples: list[tuple[float, int, str]] = []
    if mode == "run":
        stop = threading.Event()

        def sampler() -> None:
            start = time.perf_counter()
            while not stop.wait(sample):
                samples.append((time.perf_counter() - start, _rss_bytes(), _STAGE[0]))

        thread = threading.Thread(target=sampler, daemon=True) if sample else None
        if thread:
            thread.start()
        t0 = time.perf_counter()
        outcome = run()
        if thread:
            stop.set()
            thread.join()
        # The peak before the sizes are added up (walking the result allocates a little).
        end_peak = _peak_mib()
        report["peak_mib"] = max(end_peak, _LOADED.get("peak", 0.0))
        if "rss" in _LOADED and "no_reset" not in _LOADED:
            report.update(load_peak_mib=_LOADED["peak"], loaded_rss_mib=_LOADED["rss"], work_peak_mib=end_peak)
        report.update(seconds=time.perf_counter() - t0, input_bytes=outcome.input_bytes,
                      release_bytes=outcome.release_bytes(), note=outcome.note)
    else:
        report["peak_mib"] = _peak_mib()
    if samples:
        top: dict[str, tuple[float, int]] = {}
        for t, rss, name in samples:
            if rss > top.get(name, (0, 0))[1]:
                top[name] = (t, rss)
        report["rss_by_stage"] = {name: [round(t, 2), round(rss / MIB, 1)] for name, (t, rss) in top.items()}
    print("@@" + json.dumps(report), file=sys.stderr, flush=True)


def measure(family: str, mode: str, sample: float) -> dict:
    """One fresh process of ``family`` in ``mode`` (``imports`` or ``run``)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(Path(__file__).parent)])}
    code = f"import bench_memory; bench_memory.child({family!r}, {mode!r}, {sample!r})"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=str(ROOT),
                          stdin=subprocess.DEVNULL)
    line = next((ln for ln in proc.stderr.splitlines() if ln.startswith("@@")), None)
    if line is None:
        return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1][:300]}
    return json.loads(line[2:])


# ---------------------------------------------------------------- the table
#: Why a family's ratio is above 4× (the figures beside it come from the run: loading's and the work's peaks).
REASONS: dict[str, str] = {
    "uniqueness": "the FIMI reader's chunks while loading (`data/io`); then the MCMC sampler's indexes on the "
                  "dataset (posting lists 3.9 MiB, item bitsets 10.4 MiB) and its burn-in at m = 5 (277,495 steps "
                  "a chain, +26 MiB, still resident after it): `anonstudio/samplers` is σ-k^m's, not changed here",
    "kmanon": "the run's indexes at 1M users (the layout's posting lists 46 MB, the packed item rows 41 MB, the "
              "pool up to 57 MB, merged partitions' rows 36 MB; `bench_kmanon.py --profile`) stay on the dataset "
              "for a next run, and the independent check, which shares no code with the method, builds its own "
              "lists and bitsets on top of them",
    "rt": "the peak is the loader's: `data/io/rt.py` reads both INFORMS files (5.3 MB of CSV) as Python lists "
          "of strings, and the six runs, reusing what it frees, peak near the loaded state",
    "group_anonymize": "loading Adult (`load_table`, `data/io`'s table reader) takes most of it; the run and "
                       "its check stay near 2× the final structures",
    "threat": "`pandas.read_csv` of Adult in the benchmark takes a third of it; the Gibbs run and its "
              "estimates stay under 3× the final structures (3.8× in all after the estimates' fix)",
}


def _reason(name: str, ratio: float, run: dict, imports: dict) -> str:
    """The reason for a ratio above 4×, with the run's split into loading and work."""
    if ratio <= 4.0:
        return ""
    text = REASONS.get(name, "(no reason written yet)")
    if "work_peak_mib" in run:
        load = run["load_peak_mib"] - imports["peak_mib"]
        work = run["work_peak_mib"] - run["loaded_rss_mib"]
        text += f" (loading +{load:,.0f} MiB above the imports; the work +{work:,.0f} MiB above the loaded data)"
    return text


def _mib(x: float) -> str:
    return f"{x:,.0f} MiB" if x >= 10 else f"{x:,.1f} MiB"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", choices=sorted(FAMILIES), action="append", help="run only this family (repeatable)")
    ap.add_argument("--sample", type=float, default=0.0, metavar="S",
                    help="sample the run's RSS every S seconds and print each stage's largest sample")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = ap.parse_args(argv)
    names = args.family or list(FAMILIES)
    rows, results = [], {}
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores", flush=True)
    for name in names:
        measure(name, "imports", 0.0)  # compiles into numba's cache if a kernel changed: not counted
        imports = measure(name, "imports", 0.0)
        run = measure(name, "run", args.sample)
        results[name] = {"imports": imports, "run": run}
        if "error" in imports or "error" in run:
            print(f"{name}: {imports.get('error') or run.get('error')}", flush=True)
            continue
        above = run["peak_mib"] - imports["peak_mib"]
        final = (run["input_bytes"] + run["release_bytes"]) / MIB
        ratio = above / final if final else float("inf")
        print(f"{name}: {run['seconds']:.1f} s, peak {_mib(run['peak_mib'])}, imports {_mib(imports['peak_mib'])}, "
              f"input {_mib(run['input_bytes'] / MIB)}, release {_mib(run['release_bytes'] / MIB)}, "
              f"ratio {ratio:.1f}x; {run['note']}; load average {os.getloadavg()[0]:.1f}", flush=True)
        if "work_peak_mib" in run:
            print(f"    loading peaked at {_mib(run['load_peak_mib'])}; the work after it at "
                  f"{_mib(run['work_peak_mib'])}, {_mib(run['work_peak_mib'] - run['loaded_rss_mib'])} above the "
                  f"{_mib(run['loaded_rss_mib'])} resident when the input was loaded", flush=True)
        for stage_name, (t, rss) in run.get("rss_by_stage", {}).items():
            print(f"    {stage_name:<28} largest RSS {rss:,.0f} MiB at {t:.1f} s", flush=True)
        rows.append(f"| {name} | {FAMILIES[name][0]} | {_mib(run['peak_mib'])} | {_mib(imports['peak_mib'])} | "
                    f"{_mib(above)} | {_mib(final)} ({_mib(run['input_bytes'] / MIB)} in, "
                    f"{_mib(run['release_bytes'] / MIB)} out) | {ratio:.1f}× | {_reason(name, ratio, run, imports)} |")
    print()
    print("| family | workload | peak RSS | imports | peak − imports | final structures | ratio | reason |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    print("\n".join(rows))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
