"""Light and dark: the studio follows the desktop's colour scheme, plots included.

Qt reports the desktop's setting (``QStyleHints.colorScheme()``) and announces changes; the main window calls
:func:`follow_desktop_scheme` once. The environment variable ``ANONSTUDIO_COLOR_SCHEME`` (``light`` or ``dark``)
forces a scheme, for tests and screenshots and for a desktop that reports none. A scheme sets:

* the application palette (a dark one when the desktop's own palette is still light, as on the offscreen and
  some X11 platforms);
* the studio's style sheet (:func:`~anonstudio.gui.controls.style.style_sheet`: callouts, notes, the guide);
* pyqtgraph's background and foreground, for the plots made from now on, and every existing plot of the window
  (background, axes, tick labels, title, legend, and the series drawn in black, which would vanish on dark).
"""
from __future__ import annotations

import os

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from .controls.style import style_sheet
from .plots import ExportablePlot

__all__ = ["ENV", "PLOT_COLOURS", "apply_scheme", "desktop_scheme", "follow_desktop_scheme", "restyle_plot",
           "restyle_plot_widget", "restyle_plots"]

#: Environment variable forcing a scheme: "light" or "dark".
ENV = "ANONSTUDIO_COLOR_SCHEME"
#: Plot background and foreground (axes, text) per scheme.
PLOT_COLOURS = {"light": ("#ffffff", "#000000"), "dark": ("#1e1f22", "#d8d8d8")}


def desktop_scheme() -> str:
    """"dark" or "light": ``$ANONSTUDIO_COLOR_SCHEME`` when set, else the desktop's setting (light if unknown)."""
    forced = os.environ.get(ENV, "").strip().lower()
    if forced in PLOT_COLOURS:
        return forced
    app = QGuiApplication.instance()
    if app is not None and app.styleHints().colorScheme() == Qt.ColorScheme.Dark:
        return "dark"
    return "light"


def _dark_palette() -> QPalette:
    palette = QPalette()
    colours = {
        QPalette.Window: "#2b2d30", QPalette.WindowText: "#e6e6e6", QPalette.Base: "#1e1f22",
        QPalette.AlternateBase: "#2b2d30", QPalette.ToolTipBase: "#3c3f41", QPalette.ToolTipText: "#e6e6e6",
        QPalette.Text: "#e6e6e6", QPalette.Button: "#3c3f41", QPalette.ButtonText: "#e6e6e6",
        QPalette.BrightText: "#ff6b6b", QPalette.Link: "#6cb6ff", QPalette.LinkVisited: "#b392f0",
        QPalette.Highlight: "#2f65ca", QPalette.HighlightedText: "#ffffff", QPalette.PlaceholderText: "#9a9a9a",
        QPalette.Light: "#4a4d50", QPalette.Midlight: "#3f4245", QPalette.Mid: "#35373a", QPalette.Dark: "#1b1c1e",
        QPalette.Shadow: "#000000",
    }
    for role, colour in colours.items():
        palette.setColor(role, QColor(colour))
    for role in (QPalette.WindowText, QPalette.Text, QPalette.ButtonText):
        palette.setColor(QPalette.Disabled, role, QColor("#808080"))
    return palette


def _is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.Window).lightness() < 128


def restyle_plot_widget(widget: pg.PlotWidget, scheme: str) -> None:
    """Redraw any pyqtgraph plot's background, axes, title, legend and dark text items in ``scheme``'s colours."""
    background, foreground = PLOT_COLOURS[scheme]
    widget.setBackground(background)
    item = widget.getPlotItem()
    for name in ("left", "bottom", "right", "top"):
        axis = item.getAxis(name)
        axis.setPen(foreground)
        axis.setTextPen(foreground)
    item.titleLabel.setText(item.titleLabel.text, color=foreground)
    if item.legend is not None:
        item.legend.setLabelTextColor(foreground)  # for entries added later
        for _sample, label in item.legend.items:  # pyqtgraph keeps the shown ones in the old colour
            label.setText(label.text, color=foreground)
    # Notes drawn in the plot (a diagonal's name, a threshold's label) in a dark colour get a lighter one on dark.
    scene = item.scene()
    for text in (scene.items() if scene is not None else []):
        if isinstance(text, pg.TextItem):
            if getattr(text, "_light_scheme_colour", None) is None:
                text._light_scheme_colour = QColor(text.color)
            colour = QColor(text._light_scheme_colour)
            if scheme == "dark" and colour.lightness() < 110:
                colour = colour.lighter(220) if colour.lightness() > 20 else QColor(foreground)
            text.setColor(colour)


def restyle_plot(plot: ExportablePlot, scheme: str) -> None:
    """:func:`restyle_plot_widget`, plus an ExportablePlot's caption and its series drawn in black."""
    restyle_plot_widget(plot.plot_widget, scheme)
    foreground = PLOT_COLOURS[scheme][1]
    if plot.caption:
        plot.set_caption(plot.caption)  # its grey follows the scheme
    # A series drawn in the palette's black (or in the light text colour, after a switch back) takes the foreground.
    swap = {QColor(PLOT_COLOURS[other][1]).name() for other in PLOT_COLOURS if other != scheme}
    for series in plot.series.values():
        graphic = series.item
        opts = getattr(graphic, "opts", None)
        if not isinstance(opts, dict):
            continue
        for key, setter, make in (("pen", "setPen", pg.mkPen), ("symbolPen", "setSymbolPen", pg.mkPen),
                                  ("symbolBrush", "setSymbolBrush", pg.mkBrush)):
            value = opts.get(key)
            if value is None or not hasattr(graphic, setter):
                continue
            try:
                made = make(value)
            except Exception:  # noqa: BLE001 - a value pyqtgraph keeps but cannot remake (a list per point)
                continue
            if made.color().name() in swap and made.color().alpha() > 0:
                made.setColor(QColor(foreground))
                getattr(graphic, setter)(made)


def apply_scheme(window: QWidget, scheme: str | None = None) -> str:
    """Give the application and ``window`` (its style sheet, its plots) the light or dark scheme; returns it."""
    scheme = scheme or desktop_scheme()
    dark = scheme == "dark"
    app = QApplication.instance()
    if app is not None:
        # Only replace the palette when it disagrees: a dark desktop's own palette is kept as it is.
        if dark and not _is_dark(app.palette()):
            app.setPalette(_dark_palette())
        elif not dark and _is_dark(app.palette()):
            app.setPalette(app.style().standardPalette())
    background, foreground = PLOT_COLOURS[scheme]
    pg.setConfigOptions(background=background, foreground=foreground)
    sheet = style_sheet(dark)
    if window.styleSheet() != sheet:  # setting the same sheet again re-polishes every widget of the window
        window.setStyleSheet(sheet)
    window.setProperty("colorScheme", scheme)
    restyle_plots(window)
    return scheme


#: The attribute a restyled plot keeps its scheme in, so that :func:`restyle_plots` passes it by next time.
_STYLED = "_anonstudio_scheme"


def restyle_plots(window: QWidget, *, only_new: bool = False) -> None:
    """Give every plot of ``window`` the colours of the scheme last applied to it.

    ``only_new`` passes by the plots already drawn in that scheme: the window calls it whenever a tab is built or
    a dataset shown, and restyling every plot each time cost a tenth of building a tab, more with each tab.
    """
    scheme = window.property("colorScheme")
    if scheme not in PLOT_COLOURS:
        return
    plots = window.findChildren(ExportablePlot)
    for plot in plots:
        if not (only_new and getattr(plot, _STYLED, None) == scheme):
            restyle_plot(plot, scheme)
            setattr(plot, _STYLED, scheme)
    # pyqtgraph plots of their own (the σ-k^m partition map): background, axes and texts.
    inside = {id(plot.plot_widget) for plot in plots}
    for widget in window.findChildren(pg.PlotWidget):
        if id(widget) not in inside and not (only_new and getattr(widget, _STYLED, None) == scheme):
            restyle_plot_widget(widget, scheme)
            setattr(widget, _STYLED, scheme)


class _Follower(QObject):
    """Re-applies the scheme when the desktop's setting changes (a child of the window: it goes with it)."""

    def __init__(self, window: QWidget):
        super().__init__(window)
        self.window = window

    def changed(self, _scheme) -> None:
        apply_scheme(self.window)


def follow_desktop_scheme(window: QWidget) -> str:
    """Apply the desktop's scheme to ``window`` now and again whenever the desktop's setting changes."""
    app = QGuiApplication.instance()
    if app is not None:
        follower = _Follower(window)
        app.styleHints().colorSchemeChanged.connect(follower.changed)
    return apply_scheme(window)
