"""A pyqtgraph plot that knows its data and exports it as PNG, SVG or CSV.

Series are declared once (:meth:`ExportablePlot.add_series`) and updated with
:meth:`ExportablePlot.set_series` as partial results arrive, so a live plot
only calls ``setData`` and never rebuilds items. The plot keeps the raw data
of every series (with error-bar bounds) for the CSV export, independent of
log axes or display scaling.
"""
from __future__ import annotations

import csv
import html
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.ViewBox.ViewBoxMenu import ViewBoxMenu
from PySide6.QtCore import QBuffer, QIODevice, QRectF, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from ...data.io import atomic_write
from ..next_steps import with_next_step

__all__ = ["ExportablePlot", "Series", "EXPORT_FORMATS", "LazyMenuViewBox", "PlainAxis", "PlainLogAxis",
           "axis_text", "integer_ticks", "csv_number"]

EXPORT_FORMATS = {"png": "PNG image (*.png)", "svg": "SVG vector image (*.svg)", "csv": "Plot data as CSV (*.csv)"}

# A white background reads better in reports and printed handouts than
# pyqtgraph's default black.
pg.setConfigOptions(antialias=True, background="w", foreground="k")

#: Gap between the legend and the plot frame, in pixels.
LEGEND_MARGIN = 10
#: Legend positions tried in turn (pyqtgraph offsets: negative = from the
#: right/bottom edge) until one covers no data point.
LEGEND_CORNERS = ((-LEGEND_MARGIN, LEGEND_MARGIN), (LEGEND_MARGIN, LEGEND_MARGIN),
                  (-LEGEND_MARGIN, -LEGEND_MARGIN), (LEGEND_MARGIN, -LEGEND_MARGIN))

#: Colour-blind-safe palette (Okabe-Ito) used for successive series.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")


@dataclass
class Series:
    """One named data series and the graphics items that draw it."""

    name: str
    kind: str
    item: pg.GraphicsObject
    error_item: pg.ErrorBarItem | None = None
    x: np.ndarray = field(default_factory=lambda: np.zeros(0))
    y: np.ndarray = field(default_factory=lambda: np.zeros(0))
    low: np.ndarray | None = None
    high: np.ndarray | None = None
    in_legend: bool = True
    in_csv: bool = True


class LazyMenuViewBox(pg.ViewBox):
    """A view box whose right-click menu is built the first time it opens.

    pyqtgraph builds the menu (an axis panel of a dozen widgets for each axis) with every view box, a
    quarter of the cost of a plot. A workbench holds dozens of plots and few are ever right-clicked, so
    tabs open faster when it waits. ``extend_menu(menu)`` adds the caller's actions to the new menu.
    """

    def __init__(self, extend_menu) -> None:
        super().__init__(enableMenu=False)
        self._extend_menu = extend_menu
        self.state["enableMenu"] = True  # a right-click still opens the menu: getMenu builds it

    def getMenu(self, ev):  # noqa: N802 (pyqtgraph naming)
        if self.menu is None:
            self.menu = ViewBoxMenu(self)
            self.updateViewLists()
            self._extend_menu(self.menu)
        return self.menu

    def getContextMenus(self, event):  # noqa: N802 (pyqtgraph naming)
        return self.getMenu(event).actions() if self.menuEnabled() else []


class PlainAxis(pg.AxisItem):
    """An axis of plain numbers whose label is re-laid out only when its text or style changes.

    Shares and counts are shown as they are: pyqtgraph's automatic SI prefix turns a 0-0.025 axis
    into "0-25 (x0.001)", which readers take for percent. And pyqtgraph re-sets the label's HTML and
    the axis size after every range change and every pen change, even when the label reads the same;
    over a suite of live plots that was the largest single cost of drawing (159,000 ``setHtml`` calls
    in the GUI tests).
    """

    _label_html: str | None = None

    def __init__(self, orientation: str, **kwargs) -> None:
        super().__init__(orientation, **kwargs)
        self.enableAutoSIPrefix(False)

    def _updateLabel(self) -> None:  # noqa: N802 (pyqtgraph naming)
        html = self.labelString()
        if html != self._label_html:
            self._label_html = html
            self.label.setHtml(html)
            self._adjustSize()
        self.picture = None
        self.update()


class PlainLogAxis(PlainAxis):
    """Log-axis ticks as plain numbers (1, 10, 100, 1,000) instead of 8·10¹.

    Only 1-2-5 steps are labelled (just the decades when the axis spans many
    of them), so tick labels never pile up.
    """

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 (pyqtgraph naming)
        values = np.asarray(values, dtype=float)
        if values.size == 0:
            return []
        span = float(values.max() - values.min())
        keep = (1,) if span > 3 else (1, 2, 5)
        out = []
        for v in values:
            number = 10.0 ** v * scale
            mantissa = number / 10.0 ** np.floor(np.log10(number) + 1e-9)
            if any(abs(mantissa - k) < 1e-6 for k in keep):
                out.append(f"{number:,.0f}" if number >= 1 else f"{number:g}")
            else:
                out.append("")
        return out


def integer_ticks(plot_item: pg.PlotItem, axis: str, largest: float) -> None:
    """Whole-number ticks on ``axis`` (counts such as m), thinned as ``largest`` grows."""
    step = 1 if largest <= 12 else 2 if largest <= 24 else 5 if largest <= 60 else 10 * max(1, int(largest // 120))
    plot_item.getAxis(axis).setTickSpacing(step, step)


def axis_text(label: str, units: str | None) -> str:
    """``"label [units]"``; units are written out, never SI-prefixed."""
    return f"{label} [{units}]" if units else label


class ExportablePlot(QWidget):
    """A titled plot with a legend, an empty-state message and export buttons.

    Parameters
    ----------
    title
        Shown above the plot and used as the default export file name.
    x_label, y_label
        Axis captions in plain words, e.g. ``"m (items the attacker knows)"``.
    x_units, y_units
        Appended in brackets (``"people"``, ``"s"``); pyqtgraph's SI prefixes
        are not used because "kpeople" confuses readers.
    legend
        Add a legend listing every series with ``in_legend=True``.
    log_x, log_y
        Logarithmic axes.
    auto_legend
        Move the legend to a corner free of data whenever the data, range or
        size change (otherwise it stays top-right unless moved by the owner).

    Examples
    --------
    >>> plot = ExportablePlot("Uniqueness", x_label="m", y_label="share")   # doctest: +SKIP
    >>> plot.add_series("exact", kind="scatter", symbol="o", error_bars=True)
    >>> plot.set_series("exact", [1, 2], [0.1, 0.4], low=[0.05, 0.3], high=[0.15, 0.5])
    >>> plot.export("uniqueness.svg")
    """

    exported = Signal(str)

    def __init__(self, title: str, *, x_label: str, y_label: str, x_units: str | None = None,
                 y_units: str | None = None, legend: bool = True, log_x: bool = False, log_y: bool = False,
                 empty_text: str = "No data yet", auto_legend: bool = False, parent: QWidget | None = None):
        super().__init__(parent)
        self.title = title
        self.series: dict[str, Series] = {}
        self._log = (log_x, log_y)

        # (An axis given here is shown: the hidden right and top ones stay pyqtgraph's.)
        axes = {side: (PlainLogAxis if log else PlainAxis)(side) for side, log in (("left", log_y), ("bottom", log_x))}
        self.plot_widget = pg.PlotWidget(viewBox=LazyMenuViewBox(self._add_export_actions), axisItems=axes)
        self.plot_item: pg.PlotItem = self.plot_widget.getPlotItem()
        self.plot_item.setTitle(title)
        self.caption = ""
        self.plot_item.setLabel("bottom", axis_text(x_label, x_units))
        self.plot_item.setLabel("left", axis_text(y_label, y_units))
        # The hidden right and top axes are pyqtgraph's: without a prefix they no longer redo their label at
        # every range change (the shown ones are PlainAxis).
        for axis in ("right", "top"):
            self.plot_item.getAxis(axis).enableAutoSIPrefix(False)
        self.plot_item.showGrid(x=True, y=True, alpha=0.25)
        self.plot_item.setLogMode(x=log_x, y=log_y)
        self.legend = self.plot_item.addLegend(offset=LEGEND_CORNERS[0]) if legend else None
        view = self.plot_item.getViewBox()
        self.auto_legend = auto_legend and legend
        if self.auto_legend:
            view.sigResized.connect(self.keep_legend_clear)
            view.sigRangeChanged.connect(self.keep_legend_clear)
        self.x_label = axis_text(x_label, x_units)
        self.y_label = axis_text(y_label, y_units)

        # The message sits on top of the plot until data arrives.
        self.empty_label = QLabel(empty_text, self.plot_widget)
        self.empty_label.setAlignment(Qt.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setAttribute(Qt.WA_TransparentForMouseEvents)
        self.empty_label.setProperty("role", "empty-plot")

        toolbar = QHBoxLayout()
        toolbar.setContentsMargins(0, 0, 0, 0)
        toolbar.addStretch(1)
        self._toolbar = toolbar
        self.export_buttons: dict[str, QToolButton] = {}
        for fmt in EXPORT_FORMATS:
            button = QToolButton()
            button.setText(fmt.upper())
            button.setToolTip(f"Save this plot as {EXPORT_FORMATS[fmt].split(' (')[0]}")
            button.setAutoRaise(True)
            button.clicked.connect(lambda _=False, f=fmt: self.export_dialog(f))
            toolbar.addWidget(button)
            self.export_buttons[fmt] = button
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(toolbar)
        layout.addWidget(self.plot_widget, 1)

        self._update_empty()

    def _add_export_actions(self, menu) -> None:
        """The toolbar's export buttons, again in the plot's right-click menu."""
        menu.addSeparator()
        for fmt, text in (("png", "Export PNG…"), ("svg", "Export SVG…"), ("csv", "Export data (CSV)…")):
            action = QAction(text, menu)
            action.triggered.connect(lambda _=False, f=fmt: self.export_dialog(f))
            menu.addAction(action)

    # --------------------------------------------------------------- series
    def add_series(self, name: str, *, kind: str = "line", color: str | None = None, symbol: str | None = None,
                   symbol_size: int = 9, width: float = 2.0, style: Qt.PenStyle = Qt.SolidLine,
                   error_bars: bool = False, bar_width: float = 0.8, in_legend: bool = True,
                   in_csv: bool = True) -> Series:
        """Declare a series once; fill it later with :meth:`set_series`.

        ``kind`` is ``"line"`` (optionally with symbols), ``"scatter"``
        (symbols only) or ``"bars"``. ``in_csv=False`` leaves a series that
        only repeats others (a trend line through the points) out of the CSV.
        Hovering a symbol shows its tooltip (see ``tips`` of :meth:`set_series`).
        """
        if name in self.series:
            raise ValueError(f"series {name!r} already exists")
        color = color or PALETTE[len(self.series) % len(PALETTE)]
        if kind == "bars":
            item = pg.BarGraphItem(x=[], height=[], width=bar_width, brush=color, pen=pg.mkPen(color))
        elif kind in ("line", "scatter"):
            pen = pg.mkPen(color, width=width, style=style) if kind == "line" else None
            item = pg.PlotDataItem([], [], pen=pen, symbol=symbol or ("o" if kind == "scatter" else None),
                                   symbolSize=symbol_size, symbolBrush=color, symbolPen=pg.mkPen("w"))
            if item.opts["symbol"] is not None:
                item.scatter.opts["hoverable"] = True
                item.scatter.opts["tip"] = self._point_tip
                item.scatter.setAcceptHoverEvents(True)
        else:
            raise ValueError(f"unknown series kind {kind!r}")
        self.plot_item.addItem(item)
        error_item = None
        if error_bars:
            error_item = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), beam=0.15, pen=pg.mkPen(color, width=1.5))
            self.plot_item.addItem(error_item)
        series = Series(name, kind, item, error_item, in_legend=in_legend, in_csv=in_csv)
        self.series[name] = series
        return series

    def set_series(self, name: str, x, y, *, low=None, high=None, tips=None) -> None:
        """Replace a series' data; ``low``/``high`` are error-bar bounds (absolute).

        ``tips`` (one string per point) is shown when the mouse rests on a
        point; without it the tooltip gives the point's x and y.
        """
        s = self.series[name]
        s.x = np.asarray(x, dtype=float)
        s.y = np.asarray(y, dtype=float)
        s.low = None if low is None else np.asarray(low, dtype=float)
        s.high = None if high is None else np.asarray(high, dtype=float)
        if s.kind == "bars":
            s.item.setOpts(x=s.x, height=s.y)
        elif tips is not None:
            if len(tips) != len(s.x):
                raise ValueError(f"{len(tips)} tooltips for {len(s.x)} points of {name!r}")
            s.item.setData(s.x, s.y, data=np.array(list(tips), dtype=object))
        else:
            s.item.setData(s.x, s.y, data=None)
        if s.error_item is not None:
            if s.low is not None and s.high is not None and len(s.x):
                s.error_item.setData(x=s.x, y=s.y, top=s.high - s.y, bottom=s.y - s.low)
                s.error_item.setVisible(True)
            else:
                s.error_item.setVisible(False)
        self._update_empty()

    def clear_data(self) -> None:
        """Empty every series (the items stay, ready for new data)."""
        for name in self.series:
            self.set_series(name, [], [])

    def has_data(self) -> bool:
        return any(len(s.x) for s in self.series.values())

    def set_caption(self, caption: str) -> None:
        """Smaller title lines under the title (dataset name, confidence level, ...); ``\\n`` separates lines.

        Shown on screen and in PNG/SVG exports, so a saved plot always says
        what data it shows.
        """
        self.caption = caption
        if caption:
            # One short line each: pyqtgraph never wraps a title, and a title
            # wider than the plot widens the whole plot past its window.
            lines = "<br>".join(html.escape(line) for line in caption.splitlines())
            # Grey for a caption, dark on the light scheme's white and light on the dark scheme's background.
            grey = "#444" if pg.mkColor(pg.getConfigOption("foreground")).lightness() < 128 else "#b4b4b4"
            self.plot_item.setTitle(f"{html.escape(self.title)}<br><span style='font-size: 8pt; color: {grey}'>"
                                    f"{lines}</span>")
        else:
            self.plot_item.setTitle(self.title)
        # pyqtgraph reserves a fixed 30 px row for the title; make room for
        # the caption lines so the title is not cut off at the top.
        height = max(30.0, self.plot_item.titleLabel.itemRect().height())
        self.plot_item.titleLabel.setMaximumHeight(height)
        self.plot_item.layout.setRowFixedHeight(0, height)

    def _point_tip(self, x: float, y: float, data) -> str:
        if isinstance(data, str) and data:
            return data
        return f"{self.x_label}: {x:g}\n{self.y_label}: {y:g}"

    def set_empty_text(self, text: str) -> None:
        self.empty_label.setText(text)
        self._update_empty()

    def _update_empty(self) -> None:
        has_data = self.has_data()
        self.empty_label.setVisible(not has_data and bool(self.empty_label.text()))
        # Nothing to save from an empty plot.
        for button in self.export_buttons.values():
            button.setEnabled(has_data)
        self._update_legend()

    def _update_legend(self) -> None:
        # List only series that have data: a legend entry for "estimated"
        # when every point was counted exactly would mislead.
        if self.legend is None:
            return
        wanted = [s for s in self.series.values() if s.in_legend and len(s.x)]
        shown = [label.text for _, label in self.legend.items]
        if shown == [s.name for s in wanted]:
            return
        self.legend.clear()
        for s in wanted:
            self.legend.addItem(s.item, s.name)
        self.keep_legend_clear()

    # --------------------------------------------------------------- legend
    def legend_rect(self, offset: tuple[float, float] | None = None) -> QRectF:
        """Where the legend sits (or would sit at ``offset``), in view-box pixels."""
        view = self.plot_item.getViewBox()
        size = self.legend.boundingRect()
        ox, oy = offset if offset is not None else self.legend.opts["offset"]
        width, height = view.width(), view.height()
        left = ox if ox >= 0 else width + ox - size.width()
        top = oy if oy >= 0 else height + oy - size.height()
        return QRectF(left, top, size.width(), size.height())

    def data_pixels(self) -> np.ndarray:
        """Every drawn point and error-bar end as (n, 2) view-box pixel coordinates.

        Mapped as arrays through the view's transform: a trace plot holds tens of thousands of
        points, and mapping them one ``QPointF`` at a time held the GUI thread for seconds.
        """
        xs, ys = [], []
        for s in self.series.values():
            x = np.asarray(s.x, dtype=float)
            for y in [s.y] + [b for b in (s.low, s.high) if b is not None and len(b) == len(s.x)]:
                xs.append(x)
                ys.append(np.asarray(y, dtype=float))
        if not xs:
            return np.zeros((0, 2))
        x, y = np.concatenate(xs), np.concatenate(ys)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self._log[0]:
                x = np.where(x > 0, np.log10(x), np.nan)
            if self._log[1]:
                y = np.where(y > 0, np.log10(y), np.nan)
        keep = np.isfinite(x) & np.isfinite(y)
        x, y = x[keep], y[keep]
        t = self.plot_item.getViewBox().childTransform()  # what ViewBox.mapFromView applies to one point
        px = t.m11() * x + t.m21() * y + t.dx()
        py = t.m12() * x + t.m22() * y + t.dy()
        if not t.isAffine():
            w = t.m13() * x + t.m23() * y + t.m33()
            px, py = px / w, py / w
        return np.column_stack([px, py])

    def legend_covers_data(self, offset: tuple[float, float] | None = None, pad: float = 8.0,
                           pixels: np.ndarray | None = None) -> bool:
        """Whether the legend (at ``offset``) hides a point, with ``pad`` pixels of room.

        ``pixels``: :meth:`data_pixels`, when the caller tries several offsets.
        """
        if self.legend is None or not self.legend.items:
            return False
        rect = self.legend_rect(offset).adjusted(-pad, -pad, pad, pad)
        pts = self.data_pixels() if pixels is None else pixels
        inside = ((pts[:, 0] >= rect.left()) & (pts[:, 0] <= rect.right())
                  & (pts[:, 1] >= rect.top()) & (pts[:, 1] <= rect.bottom()))
        return bool(inside.any())

    def keep_legend_clear(self, *_) -> None:
        """Move the legend to the first corner where it covers no point.

        Called whenever the range, the size or the legend entries change.
        When every corner is taken the legend stays top-right; plots that
        choose their own range (zoom) leave head-room for it instead, see
        :meth:`legend_headroom`.
        """
        if not self.auto_legend or not self.legend.items:
            return
        view = self.plot_item.getViewBox()
        if view.width() <= 0 or view.height() <= 0:
            return
        pixels = self.data_pixels()
        for offset in LEGEND_CORNERS:
            if not self.legend_covers_data(offset, pixels=pixels):
                break
        else:
            offset = LEGEND_CORNERS[0]
        if tuple(self.legend.opts["offset"]) != tuple(offset):
            self.legend.setOffset(offset)

    def legend_headroom(self, pad: float = 8.0) -> float:
        """Share of the plot height the legend band takes at the top (0 if none)."""
        if self.legend is None or not self.legend.items:
            return 0.0
        height = self.plot_item.getViewBox().height()
        if height <= 0:
            return 0.0
        return min(0.6, (self.legend.boundingRect().height() + LEGEND_MARGIN + pad) / height)

    def set_x_label(self, label: str, units: str | None = None) -> None:
        """Relabel the x axis (shown, and used as the CSV's column name)."""
        self.x_label = axis_text(label, units)
        self.plot_item.setLabel("bottom", self.x_label)

    def set_y_label(self, label: str, units: str | None = None) -> None:
        """Relabel the y axis (shown, and used as the CSV's column name)."""
        self.y_label = axis_text(label, units)
        self.plot_item.setLabel("left", self.y_label)

    def fit_y_below_legend(self, pad: float = 12.0) -> None:
        """The data's y range plus a free band at the top for the legend, so it never covers a point."""
        ys = np.concatenate([s.y for s in self.series.values() if len(s.y)] or [np.zeros(0)])
        ys = ys[np.isfinite(ys)]
        if not len(ys):
            self.plot_item.enableAutoRange(y=True)
            return
        lo, hi = float(ys.min()), float(ys.max())
        span = hi - lo if hi > lo else max(abs(hi), 1.0)
        room = min(self.legend_headroom(pad=pad), 0.6)
        self.plot_item.setYRange(lo - 0.05 * span, hi + span * (0.05 + room / max(1.0 - room, 0.4)), padding=0)

    def add_glossary(self, key: str) -> QToolButton:
        """A "?" button in the toolbar opening the glossary at the measure this plot shows."""
        from ..glossary_dialog import glossary_button

        button = glossary_button(key, self)
        self._toolbar.insertWidget(0, button)
        return button

    def add_tool_button(self, text: str, tooltip: str, *, checkable: bool = False) -> QToolButton:
        """An extra button in the plot's toolbar, left of the export buttons."""
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tooltip)
        button.setCheckable(checkable)
        button.setAutoRaise(True)
        self._toolbar.insertWidget(self._toolbar.count() - len(EXPORT_FORMATS), button)
        return button

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        super().resizeEvent(event)
        self.empty_label.setGeometry(self.plot_widget.rect().adjusted(60, 30, -20, -40))

    # --------------------------------------------------------------- export
    def export(self, path: str | Path) -> Path:
        """Write PNG, SVG or CSV (chosen by the suffix) atomically."""
        path = Path(path)
        fmt = path.suffix.lower().lstrip(".")
        if fmt == "png":
            data = self.png_bytes()
        elif fmt == "svg":
            data = self.svg_bytes()
        elif fmt == "csv":
            data = self.csv_text().encode("utf-8")
        else:
            raise ValueError(f"cannot export a plot as {path.suffix!r}; use .png, .svg or .csv")
        with atomic_write(path, "wb") as handle:
            handle.write(data)
        self.exported.emit(str(path))
        return path

    def png_bytes(self) -> bytes:
        image = self.plot_widget.grab().toImage()
        buffer = QBuffer()
        buffer.open(QIODevice.WriteOnly)
        image.save(buffer, "PNG")
        return bytes(buffer.data())

    def svg_bytes(self) -> bytes:
        """The plot as vector SVG, painted by Qt's own SVG generator.

        pyqtgraph's SVGExporter post-processes Qt's path syntax and breaks on
        the path format of recent Qt 6 releases (pyqtgraph issue #3485), so
        the scene is rendered straight into a QSvgGenerator instead.
        """
        from PySide6.QtGui import QPainter
        from PySide6.QtSvg import QSvgGenerator

        view = self.plot_widget
        buffer = QBuffer()
        buffer.open(QIODevice.WriteOnly)
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        # Same resolution as the screen: pyqtgraph draws symbols and labels in
        # device coordinates, which would otherwise be scaled apart from the axes.
        generator.setResolution(view.logicalDpiX())
        generator.setSize(view.size())
        generator.setViewBox(view.rect())
        generator.setTitle(self.title)
        generator.setDescription(f"{self.title}: {self.y_label} vs {self.x_label} (anonstudio)")
        painter = QPainter(generator)
        try:
            view.render(painter)
        finally:
            painter.end()
        return bytes(buffer.data())

    def csv_text(self) -> str:
        """Every series in long form: ``series, x, y, y_low, y_high``."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["series", self.x_label, self.y_label, "y_low", "y_high"])
        for s in self.series.values():
            if not s.in_csv:
                continue
            for i in range(len(s.x)):
                low = csv_number(s.low[i]) if s.low is not None else ""
                high = csv_number(s.high[i]) if s.high is not None else ""
                writer.writerow([s.name, csv_number(s.x[i]), csv_number(s.y[i]), low, high])
        return out.getvalue()

    def export_dialog(self, fmt: str) -> Path | None:
        """Ask for a file name and export; errors go to a message box."""
        from PySide6.QtWidgets import QMessageBox

        default = _slug(self.title) + "." + fmt
        name, _ = QFileDialog.getSaveFileName(self, f"Export {self.title}", default, EXPORT_FORMATS[fmt])
        if not name:
            return None
        if not name.lower().endswith("." + fmt):
            name += "." + fmt
        try:
            return self.export(name)
        except OSError as exc:
            QMessageBox.critical(self, "Export failed", with_next_step(f"Could not write {name}: {exc}"))
            return None


def csv_number(value: float) -> str:
    """A plot value as CSV text: integers without a decimal point, floats in full, nothing for NaN or inf."""
    if not math.isfinite(value):
        return ""
    return repr(int(value)) if float(value).is_integer() else repr(float(value))


def _slug(text: str) -> str:
    keep = "".join(c.lower() if c.isalnum() else "-" for c in text)
    return "-".join(filter(None, keep.split("-"))) or "plot"
