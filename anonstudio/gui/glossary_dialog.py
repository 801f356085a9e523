"""Help > Glossary: every measure and parameter with its one-line meaning, searchable."""
from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..glossary import TERMS, search, term

__all__ = ["GlossaryDialog", "glossary_button", "show_glossary"]

class GlossaryDialog(QDialog):
    """A search field, the list of terms, and the selected term's meaning."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Glossary — anonstudio")
        self.resize(560, 460)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search: a symbol (σ, ℓ), a name (NCP) or a word (crowd)")
        self.search.textChanged.connect(self._fill)
        self.list = QListWidget()
        self.list.currentItemChanged.connect(self._show)
        self.text = QTextBrowser()
        self.text.setOpenExternalLinks(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 2)
        layout.addWidget(self.text, 1)
        self._fill("")

    def _fill(self, text: str) -> None:
        self.list.clear()
        for t in search(text):
            item = QListWidgetItem(f"{t.title} — {t.meaning}")
            item.setData(Qt.UserRole, t.key)
            item.setToolTip(t.meaning)
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)

    def _show(self, item: QListWidgetItem | None) -> None:
        if item is None:
            self.text.clear()
            return
        t = TERMS[item.data(Qt.UserRole)]
        where = f"<p><i>Shown by: {html.escape(t.family)}</i></p>" if t.family else ""
        self.text.setHtml(f"<h3>{html.escape(t.title)}</h3><p>{html.escape(t.meaning)}</p>{where}")

    def show_term(self, key: str) -> None:
        """Select ``key`` (clearing the search) and show the dialog."""
        self.search.clear()
        wanted = term(key).key
        for i in range(self.list.count()):
            if self.list.item(i).data(Qt.UserRole) == wanted:
                self.list.setCurrentRow(i)
                break
        self.show()
        self.raise_()


def show_glossary(parent: QWidget | None = None, key: str | None = None) -> GlossaryDialog:
    """The glossary window of ``parent``'s window (created on first use), opened at ``key`` if given."""
    # One dialog per main window, owned by it: a module-wide one would outlive a closed window.
    window = parent.window() if parent is not None else None
    dialog = getattr(window, "_glossary_dialog", None) if window is not None else None
    if dialog is None:
        dialog = GlossaryDialog(window)
        if window is not None:
            window._glossary_dialog = dialog
    if key is not None:
        dialog.show_term(key)
    else:
        dialog.show()
        dialog.raise_()
    return dialog


def glossary_button(key: str, parent: QWidget | None = None) -> QToolButton:
    """A small "?" button that opens the glossary at ``key``; its tooltip is the one-line meaning."""
    button = QToolButton(parent)
    button.setText("?")
    button.setAutoRaise(True)
    button.setObjectName(f"glossary_{key}")
    t = term(key)
    button.setToolTip(f"{t.title}: {t.meaning} (click for the glossary)")
    button.clicked.connect(lambda: show_glossary(button, key))
    return button
