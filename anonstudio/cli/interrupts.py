"""Ctrl-C remembered for the whole command, from the entry point's first line.

Kept apart from the progress bar (which imports tqdm) so that ``main`` installs
the handler before anything heavy is imported.
"""
from __future__ import annotations

import signal
import sys
import threading
from typing import Any

__all__ = ["install_interrupt_handler", "interrupted", "reset_interrupted", "mark_interrupted", "pending",
           "disarm", "abort", "quiet_unraisable"]

#: Set by every Ctrl-C this process receives, and never cleared by a stage that ends: a press that arrives
#: while one stage ends (or while nothing polls) still cancels the next stage and the exit status.
_INTERRUPTED = threading.Event()
#: Set while a command runs under :func:`install_interrupt_handler` (not when a progress bar is used alone).
_ARMED = threading.Event()


def interrupted() -> bool:
    """Whether Ctrl-C was pressed since the command started."""
    return _INTERRUPTED.is_set()


def reset_interrupted() -> None:
    """Forget earlier presses (a new command in the same process)."""
    _INTERRUPTED.clear()


def mark_interrupted() -> None:
    """Record a press handled elsewhere (a progress bar's own handler)."""
    _INTERRUPTED.set()


def pending() -> bool:
    """Whether a stage starting now must start cancelled: a command runs and Ctrl-C was pressed."""
    return _ARMED.is_set() and _INTERRUPTED.is_set()


def disarm() -> None:
    """The command is over: forget its presses, and stages started later start afresh."""
    _ARMED.clear()
    _INTERRUPTED.clear()


def _entry_handler(signum: int = signal.SIGINT, frame: Any = None) -> None:
    # Outside any stage: remember the press, then stop what runs. Code that swallows the
    # KeyboardInterrupt (an import, a finaliser) cannot make the press be forgotten.
    abort()


def _drop_unraisable(_unraisable: Any) -> None:
    """An error in a destructor while the command stops: not reported (see :func:`abort`)."""


def quiet_unraisable() -> None:
    """From now on, errors Python cannot raise (in a destructor) are not printed: the command is stopping."""
    sys.unraisablehook = _drop_unraisable


def abort() -> None:
    """Stop the command now: remember the press and raise KeyboardInterrupt.

    The interrupt can land inside a library's constructor (llvmlite's, while numba loads a kernel), leaving an
    object whose destructor then fails on an attribute never set. Python prints that as "Exception ignored in
    ...", a traceback after a clean exit 130; errors in destructors are therefore not printed from here on.
    """
    _INTERRUPTED.set()
    quiet_unraisable()
    raise KeyboardInterrupt


def install_interrupt_handler() -> None:
    """Remember every Ctrl-C from now on (the entry point's first act; main thread only)."""
    _ARMED.set()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _entry_handler)
