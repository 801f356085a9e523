"""A large number that counts down (or up) to its new value, for a room to follow.

The linkage-attack demo shows how many people still match the revealed items;
when the next item is revealed the number does not jump from 48,213 to 312
but runs there in about half a second, on a logarithmic path (the crowd
shrinks by factors, so every factor gets the same time on screen).
"""
from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import QEasingCurve, QVariantAnimation
from PySide6.QtWidgets import QLabel, QWidget

__all__ = ["AnimatedCount"]


def _people(n: int) -> str:
    return f"{n:,} {'person matches' if n == 1 else 'people match'}"


class AnimatedCount(QLabel):
    """A label showing an integer that animates to each new value.

    Parameters
    ----------
    text_for
        Turns the displayed integer into the label's text.

    Class attributes
    ----------------
    DURATION_MS
        Length of one animation; 0 shows the new value at once (tests).
    """

    DURATION_MS = 550

    def __init__(self, text_for: Callable[[int], str] = _people, parent: QWidget | None = None):
        super().__init__(parent)
        self.text_for = text_for
        self.target: int | None = None
        self.shown: int | None = None
        self.animation = QVariantAnimation(self)
        self.animation.setEasingCurve(QEasingCurve.OutCubic)
        self.animation.valueChanged.connect(self._frame)
        self.animation.finished.connect(self.finish)

    def set_count(self, count: int | None, animate: bool = True) -> None:
        """Show ``count`` (None: blank), counting to it from the number shown now when ``animate``."""
        self.animation.stop()
        self.target = None if count is None else int(count)
        start = self.shown
        if self.target is None or start is None or not animate or self.DURATION_MS <= 0 or start == self.target:
            self.finish()
            return
        # Interpolate log(1 + n): a crowd shrinking from 50,000 to 5 spends as long on 50,000→500 as on 500→5.
        self.animation.setStartValue(math.log1p(max(start, 0)))
        self.animation.setEndValue(math.log1p(max(self.target, 0)))
        self.animation.setDuration(self.DURATION_MS)
        self.animation.start()

    def finish(self) -> None:
        """Jump to the target value (the end of any animation)."""
        self.animation.stop()
        self.shown = self.target
        self.setText("" if self.target is None else self.text_for(self.target))

    @property
    def running(self) -> bool:
        return self.animation.state() == QVariantAnimation.Running

    def _frame(self, value: float) -> None:
        if self.target is None:
            return
        self.shown = int(round(math.expm1(float(value))))
        self.setText(self.text_for(self.shown))
