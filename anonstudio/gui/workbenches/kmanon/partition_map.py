"""Map of a generalization of located items: merged Voronoi cells per partition.

:class:`PartitionMap` draws, for one level of a k^m-anonymization, the union of
the Voronoi cells of each partition as one filled path, with the towers on
top. A slider steps through the levels ``l = 0..m`` (0 = the original cells,
one per tower). Hovering a partition shows its towers, size, the people who
were seen in it (support) and its area.

Drawing stays fast for a city of ~1,300 towers: the polygons and painter
paths of a level are built once, on first view, and cached; all partitions of
a level are painted by a single graphics item, and hover lookups go through a
k-d tree over the towers (a point lies in the cell of its nearest tower, which
is what a Voronoi cell is).
"""
from __future__ import annotations

import colorsys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import shapely
from PySide6.QtCore import QBuffer, QIODevice, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QCursor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSlider,
    QStackedLayout,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)
from scipy.spatial import cKDTree

from ....data.geo import PartitionGeometry, VoronoiCells
from ....data.io import atomic_write
from ...next_steps import with_next_step

__all__ = ["PartitionMap", "partition_color", "LevelLayer", "HOVER_TOWERS_SHOWN"]

#: Smallest height of the map drawing (pixels).
MIN_MAP_HEIGHT = 240
#: Width of the column beside the map (level slider, level text, legend, hover text).
SIDE_WIDTH = 230
#: Tower labels listed in a hover text before "… and N more".
HOVER_TOWERS_SHOWN = 12
_GOLDEN = 0.6180339887498949


def partition_color(partition_id: int) -> QColor:
    """A colour that depends on the partition id only (so it is stable across levels).

    Partition ids are the smallest item id of the partition; neighbouring ids
    get hues far apart (golden-ratio steps), and lightness varies in three
    steps so that two similar hues next to each other still differ.
    """
    pid = int(partition_id)
    hue = (pid * _GOLDEN) % 1.0
    saturation = (0.45, 0.6, 0.35)[pid % 3]
    value = (0.95, 0.82, 0.9)[(pid // 3) % 3]
    r, g, b = colorsys.hsv_to_rgb(hue, saturation, value)
    return QColor.fromRgbF(r, g, b)


#: Hatchings laid over the partitions' colours, so neighbouring partitions also differ without colour vision.
PATTERNS = (Qt.NoBrush, Qt.BDiagPattern, Qt.FDiagPattern, Qt.HorPattern, Qt.VerPattern, Qt.Dense6Pattern)


def partition_pattern(partition_id: int) -> Qt.BrushStyle:
    """A hatching that depends on the partition id only (stable across levels, like its colour).

    The step is coprime with the number of patterns and differs from the colour's golden-ratio step, so two
    partitions of similar colour rarely share a hatching too.
    """
    return PATTERNS[(int(partition_id) * 5) % len(PATTERNS)]


def _geometry_path(geom, scale: float) -> QPainterPath:
    """A fillable painter path of a (multi)polygon, coordinates times ``scale``."""
    rings = shapely.get_parts(shapely.get_rings(shapely.get_parts(geom)))
    xs, ys = [], []
    for ring in rings:
        xy = shapely.get_coordinates(ring) * scale
        xs += [xy[:, 0], [np.nan]]
        ys += [xy[:, 1], [np.nan]]
    if not xs:
        return QPainterPath()
    path = pg.arrayToQPath(np.concatenate(xs), np.concatenate(ys), connect="finite")
    # Holes (an enclosed partition) must stay unfilled.
    path.setFillRule(Qt.OddEvenFill)
    return path


@dataclass(eq=False)
class LevelLayer:
    """Everything drawn and looked up for one level (built once, then cached)."""

    labels: np.ndarray
    geometry: PartitionGeometry
    paths: list[QPainterPath]
    colors: list[QColor]
    supports: np.ndarray
    areas_km2: np.ndarray

    @property
    def n_partitions(self) -> int:
        return self.geometry.n_partitions


class _PartitionsItem(pg.GraphicsObject):
    """Paints every partition of a level as a filled path with a thin white edge."""

    def __init__(self):
        super().__init__()
        self._paths: list[QPainterPath] = []
        self._brushes: list[QBrush] = []
        self._rect = QRectF()
        self._hatches: list[QBrush] = []
        self._pen = QPen(QColor("white"))
        self._pen.setWidthF(1.2)
        self._pen.setCosmetic(True)  # device pixels at any zoom

    def set_layer(self, layer: LevelLayer | None) -> None:
        self.prepareGeometryChange()
        if layer is None:
            self._paths, self._brushes, self._hatches, self._rect = [], [], [], QRectF()
        else:
            self._paths = layer.paths
            self._brushes = [QBrush(c) for c in layer.colors]
            hatch = QColor(0, 0, 0, 90)
            self._hatches = [QBrush(hatch, partition_pattern(p)) for p in layer.geometry.partition_ids]
            rect = QRectF()
            for path in self._paths:
                rect = rect.united(path.boundingRect())
            self._rect = rect
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt naming)
        return self._rect

    def paint(self, painter, *args) -> None:
        painter.setPen(self._pen)
        for path, brush in zip(self._paths, self._brushes):
            painter.setBrush(brush)
            painter.drawPath(path)
        # Hatchings in device pixels (not stretched by the zoom), over the fills, under the white edges.
        painter.save()
        origin = painter.transform()
        for path, hatch in zip(self._paths, self._hatches):
            if hatch.style() != Qt.NoBrush:
                hatch.setTransform(origin.inverted()[0])
                painter.fillPath(path, hatch)
        painter.restore()


class PartitionMap(QWidget):
    """Partitions of located items on a map, one level at a time.

    Call :meth:`set_cells` with the Voronoi cells (or :meth:`set_unavailable`
    when the data has no coordinates), then :meth:`set_levels` with the item ->
    partition labels after each level (level 0, the original cells, is added
    automatically).

    Signals
    -------
    level_shown(int)
        The slider moved to a level.
    """

    level_shown = Signal(int)

    def __init__(self, parent: QWidget | None = None, *, item_word: str = "tower"):
        super().__init__(parent)
        self.item_word = item_word
        self.cells: VoronoiCells | None = None
        self.item_labels: Sequence[str] = ()
        self._records: tuple[np.ndarray, np.ndarray] | None = None
        self._levels: list[np.ndarray] = []
        self._notes: list[str] = []
        self._cache: dict[int, LevelLayer] = {}
        self._tree: cKDTree | None = None
        self._hover_part: int | None = None
        self._stale = False  # levels changed while hidden; drawn on show
        self.last_hover_text = ""

        self.plot = pg.PlotWidget()
        self.plot.setAccessibleName("Map of the published partitions")
        self.plot_item: pg.PlotItem = self.plot.getPlotItem()
        self.plot_item.setLabel("bottom", "west → east [km]")
        self.plot_item.setLabel("left", "south → north [km]")
        self.plot_item.showGrid(x=True, y=True, alpha=0.15)
        self.plot_item.setAspectLocked(True)
        self.plot_item.setTitle("Published partitions")
        # A squeezed map is unreadable; the page around it scrolls instead.
        self.plot.setMinimumHeight(MIN_MAP_HEIGHT)
        self.partitions_item = _PartitionsItem()
        self.plot_item.addItem(self.partitions_item)
        self.highlight = pg.QtWidgets.QGraphicsPathItem()
        pen = QPen(QColor("#111111"))
        pen.setWidthF(2.5)
        pen.setCosmetic(True)
        self.highlight.setPen(pen)
        self.highlight.setBrush(Qt.NoBrush)
        self.highlight.setZValue(5)
        self.plot_item.addItem(self.highlight)
        self.towers = pg.ScatterPlotItem(size=4, pen=None, brush=pg.mkBrush("#222222"), hoverable=False)
        self.towers.setZValue(10)
        self.plot_item.addItem(self.towers)
        self.plot.scene().sigMouseMoved.connect(self._on_mouse_moved)

        self.slider = QSlider(Qt.Horizontal)
        self.slider.setObjectName("level_slider")
        self.slider.setRange(0, 0)
        self.slider.setPageStep(1)
        self.slider.setTickPosition(QSlider.TicksBelow)
        self.slider.setTickInterval(1)
        self.slider.setToolTip("Before / after: 0 shows the original cells (one per tower); "
                               "ℓ shows the partitions after protecting against ℓ known towers.")
        self.slider.valueChanged.connect(self.show_level)
        self.level_label = QLabel()
        self.level_label.setObjectName("level_label")
        self.level_label.setWordWrap(True)
        self.info_label = QLabel()
        self.info_label.setObjectName("hover_info")
        self.info_label.setWordWrap(True)
        self.info_label.setTextFormat(Qt.PlainText)
        self.info_label.setProperty("role", "note")
        # Room for the three lines of a hover text, so the layout does not jump.
        self.info_label.setMinimumHeight(3 * self.info_label.fontMetrics().lineSpacing())
        self.legend_label = QLabel(
            f"Colour and hatching = one partition ({item_word}s published under one name; it keeps both from level "
            f"to level; white lines mark where two meet) · dots = {item_word}s · hover for details · drag to pan, "
            "wheel to zoom.")
        self.legend_label.setWordWrap(True)
        self.legend_label.setProperty("role", "note")

        self.save_button = QToolButton()
        self.save_button.setText("Save map…")
        self.save_button.setToolTip("Save the map as shown (PNG or SVG).")
        self.save_button.setAutoRaise(True)
        self.save_button.clicked.connect(self._save_dialog)
        self.slider_end_label = QLabel("ℓ = 0")
        slider_row = QHBoxLayout()
        slider_row.addWidget(QLabel("ℓ = 0"))
        slider_row.addWidget(self.slider, 1)
        slider_row.addWidget(self.slider_end_label)
        # The map takes the tab's height; the level slider and the texts stand in a column beside it,
        # so a short window shrinks the map instead of drawing texts over its axes.
        side = QWidget()
        side.setMinimumWidth(SIDE_WIDTH)
        side.setMaximumWidth(SIDE_WIDTH + 80)
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(6, 0, 0, 0)
        side_layout.addWidget(QLabel("<b>Level</b> (0 = the original cells)"))
        side_layout.addLayout(slider_row)
        side_layout.addWidget(self.level_label)
        side_layout.addWidget(self.legend_label)
        side_layout.addWidget(self.info_label)
        side_layout.addStretch(1)
        side_layout.addWidget(self.save_button, 0, Qt.AlignLeft)
        map_page = QWidget()
        layout = QHBoxLayout(map_page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot, 1)
        layout.addWidget(side)

        self.unavailable_label = QLabel()
        self.unavailable_label.setObjectName("map_unavailable")
        self.unavailable_label.setWordWrap(True)
        self.unavailable_label.setAlignment(Qt.AlignCenter)
        self.unavailable_label.setProperty("role", "empty")
        self.unavailable_button = QPushButton()
        self.unavailable_button.setObjectName("map_unavailable_action")
        self.unavailable_button.setAccessibleName("Make the map available")
        self.unavailable_button.setVisible(False)
        self.unavailable_button.clicked.connect(self._unavailable_action)
        self._action: Callable[[], None] | None = None
        unavailable_page = QWidget()
        page_layout = QVBoxLayout(unavailable_page)
        page_layout.addStretch(1)
        page_layout.addWidget(self.unavailable_label)
        page_layout.addWidget(self.unavailable_button, 0, Qt.AlignHCenter)
        page_layout.addStretch(1)
        self._stack = QStackedLayout(self)
        self._stack.addWidget(map_page)
        self._stack.addWidget(unavailable_page)

    # ------------------------------------------------------------ set up
    @property
    def available(self) -> bool:
        return self.cells is not None and self._stack.currentIndex() == 0

    def set_unavailable(self, message: str, action: tuple[str, Callable[[], None]] | None = None) -> None:
        """No map (e.g. no coordinates): show ``message`` and optionally a button ``(text, callback)``."""
        self.cells = None
        self._tree = None
        self._clear_levels()
        self.unavailable_label.setText(message)
        self._action = action[1] if action else None
        self.unavailable_button.setText(action[0] if action else "")
        self.unavailable_button.setAccessibleName(action[0] if action else "Make the map available")
        self.unavailable_button.setVisible(action is not None)
        self._stack.setCurrentIndex(1)

    def _unavailable_action(self) -> None:
        if self._action is not None:
            self._action()

    def set_cells(self, cells: VoronoiCells, item_labels: Sequence[str], indptr: np.ndarray,
                  indices: np.ndarray) -> None:
        """The cells of the items and the records (CSR), for supports; shows level 0."""
        self.cells = cells
        self.item_labels = item_labels
        self._records = (indptr, indices)
        self._tree = cKDTree(cells.coords)
        self._clear_levels()
        xy = cells.coords / 1000.0
        self.towers.setData(x=xy[:, 0], y=xy[:, 1])
        self._stack.setCurrentIndex(0)
        self.set_levels([])
        self.plot_item.autoRange()

    def _clear_levels(self) -> None:
        self._levels = []
        self._notes = []
        self._cache.clear()
        self._hover_part = None
        self.highlight.setPath(QPainterPath())
        self.partitions_item.set_layer(None)
        self.towers.setData(x=[], y=[])
        self.info_label.clear()

    def set_levels(self, labels: Sequence[np.ndarray], notes: Sequence[str] = ()) -> None:
        """Item -> partition labels after levels 1, 2, ...; ``notes[l - 1]`` is appended to the caption.

        Cached drawings of unchanged levels are kept. If the slider showed the
        last level, it follows to the new last one (live runs).
        """
        if self.cells is None:
            return
        identity = np.arange(self.cells.n_items, dtype=np.int32)
        new = [identity] + [np.asarray(lv) for lv in labels]
        for ell in list(self._cache):
            if ell >= len(new) or not np.array_equal(self._cache[ell].labels, new[ell]):
                del self._cache[ell]
        follow = self.slider.value() == self.slider.maximum()
        self._levels = new
        self._notes = [""] + list(notes) + [""] * max(0, len(labels) - len(notes))
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(new) - 1)
        self.slider_end_label.setText(f"ℓ = {len(new) - 1}")
        if follow:
            self.slider.setValue(len(new) - 1)
        self.slider.blockSignals(False)
        self.show_level(self.slider.value())

    @property
    def n_levels(self) -> int:
        """Levels the slider offers, including level 0."""
        return len(self._levels)

    # ------------------------------------------------------------ drawing
    def layer(self, ell: int) -> LevelLayer:
        """The (cached) drawing of level ``ell``."""
        layer = self._cache.get(ell)
        if layer is None:
            labels = self._levels[ell]
            geometry = PartitionGeometry(self.cells, labels)
            polygons = geometry.polygons
            paths = [_geometry_path(p, 1e-3) for p in polygons]
            colors = [partition_color(int(p)) for p in geometry.partition_ids]
            supports = geometry.supports(*self._records) if self._records is not None else np.zeros(len(paths))
            layer = LevelLayer(labels, geometry, paths, colors, supports, geometry.areas_km2)
            self._cache[ell] = layer
        return layer

    def show_level(self, ell: int) -> None:
        """Draw level ``ell`` (0 = original cells) and update the caption."""
        if self.cells is None or not self._levels:
            return
        ell = int(min(max(ell, 0), len(self._levels) - 1))
        if self.slider.value() != ell:
            self.slider.blockSignals(True)
            self.slider.setValue(ell)
            self.slider.blockSignals(False)
        # Polygons are built only for a map on screen: every tab receives each
        # dataset, and building a big city's cells for a hidden tab would stall loading.
        self._stale = not self.isVisible()
        if not self._stale:
            self.partitions_item.set_layer(self.layer(ell))
        self._hover_part = None
        self.highlight.setPath(QPainterPath())
        n_items = self.cells.n_items
        word = self.item_word
        if ell == 0:
            text = f"ℓ = 0: the original data, one Voronoi cell per {word} ({n_items:,} {word}s)."
        else:
            parts = len(np.unique(self._levels[ell]))
            text = (f"ℓ = {ell}: after protecting against an attacker who knows up to {ell} {word}"
                    f"{'s' if ell > 1 else ''} of a person: {parts:,} partitions (from {n_items:,} {word}s).")
        note = self._notes[ell] if ell < len(self._notes) else ""
        self.level_label.setText(f"{text} {note}".strip())
        self.plot_item.setTitle(f"Published partitions, level ℓ = {ell}")
        self.level_shown.emit(ell)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        super().showEvent(event)
        if self._stale and self.cells is not None and self._levels:
            self.show_level(self.slider.value())

    @property
    def shown_level(self) -> int:
        return self.slider.value()

    def save_image(self, path: str | Path) -> Path:
        """The map as PNG (or SVG by suffix), written atomically."""
        path = Path(path)
        if path.suffix.lower() == ".svg":
            from PySide6.QtSvg import QSvgGenerator

            buffer = QBuffer()
            buffer.open(QIODevice.WriteOnly)
            generator = QSvgGenerator()
            generator.setOutputDevice(buffer)
            generator.setSize(self.plot.size())
            generator.setViewBox(self.plot.rect())
            generator.setTitle(self.plot_item.titleLabel.text)
            painter = QPainter(generator)
            try:
                self.plot.render(painter)
            finally:
                painter.end()
        else:
            buffer = QBuffer()
            buffer.open(QIODevice.WriteOnly)
            self.plot.grab().toImage().save(buffer, "PNG")
        with atomic_write(path, "wb") as handle:
            handle.write(bytes(buffer.data()))
        return path

    def _save_dialog(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "Save map", "partition-map.png",
                                              "PNG image (*.png);;SVG vector image (*.svg)")
        if name:
            try:
                self.save_image(name)
            except OSError as exc:
                QMessageBox.critical(self, "Save failed", with_next_step(f"Could not write {name}: {exc}"))

    @property
    def drawn_partitions(self) -> int:
        """Partitions painted right now."""
        return len(self.partitions_item._paths)

    # -------------------------------------------------------------- hover
    def partition_at(self, x_km: float, y_km: float) -> int | None:
        """Index (into the shown level's partitions) under a map point, or None outside the area."""
        if self._tree is None or not self._levels:
            return None
        x, y = x_km * 1000.0, y_km * 1000.0
        if not self.cells.boundary.covers(shapely.Point(x, y)):
            return None
        _, item = self._tree.query([x, y])
        return int(self.layer(self.shown_level).geometry.part_of_item[int(item)])

    def hover_text(self, part: int) -> str:
        """Plain text about one partition of the shown level."""
        layer = self.layer(self.shown_level)
        members = layer.geometry.members(part)
        names = [str(self.item_labels[i]) for i in members[:HOVER_TOWERS_SHOWN]]
        more = len(members) - len(names)
        listed = ", ".join(names) + (f" … and {more:,} more" if more > 0 else "")
        word = self.item_word
        return (f"Partition of {len(members):,} {word}{'s' if len(members) != 1 else ''}: {listed}\n"
                f"People seen in it (support): {int(layer.supports[part]):,}\n"
                f"Area: {float(layer.areas_km2[part]):.3f} km²")

    def hover_text_at(self, x_km: float, y_km: float) -> str:
        part = self.partition_at(x_km, y_km)
        return "" if part is None else self.hover_text(part)

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        if not self.available or not self._levels:
            return
        vb = self.plot_item.getViewBox()
        if not vb.sceneBoundingRect().contains(scene_pos):
            self._set_hover(None, "")
            return
        point = vb.mapSceneToView(scene_pos)
        part = self.partition_at(point.x(), point.y())
        self._set_hover(part, "" if part is None else self.hover_text(part))

    def _set_hover(self, part: int | None, text: str) -> None:
        if part != self._hover_part:
            self._hover_part = part
            path = self.layer(self.shown_level).paths[part] if part is not None else QPainterPath()
            self.highlight.setPath(path)
        self.last_hover_text = text
        self.info_label.setText(text)
        if text:
            QToolTip.showText(QCursor.pos(), text, self.plot)
        else:
            QToolTip.hideText()
