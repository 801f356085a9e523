"""Accessible names for buttons, plots and tables, so a screen reader can say what each one is.

Qt reads a button's caption aloud but leaves ``accessibleName`` empty, and an
icon-only button, a list or a plot has nothing to read. :func:`name_widgets`
gives every such widget without a name one from what a sighted user sees:
the caption, else the first line of the tooltip, else the plot's title or
the heading of the box it sits in. What is left without a name
(:func:`unnamed`) needs a name set by hand; a test fails on it.
"""
from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGraphicsView,
    QGroupBox,
    QHeaderView,
    QLineEdit,
    QStackedWidget,
    QTabWidget,
    QWidget,
)

__all__ = ["NAMED_KINDS", "describe", "name_widgets", "unnamed"]

#: Widget classes that must carry an accessible name: buttons, tables and lists, plots and maps.
NAMED_KINDS = (QAbstractButton, QAbstractItemView, QGraphicsView)


def _own_part(widget: QWidget) -> bool:
    """Qt's inner parts (a table's headers and corner button, a combo's popup list, a line edit's clear
    button) are announced as part of their owner, which carries the name."""
    if widget.objectName().startswith("qt_") or isinstance(widget, QHeaderView):
        return False
    parent = widget.parentWidget()
    if isinstance(parent, QLineEdit) or (parent is not None and parent.inherits("QComboBoxPrivateContainer")):
        return False
    return not isinstance(parent, QComboBox)


def _needs_name(widget: QWidget) -> bool:
    return isinstance(widget, NAMED_KINDS) and _own_part(widget)


def _first_line(text: str) -> str:
    return next((line.strip() for line in (text or "").splitlines() if line.strip()), "")


def describe(widget: QWidget) -> str:
    """The name a sighted user would give ``widget`` (caption, tooltip, plot title, box heading), or ""."""
    if isinstance(widget, QAbstractButton):
        caption = widget.text().replace("&&", "\0").replace("&", "").replace("\0", "&").strip()
        if caption and caption not in ("…", "..."):
            return caption
    tip = _first_line(widget.toolTip())
    if tip:
        return tip
    parent = widget.parentWidget()
    while parent is not None:
        title = getattr(parent, "title", None)
        if isinstance(title, str) and title:
            return title  # an ExportablePlot's title names its plot widget
        if isinstance(parent, QGroupBox) and parent.title():
            return parent.title()
        tip = _first_line(parent.toolTip()) if not isinstance(widget, QAbstractButton) else ""
        if tip:
            return tip
        tab = _tab_title(parent)
        if tab and isinstance(widget, QAbstractItemView):
            return f"{tab} (table)"
        parent = parent.parentWidget()
    return ""


def _tab_title(widget: QWidget) -> str:
    """The caption of the tab ``widget`` is the page of, or ""."""
    stack = widget.parentWidget()
    tabs = stack.parentWidget() if isinstance(stack, QStackedWidget) else None
    if isinstance(tabs, QTabWidget):
        index = tabs.indexOf(widget)
        return tabs.tabText(index).replace("&", "") if index >= 0 else ""
    return ""


def name_widgets(root: QWidget) -> int:
    """Give every button, table/list and plot under ``root`` without an accessible name one; returns how many."""
    count = 0
    for widget in [root, *root.findChildren(QWidget)]:
        if _needs_name(widget) and not widget.accessibleName():
            name = describe(widget)
            if name:
                widget.setAccessibleName(name)
                count += 1
    return count


def unnamed(root: QWidget) -> list[QWidget]:
    """Buttons, tables/lists and plots under ``root`` still without an accessible name."""
    return [w for w in [root, *root.findChildren(QWidget)]
            if _needs_name(w) and not w.accessibleName().strip()]
