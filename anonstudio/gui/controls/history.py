"""The runs of a workbench: which one is shown, and which one is drawn beside it."""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from .layout import narrow_combo

__all__ = ["HistoryBar"]


class HistoryBar(QWidget):
    """The runs of a workbench: which one is shown, and which one is drawn beside it for comparison.

    Signals
    -------
    shown(int)
        Index of the run to show.
    compared(int)
        Index of the run to draw beside it, or -1 for none.
    """

    shown = Signal(int)
    compared = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.run_combo = QComboBox()
        self.run_combo.setObjectName("history_run")
        self.run_combo.setToolTip("Every run of this tab, newest first: pick one to show its results again.")
        self.compare_combo = QComboBox()
        self.compare_combo.setObjectName("history_compare")
        self.compare_combo.setToolTip("Draw another run's curves beside the shown one (dashed), to compare "
                                      "parameters.")
        for combo in (self.run_combo, self.compare_combo):
            narrow_combo(combo, 24)
        layout.addWidget(QLabel("Run:"))
        layout.addWidget(self.run_combo, 2)
        layout.addWidget(QLabel("compare with:"))
        layout.addWidget(self.compare_combo, 2)
        self._filling = False
        self.run_combo.currentIndexChanged.connect(self._run_changed)
        self.compare_combo.currentIndexChanged.connect(self._compare_changed)
        self.set_runs([])

    def set_runs(self, labels: Sequence[str], shown: int | None = None) -> None:
        """Show the run labels (oldest first in ``labels``; listed newest first); select ``shown``."""
        self._filling = True
        self.run_combo.clear()
        self.compare_combo.clear()
        self.compare_combo.addItem("none", -1)
        for i in reversed(range(len(labels))):
            self.run_combo.addItem(labels[i], i)
            self.compare_combo.addItem(labels[i], i)
        if shown is not None:
            self.run_combo.setCurrentIndex(max(self.run_combo.findData(shown), 0))
        self._filling = False
        self.setEnabled(bool(labels))

    def _run_changed(self) -> None:
        if not self._filling and self.run_combo.currentData() is not None:
            self.shown.emit(int(self.run_combo.currentData()))

    def _compare_changed(self) -> None:
        if not self._filling and self.compare_combo.currentData() is not None:
            self.compared.emit(int(self.compare_combo.currentData()))
