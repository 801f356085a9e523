"""Dialogs with the studio's defaults: open and save a file, and a window size that fits the screen."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QFileDialog, QWidget

__all__ = ["fitting_size", "open_file_dialog", "save_file_dialog"]


def fitting_size(window: QWidget, preferred: QSize, share: float = 0.9) -> QSize:
    """``preferred``, shrunk to ``share`` of the screen's free area (a window that fits a 1280×720 laptop)."""
    screen = window.screen()
    if screen is None:
        return preferred
    available = screen.availableGeometry()
    return QSize(min(preferred.width(), int(available.width() * share)),
                 min(preferred.height(), int(available.height() * share)))


def open_file_dialog(parent: QWidget | None, title: str, file_filter: str = "All files (*)",
                     start: str | Path = "") -> Path | None:
    """The file the user picked, or None."""
    name, _ = QFileDialog.getOpenFileName(parent, title, str(start), file_filter)
    return Path(name) if name else None


def save_file_dialog(parent: QWidget | None, title: str, default_name: str,
                     extensions: Sequence[str] = (), start: str | Path = "") -> Path | None:
    """The file to write, or None; the first extension is added when the user typed none."""
    patterns = " ".join(f"*{e}" for e in extensions)
    filters = (f"{title} ({patterns});;All files (*)" if patterns else "All files (*)")
    name, _ = QFileDialog.getSaveFileName(parent, title, str(Path(start) / default_name) if start else default_name,
                                          filters)
    if not name:
        return None
    path = Path(name)
    if extensions and not any(path.name.endswith(e) for e in extensions):
        path = path.with_name(path.name + extensions[0])
    return path
