"""Small screens: below 1440 px wide the datasets dock folds into a one-line dataset bar.

The datasets dock keeps about 270 px of the window's width whatever the task; on a 1280 or 1366 px laptop that
is the width a workbench's plots miss. Below :data:`WIDE` px the window starts with the dock hidden and a bar
over the workbenches instead: the dataset's name and size, a *Roles…* button (a table's column roles, in the
dock), a *View data* button and a *Datasets* toggle that unfolds the dock and folds it back. At :data:`WIDE` px
and more the bar is hidden and the dock is as it always was. Crossing the threshold (resizing the window, moving
it to another screen) switches between the two; between crossings the user's choice stays.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QDockWidget, QHBoxLayout, QLabel, QMainWindow, QPushButton, QToolBar, QWidget

from ..data.table import Table
from ..data.transactions import TransactionData
from .controls import ElidedLabel

__all__ = ["WIDE", "DatasetBar", "SmallScreens", "dataset_size"]

#: Window width (pixels) from which the datasets dock is shown unfolded.
WIDE = 1440


def dataset_size(dataset: Any) -> str:
    """The dataset's size in a few words: "5,000 records, 300 items" or "200 rows, 9 columns"."""
    if isinstance(dataset, TransactionData):
        return f"{dataset.n_records:,} records, {dataset.n_items:,} items"
    if isinstance(dataset, Table):
        return f"{dataset.n_rows:,} rows, {dataset.frame.shape[1]} columns"
    return ""


class DatasetBar(QWidget):
    """One line: the active dataset's name and size, Roles…, View data and the Datasets toggle."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("dataset_bar")
        self.name_label = ElidedLabel(80)
        self.name_label.setObjectName("dataset_bar_name")
        self.name_label.setText("No dataset loaded")
        self.size_label = QLabel("")
        self.size_label.setProperty("role", "note")
        self.roles_button = QPushButton("Roles…")
        self.roles_button.setToolTip("The table's column roles (quasi-identifier, sensitive, …): opens the "
                                     "datasets panel at its column list.")
        self.roles_button.setAccessibleName("Column roles")
        self.view_button = QPushButton("View data")
        self.view_button.setToolTip("Every record or row of the active dataset, searchable (View › Data view).")
        self.toggle_button = QPushButton("Datasets")
        self.toggle_button.setCheckable(True)
        self.toggle_button.setToolTip("Show or hide the datasets panel: open a file or a bundled sample, the "
                                      "dataset's summary and plots.")
        self.toggle_button.setAccessibleName("Show the datasets panel")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 1, 6, 1)
        layout.addWidget(self.toggle_button)
        layout.addWidget(QLabel("Dataset:"))
        layout.addWidget(self.name_label, 1)
        layout.addWidget(self.size_label)
        layout.addWidget(self.roles_button)
        layout.addWidget(self.view_button)
        self.set_dataset(None)

    def set_dataset(self, dataset: Any) -> None:
        """Show ``dataset`` (None: nothing loaded)."""
        if dataset is None:
            self.name_label.setText("No dataset loaded: press Datasets to open a file or a sample")
        else:
            self.name_label.setText(str(getattr(dataset, "name", "dataset")))
        self.name_label.setToolTip(self.name_label.text())
        self.size_label.setText(dataset_size(dataset))
        self.roles_button.setEnabled(isinstance(dataset, Table))
        self.view_button.setEnabled(dataset is not None)


class SmallScreens(QObject):
    """Folds the datasets dock of ``window`` into a :class:`DatasetBar` while the window is narrower than WIDE.

    Parameters
    ----------
    window
        The main window; it needs ``datasets`` (the datasets panel) and ``datasets_dock``.
    """

    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self.window = window
        self.dock: QDockWidget = window.datasets_dock
        self.panel = window.datasets
        self.bar = DatasetBar()
        self.toolbar = QToolBar("Dataset bar", window)
        self.toolbar.setObjectName("toolbar-dataset")
        self.toolbar.setMovable(False)
        self.toolbar.setFloatable(False)
        self.toolbar.toggleViewAction().setVisible(False)  # it comes and goes with the window's width
        self.toolbar.addWidget(self.bar)
        window.addToolBar(Qt.TopToolBarArea, self.toolbar)
        self.toolbar.hide()
        #: True below WIDE px (the bar is shown), False above, None before the first resize.
        self.narrow: bool | None = None
        self.bar.toggle_button.toggled.connect(self._toggle_clicked)
        self.bar.view_button.clicked.connect(lambda: self.panel.show_data_view())
        self.bar.roles_button.clicked.connect(self.show_roles)
        self.dock.visibilityChanged.connect(lambda _visible: self._sync_toggle())
        self.panel.dataset_loaded.connect(self.bar.set_dataset)
        window.installEventFilter(self)

    @property
    def collapsed(self) -> bool:
        """Whether the dock is folded into the bar."""
        return bool(self.narrow) and self.dock.isHidden()

    def set_collapsed(self, collapsed: bool) -> None:
        """Fold the dock into the bar (True) or unfold it (False); the bar stays while the window is narrow."""
        self.dock.setVisible(not collapsed)
        self._sync_toggle()

    def show_roles(self) -> None:
        """Unfold the dock at the table's column roles."""
        self.set_collapsed(False)
        self.dock.raise_()
        self.panel.roles.setFocus(Qt.OtherFocusReason)

    def apply_width(self, width: int) -> None:
        """Switch to the bar below WIDE px and back to the dock from WIDE px (only when the threshold is crossed)."""
        narrow = width < WIDE
        if narrow == self.narrow:
            return
        first, self.narrow = self.narrow is None, narrow
        self.toolbar.setVisible(narrow)
        # A wide window starts with the dock as the saved layout left it; growing past WIDE unfolds it.
        if narrow or not first:
            self.dock.setVisible(not narrow)
        self._sync_toggle()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt naming)
        if watched is self.window and event.type() == QEvent.Resize:
            self.apply_width(event.size().width())
        return False

    def _toggle_clicked(self, on: bool) -> None:
        if on != self.dock.isVisible():
            self.set_collapsed(not on)

    def _sync_toggle(self) -> None:
        button = self.bar.toggle_button
        button.blockSignals(True)
        button.setChecked(not self.dock.isHidden())
        button.blockSignals(False)
