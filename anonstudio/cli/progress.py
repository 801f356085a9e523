"""A tqdm progress bar on stderr, as a :class:`anonstudio.jobs.Progress`."""
from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from .interrupts import abort, mark_interrupted, pending

__all__ = ["TqdmProgress"]

class TqdmProgress:
    """Draws the fraction done as a bar on stderr; Ctrl-C cancels cleanly.

    Used as a context manager, it catches SIGINT while active (main thread only)
    and restores the previous handler on exit. The first Ctrl-C only sets the
    cancel flag, so the running computation stops at its next chunk boundary and
    returns what it finished (``interrupted`` is then True); a second Ctrl-C
    raises :class:`KeyboardInterrupt` at once.

    Parameters
    ----------
    description
        Text before the bar.
    on_partial
        Called with each partial result (e.g. to print a finished row).
    disable
        No bar (``--quiet``, or stderr not a terminal and CI logs unwanted).
    """

    #: How the bar reads (the library's notebook bar uses it too).
    BAR_FORMAT = "{desc} {percentage:3.0f}%|{bar}| {elapsed}<{remaining} {postfix}"

    def __init__(self, description: str = "", on_partial: Callable[[Any], None] | None = None, disable: bool = False):
        self._bar = self._make_bar(description, disable)
        self._on_partial = on_partial
        self._previous_handler: Any = None
        self._installed = False
        self._cancel = self._interrupt_pending()
        #: True once Ctrl-C asked to stop (as opposed to :meth:`cancel` from code).
        self.interrupted = self._cancel

    # ------------------------------------------------------------- what a subclass may change
    def _make_bar(self, description: str, disable: bool) -> Any:
        if disable:  # no bar (--quiet, or stderr is no terminal): tqdm is not even imported
            return _NoBar()
        from tqdm import tqdm

        return tqdm(total=1000, desc=description, file=sys.stderr, bar_format=self.BAR_FORMAT)

    def _interrupt_pending(self) -> bool:
        # A Ctrl-C pressed before this stage (while an earlier one ended) cancels this one from the start.
        return pending()

    def _on_interrupt(self) -> None:
        """What the first Ctrl-C does besides cancelling: the command remembers it and says so."""
        mark_interrupted()
        # Not tqdm.write: a signal handler may run while the bar holds its lock. A closed stderr is no error.
        try:
            sys.stderr.write("\ncancelling; press Ctrl-C again to abort\n")
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):
            pass

    def set(self, fraction: float, status: str = "") -> None:
        target = int(round(min(max(fraction, 0.0), 1.0) * 1000))
        if target > self._bar.n:
            self._bar.update(target - self._bar.n)
        if status:
            self._bar.set_postfix_str(status, refresh=False)

    def partial(self, result: Any) -> None:
        if self._on_partial is not None:
            self._on_partial(result)

    def cancelled(self) -> bool:
        return self._cancel

    def cancel(self) -> None:
        self._cancel = True

    def close(self) -> None:
        self._restore_handler()
        self._bar.close()

    # ------------------------------------------------------------- Ctrl-C
    def handle_interrupt(self, signum: int = signal.SIGINT, frame: Any = None) -> None:
        """SIGINT handler: cancel on the first Ctrl-C, abort on the second."""
        if self._cancel:
            abort()
        self._cancel = True
        self.interrupted = True
        self._on_interrupt()

    def _install_handler(self) -> None:
        # Signal handlers can only be set from the main thread (tests and GUIs may use others).
        if threading.current_thread() is not threading.main_thread():
            return
        self._previous_handler = signal.signal(signal.SIGINT, self.handle_interrupt)
        self._installed = True

    def _restore_handler(self) -> None:
        if self._installed:
            previous = self._previous_handler
            # None means a handler installed outside Python; fall back to Python's default.
            signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
            self._installed = False

    def __enter__(self) -> TqdmProgress:
        self._install_handler()
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _NoBar:
    """What a disabled tqdm bar does: nothing (importing tqdm costs a loading command a tenth of its start)."""

    n = 0

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass
