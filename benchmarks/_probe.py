"""The benchmarks' one probe: run a piece of code in a fresh Python process and report its time and memory.

A fresh process per measurement keeps runs from disturbing each other (no
warm caches, no memory left over from an earlier case) and gives the figures a
user would see. ``setup`` runs first (imports: not timed, and memory counted
before the work starts); ``body`` is the work, and sets ``extra`` (a dict of
JSON values) for anything else to report. The result holds:

* ``seconds``: wall time of the work; ``with_imports_s``: from the process's
  first line;
* ``peak_mib``: peak resident memory of the process (``ru_maxrss``, imports
  included); ``after_imports_mib``: resident memory when the work starts
  (``/proc/self/statm``); ``peak_above_mib``: the difference, what the work
  added at its peak;
* ``extra``: the body's ``extra``;

or ``{"error": last line of the child's stderr}`` when the child failed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

__all__ = ["probe", "best_of"]

_CODE = r"""
import json, os, resource, sys, time
T_START = time.perf_counter()
{setup}
def _rss_mib():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
extra = {{}}
BEFORE = _rss_mib()
t0 = time.perf_counter()
{body}
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("@@" + json.dumps({{"seconds": seconds, "with_imports_s": time.perf_counter() - T_START,
                          "peak_mib": peak, "after_imports_mib": BEFORE, "peak_above_mib": peak - BEFORE,
                          "extra": extra}}), file=sys.stderr)
"""


def probe(setup: str, body: str, tree: Path, env: dict | None = None) -> dict:
    """Run ``setup`` then ``body`` in a fresh interpreter with ``tree`` (a source tree) first on the path."""
    code = _CODE.format(setup=setup, body=body)
    environment = {**os.environ, **(env or {}), "PYTHONPATH": str(tree)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment,
                          cwd=str(tree), stdin=subprocess.DEVNULL)
    line = next((ln for ln in proc.stderr.splitlines() if ln.startswith("@@")), None)
    if line is None:
        return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1][:200]}
    return json.loads(line[2:])


def best_of(setup: str, body: str, tree: Path, repeat: int) -> dict:
    """The fastest of ``repeat`` probes (an error as soon as one fails)."""
    runs = []
    for _ in range(max(repeat, 1)):
        result = probe(setup, body, tree)
        if "error" in result:
            return result
        runs.append(result)
    return min(runs, key=lambda r: r["seconds"])
