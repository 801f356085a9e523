"""The save buttons of a method's exports."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QPushButton, QToolButton, QWidget

__all__ = ["ExportRow"]


class ExportRow(QWidget):
    """"Save:", one button per export, and a "More" menu for the secondary ones.

    Each button or menu entry calls ``on_export(key)``. :attr:`buttons` maps
    every key to its QPushButton or QAction (both have ``isEnabled``,
    ``setEnabled`` and ``toolTip``).
    """

    def __init__(self, exports: Sequence[tuple[str, str, str]], on_export: Callable[[str], None],
                 caption: str = "Save:", parent: QWidget | None = None,
                 more: Sequence[tuple[str, str, str]] = ()):
        """``exports`` and ``more``: (key, text, tooltip) per export; ``more`` go into the "More" menu."""
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel(caption))
        self.buttons: dict[str, Any] = {}
        for key, text, tip in exports:
            button = QPushButton(text)
            button.setObjectName(f"export_{key}")
            button.setToolTip(tip)
            button.setEnabled(False)
            button.clicked.connect(lambda _=False, k=key: on_export(k))
            layout.addWidget(button)
            self.buttons[key] = button
        if more:
            # The run's JSON and its command line: useful, but not what most people save first, so they
            # sit in a menu and the row fits a small window.
            self.more_button = QToolButton()
            self.more_button.setText("More")
            self.more_button.setObjectName("export_more")
            self.more_button.setPopupMode(QToolButton.InstantPopup)
            self.more_button.setToolTip("The run as JSON, and the command line that repeats it.")
            menu = QMenu(self.more_button)
            menu.setToolTipsVisible(True)
            for key, text, tip in more:
                action = menu.addAction(text)
                action.setObjectName(f"export_{key}")
                action.setToolTip(tip)
                action.setEnabled(False)
                action.triggered.connect(lambda _=False, k=key: on_export(k))
                self.buttons[key] = action
            self.more_button.setMenu(menu)
            layout.addWidget(self.more_button)
        layout.addStretch(1)

    def set_enabled(self, enabled: dict[str, bool]) -> None:
        for key, button in self.buttons.items():
            button.setEnabled(bool(enabled.get(key, False)))

    def set_reason(self, key: str, reason: str) -> None:
        """Explain in the tooltip why a button is disabled ("" restores the plain tooltip)."""
        button = self.buttons[key]
        base = button.property("base_tip") or button.toolTip()
        button.setProperty("base_tip", base)
        button.setToolTip(f"{base}\n\nNot available: {reason}" if reason else base)
