"""A tqdm progress bar on stderr, as a :class:`anonstudio.jobs.Progress`."""
from __future__ import annotations

import sys
from typing import Any, Callable

from tqdm import tqdm

__all__ = ["TqdmProgress"]


class TqdmProgress:
    """Draws the fraction done as a bar on stderr; Ctrl-C cancels cleanly.

    Parameters
    ----------
    description
        Text before the bar.
    on_partial
        Called with each partial result (e.g. to print a finished row).
    disable
        No bar (``--quiet``, or stderr not a terminal and CI logs unwanted).
    """

    def __init__(self, description: str = "", on_partial: Callable[[Any], None] | None = None, disable: bool = False):
        self._bar = tqdm(total=1000, desc=description, file=sys.stderr, disable=disable,
                         bar_format="{desc} {percentage:3.0f}%|{bar}| {elapsed}<{remaining} {postfix}")
        self._on_partial = on_partial
        self._cancel = False

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
        self._bar.close()

    def __enter__(self) -> "TqdmProgress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
