"""Start-up of whole processes: ``anonstudio-cli --help``, ``kmanon --help``, ``info chess``, ``--version``.

Each case is a fresh interpreter, timed from spawn to exit, run several times (median printed, plus the
number of modules the process imported). An untimed first run of each case fills numba's cache with the
kernels it uses (``--warm-all`` compiles every kernel), so ``info chess`` measures loading, not compiling.
``--compare REF`` also times the same cases in a checkout of another commit (made with
``git worktree add --detach``), and the "discovery" line times what every start paid before: importing every
family's spec through :func:`anonstudio.methods.contract.discover_methods`.

Usage::

    python benchmarks/bench_startup.py [--runs 7] [--compare shape/contract] [--window]

``--window`` adds the studio's main window (offscreen: time to the first ``show()`` returning, with no
dataset loaded and the kernel warm-up turned off). Targets (issue 20): help < 0.3 s, info chess < 0.6 s,
window < 1.5 s. The machine is shared: the load average is printed with the figures. Python's bytecode cache is
on for the children (``PYTHONDONTWRITEBYTECODE`` is dropped), as in an installed copy.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_COUNT = "import atexit, sys; atexit.register(lambda: print('MODULES', len(sys.modules), file=sys.stderr))\n"

CASES = {
    "anonstudio-cli --help": "from anonstudio.cli import main; main(['--help'])",
    "anonstudio-cli kmanon --help": "from anonstudio.cli import main; main(['kmanon', '--help'])",
    "anonstudio-cli info chess": "from anonstudio.cli import main; main(['info', 'chess'])",
    "anonstudio-cli --version": "from anonstudio.cli import main; main(['--version'])",
    "discover_methods() alone": "import anonstudio.methods.contract as c; c.discover_methods()",
    # The library API resolves its names on first use: importing the package (a notebook's first cell) stays light.
    "import anonstudio (library API)": "import anonstudio as an; dir(an)",
}

WINDOW = """
import os, sys, time
t0 = time.perf_counter()
from PySide6.QtWidgets import QApplication
from anonstudio.gui.main_window import MainWindow
app = QApplication.instance() or QApplication(sys.argv[:1])
window = MainWindow(warm_up=False, restore_layout=False)
window.show()
app.processEvents()
"""

TARGETS = {"anonstudio-cli --help": 0.3, "anonstudio-cli kmanon --help": 0.3, "anonstudio-cli info chess": 0.6,
           "studio window shown": 1.5}


def run_once(code: str, checkout: Path) -> tuple[float, int]:
    """Seconds from spawn to exit of ``python -c code`` in ``checkout``, and its imported module count."""
    env = {**os.environ, "PYTHONPATH": str(checkout), "QT_QPA_PLATFORM": "offscreen"}
    # Bytecode is cached as in any installed copy (pip compiles it): an environment that turns the cache off
    # would time compiling anonstudio's sources on every start instead (about 0.2 s of --help).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("ANONSTUDIO_SETTINGS_DIR", tempfile.mkdtemp(prefix="bench-startup-"))
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _COUNT + "import sys\ntry:\n    exec(" + repr(code) + ")\n"
                           "except SystemExit:\n    pass\n"], cwd=checkout, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    modules = next((int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("MODULES")), -1)
    if modules < 0:
        raise RuntimeError(f"{code!r} failed in {checkout}:\n{done.stderr[-1500:]}")
    return seconds, modules


def measure(cases: dict[str, str], checkout: Path, runs: int) -> dict[str, tuple[float, int]]:
    """Median seconds and module count per case; the cases alternate so a load spike hits them alike."""
    times: dict[str, list[float]] = {name: [] for name in cases}
    modules: dict[str, int] = {}
    for code in cases.values():  # one untimed run each: numba's cache of what it uses, .pyc, file cache
        run_once(code, checkout)
    for _ in range(runs):
        for name, code in cases.items():
            seconds, count = run_once(code, checkout)
            times[name].append(seconds)
            modules[name] = count
    return {name: (statistics.median(times[name]), modules[name]) for name in cases}


def worktree(ref: str) -> Path:
    path = Path(tempfile.gettempdir()) / f"anonstudio-bench-startup-{ref.replace('/', '-')}"
    if not path.exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), ref], check=True,
                       capture_output=True)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs per case (median printed; default 7)")
    parser.add_argument("--compare", metavar="REF", help="also time a checkout of this commit or branch")
    parser.add_argument("--window", action="store_true", help="also time the studio's main window shown")
    parser.add_argument("--warm-all", action="store_true",
                        help="compile every kernel first (the untimed first run of each case already caches the "
                             "kernels that case uses, in each checkout)")
    args = parser.parse_args(argv)

    if args.warm_all:
        subprocess.run([sys.executable, "-c", "from anonstudio.kernels.warmup import warm_up_all; warm_up_all()"],
                       cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    cases = dict(CASES)
    if args.window:
        cases["studio window shown"] = WINDOW
    checkouts = {"this checkout": ROOT}
    if args.compare:
        checkouts[args.compare] = worktree(args.compare)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"start-up, whole processes, median of {args.runs} runs; {os.cpu_count()} cores, "
          f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the start")
    results = {label: measure(cases, path, args.runs) for label, path in checkouts.items()}
    header = f"{'case':32}" + "".join(f"{label[:24]:>26}" for label in results) + f"{'target':>10}"
    print(header)
    for name in cases:
        row = f"{name:32}"
        for label in results:
            seconds, count = results[label][name]
            row += f"{seconds:>12.3f} s {count:>6} mod"
        target = TARGETS.get(name)
        print(row + (f"{'< ' + format(target, 'g') + ' s':>10}" if target else ""))
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
