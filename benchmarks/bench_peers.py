"""Whole processes side by side with public peers, per method family (issue 20).

Each case runs anonstudio's command and a public peer implementation of the same method on the same input, each
as a fresh process timed from spawn to exit (the output written: anonstudio writes its release, the peers what they
write), alternating A B / B A, and prints the medians, their ratio (peer seconds / anonstudio seconds: 1 or more
means anonstudio's whole process is at least as fast), the peak RSS of each process (``os.wait4``), whether
anonstudio's independent check passed, and the load average before and after. An untimed first run of each side
fills numba's cache and Python's bytecode cache. anonstudio runs from this checkout with this interpreter
(``python -m anonstudio.cli``).

Peers are not part of the project: they live in ``../peers`` beside the repository (``ANONSTUDIO_PEERS`` points
elsewhere), one git checkout per peer at the commit named below. A missing peer or interpreter skips its cases
and prints how to set it up. Setup (once)::

    git clone https://github.com/qiyuangong/Mondrian ../peers/Mondrian                 # then check out 49d49cf
    git clone https://github.com/qiyuangong/Apriori_based_Anonymization ../peers/Apriori_based_Anonymization  # a86d109
    git clone https://github.com/qiyuangong/Relational_Transaction_Anon ../peers/Relational_Transaction_Anon  # 954cca4

The Mondrian peer runs on Python 3 (``ANONSTUDIO_PEER_PYTHON``, default ``../peers/venv/bin/python`` made with
``python3 -m venv ../peers/venv``, else this interpreter); it opens files in mode ``'rU'``, which Python 3.11
refuses, so its launcher maps ``'rU'`` to ``'r'`` (nothing else of the peer is changed). The k^m and RT peers are
Python 2.7 programs: ``ANONSTUDIO_PEER_PY27`` names the interpreter (default: ``python2.7`` on the PATH, else a
pyenv 2.7 such as ``~/.pyenv/versions/2.7.18/bin/python``; ``pyenv install 2.7.18`` makes one).

Families without a runnable public peer (uniqueness, nonreciprocal, rho, threat) are listed with what was
searched; ``--list`` prints the cases. Usage::

    python benchmarks/bench_peers.py [--runs 3] [--cases group_anonymize,kmanon,rt] [--sizes small,large]
                                     [--timeout 600] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench_data import BENCH_DATA

ROOT = Path(__file__).resolve().parents[1]
PEERS = Path(os.environ.get("ANONSTUDIO_PEERS", ROOT.parent / "peers"))

#: Families with no runnable public peer: what was searched, and why the candidates found do not compare.
NO_PEER = {
    "uniqueness": "no public implementation of itemset uniqueness / person unicity over set-valued records found "
                  "(searched GitHub for unicity, de Montjoye, itemset uniqueness; CorrectMatch is Julia and models "
                  "tables, not item sets)",
    "nonreciprocal": "no public nonreciprocal recoding found; the Python CAHD ports found (Elpinzeiro/"
                     "CAHD_Anonimization builds a dense n x n matrix and opens a plot window, LorenzoLaCorte/CAHD "
                     "asks its parameters interactively) do not run as a comparable whole process",
    "rho": "no public implementation of (personalized) rho-uncertainty found",
    "threat": "no public implementation of the relative-threat Gibbs sampler (Boreale et al. 2020) found",
}


@dataclass
class Case:
    """One side-by-side comparison: the same input and equivalent parameters for anonstudio and a peer."""

    family: str
    size: str
    peer: str                      # owner/name on GitHub
    peer_dir: Path
    input: str
    params: str
    anon: list[str]                # anonstudio-cli arguments
    peer_argv: list[str]
    peer_cwd: Path
    workdir: Path
    peer_env: dict[str, str] = field(default_factory=dict)
    check: bool = True             # anonstudio runs an independent check whose verdict is printed


@dataclass
class Timing:
    seconds: list[float] = field(default_factory=list)
    rss_mib: list[float] = field(default_factory=list)
    failed: str = ""


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run_process(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> tuple[float, float, int, str]:
    """Wall seconds from spawn to exit, peak RSS (MiB) of that process, its exit status and its output."""
    out = tempfile.TemporaryFile()
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = t0 + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = -9
            out.seek(0)
            return float("inf"), usage.ru_maxrss / 1024, -9, out.read().decode(errors="replace")
        time.sleep(0.002)
    seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    out.seek(0)
    return seconds, usage.ru_maxrss / 1024, proc.returncode, out.read().decode(errors="replace")


def anon_env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed copy has its bytecode compiled
    return env


def peer_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return {**env, **extra}


def commit_of(path: Path) -> str:
    done = subprocess.run(["git", "-C", str(path), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                          text=True)
    return done.stdout.strip() or "unknown"


def python3_for_peers() -> str:
    named = os.environ.get("ANONSTUDIO_PEER_PYTHON")
    if named:
        return named
    venv = PEERS / "venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def python27() -> str | None:
    named = os.environ.get("ANONSTUDIO_PEER_PY27")
    if named:
        return named if Path(named).exists() else None
    found = shutil.which("python2.7")
    if found and subprocess.run([found, "-c", "pass"], capture_output=True).returncode == 0:
        return found
    for candidate in sorted(Path.home().glob(".pyenv/versions/2.7*/bin/python"), reverse=True):
        return str(candidate)
    return None


def missing_peer(name: str, commit: str) -> str:
    return (f"peer {name} not found in {PEERS}: git clone https://github.com/{name} {PEERS / name.split('/')[1]} "
            f"&& git -C {PEERS / name.split('/')[1]} checkout {commit}")


# ---------------------------------------------------------------------------------------------------------------
# group_anonymize: strict Mondrian on UCI Adult against qiyuangong/Mondrian (pure Python)

ADULT_COLUMNS = ("age,workclass,fnlwgt,education,education-num,marital-status,occupation,relationship,race,sex,"
                 "capital-gain,capital-loss,hours-per-week,native-country,income")
# The peer's quasi-identifiers (utils/read_adult_data.py QI_INDEX) and its sensitive column (the last, income).
ADULT_QI = "age,workclass,education-num,marital-status,occupation,race,sex,native-country"

# The peer opens its input with mode 'rU' (Python 2 spelling) that Python 3.11 refuses: map it to 'r'.
_RU_LAUNCHER = ("import builtins, runpy, sys\n_open = builtins.open\n"
                "def _peer_open(file, mode='r', *a, **k):\n    return _open(file, mode.replace('U', ''), *a, **k)\n"
                "builtins.open = _peer_open\nsys.argv = [sys.argv[1]] + sys.argv[2:]\n"
                "sys.path.insert(0, str(__import__('pathlib').Path(sys.argv[0]).parent))\n"
                "runpy.run_path(sys.argv[0], run_name='__main__')\n")


def adult_complete_rows(size: str, work: Path) -> tuple[Path, int]:
    """Adult's rows without a missing value (the peer drops the others): adult.data, or with adult.test too."""
    lines = [ln for ln in (BENCH_DATA / "adult" / "adult.data").read_text().splitlines()
             if ln.strip() and "?" not in ln]
    if size == "large":
        test = (BENCH_DATA / "adult" / "adult.test").read_text().splitlines()[1:]
        lines += [ln.rstrip(".") for ln in test if ln.strip() and "?" not in ln]
    path = work / "data" / "adult.data"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path, len(lines)


def case_group_anonymize(size: str, work: Path) -> Case | str:
    peer_dir = PEERS / "Mondrian"
    if not (peer_dir / "anonymizer.py").exists():
        return missing_peer("qiyuangong/Mondrian", "49d49cfb3348")
    data, rows = adult_complete_rows(size, work)
    k = 10
    what = "adult.data" if size == "small" else "adult.data + adult.test"
    return Case(
        family="group_anonymize", size=size, peer="qiyuangong/Mondrian", peer_dir=peer_dir,
        input=f"UCI Adult ({what}), {rows:,} complete rows, 15 columns",
        params=f"strict Mondrian, k = {k}, QI = {ADULT_QI} (8), sensitive = income; peer: 's a {k}' "
               "(categories in order of appearance, anonstudio: sorted; no hierarchies)",
        anon=["group-anonymize", str(data), "--columns", ADULT_COLUMNS, "--k", str(k), "--qi", ADULT_QI,
              "--sensitive", "income", "--out", str(work / "anon.csv"), "--quiet"],
        peer_argv=[python3_for_peers(), "-c", _RU_LAUNCHER, str(peer_dir / "anonymizer.py"), "s", "a", str(k)],
        peer_cwd=work, workdir=work)


# ---------------------------------------------------------------------------------------------------------------
# kmanon: deterministic k^m under an item hierarchy against qiyuangong/Apriori_based_Anonymization (Python 2.7)

def fanout_hierarchy(items: list[int], fanout: int = 5) -> list[str]:
    """Rows ``leaf;parent;...;*`` of a balanced tree over the items in code order; a node is named by the first
    and last item under it (``10291,10307``), as the peer's own BMS tree names them."""
    levels = [[(str(x), x, x) for x in items]]
    while len(levels[-1]) > 1:
        below = levels[-1]
        levels.append([(f"{g[0][1]},{g[-1][2]}", g[0][1], g[-1][2])
                       for g in (below[j:j + fanout] for j in range(0, len(below), fanout))])
    rows = []
    for j, (name, _, _) in enumerate(levels[0]):
        path, index = [name], j
        for level in range(1, len(levels) - 1):  # the top level's one node is the root, written '*'
            index //= fanout
            path.append(levels[level][index][0])
        rows.append(";".join(path + ["*"]))
    return rows


def case_kmanon(size: str, work: Path) -> Case | str:
    peer_dir = PEERS / "Apriori_based_Anonymization"
    if not (peer_dir / "anonymizer.py").exists():
        return missing_peer("qiyuangong/Apriori_based_Anonymization", "a86d109bcadc")
    py27 = python27()
    if py27 is None:
        return "the k^m peer needs Python 2.7: set ANONSTUDIO_PEER_PY27 (e.g. after pyenv install 2.7.18)"
    n = 5000 if size == "small" else 20000
    lines = (BENCH_DATA / "transactions" / "BMS-WebView-1.dat").read_text().split("\n")[:n]
    records = [sorted({int(x) for x in ln.split()}) for ln in lines]
    (work / "data").mkdir(parents=True, exist_ok=True)
    fimi = work / "in.dat"
    fimi.write_text("".join(" ".join(map(str, r)) + "\n" for r in records))
    # The peer reads 'record<TAB>item' lines from data/BMS-WebView-2.dat and its tree from data/treefile_BMS.txt.
    (work / "data" / "BMS-WebView-2.dat").write_text(
        "".join(f"{i}\t{x}\n" for i, r in enumerate(records, 1) for x in r))
    items = sorted({x for r in records for x in r})
    tree = work / "data" / "treefile_BMS.txt"
    tree.write_text("\n".join(fanout_hierarchy(items)) + "\n")
    k, m = 5, 4  # the peer's m is fixed (anonymizer.py DEFALUT_M = 4); its k is the third argument
    return Case(
        family="kmanon", size=size, peer="qiyuangong/Apriori_based_Anonymization", peer_dir=peer_dir,
        input=f"first {n:,} BMS-WebView-1 records ({len(items)} items), balanced fan-out-5 item hierarchy",
        params=f"k = {k}, m = {m}, every itemset (anonstudio sigma = 1, --constraint hierarchy; peer: Apriori "
               "Anonymization 'AA b 5', global recoding by hierarchy cuts)",
        anon=["kmanon", str(fimi), "--k", str(k), "--m", str(m), "--sigma", "1", "--constraint", "hierarchy",
              "--item-hierarchy", str(tree), "--out", str(work / "anon.sets.csv"), "--quiet"],
        peer_argv=[py27, str(peer_dir / "anonymizer.py"), "AA", "b", str(k)],
        peer_cwd=work, workdir=work)


# ---------------------------------------------------------------------------------------------------------------
# rt: (k, k^m)-anonymity of INFORMS RT-data against qiyuangong/Relational_Transaction_Anon (Python 2.7)

RT_QI = ("DOBMM", "DOBYY", "RACEX", "EDUCYEAR", "income")  # the peer's QI_INDEX (3, 4, 6, 13, 16)


def informs_subset(n: int, work: Path) -> tuple[Path, Path]:
    """The first ``n`` INFORMS persons having a valid ICD-9 code, and their codes (the -1 / -9 rows dropped, as
    anonstudio reads them; the peer would keep them as codes)."""
    informs = BENCH_DATA / "informs"
    conditions = (informs / "conditions05.csv").read_text().splitlines()
    codes = [conditions[0]] + [ln for ln in conditions[1:] if ln.split(",")[2] not in ('"-1"', '"-9"')]
    having = {ln.split(",")[1] for ln in codes[1:]}
    people = (informs / "demographics05test.csv").read_text().splitlines()
    kept = [ln for ln in people[1:] if ln.split(",")[2] in having][:n]
    ids = {ln.split(",")[2] for ln in kept}
    (work / "data").mkdir(parents=True, exist_ok=True)
    demographics, items = work / "data" / "demographics.csv", work / "data" / "conditions.csv"
    demographics.write_text("\n".join([people[0]] + kept) + "\n")
    items.write_text("\n".join([codes[0]] + [ln for ln in codes[1:] if ln.split(",")[1] in ids]) + "\n")
    return demographics, items


def distinct_labels(tree: Path, out: Path) -> Path:
    """The same tree with a label that names groups at two depths suffixed by its depth (``a,b`` -> ``a,b@3``)."""
    rows = [ln.split(";") for ln in tree.read_text().splitlines() if ln.strip()]
    depths: dict[str, set[int]] = {}
    for row in rows:
        for i, label in enumerate(row[1:-1], 1):
            depths.setdefault(label, set()).add(len(row) - 1 - i)  # depth below the root '*'
    clash = {label for label, seen in depths.items() if len(seen) > 1}
    out.write_text("\n".join(";".join([row[0]] + [f"{x}@{len(row) - 1 - i}" if x in clash else x
                                                  for i, x in enumerate(row[1:-1], 1)] + [row[-1]])
                             for row in rows) + "\n")
    return out


def case_rt(size: str, work: Path) -> Case | str:
    peer_dir = PEERS / "Relational_Transaction_Anon"
    if not (peer_dir / "anonymizer.py").exists():
        return missing_peer("qiyuangong/Relational_Transaction_Anon", "954cca4b073b")
    py27 = python27()
    if py27 is None:
        return "the RT peer needs Python 2.7: set ANONSTUDIO_PEER_PY27 (e.g. after pyenv install 2.7.18)"
    n = 2000 if size == "small" else 5000
    demographics, items = informs_subset(n, work)
    # Both sides generalize along the peer's own hierarchies (data/informs_*.txt; 'even' = its fan-out tree of
    # the ICD-9 codes), so the search spaces are the same.
    trees = {}
    for name in (*RT_QI, "even"):
        trees[name] = work / "data" / f"informs_{name}.txt"
        shutil.copyfile(peer_dir / "data" / f"informs_{name}.txt", trees[name])
    # anonstudio refuses a tree whose label names groups on two levels (a published label would mean either);
    # the peer's income tree has such labels: anonstudio reads the same tree with those labels told apart.
    trees["income"] = distinct_labels(trees["income"], work / "income_tree.txt")
    k, m, delta = 10, 2, 0.65  # the peer's defaults (anonymizer.py DEFAULT_M, DEFAULT_T); k from its argument
    hierarchies = [arg for c in RT_QI for arg in ("--hierarchy", f"{c}={trees[c]}")]
    return Case(
        family="rt", size=size, peer="qiyuangong/Relational_Transaction_Anon", peer_dir=peer_dir,
        input=f"INFORMS 2005: first {n:,} persons with a valid ICD-9 code, 5 demographics + codes",
        params=f"k = {k}, m = {m}, delta = {delta}, Rum-bound with RMERGE_R (peer 'i RMR {k}'), the peer's "
               "hierarchies for the 5 demographics and its 'even' ICD-9 tree",
        anon=["rt", str(demographics), "--items-file", str(items), "--person-column", "DUPERSID", "--items-column",
              "ICD9CODX", "--qi", ",".join(RT_QI), *hierarchies, "--item-hierarchy",
              str(trees["even"]), "--k", str(k), "--m", str(m), "--delta", str(delta), "--bound", "rum",
              "--merge", "r", "--out", str(work / "ANON.csv"), "--quiet"],
        peer_argv=[py27, str(peer_dir / "anonymizer.py"), "i", "RMR", str(k)],
        peer_cwd=work, workdir=work)


BUILDERS: dict[str, Callable[[str, Path], Case | str]] = {
    "group_anonymize": case_group_anonymize, "kmanon": case_kmanon, "rt": case_rt}


def verdict(output: str) -> str:
    for phrase in ("Independent check passed", "Independent check FAILED", "Independent check incomplete"):
        if phrase in output:
            return "passed" if phrase.endswith("passed") else phrase.split()[-1]
    return "none printed"


def measure(case: Case, runs: int, timeout: float) -> dict:
    anon_argv = [sys.executable, "-m", "anonstudio.cli", *case.anon]
    sides = {"anonstudio": (anon_argv, case.workdir, anon_env()),
             "peer": (case.peer_argv, case.peer_cwd, peer_env(case.peer_env))}
    timings = {side: Timing() for side in sides}
    check = "not run"
    load_before = load_average()
    for side, (argv, cwd, env) in sides.items():  # untimed: numba's cache, bytecode, the file cache
        seconds, _, status, output = run_process(argv, cwd, env, timeout)
        if status != 0:
            timings[side].failed = f"exit {status}" if seconds != float("inf") else f"> {timeout:.0f} s"
            print(f"  {side} failed ({timings[side].failed}):\n{output[-1500:]}", file=sys.stderr)
    for r in range(runs):
        order = list(sides) if r % 2 == 0 else list(reversed(sides))
        for side in order:
            if timings[side].failed:
                continue
            argv, cwd, env = sides[side]
            seconds, rss, status, output = run_process(argv, cwd, env, timeout)
            if status != 0:
                timings[side].failed = f"exit {status}" if seconds != float("inf") else f"> {timeout:.0f} s"
                continue
            timings[side].seconds.append(seconds)
            timings[side].rss_mib.append(rss)
            if side == "anonstudio" and case.check:
                check = verdict(output)
            elif side == "anonstudio":
                check = "no promise to check"
    result = {"family": case.family, "size": case.size, "peer": f"{case.peer}@{commit_of(case.peer_dir)}",
              "input": case.input, "params": case.params, "check": check,
              "load": f"{load_before} -> {load_average()}"}
    for side, timing in timings.items():
        result[f"{side}_s"] = statistics.median(timing.seconds) if timing.seconds else None
        result[f"{side}_rss_mib"] = max(timing.rss_mib) if timing.rss_mib else None
        result[f"{side}_failed"] = timing.failed
    if result["anonstudio_s"] and result["peer_s"]:
        result["ratio"] = result["peer_s"] / result["anonstudio_s"]
    return result


def cell(seconds: float | None, failed: str) -> str:
    return failed if failed else f"{seconds:.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each side (alternating)")
    parser.add_argument("--cases", default=",".join(BUILDERS), help="families, comma-separated")
    parser.add_argument("--sizes", default="small,large")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before a run is stopped")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--list", action="store_true", help="print the families and their peers, run nothing")
    args = parser.parse_args(argv)
    families = [f.strip() for f in args.cases.split(",") if f.strip()]
    if args.list:
        for family in BUILDERS:
            print(f"{family}: {BUILDERS[family].__name__}")
        for family, why in NO_PEER.items():
            print(f"{family}: no peer: {why}")
        return 0
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-peers-") as tmp:
        for family in families:
            if family in NO_PEER:
                print(f"{family}: skipped: {NO_PEER[family]}")
                continue
            for size in args.sizes.split(","):
                work = Path(tmp) / f"{family}-{size}"
                work.mkdir()
                case = BUILDERS[family](size, work)
                if isinstance(case, str):
                    print(f"{family} ({size}): skipped: {case}")
                    continue
                print(f"{family} ({size}): {case.input}; {case.params}", flush=True)
                result = measure(case, args.runs, args.timeout)
                results.append(result)
                ratio = f"{result['ratio']:.2f}x" if "ratio" in result else "-"
                print(f"  anonstudio {cell(result['anonstudio_s'], result['anonstudio_failed'])} "
                      f"({result['anonstudio_rss_mib'] or 0:.0f} MiB), peer {result['peer']} "
                      f"{cell(result['peer_s'], result['peer_failed'])} ({result['peer_rss_mib'] or 0:.0f} MiB), "
                      f"ratio {ratio}, check {result['check']}, load {result['load']}", flush=True)
    print("\n| family | input | peer | anonstudio | peer | ratio | RSS anonstudio | RSS peer | check | load |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|---|")
    for r in results:
        ratio = f"{r['ratio']:.2f}x" if "ratio" in r else "-"
        print(f"| {r['family']} ({r['size']}) | {r['input']} | {r['peer']} | "
              f"{cell(r['anonstudio_s'], r['anonstudio_failed'])} | {cell(r['peer_s'], r['peer_failed'])} | {ratio} "
              f"| {r['anonstudio_rss_mib'] or 0:.0f} MiB | {r['peer_rss_mib'] or 0:.0f} MiB | {r['check']} "
              f"| {r['load']} |")
    for family in families:
        if family in NO_PEER:
            print(f"| {family} | - | none: {NO_PEER[family]} | | | | | | | |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
