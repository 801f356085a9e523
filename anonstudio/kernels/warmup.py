"""Compile every numba kernel once, in the background, at start-up.

Each kernel module may define ``warm_up()``, which calls its kernels on tiny
inputs with the argument types the methods pass (data arrays read-only, as a
dataset's are: numba compiles one variant per array type). With ``cache=True``
the first start compiles and writes the cache; later starts only load it. The
GUI runs :func:`warm_up_all` on a worker thread behind a status-bar message so
the first real job does not stall.
"""
from __future__ import annotations

import importlib
import pkgutil
import time

from ..jobs import NullProgress, Progress

__all__ = ["warm_up_all"]


def warm_up_all(progress: Progress | None = None) -> dict[str, float]:
    """Import every ``anonstudio.kernels`` module and run its ``warm_up()``.

    Returns
    -------
    dict
        Module name -> seconds spent warming it.
    """
    from .. import kernels

    progress = progress or NullProgress()
    names = [m.name for m in pkgutil.iter_modules(kernels.__path__) if m.name != "warmup"]
    timings: dict[str, float] = {}
    for i, name in enumerate(sorted(names)):
        if progress.cancelled():
            break
        progress.set(i / max(len(names), 1), f"compiling {name} kernels")
        t0 = time.perf_counter()
        module = importlib.import_module(f"{kernels.__name__}.{name}")
        hook = getattr(module, "warm_up", None)
        if callable(hook):
            hook()
        timings[name] = time.perf_counter() - t0
    progress.set(1.0, "kernels ready")
    return timings
