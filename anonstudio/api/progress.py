"""A progress bar for notebooks and scripts, as a :class:`anonstudio.jobs.Progress`; Ctrl-C cancels cleanly.

tqdm.auto draws the notebook widget in Jupyter (when ipywidgets is installed) and a text bar
elsewhere. While a run is active a SIGINT handler (main thread only) turns the first interrupt
(Ctrl-C, or the notebook's stop button) into the pipeline's cancel: the method stops at its next
chunk and returns its partial result, marked incomplete. A second interrupt raises
:class:`KeyboardInterrupt`, which the caller turns into a stopped run as well.
"""
from __future__ import annotations

import sys
from typing import Any

from ..cli.progress import TqdmProgress

__all__ = ["BarProgress"]


class BarProgress(TqdmProgress):
    """The fraction done as a tqdm.auto bar (or nothing, ``disable=True``); cancel by an interrupt or :meth:`cancel`.

    Use as a context manager around one run: it installs the interrupt handler on entry and restores the previous
    one (and closes the bar) on exit. Unlike the command line's bar it prints nothing when interrupted (the run
    says it is incomplete) and inherits no interrupt from an earlier run.
    """

    def __init__(self, description: str = "", disable: bool = False):
        super().__init__(description, disable=disable)

    def _make_bar(self, description: str, disable: bool) -> Any:
        from tqdm.auto import tqdm

        options = dict(total=1000, desc=description, disable=disable, leave=False, bar_format=self.BAR_FORMAT)
        try:
            return tqdm(**options)
        except ImportError:  # tqdm's notebook bar without ipywidgets: a text bar instead
            from tqdm.std import tqdm as text_tqdm

            return text_tqdm(file=sys.stderr, **options)

    def _interrupt_pending(self) -> bool:
        return False

    def _on_interrupt(self) -> None:
        pass
