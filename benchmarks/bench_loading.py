"""Loading benchmarks: peak memory and seconds of loading a file, of ``info`` and of a method run on it.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_loading.py                       # this checkout
    .venv/bin/python benchmarks/bench_loading.py --baseline ../old     # and an older source tree, for ratios

Every measurement runs in a fresh process (:mod:`_probe`, shared with
``bench_sources.py``) that reports its own wall time and peak resident memory
(``ru_maxrss``, imports and loading included), so the figures are those of a
user running the command. Cases:

* ``load city``: ``load_transactions`` of a synthetic city of 1,000,000 users
  (about 48 MB of FIMI text, generated once into ``--cache``), and the size of
  the resulting CSR arrays, for the "few times the final CSR" goal;
* ``info city``: ``anonstudio-cli info`` on that file;
* ``uniqueness city``: ``anonstudio-cli uniqueness --m 1`` on it (a method run
  on a file, loading included);
* ``load adult``: ``load_table`` of UCI Adult (``../shared/data/adult``)
  next to ``pandas.read_csv`` of the same file (the library it sits on);
* ``info adult`` and ``group-anonymize adult`` (Mondrian, k = 4, four
  quasi-identifiers): command runs on the file.

``--baseline DIR`` runs the same cases with the anonstudio package of another
source tree (e.g. ``git archive`` of an older commit) and prints the ratios.

``--adult-ratios N`` measures the "start at once" target instead (``load_table``
of Adult at most 1.5 times ``pandas.read_csv`` of the same file), as medians of
N alternating runs, with the load average before and after:

* in one process, after a first call of each: ``load_table(adult)`` against
  ``pandas.read_csv(adult, header=None, skipinitialspace=True, na_values=["?"])``;
* the first call in a fresh process (imports excluded), the two alternating, with the CPU time and the
  modules each call imported (neither should: an import in the call is a one-time cost of that side);
* whole processes, as a user starts them: ``anonstudio-cli info adult.data``
  against ``python -c "import pandas; pandas.read_csv(...)"``, each child's
  peak resident memory read from its own resource usage.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _probe import probe
from bench_data import BENCH_DATA

HERE = Path(__file__).resolve().parents[1]
ADULT = BENCH_DATA / "adult" / "adult.data"

#: Imported before the clock starts: the figures are those of the work, not of Python starting up. pandas is
#: imported where it is used (a FIMI file or --help needs none), so it is imported here like the "pandas" case's.
SETUP = {
    "cli": "from anonstudio.cli import main, build_parser\nbuild_parser()\nimport anonstudio.data.io\nimport pandas",
    "io": "import anonstudio.data.io\nimport pandas\nfrom anonstudio.kernels.warmup import warm_up_all\nwarm_up_all()",
    "pandas": "import pandas as pd",
}

CASES = {
    "load city": ("io", """
from anonstudio.data.io import load_transactions
d = load_transactions(CITY)
extra = {"records": d.n_records, "csr_mib": (d.indptr.nbytes + d.indices.nbytes) / 2**20}
"""),
    "info city": ("cli", """
code = main(["info", CITY])
extra = {"exit": code}
"""),
    "uniqueness city": ("cli", """
code = main(["uniqueness", CITY, "--m", "1", "--quiet"])
extra = {"exit": code}
"""),
    "pandas adult": ("pandas", """
f = pd.read_csv(ADULT, header=None, skipinitialspace=True, na_values=["?"])
extra = {"rows": len(f)}
"""),
    "load adult": ("io", """
from anonstudio.data.io import load_table
t = load_table(ADULT)
extra = {"rows": t.n_rows}
"""),
    "info adult": ("cli", """
code = main(["info", ADULT])
extra = {"exit": code}
"""),
    "group-anonymize adult": ("cli", """
code = main(["group-anonymize", ADULT, "--qi", "age,sex,race,marital-status", "--sensitive", "occupation",
             "--k", "4", "--quiet"])
extra = {"exit": code}
"""),
}


def city_file(cache: Path, users: int) -> Path:
    path = cache / f"city-{users}.dat"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "anonstudio.cli", "synth-city", "--users", str(users), "--seed", "3",
                        "--quiet", "--out", str(path)], check=True, cwd=HERE, env=_env(HERE))
    return path


def _env(tree: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(tree)}


def measure(tree: Path, case: str, city: Path) -> dict:
    setup, work = CASES[case]
    body = f"CITY = {str(city)!r}\nADULT = {str(ADULT)!r}\n" + work
    return probe(SETUP[setup], body, tree)


#: The pandas call the target is measured against (``{pd}``: the name pandas is imported as).
_READ_CSV = "{pd}.read_csv({path!r}, header=None, skipinitialspace=True, na_values=['?'])"

#: One process alternating the two loads after a first call of each; prints the seconds of every call.
_WARM = """
import json, sys, time
import pandas
from anonstudio.data.io import load_table
ADULT = {path!r}
calls = {{"read_csv": lambda: {read_csv}, "load_table": lambda: load_table(ADULT)}}
first = {{name: 0.0 for name in calls}}
for name, call in calls.items():
    t0 = time.perf_counter(); call(); first[name] = time.perf_counter() - t0
runs = {{name: [] for name in calls}}
for _ in range({repeat}):
    for name, call in calls.items():
        t0 = time.perf_counter(); call(); runs[name].append(time.perf_counter() - t0)
print(json.dumps({{"first": first, "runs": runs}}))
"""


#: One process timing the first call of one side (wall and CPU seconds) after its imports, and naming the
#: modules the call itself imported: a module one side imports in its call is charged to it alone. The
#: anonstudio side imports pandas too, as the loaders do where they use it.
_FIRST = """
import json, sys, time
{setup}
before = set(sys.modules)
t0, c0 = time.perf_counter(), time.process_time()
{call}
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({{"seconds": seconds, "cpu": cpu, "imported": sorted(set(sys.modules) - before)}}))
"""
_FIRST_SIDES = {
    "read_csv": ("import pandas", _READ_CSV.format(pd="pandas", path=str(ADULT))),
    "load_table": ("import pandas\nimport anonstudio.data.io\nfrom anonstudio.data.io import load_table",
                   f"load_table({str(ADULT)!r})"),
}


def _first_call(tree: Path, side: str) -> dict:
    """Seconds, CPU seconds and modules imported of one side's first call in a fresh process."""
    import json

    setup, call = _FIRST_SIDES[side]
    out = subprocess.run([sys.executable, "-c", _FIRST.format(setup=setup, call=call)], env=_env(tree), cwd=tree,
                         capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if out.returncode:
        raise SystemExit(f"{side}: {(out.stderr.strip().splitlines() or ['no output'])[-1]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _child(argv: list[str], tree: Path) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=_env(tree), cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv[:4])}... failed: {proc.stderr.read().decode()[-300:]}")
    return seconds, usage.ru_maxrss / 1024


def _median_line(name: str, values: list[float]) -> str:
    return f"  {name:<34}median {statistics.median(values):7.3f} s   (min {min(values):.3f}, max {max(values):.3f})"


def adult_ratios(tree: Path, repeat: int) -> None:
    """Print the in-process and whole-process ratios of loading Adult against pandas.read_csv."""
    import json

    print(f"adult: {ADULT}; load average before: {_load_average()}")
    code = _WARM.format(path=str(ADULT), read_csv=_READ_CSV.format(pd="pandas", path=str(ADULT)), repeat=repeat)
    out = subprocess.run([sys.executable, "-c", code], env=_env(tree), cwd=tree, capture_output=True, text=True,
                         check=True)
    warm = json.loads(out.stdout.strip().splitlines()[-1])
    rc, lt = warm["runs"]["read_csv"], warm["runs"]["load_table"]
    print(f"in one process, {repeat} alternating calls after a first call of each:")
    print(_median_line("pandas.read_csv", rc))
    print(_median_line("load_table", lt))
    print(f"  ratio of medians: {statistics.median(lt) / statistics.median(rc):.2f}x")
    firsts: dict[str, list[dict]] = {"read_csv": [], "load_table": []}
    for _ in range(repeat):
        for name in firsts:
            firsts[name].append(_first_call(tree, name))
    print(f"the first call in a fresh process (imports excluded), {repeat} alternating processes:")
    for name, label in (("read_csv", "pandas.read_csv"), ("load_table", "load_table")):
        runs = firsts[name]
        imported = sorted({m for r in runs for m in r["imported"]})
        print(_median_line(label, [r["seconds"] for r in runs])
              + f"   CPU median {statistics.median(r['cpu'] for r in runs) * 1000:.1f} ms"
              + f"   modules imported by the call: {', '.join(imported) or 'none'}")
    ratio = statistics.median(r["seconds"] for r in firsts["load_table"]) / \
        statistics.median(r["seconds"] for r in firsts["read_csv"])
    cpu_ratio = statistics.median(r["cpu"] for r in firsts["load_table"]) / \
        statistics.median(r["cpu"] for r in firsts["read_csv"])
    print(f"  ratio of medians: {ratio:.2f}x (CPU {cpu_ratio:.2f}x)")
    cli = Path(sys.executable).with_name("anonstudio-cli")
    info = [str(cli)] if cli.exists() else [sys.executable, "-m", "anonstudio.cli"]
    argvs = {"python -c read_csv": [sys.executable, "-c",
                                    "import pandas; " + _READ_CSV.format(pd="pandas", path=str(ADULT))],
             "anonstudio-cli info": [*info, "info", str(ADULT)]}
    whole: dict[str, list[tuple[float, float]]] = {name: [] for name in argvs}
    for _ in range(repeat):
        for name, argv in argvs.items():
            whole[name].append(_child(argv, tree))
    print(f"whole processes, {repeat} alternating runs:")
    for name, runs in whole.items():
        print(_median_line(name, [r[0] for r in runs]) + f"   peak {max(r[1] for r in runs):.0f} MiB")
    ratio = statistics.median(r[0] for r in whole["anonstudio-cli info"]) / \
        statistics.median(r[0] for r in whole["python -c read_csv"])
    print(f"  ratio of medians: {ratio:.2f}x")
    print(f"load average after: {_load_average()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, help="another source tree to compare with")
    parser.add_argument("--users", type=int, default=1_000_000, help="users of the synthetic city (default 1M)")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/anonstudio-bench"), help="where the city file goes")
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated case names")
    parser.add_argument("--adult-ratios", type=int, metavar="N", help="only the Adult ratios against pandas.read_csv, "
                        "medians of N alternating runs")
    args = parser.parse_args()
    if args.adult_ratios:
        adult_ratios(HERE, args.adult_ratios)
        return
    city = city_file(args.cache, args.users)
    print(f"city file: {city} ({city.stat().st_size / 2**20:.1f} MiB); adult: {ADULT}")
    trees = [("this", HERE)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    # s: seconds of the work (imports excluded); MiB: peak resident memory of the process (imports included);
    # +MiB: what the work added to the memory the imports took.
    header = f"{'case':<24}" + "".join(f"{name + ' s':>13}{name + ' MiB':>15}{name + ' +MiB':>15}"
                                       for name, _ in trees)
    if args.baseline:
        header += f"{'time ratio':>12}{'+MiB ratio':>14}"
    print(header)
    for case in args.cases.split(","):
        results = [measure(tree, case, city) for _, tree in trees]
        row = f"{case:<24}"
        for r in results:
            row += (f"{r['seconds']:>13.2f}{r['peak_mib']:>15.0f}{r['peak_mib'] - r['after_imports_mib']:>15.0f}"
                    if "error" not in r else f"{'error: ' + r['error'][:30]:>43}")
        if args.baseline and all("error" not in r for r in results):
            added = [max(r["peak_mib"] - r["after_imports_mib"], 1.0) for r in results]
            row += f"{results[1]['seconds'] / results[0]['seconds']:>11.1f}x{added[1] / added[0]:>13.1f}x"
        extras = {k: round(v, 2) if isinstance(v, float) else v for k, v in results[0].get("extra", {}).items()}
        print(row + (f"   {extras}" if extras else ""))


if __name__ == "__main__":
    main()
