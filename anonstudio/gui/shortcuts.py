"""The studio's keyboard: Edit menu (undo/redo), Ctrl+R, Esc, presentation mode, accessible names.

:func:`install_keyboard` is called once by the main window after its menus
are built:

* **Edit** (before View): Undo (Ctrl+Z), Redo (Ctrl+Shift+Z), Undo history…
  of the current tab's parameters (:mod:`.undo`), then *Run this tab*
  (Ctrl+R) and *Cancel this tab's job* (Esc);
* **View › Presentation mode** (F11, :mod:`.presentation`);
* Esc leaves presentation mode first; otherwise it cancels what the current
  tab computes (partial results are kept, as with the Cancel button);
* Tab reaches every control in Qt's order, which here is already the
  reading order (tab bar, datasets dock, the page top to bottom, then the
  parameters); tests/gui/test_keyboard.py walks it;
* every button, list/table and plot gets an accessible name
  (:mod:`.accessibility`), again whenever another tab is shown.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from .accessibility import name_widgets
from .presentation import Presentation
from .undo import install_undo

__all__ = ["install_keyboard", "run_current", "cancel_current"]


def _menu(window: QMainWindow, title: str) -> QMenu | None:
    for action in window.menuBar().actions():
        if action.menu() is not None and action.text().replace("&", "") == title:
            return action.menu()
    return None


def run_current(window: Any) -> bool:
    """Press Run on the current tab (Ctrl+R); False, with a status message saying why, when it cannot run."""
    bench = window.tabs.currentWidget()
    panel = getattr(bench, "param_panel", None)
    if panel is None:
        window.statusBar().showMessage("This tab has nothing to run.", 6000)
        return False
    if not panel.run_button.isEnabled():
        reason = panel.error or "load a dataset first (File › Open dataset, or a bundled sample on the left)"
        window.statusBar().showMessage(f"Cannot run yet: {reason}.", 8000)
        return False
    panel.run_button.click()
    return True


def cancel_current(window: Any) -> bool:
    """Cancel what the current tab computes (Esc); False when nothing runs."""
    bench = window.tabs.currentWidget()
    jobs = [j for j in [*getattr(bench, "_jobs", []), getattr(bench, "job", None)]
            if j is not None and not j.state.finished]
    if not jobs:
        return False
    bench.cancel()
    window.statusBar().showMessage("Cancelled; what was computed so far stays shown.", 6000)
    return True


def _escape(window: Any) -> None:
    if window.presentation.active:
        window.presentation.set_active(False)
    else:
        cancel_current(window)


def install_keyboard(window: Any) -> None:
    """Add the Edit menu, the shortcuts, presentation mode and accessible names to ``window``."""
    edit_menu = QMenu("&Edit", window)
    view_menu = _menu(window, "View")
    if view_menu is not None:
        window.menuBar().insertMenu(view_menu.menuAction(), edit_menu)
    else:
        window.menuBar().addMenu(edit_menu)
    window.edit_menu = edit_menu
    window.undo_group = install_undo(window, edit_menu)
    edit_menu.addSeparator()
    window.run_action = edit_menu.addAction("&Run this tab", lambda: run_current(window))
    window.run_action.setShortcut(QKeySequence("Ctrl+R"))
    window.cancel_action = edit_menu.addAction("&Cancel this tab's job", lambda: _escape(window))
    window.cancel_action.setShortcut(QKeySequence(Qt.Key_Escape))
    window.cancel_action.setToolTip("Stop the current tab's run (what was computed stays); in presentation mode "
                                    "Esc leaves it first.")
    for action in (window.run_action, window.cancel_action, window.undo_action, window.redo_action):
        # Window-level too: the shortcuts must work while presentation mode hides the menu bar.
        window.addAction(action)

    window.presentation = Presentation(window)
    if view_menu is not None:
        view_menu.addSeparator()
        view_menu.addAction(window.presentation.action)

    name_widgets(window)
    window.tabs.currentChanged.connect(lambda _i: name_widgets(window.tabs.currentWidget() or window))

    def name_built(bench) -> None:  # a tab is built when first shown or asked for: its page and its panel
        name_widgets(bench)
        if getattr(bench, "param_panel", None) is not None:
            name_widgets(bench.param_panel)

    window.workbench_built.connect(name_built)


def action_by_shortcut(window: QMainWindow, sequence: str) -> QAction | None:
    """The window action bound to ``sequence`` (tests, the keyboard help)."""
    wanted = QKeySequence(sequence)
    for action in window.findChildren(QAction):
        if any(s == wanted for s in action.shortcuts()):
            return action
    return None
