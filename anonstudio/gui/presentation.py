"""Presentation mode (View › Presentation mode, F11): the current workbench large, for a projector.

Entering it goes full screen, hides the docks, the menu bar and the tab's
secondary rows (intro, guide, run history, export row), and makes the text
of the window and of every plot 1.5 times larger; the verdict callout may
grow instead of scrolling. Esc (or F11 again; see :mod:`.shortcuts`) leaves it and restores the
window exactly: geometry, window state, dock layout, fonts and the widgets
it hid.

While presenting, → and ← step through a linkage attack (any visible widget
of the current tab with a ``step(delta)`` method and a ``presentation_step``
marker, i.e. the attack demo with or without a release).
"""
from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QFont, QKeySequence
from PySide6.QtWidgets import QMainWindow, QWidget

from .method_workbench import READY_TEXT
from .plots import ExportablePlot

__all__ = ["Presentation", "SCALE"]

#: Text is this much larger while presenting.
SCALE = 1.5
#: Rows of a method tab hidden while presenting (attribute names of MethodWorkbench; the Audit tab's
#: choice of a release is a setup row too).
SECONDARY_ROWS = ("intro_label", "guide", "history_bar", "export_row", "release_source_row")
#: Added to the window's style sheet while presenting (sizes in points); the attack demo's count is largest.
PRESENTATION_STYLE = ("* {{ font-size: {size:.1f}pt; }}\n"
                      'QLabel[role="empty"], QLabel[role="empty-plot"] {{ font-size: {size:.1f}pt; }}\n'
                      'QLabel[role="count"] {{ font-size: {count:.1f}pt; font-weight: bold; }}')
#: The callout may grow to this height (pixels) while presenting instead of scrolling at 110.
CALLOUT_HEIGHT = 260
#: What a tab that has not run yet says while presenting: its parameters are hidden, its run is a key away.
PRESENTING_READY_TEXT = ("Press Ctrl+R for “{run}” with the parameters set before presenting; "
                         "Esc leaves presentation mode to change them.")


def _scaled(font: QFont, factor: float) -> QFont:
    scaled = QFont(font)
    if font.pointSizeF() > 0:
        scaled.setPointSizeF(font.pointSizeF() * factor)
    else:
        scaled.setPixelSize(max(1, round(font.pixelSize() * factor)))
    return scaled


class _PlotText:
    """Scales one plot's title, axis and legend text, and puts them back.

    ``base_points`` is the unscaled text size for a plot built while presenting, whose font already
    carries the presentation style sheet's larger size.
    """

    def __init__(self, plot: QWidget, factor: float, base_points: float | None = None):
        self.plot = plot
        item = plot.plot_item
        self.axes = {}
        base = QFont(plot.font())
        if base_points is not None:
            base.setPointSizeF(base_points)
        points = base.pointSizeF() if base.pointSizeF() > 0 else 9.0
        for name in ("left", "bottom"):
            axis = item.getAxis(name)
            self.axes[name] = (axis.style.get("tickFont"), dict(axis.labelStyle))
            axis.setStyle(tickFont=_scaled(axis.style.get("tickFont") or base, factor))
            # The caption is rich text: its size goes into the label's CSS.
            axis.labelStyle = {**axis.labelStyle, "font-size": f"{points * factor:.0f}pt"}
            axis._updateLabel()
        self.title_size = item.titleLabel.opts.get("size")
        item.titleLabel.setText(item.titleLabel.text, size=f"{points * 1.2 * factor:.0f}pt")
        self.legend_size = None
        self.legend = getattr(plot, "legend", None)
        if self.legend is not None:
            self.legend_size = plot.legend.opts.get("labelTextSize")
            self._legend_size(f"{points * factor:.0f}pt")

    def restore(self) -> None:
        item = self.plot.plot_item
        for name, (tick_font, label_style) in self.axes.items():
            axis = item.getAxis(name)
            axis.setStyle(tickFont=tick_font)
            axis.labelStyle = label_style
            axis._updateLabel()
        item.titleLabel.setText(item.titleLabel.text, size=self.title_size)
        if self.legend is not None:
            self._legend_size(self.legend_size or "9pt")

    def _legend_size(self, size: str) -> None:
        legend = self.legend
        legend.setLabelTextSize(size)
        # pyqtgraph stores the size but redraws an entry only when its text is set again.
        for _sample, label in legend.items:
            label.setText(label.text)
        legend.updateSize()


def _plots(window: QWidget) -> list[QWidget]:
    """Every plot of the window: the exportable plots and other widgets drawing on a PlotItem (the partition map)."""
    return [w for w in window.findChildren(QWidget)
            if isinstance(w, ExportablePlot) or isinstance(getattr(w, "plot_item", None), pg.PlotItem)]


class Presentation(QObject):
    """Presentation mode of a main window; see the module docstring.

    Parameters
    ----------
    window
        The studio's :class:`~anonstudio.gui.main_window.MainWindow`.
    """

    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self.window = window
        self.active = False
        self._saved: dict[str, Any] = {}
        self.action = QAction("&Presentation mode", window)
        self.action.setCheckable(True)
        self.action.setShortcut(QKeySequence(Qt.Key_F11))
        self.action.setToolTip("Full screen, larger text, only the current tab's plot and verdict; → and ← step "
                               "through the attack demo; Esc leaves.")
        self.action.toggled.connect(self.set_active)
        # Window-level actions keep their shortcuts while the menu bar is hidden.
        self.next_action = self._key_action(Qt.Key_Right, lambda: self.step(1))
        self.previous_action = self._key_action(Qt.Key_Left, lambda: self.step(-1))
        # Esc is the window's one Esc action (shortcuts.py): it leaves presentation mode before cancelling a job.
        window.addAction(self.action)
        window.workbench_built.connect(self._built_while_presenting)

    def _key_action(self, key: Qt.Key, slot) -> QAction:
        action = QAction(self.window)
        action.setShortcut(QKeySequence(key))
        action.setShortcutContext(Qt.WindowShortcut)
        action.setEnabled(False)
        action.triggered.connect(slot)
        self.window.addAction(action)
        return action

    def toggle(self) -> None:
        self.set_active(not self.active)

    def set_active(self, on: bool) -> None:
        """Enter (True) or leave (False) presentation mode."""
        if on == self.active:
            return
        if on:
            self._enter()
        else:
            self._leave()
        self.active = on
        for action in (self.next_action, self.previous_action):
            action.setEnabled(on)
        self.action.blockSignals(True)
        self.action.setChecked(on)
        self.action.blockSignals(False)

    # ---------------------------------------------------------------- steps
    def stepper(self) -> Any:
        """The visible widget of the current tab that → and ← step (the attack demo), or None."""
        bench = self.window.tabs.currentWidget()
        if bench is None:
            return None
        for widget in bench.findChildren(QWidget):
            if getattr(widget, "presentation_step", False) and widget.isVisible():
                return widget
        return None

    def step(self, delta: int) -> bool:
        """Step the current tab's attack demo; False when there is none on screen."""
        demo = self.stepper()
        if demo is None:
            self.window.statusBar().showMessage("→ and ← step through the linkage attack demo (Risk tab).", 5000)
            return False
        demo.step(delta)
        return True

    # ------------------------------------------------------------ internals
    def _enter(self) -> None:
        window = self.window
        saved = self._saved = {
            "geometry": window.saveGeometry(),
            "rect": window.geometry(),
            "state": window.saveState(),
            "window_state": window.windowState(),
            "style": window.styleSheet(),
            "menu_bar": window.menuBar().isVisible(),
            "hidden": [],
            "plots": [],
            "callouts": [],
            "splits": [],
            "ready": [],
        }
        for dock in window.findChildren(type(window.datasets_dock)):
            if dock.isVisible():
                dock.hide()
        window.menuBar().hide()
        for bench in window.built_workbenches():  # a tab not shown yet is handled when it is built
            self._present(bench)
        # Plots first: their text is scaled from the fonts they have now, before the style sheet grows them.
        saved["plots"] = [_PlotText(plot, SCALE) for plot in _plots(window)]
        # A font set on the window does not reach widgets styled by its style sheet: the size goes into the sheet.
        points = saved["points"] = window.font().pointSizeF() if window.font().pointSizeF() > 0 else 9.0
        window.setStyleSheet(saved["style"] + "\n" + PRESENTATION_STYLE.format(
            size=points * SCALE, count=points * SCALE * 1.6))
        window.showFullScreen()

    def _present(self, bench: QWidget) -> None:
        """Hide one built tab's secondary rows, point its ready text at Ctrl+R, let its callout grow."""
        saved = self._saved
        for name in SECONDARY_ROWS:
            row = getattr(bench, name, None)
            if isinstance(row, QWidget) and not row.isHidden():
                row.hide()
                saved["hidden"].append(row)
        callout, run_text = getattr(bench, "callout", None), getattr(bench, "RUN_TEXT", None)
        if callout is not None and run_text and callout.text() == READY_TEXT.format(run=run_text):
            # "Set the parameters on the right" would point at a panel presentation mode hides.
            callout.show_text(PRESENTING_READY_TEXT.format(run=run_text))
            saved["ready"].append((callout, callout.text(), READY_TEXT.format(run=run_text)))
        area = getattr(bench, "callout_area", None)
        if area is not None and hasattr(area, "maximum"):
            saved["callouts"].append((area, area.maximum))
            area.maximum = CALLOUT_HEIGHT
            area.updateGeometry()
        for demo in bench.findChildren(QWidget):
            split = getattr(demo, "split", None)
            if getattr(demo, "presentation_step", False) and split is not None:
                # The plot and its counter take most of the width; the revealed list stays readable.
                saved["splits"].append((split, split.sizes()))
                total = sum(split.sizes()) or 1000
                split.setSizes([int(total * 0.3), total - int(total * 0.3)])

    def _built_while_presenting(self, bench: QWidget) -> None:
        """A tab first shown while presenting gets what :meth:`_enter` gave the tabs built before it."""
        if not self.active:
            return
        self._present(bench)
        plots = [_PlotText(plot, SCALE, base_points=self._saved["points"]) for plot in _plots(bench)]
        self._saved["plots"].extend(plots)

    def _leave(self) -> None:
        window = self.window
        saved = self._saved
        for plot_text in saved["plots"]:
            plot_text.restore()
        window.setStyleSheet(saved["style"])
        for row in saved["hidden"]:
            row.show()
        for area, maximum in saved["callouts"]:
            area.maximum = maximum
            area.updateGeometry()
        for split, sizes in saved["splits"]:
            split.setSizes(sizes)
        for callout, presenting, ready in saved["ready"]:
            if callout.text() == presenting:  # not replaced by a run's verdict meanwhile
                callout.show_text(ready)
        window.menuBar().setVisible(saved["menu_bar"])
        if saved["window_state"] == Qt.WindowNoState:
            window.showNormal()
            # restoreGeometry would clamp a window larger than the screen's free area; put back what was there.
            window.setGeometry(saved["rect"])
        else:
            window.setWindowState(saved["window_state"])
            window.restoreGeometry(saved["geometry"])
        window.restoreState(saved["state"])
        self._saved = {}
