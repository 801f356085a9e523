"""Text for people: notes in the studio's text roles, the state banner, elided one-liners, the collapsible guide.

* :func:`note_label` — a word-wrapped, selectable label in a text role (note, problem, heading, guide);
* :class:`Callout` — the coloured banner with a run's promise and check;
* :class:`ElidedLabel` — one line that ends in "…" when it is too narrow;
* :class:`Collapsible` — a toggle that shows or hides a text panel (a workbench's guide).
"""
from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QToolButton, QVBoxLayout, QWidget

from .layout import BoundedArea
from .style import STATE_COLOURS, restyle

__all__ = ["note_label", "CalloutState", "Callout", "ElidedLabel", "Collapsible"]


def note_label(text: str = "", role: str = "note") -> QLabel:
    """A word-wrapped, selectable label in one of the studio's text roles (note, problem, heading)."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setProperty("role", role)
    label.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.LinksAccessibleByMouse)
    return label


class CalloutState:
    """The ``callout`` style property of a callout: ``info``, ``ok``, ``warning`` or ``error`` (its colours)."""

    def set_state(self, state: str) -> None:
        self.setProperty("callout", state if state in STATE_COLOURS else "info")
        restyle(self)

    @property
    def state(self) -> str:
        return str(self.property("callout"))


class Callout(CalloutState, QLabel):
    """A banner whose colour says the state: info, ok, warning, incomplete or failed."""

    def __init__(self, text: str = "", state: str = "info", parent: QWidget | None = None):
        super().__init__(text, parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.RichText)
        self.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.LinksAccessibleByMouse)
        self.set_state(state)

    def show_text(self, text: str, state: str = "info") -> None:
        self.setText(text)
        self.set_state(state)
        area = self.parent().parent() if self.parent() is not None else None
        if isinstance(area, BoundedArea):
            area.fit()


class ElidedLabel(QLabel):
    """A one-line label that ends in "…" when it is too narrow for its text (give the full text a tooltip)."""

    def __init__(self, minimum: int = 40):
        super().__init__("")
        self._full = ""
        self._minimum = minimum

    def setText(self, text: str) -> None:  # noqa: N802 (Qt naming)
        self._full = text
        self._elide()

    def text(self) -> str:
        return self._full

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt naming)
        return QSize(self._minimum, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt naming)
        return QSize(self.fontMetrics().horizontalAdvance(self._full) + 4, super().sizeHint().height())

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, Qt.ElideRight, max(self.width(), self._minimum))
        if shown != super().text():
            super().setText(shown)
        self.updateGeometry()


class Collapsible(QWidget):
    """A toggle button that shows or hides a text panel (the in-app guide of a workbench)."""

    def __init__(self, title: str, text: str, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.toggle = QToolButton()
        self.toggle.setText(title)
        self.toggle.setCheckable(True)
        self.toggle.setArrowType(Qt.RightArrow)
        self.toggle.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.toggle.setAutoRaise(True)
        self.body = note_label(text, "guide")
        self.body.setVisible(False)
        self.toggle.toggled.connect(self._toggled)
        layout.addWidget(self.toggle)
        layout.addWidget(self.body)

    def _toggled(self, on: bool) -> None:
        self.toggle.setArrowType(Qt.DownArrow if on else Qt.RightArrow)
        self.body.setVisible(on)
