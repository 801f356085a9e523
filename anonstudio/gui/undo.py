"""Undo and redo of parameter changes, one history per parameter panel (so per workbench).

:class:`ParamHistory` watches a :class:`~anonstudio.gui.param_panel.ParamPanel`:
after every edit it compares the form's values with the ones it saw last and
pushes one :class:`ParamEdit` (the values before and after) onto its
:class:`QUndoStack`. Undo and redo write the whole remembered state back, so
fields that depend on each other (levels tables, enable-when rules) come back
exactly as they were.

Consecutive edits of one number field (a spin box's arrow held down, digits
typed one by one) merge into one step, so Ctrl+Z takes k from 12 back to 5
in one go rather than through 11, 10, 9 …

Changes the user did not make (a new dataset offering its columns, a project
file's parameters) move the baseline without an undo step: undoing past them
would write values of another dataset into the form.

The main window puts every panel's stack into one :class:`QUndoGroup` whose
active stack follows the current tab (:func:`install_undo`), so Edit › Undo
always undoes the visible workbench's last change.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QKeySequence, QUndoCommand, QUndoGroup, QUndoStack
from PySide6.QtWidgets import QDialog, QMainWindow, QUndoView, QVBoxLayout

__all__ = ["ParamEdit", "ParamHistory", "install_undo"]

#: Field kinds whose consecutive edits merge into one undo step.
_MERGING_KINDS = ("int", "float")
#: QUndoCommand.id() of a mergeable edit; the field itself is compared in mergeWith.
_MERGE_ID = 2201


def _changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return [name for name in after if before.get(name) != after.get(name)]


def _shown(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return f"{len(value)} chosen" if len(value) > 2 else ", ".join(map(str, value)) or "none"
    return "not set" if value is None else str(value)


class ParamEdit(QUndoCommand):
    """One edit of a parameter form: the values before and after it.

    Parameters
    ----------
    history
        The :class:`ParamHistory` that writes values back into the form.
    before, after
        Every field's value (``ParamPanel.values()``) before and after the edit.
    """

    def __init__(self, history: ParamHistory, before: dict[str, Any], after: dict[str, Any]):
        super().__init__()
        self.history = history
        self.before = dict(before)
        self.after = dict(after)
        self.fields = _changed(before, after)
        self._first = True
        self._describe()

    def _describe(self) -> None:
        labels = self.history.labels
        if len(self.fields) == 1:
            name = self.fields[0]
            self.setText(f"{labels.get(name, name)} = {_shown(self.after.get(name))}")
        else:
            self.setText(", ".join(labels.get(n, n) for n in self.fields[:3])
                         + (" …" if len(self.fields) > 3 else ""))

    def id(self) -> int:
        return _MERGE_ID if len(self.fields) == 1 and self.history.mergeable(self.fields[0]) else -1

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 (Qt naming)
        if not isinstance(other, ParamEdit) or other.fields != self.fields:
            return False
        self.after = dict(other.after)
        self._describe()
        return True

    def redo(self) -> None:
        # push() calls redo() at once: the form already shows ``after`` then.
        if self._first:
            self._first = False
            return
        self.history.apply(self.after)

    def undo(self) -> None:
        self.history.apply(self.before)


class ParamHistory(QObject):
    """The undo history of one parameter panel.

    Parameters
    ----------
    panel
        The :class:`~anonstudio.gui.param_panel.ParamPanel` to watch; it calls
        :meth:`rebase` after changes that are not the user's.
    """

    def __init__(self, panel: Any):
        super().__init__(panel)
        self.panel = panel
        self.stack = QUndoStack(self)
        self.labels = {name: field.spec.label for name, field in panel.fields.items()}
        self._kinds = {name: field.spec.kind for name, field in panel.fields.items()}
        self._seen = panel.values()
        self._applying = False
        panel.edited.connect(self._edited)

    def mergeable(self, name: str) -> bool:
        return self._kinds.get(name) in _MERGING_KINDS

    def rebase(self) -> None:
        """Take the form's current values as the starting point of the next step, without an undo step."""
        self._seen = self.panel.values()

    @contextmanager
    def untracked(self) -> Iterator[None]:
        """Changes made inside are not undo steps (a new dataset's columns, a project's parameters)."""
        applying, self._applying = self._applying, True
        try:
            yield
        finally:
            self._applying = applying
            self.rebase()

    def apply(self, values: dict[str, Any]) -> None:
        """Write ``values`` back into the form (undo/redo); the resulting edit is not recorded again."""
        self._applying = True
        try:
            self.panel.set_values(values)
        finally:
            self._applying = False
        self._seen = self.panel.values()

    def _edited(self) -> None:
        if self._applying:
            return
        now = self.panel.values()
        if now == self._seen:
            return
        before, self._seen = self._seen, now
        self.stack.push(ParamEdit(self, before, now))


class _HistoryDialog(QDialog):
    """Edit › Undo history…: the active workbench's steps; clicking one goes back to it."""

    def __init__(self, group: QUndoGroup, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Parameter history")
        self.view = QUndoView(group)
        self.view.setEmptyLabel("(parameters as the tab opened them)")
        self.view.setAccessibleName("Parameter history of the current tab")
        QVBoxLayout(self).addWidget(self.view)
        self.resize(360, 320)


def install_undo(window: QMainWindow, edit_menu) -> QUndoGroup:
    """Undo/redo for every workbench's parameter panel, following the current tab.

    Adds Undo (Ctrl+Z), Redo (Ctrl+Shift+Z) and *Undo history…* to ``edit_menu``
    and returns the group (``window.undo_group``).
    """
    group = QUndoGroup(window)

    def add(bench) -> None:
        panel = getattr(bench, "param_panel", None)
        history = getattr(panel, "history", None)
        if history is not None:
            group.addStack(history.stack)

    for bench in window.built_workbenches():
        add(bench)
    window.workbench_built.connect(add)  # a tab built later (when first shown) joins the group then

    def follow(_index: int = -1) -> None:
        panel = getattr(window.tabs.currentWidget(), "param_panel", None)
        history = getattr(panel, "history", None)
        group.setActiveStack(history.stack if history is not None else None)

    window.tabs.currentChanged.connect(follow)
    follow()
    undo = group.createUndoAction(window, "&Undo")
    undo.setShortcut(QKeySequence.Undo)
    redo = group.createRedoAction(window, "&Redo")
    # QKeySequence.Redo is Ctrl+Y on Windows; the studio promises Ctrl+Shift+Z everywhere (both work).
    redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
    edit_menu.addAction(undo)
    edit_menu.addAction(redo)
    window.undo_action, window.redo_action = undo, redo

    def show_history() -> None:
        dialog = getattr(window, "undo_history", None)
        if dialog is None:
            dialog = window.undo_history = _HistoryDialog(group, window)
        dialog.show()
        dialog.raise_()

    window.undo_history_action = edit_menu.addAction("Undo &history…", show_history)
    window.undo_history_action.setToolTip("Every parameter change of the current tab; click one to go back to it.")
    return group
