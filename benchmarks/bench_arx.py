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

Usage::

    ARX_KM_CLASSPATH=.../classes:.../hppc-0.6.0.jar python benchmarks/bench_arx.py [--runs 3] [--sizes 5000,20000]
        [--m 1,2,3,4] [--before TREE]
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="alternating runs per side and case (median printed)")
    ap.add_argument("--sizes", default="5000,20000", help="first N records of BMS-WebView-1")
    ap.add_argument("--m", default="1,2,3,4")
    ap.add_argument("--peer-classpath", default=os.environ.get("ARX_KM_CLASSPATH", ""),
                    help="classpath of ARX's transactions package and the driver (or ARX_KM_CLASSPATH)")
    ap.add_argument("--java", default=shutil.which("java") or "java")
    ap.add_argument("--before", type=Path, default=None, help="another source tree whose CLI to run too")
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
