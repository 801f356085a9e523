"""The verdict callout of every workbench: one line of verdict, the rest behind a *Details* expander.

A run's callout holds the independent check's verdict, the promise and notes, several lines of rich text.
Shown whole it needs a scroll bar at 1280×720 (ρ, Threats) or pushes the plots off a small screen. This
callout shows the first part (the verdict, up to the first ``<br>``) on one line, elided to the width, in the
colour of the run's state; a *Details* button unfolds the full text, word-wrapped, with its links. It never
scrolls: while folded it is one line high, unfolded it takes the height of its text (the results shrink).

The text API is that of the banner it replaces (:class:`~anonstudio.gui.controls.Callout`): ``show_text``,
``text()``, ``state`` and ``linkActivated``, so the workbenches and their tests keep working unchanged.
"""
from __future__ import annotations

import html
import re

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QTextDocumentFragment
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from .controls.labels import CalloutState

__all__ = ["VerdictCallout", "bold_lead", "split_verdict"]

_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_BOLD_LEAD = re.compile(r"\s*<b>(.*?)</b>", re.IGNORECASE | re.DOTALL)
_SUP = re.compile(r"<sup>(.*?)</sup>", re.IGNORECASE | re.DOTALL)
#: Characters with a superscript of their own: a plain line keeps "10<sup>14</sup>" as "10¹⁴", not "1014".
_SUPERSCRIPTS = dict(zip("0123456789+-−=()ikmn", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁱᵏᵐⁿ"))


def _superscript(match: re.Match) -> str:
    text = match.group(1)
    if text and all(c in _SUPERSCRIPTS for c in text):
        return "".join(_SUPERSCRIPTS[c] for c in text)
    return f"^({text})" if len(text) > 1 else f"^{text}"


def _plain(rich: str) -> str:
    return QTextDocumentFragment.fromHtml(_SUP.sub(_superscript, rich)).toPlainText().replace("\n", " ").strip()


def split_verdict(text: str) -> tuple[str, str]:
    """``(head, rest)``: the plain text of the first line (up to the first ``<br>``) and the rich text after it."""
    parts = _BREAK.split(text, maxsplit=1)
    return _plain(parts[0]), (parts[1].strip() if len(parts) > 1 else "")


def bold_lead(text: str) -> str:
    """The plain text of the bold words the first line starts with ("Independent check passed"), or ""."""
    match = _BOLD_LEAD.match(_BREAK.split(text, maxsplit=1)[0])
    return _plain(match.group(1)) if match else ""


class VerdictCallout(CalloutState, QFrame):
    """A one-line verdict banner with a *Details* expander (see the module docstring).

    Signals
    -------
    linkActivated(str)
        A link in the details was clicked (the rows a Threats run points at, the Nonreciprocal graph).
    """

    #: Named as the QLabel signal it stands in for.
    linkActivated = Signal(str)

    def __init__(self, text: str = "", state: str = "info", parent: QWidget | None = None):
        super().__init__(parent)
        # The style sheet selects on this property (the object name is the owner's to choose).
        self.setProperty("verdict", "true")
        self._text = ""
        self._head = ""
        self._rest = ""
        self._bold = ""
        self._elided = False
        self.head_label = QLabel()
        self.head_label.setObjectName("callout_head")
        self.head_label.setTextFormat(Qt.RichText)
        self.head_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        # Any width will do: the line is elided to what it gets.
        self.head_label.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.head_label.setMinimumWidth(40)
        # Elided again whenever the line gets its width (after the frame's own resize, from the layout).
        self.head_label.installEventFilter(self)
        self.details_button = QToolButton()
        self.details_button.setObjectName("callout_details")
        self.details_button.setText("Details")
        self.details_button.setCheckable(True)
        self.details_button.setArrowType(Qt.RightArrow)
        self.details_button.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.details_button.setAutoRaise(True)
        self.details_button.setToolTip("Show the whole verdict: the promise, the check's figures and the notes.")
        self.details_button.setAccessibleName("Verdict details")
        self.details_button.toggled.connect(self._toggled)
        self.body = QLabel()
        self.body.setObjectName("callout_body")
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.RichText)
        self.body.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.LinksAccessibleByMouse)
        self.body.linkActivated.connect(self.linkActivated)
        self.body.setVisible(False)
        line = QHBoxLayout()
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.head_label, 1)
        line.addWidget(self.details_button, 0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 3, 4, 3)
        layout.setSpacing(2)
        layout.addLayout(line)
        layout.addWidget(self.body)
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Maximum)
        self.show_text(text, state)

    # ------------------------------------------------------------------ text
    def show_text(self, text: str, state: str = "info") -> None:
        """Show ``text`` (rich text; its first line is the verdict) in the colour of ``state``."""
        self._text = text
        self._head, self._rest = split_verdict(text)
        self._bold = bold_lead(text)
        self.set_state(state)
        self.head_label.setToolTip(self._head)
        self.setAccessibleName(f"Verdict: {self._head}")
        self._elide()

    def text(self) -> str:
        """The full rich text shown (folded or not)."""
        return self._text


    @property
    def expanded(self) -> bool:
        return self.details_button.isChecked()

    def set_expanded(self, on: bool) -> None:
        self.details_button.setChecked(on)

    def has_details(self) -> bool:
        """Whether anything is hidden: more lines than the verdict, or a verdict too long for its line."""
        return bool(self._rest) or self._elided

    # ---------------------------------------------------------------- layout
    def _toggled(self, on: bool) -> None:
        self.details_button.setArrowType(Qt.DownArrow if on else Qt.RightArrow)
        self._elide()

    def _update_body(self) -> None:
        on = self.details_button.isChecked()
        # Unfolded, the body repeats the verdict only when its line had to cut it.
        body = self._text if self._elided else self._rest
        if body != self.body.text():
            self.body.setText(body)
        self.body.setVisible(on and bool(body))
        self.details_button.setVisible(self.has_details())

    def _elide(self) -> None:
        head = self._head
        # The verdict's own bold words stay bold ("Independent check passed"), the figures after them plain.
        bold = self._bold if self._bold and head.startswith(self._bold) else ""
        rest = head[len(bold):]
        width = max(self.head_label.width(), 40)
        bold_font = QFont(self.head_label.font())
        bold_font.setBold(True)
        bold_metrics = QFontMetrics(bold_font)
        bold_width = bold_metrics.horizontalAdvance(bold)
        if bold_width > width:
            shown_bold, shown_rest = bold_metrics.elidedText(bold, Qt.ElideRight, width), ""
        else:
            shown_bold = bold
            shown_rest = QFontMetrics(self.head_label.font()).elidedText(rest, Qt.ElideRight, width - bold_width)
        self._elided = shown_bold != bold or shown_rest != rest
        lead = f"<b>{html.escape(shown_bold)}</b>" if shown_bold else ""
        if self._elided and self.expanded and bold and bold_width <= width:
            # Unfolded, the body gives the whole line: the head keeps only the verdict's words above it.
            self.head_label.setText(lead)
        else:
            self.head_label.setText(lead + html.escape(shown_rest))
        self._update_body()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt naming)
        if watched is self.head_label and event.type() == QEvent.Resize:
            self._elide()
        return super().eventFilter(watched, event)
