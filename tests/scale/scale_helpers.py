"""What the scale-out tests share: a bundled sample, quick σ-k^m params, and comparisons without timings."""
from __future__ import annotations

import functools
import os
import signal

import numpy as np

from anonstudio.data.datasets import open_dataset
from anonstudio.methods.contract import get_method

KMANON = get_method("kmanon")


@functools.cache
def city():
    """The bundled small city (5,000 people, 200 towers with coordinates)."""
    return open_dataset("small-city")


def quick(**changes):
    """σ-k^m params that finish in a fraction of a second on the small city."""
    values = dict(k=10, m=2, sigma=0.9, verify_samples=400)
    values.update(changes)
    return KMANON.params(**values)


def levels_key(result) -> list[tuple]:
    """What a σ-k^m result decided per level (no timings): sizes, errors, counts and the partition labels."""
    return [(lv.level, lv.k, lv.mode, lv.samples, lv.violations, lv.merges, lv.partitions, lv.error, lv.complete,
             lv.labels.tobytes()) for lv in result.levels]


def trials_key(result) -> list[tuple]:
    return [(t.trial, t.seed, t.complete, tuple(levels_key(t))) for t in result.trials]


def same_labels(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a, b))


def ctrl_c_after_cells(monkeypatch, cells: int) -> None:
    """Press Ctrl-C (a real SIGINT, to the CLI's installed handler) once ``cells`` sweep cells are done."""
    from anonstudio.cli.progress import TqdmProgress

    real_partial = TqdmProgress.partial

    def interrupting(self, result):
        real_partial(self, result)
        if result.done == cells:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(TqdmProgress, "partial", interrupting)
