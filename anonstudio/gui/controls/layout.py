"""Sizing and arranging: a height-bounded scroll area, combo boxes that shrink, splitters in one call."""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QComboBox, QFrame, QScrollArea, QSizePolicy, QSplitter, QWidget

__all__ = ["BoundedArea", "narrow_combo", "splitter"]


def narrow_combo(combo: QComboBox, chars: int = 12) -> QComboBox:
    """Let a combo box with long item texts shrink with the parameter dock (the popup still shows them whole)."""
    combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(chars)
    view = combo.view()
    view.setMinimumWidth(max(view.sizeHintForColumn(0) + 24, 120))
    return combo


def splitter(orientation: Qt.Orientation, widgets: Sequence[QWidget], stretch: Sequence[int] = (), *,
             collapsible: bool = True) -> QSplitter:
    """A splitter holding ``widgets`` in order, ``stretch[i]`` the stretch factor of the i-th one.

    ``collapsible=False`` keeps the user from dragging a pane down to nothing.
    """
    out = QSplitter(orientation)
    for widget in widgets:
        out.addWidget(widget)
    for index, factor in enumerate(stretch):
        out.setStretchFactor(index, factor)
    if not collapsible:
        out.setChildrenCollapsible(False)
    return out


class BoundedArea(QScrollArea):
    """Shows a widget at its natural height up to ``maximum`` pixels, and scrolls it beyond.

    Keeps a banner with a long text from pushing the results off a short screen, without leaving
    empty space under a short text.
    """

    def __init__(self, widget: QWidget, maximum: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.maximum = maximum
        self.setWidget(widget)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt naming)
        inner = self.widget()
        width = max(self.viewport().width(), 100)
        height = inner.heightForWidth(width) if inner.hasHeightForWidth() else inner.sizeHint().height()
        return QSize(super().sizeHint().width(), min(max(height, 1) + 2, self.maximum))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt naming)
        return QSize(super().minimumSizeHint().width(), min(40, self.maximum))

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        super().resizeEvent(event)
        self.fit()

    def fit(self) -> None:
        """Re-read the widget's height (call after its text changed)."""
        self.setFixedHeight(self.sizeHint().height())
