"""σ-k^m with σ = 1 under an item hierarchy against ARX's Apriori Anonymization: loss and whole-process time.

Inputs: the first 5,000 and 20,000 records of BMS-WebView-1, k = 5, m = 1..4,
a balanced fan-out-5 hierarchy over its 497 items in code order
(:func:`anonstudio.data.item_hierarchy.balanced_hierarchy`: 497 -> 100 -> 20 -> 4 -> ``*``),
written as an ARX-style file ``leaf;parent;...;*``.

Per case, alternating runs (ours, ARX, ours, ARX, ...) of whole processes, from spawn to exit:

* ours: ``anonstudio-cli kmanon FILE --k 5 --m M --sigma 1 --constraint hierarchy --item-hierarchy H``
  (loading, the run, the independent check and writing the release and the item map);
* ARX: a JVM running ``KMAnonymity.aprioriAnonymization()`` of ARX's ``transactions`` branch on the same
  file and hierarchy (see "The peer" below), writing its cut.

Both releases are scored here, from the item -> node maps they write, with one NCP on two scales
(:func:`anonstudio.metrics.ncp.categorical_ncp`): ``xu`` (``leaves / domain`` for a generalized item, 0
otherwise: ARX's ``Metrics.NCP``, the figure issue 20 quotes) and ``normalized``
(``(leaves - 1) / (domain - 1)``: anonstudio's error), both averaged over item occurrences. The driver's own
``arx_ncp`` is printed beside them as a check that the two programs measure the same thing.

Printed: NCP of each side, median whole-process seconds of each, ARX / ours (above 1: we are faster), the
algorithm's own seconds of each (ours from the JSON report, ARX's from the driver), peak RSS of each process
(``/usr/bin/time``), whether our independent check passed, and the load average. ``--before TREE`` also runs
our CLI from another source tree (e.g. a ``git worktree add --detach`` of an earlier commit) for its NCP and
time.

The peer (not part of anonstudio; set up outside the project, once)
-------------------------------------------------------------------
ARX's k^m lives only on the ``transactions`` branch of https://github.com/arx-deidentifier/arx
(commit 664947c, package ``org.deidentifier.arx.algorithm.transactions``). Compile that package with
``lib/hppc/hppc-0.6.0.jar`` (plus ``commons-lang-2.6`` and ``guava-18.0`` for its two generator classes),
and a small driver class ``org.deidentifier.arx.algorithm.transactions.KmDriver`` taking
``DATA.dat HIERARCHY.csv N K M[,M...] REPEATS CUT_PREFIX`` that reads the FIMI file (first N records, 0 = all;
items of a record as a set), builds ARX's ``Dict``, ``Hierarchy`` and integer transactions, fills
``KMAnonymity``'s fields with them (its public constructor reads an ARX table through a handle iterator
whose first row is the header) and calls the unchanged ``aprioriAnonymization()``; it prints
``m M rep R arx_ncp X normalized_ncp Y seconds S`` per run and writes ``CUT_PREFIX<M>.csv`` with one
``leaf;node`` row per leaf. ARX's table classes (``AttributeType``, ``Data``, ``DataHandle``,
``framework.data.Data``) can be compile-time stubs: only the constructor the driver bypasses uses them.
Point the benchmark at the result with ``--peer-classpath CP`` or ``ARX_KM_CLASSPATH=CP``; without it the
benchmark says so and exits 0.

Start-up (issue 20, "Whole process"): ``--floor`` also times, alternating with ARX's m = 1 run, the processes
any numba program pays before its work: ``python -c pass``, ``import numpy``, ``import numba``, and a script that
imports numba and calls one small kernel loaded from numba's cache (the first such call also imports numba's
typing and lowering registries, and scipy.linalg through numba's BLAS probe). ``--kernels`` runs our command once
more in a child process with timers on numba's dispatcher and prints each kernel's first call (a cache load) split
into the index lookup, the unpickling and the rebuild (LLVM's object load and linking).

Usage::

    ARX_KM_CLASSPATH=.../classes:.../hppc-0.6.0.jar python benchmarks/bench_arx.py [--runs 3] [--sizes 5000,20000]
        [--m 1,2,3,4] [--before TREE] [--floor] [--kernels]
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_data import BENCH_DATA  # noqa: E402

BMS = BENCH_DATA / "transactions" / "BMS-WebView-1.dat"
K = 5
FANOUT = 5
DRIVER = "org.deidentifier.arx.algorithm.transactions.KmDriver"
TIME = Path("/usr/bin/time").exists()


def load_avg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def prepare(workdir: Path, sizes: list[int]) -> tuple[Path, dict[int, Path]]:
    """The hierarchy over all items of BMS-WebView-1 and one FIMI file per size."""
    from anonstudio.data.io.hierarchies import save_hierarchy
    from anonstudio.data.item_hierarchy import balanced_hierarchy

    lines = BMS.read_text().splitlines()
    items = sorted({tok for line in lines for tok in line.split()}, key=int)
    hierarchy = workdir / "bms_fan5.csv"
    save_hierarchy(balanced_hierarchy(items, FANOUT), hierarchy)
    files = {}
    for n in sizes:
        files[n] = workdir / f"bms_first{n}.dat"
        files[n].write_text("\n".join(lines[:n]) + "\n")
    return hierarchy, files


def timed(cmd: list[str], env: dict | None = None, cwd: Path | None = None) -> tuple[float, float, str, int]:
    """(wall seconds, peak RSS MiB or nan, stdout, exit status) of one whole process."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        full = (["/usr/bin/time", "-f", "%M", "-o", tf.name] if TIME else []) + cmd
        t0 = time.perf_counter()
        proc = subprocess.run(full, capture_output=True, text=True, env=env, cwd=cwd, stdin=subprocess.DEVNULL)
        seconds = time.perf_counter() - t0
        rss = float("nan")
        if TIME:
            text = Path(tf.name).read_text().strip().splitlines()
            if text and text[-1].isdigit():
                rss = int(text[-1]) / 1024
    return seconds, rss, proc.stdout + proc.stderr, proc.returncode


def ncp_of_map(node_of_item: dict[str, str], data_file: Path, hierarchy_file: Path) -> dict[str, float]:
    """Occurrence-weighted NCP of an item -> node-label map, on both scales."""
    from anonstudio.data.io.hierarchies import load_hierarchy
    from anonstudio.metrics.ncp import categorical_ncp

    tree = load_hierarchy(hierarchy_file)
    occ: dict[str, int] = {}
    for line in data_file.read_text().splitlines():
        for tok in set(line.split()):
            occ[tok] = occ.get(tok, 0) + 1
    total = sum(occ.values())
    out = {}
    for convention in ("xu", "normalized"):
        loss = 0.0
        for item, count in occ.items():
            label = re.sub(r"#\d+$", "", node_of_item[item])
            size = tree.leaf_count(tree.find(label))
            loss += count * float(categorical_ncp(size, tree.n_leaves, convention))
        out[convention] = loss / total
    return out


def byte_compile(tree: Path) -> None:
    """Write the tree's ``.pyc`` files, as an installed package has them.

    Otherwise, under ``PYTHONDONTWRITEBYTECODE=1`` (or in a fresh copy), every run would compile the sources of
    every module it imports, which no user's process does.
    """
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "anonstudio")], check=False,
                   capture_output=True)


def run_ours(tree: Path, data_file: Path, hierarchy: Path, m: int, workdir: Path, tag: str) -> dict:
    json_out, map_out, rel_out = (workdir / f"{tag}.json", workdir / f"{tag}_map.csv", workdir / f"{tag}.csv")
    cmd = [sys.executable, "-m", "anonstudio.cli", "kmanon", str(data_file), "--k", str(K), "--m", str(m),
           "--sigma", "1", "--constraint", "hierarchy", "--item-hierarchy", str(hierarchy), "--seed", "1",
           "--json", str(json_out), "--map-out", str(map_out), "--out", str(rel_out), "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    seconds, rss, text, code = timed(cmd, env=env, cwd=tree)
    if code != 0:
        return {"error": f"exit {code}: {text.strip().splitlines()[-1] if text.strip() else ''}"}
    report = json.loads(json_out.read_text())
    with map_out.open() as fh:
        node_of = {row["item"]: row["partition"] for row in csv.DictReader(fh)}
    return {"seconds": seconds, "rss": rss, "algorithm_s": float(report["seconds"]),
            "passed": bool(report["verification"]["passed"]), **ncp_of_map(node_of, data_file, hierarchy)}


def run_arx(classpath: str, java: str, data_file: Path, hierarchy: Path, m: int, workdir: Path, tag: str) -> dict:
    prefix = workdir / f"{tag}_cut_m"
    cmd = [java, "-cp", classpath, DRIVER, str(data_file), str(hierarchy), "0", str(K), str(m), "1", str(prefix)]
    seconds, rss, text, code = timed(cmd)
    found = re.search(r"arx_ncp (\S+) normalized_ncp (\S+) seconds (\S+)", text)
    if code != 0 or found is None:
        return {"error": f"exit {code}: {text.strip().splitlines()[-1] if text.strip() else ''}"}
    node_of = {}
    for line in Path(f"{prefix}{m}.csv").read_text().splitlines():
        leaf, node = line.split(";")
        node_of[leaf] = node
    return {"seconds": seconds, "rss": rss, "algorithm_s": float(found.group(3)), "driver_ncp": float(found.group(1)),
            **ncp_of_map(node_of, data_file, hierarchy)}


def median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


FLOOR_KERNEL = """import numba
import numpy as np


@numba.njit(cache=True)
def total(a):
    return a.sum()


total(np.arange(3))
"""


def floor(classpath: str, java: str, files: dict[int, Path], hierarchy: Path, workdir: Path, runs: int) -> None:
    """Whole-process seconds of what every numba program pays, alternating with ARX's m = 1 run and ours."""
    script = workdir / "floor_kernel.py"
    script.write_text(FLOOR_KERNEL)
    subprocess.run([sys.executable, str(script)], check=True, cwd=workdir)  # compiled into its cache once
    n = min(files)
    cases = {"python -c pass": [sys.executable, "-c", "pass"],
             "import numpy": [sys.executable, "-c", "import numpy"],
             "import numba": [sys.executable, "-c", "import numba"],
             "numba + 1 cached kernel": [sys.executable, str(script)]}
    times: dict[str, list[float]] = {name: [] for name in [*cases, "ARX m=1", "ours m=1"]}
    for r in range(runs):
        for name, cmd in cases.items():
            times[name].append(timed(cmd, cwd=workdir)[0])
        times["ARX m=1"].append(run_arx(classpath, java, files[n], hierarchy, 1, workdir, f"floor_arx_{r}")["seconds"])
        times["ours m=1"].append(run_ours(ROOT, files[n], hierarchy, 1, workdir, f"floor_ours_{r}")["seconds"])
    arx = statistics.median(times["ARX m=1"])
    print(f"floor ({n} records for the m = 1 runs; medians of {runs} alternating runs; load average {load_avg()})")
    for name, values in times.items():
        seconds = statistics.median(values)
        print(f"  {name:<24} {seconds:6.3f} s  (ARX m=1 / this: {arx / seconds:.2f}x)")


KERNEL_TIMES = r"""
import collections, os, sys, time
import anonstudio.cli
from anonstudio.methods import contract
phases = collections.defaultdict(lambda: collections.defaultdict(float))
current = [None]
def timed(cls, name, phase, outermost=False):
    original = getattr(cls, name)
    depth = [0]
    def wrapper(self, *a, **k):
        depth[0] += 1
        t = time.perf_counter()
        try:
            return original(self, *a, **k)
        finally:
            depth[0] -= 1
            # numba's set-up (the target's refresh) may come before any kernel call: the CLI builds it there
            where = current[0] if current[0] is not None else ("(numba_set-up_before_the_run)" if outermost else None)
            if where is not None and not (outermost and depth[0]):
                phases[where][phase] += time.perf_counter() - t
                if current[0] is None:
                    phases[where]["total"] += time.perf_counter() - t
    setattr(cls, name, wrapper)
def install():
    # After the stages' imports (numba among them) and before any kernel runs, as in a plain run: importing
    # numba here first would also change how the data file is read.
    from numba.core import base, caching, dispatcher
    timed(caching.IndexDataCacheFile, "_load_index", "index")
    timed(caching.IndexDataCacheFile, "_load_data", "unpickle")
    read = caching.IndexDataCacheFile._load_data
    def sized(self, name):
        if current[0] is not None:
            phases[current[0]]["bytes"] += os.path.getsize(self._data_path(name))
        return read(self, name)
    caching.IndexDataCacheFile._load_data = sized
    timed(caching.CompileResultCacheImpl, "rebuild", "rebuild")
    timed(base.BaseContext, "refresh", "refresh", outermost=True)
    first_call = dispatcher._DispatcherBase._compile_for_args
    def compile_for_args(self, *a, **k):
        name = self.py_func.__module__.rpartition(".")[2] + "." + self.__name__
        outer, current[0] = current[0], name
        t = time.perf_counter()
        try:
            return first_call(self, *a, **k)
        finally:
            phases[name]["total"] += time.perf_counter() - t
            current[0] = outer
    dispatcher._DispatcherBase._compile_for_args = compile_for_args
preload = contract.preload
def preload_then_time(spec):
    preload(spec)
    install()
contract.preload = preload_then_time
anonstudio.cli.main(sys.argv[1:])
rows = sorted(phases.items(), key=lambda kv: -kv[1]["total"])
print("KERNELS")
for name, p in rows:
    print(name, p["total"], p["refresh"], p["index"], p["unpickle"], p["rebuild"], p["bytes"] / 1024 / 1000)
"""


def kernel_times(data_file: Path, hierarchy: Path, m: int, workdir: Path) -> None:
    """Each numba kernel's first call in one run of our command: seconds, and where they go."""
    cmd = [sys.executable, "-c", KERNEL_TIMES, "kmanon", str(data_file), "--k", str(K), "--m", str(m), "--sigma", "1",
           "--constraint", "hierarchy", "--item-hierarchy", str(hierarchy), "--seed", "1", "--quiet",
           "--json", str(workdir / "kernels.json")]
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT)
    if proc.returncode != 0 or "KERNELS" not in proc.stdout:
        print(f"kernel times: failed: {(proc.stderr or proc.stdout).strip().splitlines()[-1:]}")
        return
    rows = [line.split() for line in proc.stdout.split("KERNELS", 1)[1].strip().splitlines()]
    print(f"first calls of numba kernels, m = {m}, {data_file.name} (ms; load average {load_avg()}):")
    print(f"  {'kernel':<48} {'first call':>10} {'registries':>10} {'index':>6} {'unpickle':>8} {'rebuild':>7} "
          f"{'KiB':>5}")
    total = [0.0] * 6
    for name, *values in rows:
        ms = [float(v) * 1000 for v in values]  # the last column: KiB of cached object read
        total = [a + b for a, b in zip(total, ms)]
        print(f"  {name:<48} {ms[0]:>10.1f} {ms[1]:>10.1f} {ms[2]:>6.1f} {ms[3]:>8.1f} {ms[4]:>7.1f} {ms[5]:>5.0f}")
    label = f"{sum(not name.startswith('(') for name, *_ in rows)} kernels" + (" and the set-up" if any(
        name.startswith("(") for name, *_ in rows) else "")
    print(f"  {label:<48} {total[0]:>10.1f} {total[1]:>10.1f} {total[2]:>6.1f} {total[3]:>8.1f} "
          f"{total[4]:>7.1f} {total[5]:>5.0f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="alternating runs per side and case (median printed)")
    ap.add_argument("--sizes", default="5000,20000", help="first N records of BMS-WebView-1")
    ap.add_argument("--m", default="1,2,3,4")
    ap.add_argument("--peer-classpath", default=os.environ.get("ARX_KM_CLASSPATH", ""),
                    help="classpath of ARX's transactions package and the driver (or ARX_KM_CLASSPATH)")
    ap.add_argument("--java", default=shutil.which("java") or "java")
    ap.add_argument("--before", type=Path, default=None, help="another source tree whose CLI to run too")
    ap.add_argument("--floor", action="store_true",
                    help="also time python, import numpy, import numba and one cached numba kernel beside ARX")
    ap.add_argument("--kernels", action="store_true", help="also print each numba kernel's first call (largest m)")
    args = ap.parse_args()
    if not args.peer_classpath:
        print("bench_arx: skipped: ARX's Apriori Anonymization is not set up (set ARX_KM_CLASSPATH or "
              "--peer-classpath; the module docstring says how to build it)")
        return 0
    if shutil.which(args.java) is None and not Path(args.java).exists():
        print(f"bench_arx: skipped: no Java runtime ({args.java})")
        return 0
    sizes = [int(x) for x in args.sizes.split(",")]
    ms = [int(x) for x in args.m.split(",")]
    for tree in (ROOT, args.before):
        if tree is not None:
            byte_compile(tree)
    with tempfile.TemporaryDirectory(prefix="bench_arx_") as tmp:
        workdir = Path(tmp)
        hierarchy, files = prepare(workdir, sizes)
        probe = run_arx(args.peer_classpath, args.java, files[sizes[0]], hierarchy, 1, workdir, "probe")
        if "error" in probe:
            print(f"bench_arx: skipped: the ARX driver does not run ({probe['error']})")
            return 0
        print(f"k = {K}, σ = 1, fan-out {FANOUT} hierarchy, {args.runs} alternating runs per side; "
              f"load average {load_avg()}")
        head = (f"{'records':>7} {'m':>2} | {'NCP ours':>9} {'NCP ARX':>9} {'(driver)':>9} | "
                f"{'norm ours':>9} {'norm ARX':>9} | {'ours s':>7} {'ARX s':>7} {'ARX/ours':>8} | "
                f"{'alg ours':>8} {'alg ARX':>8} | {'MiB ours':>8} {'MiB ARX':>8} | check | load")
        if args.before:
            head += " | before: NCP, s"
        print(head)
        for n in sizes:
            for m in ms:
                ours, arx, before = [], [], []
                for r in range(args.runs):
                    ours.append(run_ours(ROOT, files[n], hierarchy, m, workdir, f"ours_{n}_{m}_{r}"))
                    arx.append(run_arx(args.peer_classpath, args.java, files[n], hierarchy, m, workdir,
                                       f"arx_{n}_{m}_{r}"))
                    if args.before:
                        before.append(run_ours(args.before, files[n], hierarchy, m, workdir, f"before_{n}_{m}_{r}"))
                bad = [x["error"] for x in ours + arx + before if "error" in x]
                if bad:
                    print(f"{n:>7} {m:>2} | failed: {bad[0]}")
                    continue
                o_s, a_s = median(ours, "seconds"), median(arx, "seconds")
                o_alg, a_alg = median(ours, "algorithm_s"), median(arx, "algorithm_s")
                line = (f"{n:>7} {m:>2} | {ours[0]['xu']:>9.5f} {arx[0]['xu']:>9.5f} {arx[0]['driver_ncp']:>9.5f} | "
                        f"{ours[0]['normalized']:>9.5f} {arx[0]['normalized']:>9.5f} | {o_s:>7.2f} {a_s:>7.2f} "
                        f"{a_s / o_s:>7.2f}x | {o_alg:>8.2f} {a_alg:>8.2f} | "
                        f"{max(x['rss'] for x in ours):>8.0f} {max(x['rss'] for x in arx):>8.0f} | "
                        f"{'passed' if all(x['passed'] for x in ours) else 'FAILED'} | {load_avg()}")
                if args.before:
                    line += f" | {before[0]['xu']:.5f}, {median(before, 'seconds'):.2f}"
                print(line, flush=True)
        if args.kernels:
            kernel_times(files[sizes[0]], hierarchy, max(ms), workdir)
        if args.floor:
            floor(args.peer_classpath, args.java, files, hierarchy, workdir, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
