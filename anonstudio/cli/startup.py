"""The cyclic garbage collector while a command starts.

Starting a method command imports numpy, numba and the family's modules, and its first numba kernel builds
numba's typing and lowering registries (several hundred more modules): some 10^5 long-lived objects and almost
no cyclic garbage. Triggered by those allocations, the collector scanned them about 280 times, 140-155 ms of a
1.4 s ``kmanon`` run on 5,000 records (benchmarks/README.md, bench_arx's start-up section). So the collector is
off from the start of :func:`anonstudio.cli.main` until the work starts; then, in a process that ends with the
command, the objects alive (modules, types, the loaded data) are frozen (:func:`gc.freeze`: later collections,
those during numba's first kernel load included, skip them; reference counting still frees them) and the
collector runs as usual for the work itself.
"""
from __future__ import annotations

import gc

__all__ = ["pause_collector", "resume_collector"]

_paused = False
#: True in the ``anonstudio-cli`` process itself (set by :func:`anonstudio.cli.run`): only there are the
#: start-up's objects frozen, since a caller of :func:`anonstudio.cli.main` (a test, a notebook) lives on after it.
whole_process = False


def pause_collector() -> None:
    """Turn the cyclic collector off for the start-up, if it is on."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_collector() -> None:
    """Turn the collector back on if :func:`pause_collector` turned it off (once; later calls do nothing).

    In the ``anonstudio-cli`` process the objects alive now are frozen first, so the collections of the work
    do not scan the start-up's modules again.
    """
    global _paused
    if not _paused:
        return
    _paused = False
    if whole_process:
        gc.freeze()
    gc.enable()
