"""A progress bar for notebooks and scripts, as a :class:`anonstudio.jobs.Progress`; Ctrl-C cancels cleanly.

tqdm.auto draws the notebook widget in Jupyter (when ipywidgets is installed) and a text bar
elsewhere. While a run is active a SIGINT handler (main thread only) turns the first interrupt
(Ctrl-C, or the notebook's stop button) into the pipeline's cancel: the method stops at its next
chunk and returns its partial result, marked incomplete. A second interrupt raises
:class:`KeyboardInterrupt`, which the caller turns into a stopped run as well.
"""
from __future__ import annotations

import signal
import sys
import threading
from typing import Any

__all__ = ["BarProgress"]


def _bar(description: str, disable: bool) -> Any:
    from tqdm.auto import tqdm

    options = dict(total=1000, desc=description, disable=disable, leave=False,
                   bar_format="{desc} {percentage:3.0f}%|{bar}| {elapsed}<{remaining} {postfix}")
    try:
        return tqdm(**options)
    except ImportError:  # tqdm's notebook bar without ipywidgets: a text bar instead
        from tqdm.std import tqdm as text_tqdm

        return text_tqdm(file=sys.stderr, **options)


class BarProgress:
    """The fraction done as a tqdm bar (or nothing, ``disable=True``); cancel by Ctrl-C or :meth:`cancel`.

    Use as a context manager around one run: it installs the interrupt handler on entry and
    restores the previous one (and closes the bar) on exit.
    """

    def __init__(self, description: str = "", disable: bool = False):
        self._bar = _bar(description, disable)
        self._cancel = False
        self._previous: Any = None
        self._installed = False
        #: True once an interrupt asked the run to stop.
        self.interrupted = False

    def set(self, fraction: float, status: str = "") -> None:
        target = int(round(min(max(fraction, 0.0), 1.0) * 1000))
        if target > self._bar.n:
            self._bar.update(target - self._bar.n)
        if status:
            self._bar.set_postfix_str(status, refresh=False)

    def partial(self, result: Any) -> None:
        pass

    def cancelled(self) -> bool:
        return self._cancel

    def cancel(self) -> None:
        self._cancel = True

    def handle_interrupt(self, signum: int = signal.SIGINT, frame: Any = None) -> None:
        """SIGINT handler: cancel on the first interrupt, raise KeyboardInterrupt on the second."""
        if self._cancel:
            raise KeyboardInterrupt
        self._cancel = True
        self.interrupted = True

    def __enter__(self) -> BarProgress:
        # Signal handlers can only be set from the main thread (a GUI or a test may run us on another).
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self.handle_interrupt)
            self._installed = True
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._installed:
            previous = self._previous
            signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
            self._installed = False
        self._bar.close()
