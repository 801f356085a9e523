"""The work-size guard every command shares: absurd work is refused before it starts.

A request whose size is far beyond anything useful (a million seeds, a record
with a million items, a hierarchy a thousand levels deep) would otherwise run
for hours or exhaust memory with no answer. :func:`check_work` compares a
count against the limit for its kind of work and raises
:class:`WorkTooLarge` with one line naming the count, the limit and the way to
lift it: ``--allow-large-work`` on the command line (the CLI calls
:func:`allow_large_work`), or the environment variable
``ANONSTUDIO_ALLOW_LARGE_WORK=1``.

The limits are generous on purpose: they catch typos and hostile files, not
large honest studies, which pass the override.
"""
from __future__ import annotations

import os

__all__ = ["WorkTooLarge", "LIMITS", "OVERRIDE_FLAG", "check_work", "allow_large_work", "large_work_allowed"]

#: The command-line flag that lifts every limit.
OVERRIDE_FLAG = "--allow-large-work"

#: Largest count of each kind of work run without the override.
LIMITS: dict[str, int] = {
    "cells": 10_000,             # sweep grid cells x seeds (methods.sweep.MAX_CELLS; sweep --max-cells raises it)
    "seeds": 10_000,             # repetitions of one run
    "items per record": 100_000,  # distinct items one person holds
    "levels": 64,                # levels of a hierarchy or of a per-level parameter
    "queries": 1_000_000,        # workload queries
}

_allowed = False


class WorkTooLarge(ValueError):
    """A request larger than its limit: one line with the count, the limit and the override."""


def allow_large_work(on: bool = True) -> None:
    """Lift (or restore) every limit for this process."""
    global _allowed
    _allowed = bool(on)


def large_work_allowed() -> bool:
    """Whether the limits are lifted (the override flag or ``ANONSTUDIO_ALLOW_LARGE_WORK=1``)."""
    return _allowed or os.environ.get("ANONSTUDIO_ALLOW_LARGE_WORK", "").strip() not in ("", "0")


def check_work(kind: str, count: int, *, where: str = "", limit: int | None = None) -> None:
    """Raise :class:`WorkTooLarge` when ``count`` units of ``kind`` exceed the limit (unless lifted).

    Parameters
    ----------
    kind
        A key of :data:`LIMITS` (``"cells"``, ``"seeds"``, ``"items per record"``, ``"levels"``,
        ``"queries"``); also the words of the message.
    count
        How many the request asks for.
    where
        What asked, for the message (``"--seeds"``, ``"queries.json line 3"``).
    limit
        Overrides the default limit of ``kind``.
    """
    bound = LIMITS[kind] if limit is None else limit
    if count <= bound or large_work_allowed():
        return
    prefix = f"{where}: " if where else ""
    raise WorkTooLarge(f"{prefix}{count:,} {kind} is more than the limit of {bound:,}; pass {OVERRIDE_FLAG} "
                       "to run it anyway")
