"""The generalization graph and its assignments, drawn for small data (the paper's Figs. 1-2).

For training: why does nonreciprocal recoding keep privacy without groups?
Every person is linked to k published records (the graph is k-regular: k
links out of every person, k into every published record). The links split
into k disjoint assignments (colours); one of them, drawn at random, is the
truth (thick). Whoever knows a person's items sees k published records that
fit, each equally likely to be theirs, even knowing the algorithm.

Two views, as in the paper: *bipartite* (people on the left, published
records on the right, both in the order the ring was built on) and *unified*
(one node per person and their published record, on a circle in that order;
a link from a node to itself is a loop). Click a person to single out their
links; the published records that fit them without a link (possible worlds
are wider than the graph) are dashed.

Drawn only up to :data:`MAX_GRAPH_RECORDS` records; the pictures show the
true assignment, so saving one asks first, like the audit files.
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from ....data.io import atomic_write
from ....formatting import integer
from ....methods.nonreciprocal.publish import world_slots
from ....methods.nonreciprocal.result import NonreciprocalResult
from ....methods.nonreciprocal.spec import AUDIT_WARNING
from ...controls import narrow_combo, note_label, save_file_dialog
from ...next_steps import with_next_step
from ...plots import PALETTE

__all__ = ["GraphData", "GraphCanvas", "GraphView", "MAX_GRAPH_RECORDS", "BIPARTITE", "UNIFIED", "ALL", "TRUE"]

#: Largest dataset whose graph is drawn.
MAX_GRAPH_RECORDS = 60
BIPARTITE, UNIFIED = "bipartite", "unified"
ALL, TRUE = "all", "true"
PRIME = "′"
FADED = 40
LEGEND_ROW = 20
#: Pixels kept outside the unified view's circle for loops and names.
LABEL_ROOM = 56


@dataclass(frozen=True, eq=False)
class GraphData:
    """What the drawing needs from a finished run (people and published records by index from 0; ``names`` are
    the numbers, from 1, or identifiers the release names them by).

    ``edges`` is ``(person, published record, assignment)`` per link; ``worlds[u]``
    the published records whose possible worlds include person ``u``.
    """

    names: tuple[str, ...]
    order: np.ndarray
    edges: np.ndarray
    m: int
    chosen: int
    worlds: tuple[np.ndarray, ...]
    items: tuple[str, ...]
    published: tuple[str, ...]
    person_labels: tuple[str, ...] | None = None
    slot_labels: tuple[str, ...] | None = None
    mode: str = "k"

    @property
    def n(self) -> int:
        return len(self.names)

    @classmethod
    def from_result(cls, result: NonreciprocalResult, data: Any) -> GraphData | None:
        """None unless the run extracted its assignments and has at most :data:`MAX_GRAPH_RECORDS` records."""
        if (result.assignments is None or result.chosen is None or result.graph is None
                or result.n_records > MAX_GRAPH_RECORDS or result.published is None):
            return None
        n, m = result.n_records, result.m
        asg = result.assignments
        edges = np.array([(u, int(asg[r, u]), r) for u in range(n) for r in range(m)], dtype=np.int64)
        order = result.ring_order if result.ring_order is not None else result.order
        vocab = result.vocab
        items = tuple(", ".join(vocab[i] for i in data.record(u).tolist()) or "(no items)" for u in range(n))
        pub = result.published
        published = tuple(
            f"base: {', '.join(vocab[i] for i in pub.base(j).tolist()) or '(none)'}\n"
            f"distance items: {', '.join(vocab[i] for i in pub.distance(j).tolist()) or '(none)'}\n"
            f"threshold: {int(pub.threshold[j])}" for j in range(n))
        person_labels = slot_labels = None
        if result.labels is not None:
            person_labels = tuple(result.labels.names[int(c)] for c in result.labels.codes)
            if result.slot_labels is not None:
                slot_labels = tuple(result.labels.names[int(c)] for c in result.slot_labels)
        worlds = tuple(world_slots(pub, data.record(u)) for u in range(n))
        return cls(tuple(result.record_name(u) for u in range(n)), np.asarray(order, dtype=np.int64), edges, m,
                   int(result.chosen), worlds, items, published, person_labels, slot_labels, result.mode)


class GraphCanvas(QWidget):
    """Paints a :class:`GraphData` in the bipartite or unified view; click a person to single them out.

    Signals
    -------
    person_clicked(int)
        The person clicked (the record's index, from 0), -1 when the click hit no person.
    """

    person_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.graph: GraphData | None = None
        self.view = BIPARTITE
        self.show_edges: str | int = ALL
        self.selected: int | None = None
        self._people: dict[int, QPointF] = {}
        self._slots: dict[int, QPointF] = {}
        self._radius = 8.0
        self.setMouseTracking(True)
        self.setMinimumSize(260, 200)
        self.setAutoFillBackground(True)
        palette = self.palette()
        palette.setColor(self.backgroundRole(), QColor("#ffffff"))
        self.setPalette(palette)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt naming)
        return QSize(520, 360)

    # ------------------------------------------------------------ state
    def set_graph(self, graph: GraphData | None) -> None:
        self.graph = graph
        self.selected = None
        self.update()

    def set_view(self, view: str) -> None:
        self.view = view
        self.update()

    def set_show(self, show: str | int) -> None:
        self.show_edges = show
        self.update()

    def select(self, person: int | None) -> None:
        self.selected = person
        self.update()

    def visible_edges(self) -> np.ndarray:
        """The links drawn under the current choice, as rows of ``(person, published record, assignment)``."""
        g = self.graph
        if g is None:
            return np.zeros((0, 3), dtype=np.int64)
        if self.show_edges == ALL:
            return g.edges
        r = g.chosen if self.show_edges == TRUE else int(self.show_edges)
        return g.edges[g.edges[:, 2] == r]

    # ------------------------------------------------------------ layout
    def _layout(self, rect: QRectF) -> None:
        g = self.graph
        self._people, self._slots = {}, {}
        n = g.n
        position = np.empty(n, dtype=np.int64)
        position[g.order] = np.arange(n)
        legend = LEGEND_ROW + 6
        if self.view == BIPARTITE:
            top, bottom = rect.top() + 30, rect.bottom() - legend
            spacing = (bottom - top) / max(n, 1)
            self._radius = max(3.0, min(12.0, spacing * 0.36))
            x_people, x_slots = rect.left() + rect.width() * 0.3, rect.left() + rect.width() * 0.7
            for u in range(n):
                y = top + (position[u] + 0.5) * spacing
                self._people[u] = QPointF(x_people, y)
                self._slots[u] = QPointF(x_slots, y)
        else:
            top = rect.top() + 8
            height = rect.bottom() - legend - top
            center = QPointF(rect.center().x(), top + height / 2)
            # Room outside the circle for the loops and the names (up to LABEL_ROOM pixels).
            radius = max(20.0, min(rect.width(), height) / 2 - LABEL_ROOM)
            self._radius = max(3.0, min(13.0, math.pi * radius / max(n, 1) * 0.42))
            for u in range(n):
                angle = -math.pi / 2 + 2 * math.pi * position[u] / n
                point = QPointF(center.x() + radius * math.cos(angle), center.y() + radius * math.sin(angle))
                self._people[u] = point
                self._slots[u] = point
            self._center = center

    # ------------------------------------------------------------ painting
    def paintEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        painter = QPainter(self)
        self.render_graph(painter, QRectF(self.rect()))
        painter.end()

    def render_graph(self, painter: QPainter, rect: QRectF) -> None:
        """Draw the graph into ``rect`` (the widget, a picture export)."""
        painter.setRenderHint(QPainter.Antialiasing, True)
        painter.fillRect(rect, QColor("#ffffff"))
        g = self.graph
        if g is None:
            return
        self._layout(rect)
        font = QFont(painter.font())
        font.setPointSizeF(max(7.0, min(10.0, self._radius * 0.9 + 2)))
        painter.setFont(font)
        if self.view == BIPARTITE:
            painter.setPen(QColor("#444444"))
            bold = QFont(font)
            bold.setBold(True)
            painter.setFont(bold)
            painter.drawText(QRectF(rect.left(), rect.top() + 4, rect.width() * 0.5, 20), Qt.AlignCenter,
                             "people (original records)")
            painter.drawText(QRectF(rect.left() + rect.width() * 0.5, rect.top() + 4, rect.width() * 0.5, 20),
                             Qt.AlignCenter, "published records")
            painter.setFont(font)
        if self.selected is not None:
            self._draw_world_extras(painter, self.selected)
        edges = self.visible_edges()
        # Faded links first, the picked person's and the true assignment's on top.
        keyed = sorted(edges.tolist(), key=lambda e: (self.selected is not None and e[0] == self.selected,
                                                       e[2] == g.chosen))
        for u, j, r in keyed:
            self._draw_edge(painter, u, j, r)
        self._draw_nodes(painter)
        self._draw_legend(painter, rect)

    def _edge_pen(self, u: int, r: int) -> QPen:
        g = self.graph
        color = QColor(PALETTE[r % len(PALETTE)])
        if self.selected is not None and u != self.selected:
            color.setAlpha(FADED)
        width = 3.4 if r == g.chosen else 1.5
        return QPen(color, width)

    def _draw_edge(self, painter: QPainter, u: int, j: int, r: int) -> None:
        pen = self._edge_pen(u, r)
        painter.setPen(pen)
        painter.setBrush(Qt.NoBrush)
        start, end = self._people[u], self._slots[j]
        rad = self._radius
        if self.view == BIPARTITE:
            painter.drawLine(QPointF(start.x() + rad, start.y()), QPointF(end.x() - rad, end.y()))
            return
        if u == j:
            out = start - self._center
            length = math.hypot(out.x(), out.y()) or 1.0
            unit = QPointF(out.x() / length, out.y() / length)
            loop = start + unit * (rad * 1.6)
            painter.drawEllipse(loop, rad * 0.9, rad * 0.9)
            return
        mid = (start + end) / 2
        normal = QPointF(-(end.y() - start.y()), end.x() - start.x())
        length = math.hypot(normal.x(), normal.y()) or 1.0
        # Pulled towards the centre and a little to one side, so u->j and j->u never coincide.
        control = mid * 0.65 + self._center * 0.35 + normal * (0.08 * rad / length * 4)
        direction = end - control
        d = math.hypot(direction.x(), direction.y()) or 1.0
        tip = end - direction * (rad / d)
        path = QPainterPath(start)
        path.quadTo(control, tip)
        painter.drawPath(path)
        self._arrow(painter, tip, direction / d, pen.color())

    @staticmethod
    def _arrow(painter: QPainter, tip: QPointF, unit: QPointF, color: QColor) -> None:
        size = 7.0
        back = tip - unit * size
        side = QPointF(-unit.y(), unit.x()) * (size * 0.45)
        painter.setBrush(color)
        painter.setPen(Qt.NoPen)
        painter.drawPolygon(QPolygonF([tip, back + side, back - side]))
        painter.setBrush(Qt.NoBrush)

    def _draw_world_extras(self, painter: QPainter, u: int) -> None:
        """Dashed lines to the published records that fit person ``u`` without a link."""
        g = self.graph
        linked = set(g.edges[g.edges[:, 0] == u, 1].tolist())
        painter.setPen(QPen(QColor("#7a7a7a"), 1.6, Qt.DashLine))
        for j in g.worlds[u].tolist():
            if j in linked:
                continue
            if self.view == BIPARTITE or j != u:
                start, end = self._people[u], self._slots[j]
                if self.view == BIPARTITE:
                    start, end = QPointF(start.x() + self._radius, start.y()), QPointF(end.x() - self._radius,
                                                                                         end.y())
                painter.drawLine(start, end)

    def _draw_nodes(self, painter: QPainter) -> None:
        g = self.graph
        rad = self._radius
        show_labels = rad >= 5.5 or g.n <= 24
        for u in range(g.n):
            picked = self.selected == u
            for point, is_slot in ((self._people[u], False), (self._slots[u], True)):
                if self.view == UNIFIED and is_slot:
                    continue
                fill = QColor("#fde8c8" if picked else ("#e8f0f8" if is_slot else "#ffffff"))
                painter.setPen(QPen(QColor("#b35c00" if picked else "#333333"), 2.0 if picked else 1.2))
                painter.setBrush(fill)
                painter.drawEllipse(point, rad, rad)
                if not show_labels:
                    continue
                painter.setPen(QColor("#111111"))
                text = self._node_text(u, is_slot)
                width = 150.0
                if self.view == BIPARTITE:
                    box = (QRectF(point.x() - rad - 6 - width, point.y() - 10, width, 20) if not is_slot else
                           QRectF(point.x() + rad + 6, point.y() - 10, width, 20))
                    painter.drawText(box, (Qt.AlignRight if not is_slot else Qt.AlignLeft) | Qt.AlignVCenter, text)
                else:
                    out = point - self._center
                    length = math.hypot(out.x(), out.y()) or 1.0
                    anchor = point + out * (min(rad * 2.6 + 12, LABEL_ROOM - 10) / length)
                    box = QRectF(anchor.x() - width / 2, anchor.y() - 10, width, 20)
                    painter.drawText(box, Qt.AlignCenter, text)

    def _node_text(self, u: int, is_slot: bool) -> str:
        g = self.graph
        name = g.names[u]
        if is_slot:
            text = f"r{PRIME}{name}"
            if g.slot_labels is not None:
                text += f" · {g.slot_labels[u]}"
            return text
        text = f"r{name}" if self.view == BIPARTITE else f"r{name} / r{PRIME}{name}"
        if g.person_labels is not None and self.view == BIPARTITE:
            text = f"{g.person_labels[u]} · {text}"
        return text

    def _draw_legend(self, painter: QPainter, rect: QRectF) -> None:
        g = self.graph
        y = rect.bottom() - LEGEND_ROW + 4
        x = rect.left() + 8
        painter.setPen(QColor("#333333"))
        painter.drawText(QRectF(x, y - 8, 90, 16), Qt.AlignLeft | Qt.AlignVCenter, "assignments:")
        x += 86
        shown = {int(r) for r in np.unique(self.visible_edges()[:, 2])}
        for r in range(g.m):
            if x > rect.right() - 60:
                painter.setPen(QColor("#333333"))
                painter.drawText(QRectF(x, y - 8, 40, 16), Qt.AlignLeft | Qt.AlignVCenter, "…")
                break
            color = QColor(PALETTE[r % len(PALETTE)])
            if r not in shown:
                color.setAlpha(FADED)
            painter.setPen(QPen(color, 3.4 if r == g.chosen else 1.5))
            painter.drawLine(QPointF(x, y), QPointF(x + 18, y))
            label = f"{r + 1}" + (" (true)" if r == g.chosen else "")
            painter.setPen(QColor("#333333"))
            width = painter.fontMetrics().horizontalAdvance(label) + 6
            painter.drawText(QRectF(x + 22, y - 8, width, 16), Qt.AlignLeft | Qt.AlignVCenter, label)
            x += 28 + width

    # ------------------------------------------------------------ mouse
    def person_position(self, person: int) -> QPointF:
        """Where person ``person``'s node is drawn at the widget's current size."""
        self._layout(QRectF(self.rect()))
        return QPointF(self._people[person])

    def person_at(self, point: QPointF) -> int | None:
        """The person whose node is under ``point`` (widget coordinates), if any."""
        return self._node_at(point, slots=False)

    def slot_at(self, point: QPointF) -> int | None:
        """The published record whose node is under ``point``, if any."""
        return self._node_at(point, slots=True)

    def _node_at(self, point: QPointF, slots: bool) -> int | None:
        self._layout(QRectF(self.rect()))
        best, best_d = None, (self._radius + 4) ** 2
        for index, p in (self._slots if slots else self._people).items():
            d = (p.x() - point.x()) ** 2 + (p.y() - point.y()) ** 2
            if d <= best_d:
                best, best_d = index, d
        return best

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        if self.graph is None:
            return
        person = self.person_at(event.position())
        self.selected = None if person is None or person == self.selected else person
        self.update()
        self.person_clicked.emit(-1 if self.selected is None else self.selected)

    def event(self, event) -> bool:
        if event.type() == event.Type.ToolTip and self.graph is not None:
            g = self.graph
            point = QPointF(event.pos())
            person = self.person_at(point)
            slot = self.slot_at(point) if self.view == BIPARTITE else None
            if person is not None and (self.view == UNIFIED or slot is None):
                text = f"person r{g.names[person]}: {g.items[person]}"
                if self.view == UNIFIED:
                    text += f"\npublished r{PRIME}{g.names[person]}:\n{g.published[person]}"
                QToolTip.showText(event.globalPos(), text, self)
            elif slot is not None:
                QToolTip.showText(event.globalPos(), f"published r{PRIME}{g.names[slot]}:\n{g.published[slot]}", self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)

    # ------------------------------------------------------------ pictures
    def picture(self, fmt: str) -> bytes:
        """The drawing as PNG or SVG bytes."""
        if fmt == "png":
            image = self.grab().toImage()
            buffer = QBuffer()
            buffer.open(QIODevice.WriteOnly)
            image.save(buffer, "PNG")
            return bytes(buffer.data())
        from PySide6.QtSvg import QSvgGenerator

        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.WriteOnly)
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        generator.setSize(self.size())
        generator.setViewBox(self.rect())
        generator.setTitle("Generalization graph (anonstudio)")
        painter = QPainter(generator)
        try:
            self.render_graph(painter, QRectF(self.rect()))
        finally:
            painter.end()
        return bytes(buffer.data())


def explanation(graph: GraphData | None, selected: int | None) -> str:
    """The text under the drawing: how to read it, and the picked person's links."""
    if graph is None:
        return ""
    symbol = "k" if graph.mode == "k" else "ℓ"
    text = (f"Every person r links to {graph.m} published records r{PRIME} (each record has {graph.m} links in): "
            f"the graph is {graph.m}-regular, so it splits into {graph.m} disjoint assignments (colours). One, "
            "drawn at random, is the truth (thick). Someone who knows a person's items finds at least "
            f"{symbol} = {graph.m} published records that fit; the person's {graph.m} links are each equally likely "
            "to be the true one. "
            "Click a person to single out their links.")
    if selected is None:
        return text
    links = graph.edges[graph.edges[:, 0] == selected]
    linked = ", ".join(f"r{PRIME}{graph.names[j]}" for j in sorted(links[:, 1].tolist()))
    extra = [j for j in graph.worlds[selected].tolist() if j not in set(links[:, 1].tolist())]
    name = graph.names[selected]
    more = (f" Also fitting without a link (dashed): {', '.join(f'r{PRIME}{graph.names[j]}' for j in extra)}."
            if extra else "")
    return (f"<b>r{html.escape(name)}</b> (person {selected + 1} in the release view; "
            f"{html.escape(graph.items[selected])}) could be {html.escape(linked)} — one of them, by assignment, is "
            f"theirs.{html.escape(more)}")


class GraphView(QWidget):
    """Controls, the canvas and its explanation; for larger data a message and the worked-example button.

    Signals
    -------
    example_requested()
        The user asked for the paper's worked example.
    """

    example_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.canvas = GraphCanvas()
        self.canvas.setObjectName("graph_canvas")
        self.canvas.person_clicked.connect(self._person_clicked)
        self.view_combo = narrow_combo(QComboBox(), 12)
        self.view_combo.setObjectName("graph_view")
        self.view_combo.addItem("bipartite: people → published records", BIPARTITE)
        self.view_combo.addItem("unified: one node per person and record", UNIFIED)
        self.view_combo.setToolTip("Bipartite: people on the left, published records on the right (paper Fig. 1, "
                                   "left). Unified: one node stands for a person and their own published record, "
                                   "as in the paper's Figs. 1-2 (right); a loop links a person to their own record.")
        self.view_combo.currentIndexChanged.connect(lambda: self.canvas.set_view(self.view_combo.currentData()))
        self._view_chosen = False
        self.view_combo.activated.connect(lambda _=None: setattr(self, "_view_chosen", True))
        self.show_combo = narrow_combo(QComboBox(), 12)
        self.show_combo.setObjectName("graph_show")
        self.show_combo.setToolTip("Which links to draw: the whole graph (every assignment in its colour, the true "
                                   "one thick), only the true assignment, or one assignment.")
        self.show_combo.currentIndexChanged.connect(lambda: self.canvas.set_show(self.show_combo.currentData()))
        self.save_button = QPushButton("Save picture…")
        self.save_button.setToolTip("Save the drawing as PNG or SVG (it shows the true assignment: an audit "
                                    "picture).")
        self.save_button.clicked.connect(self.save_dialog)
        self.text = note_label("", "body")
        self.text.setObjectName("graph_text")
        controls = QHBoxLayout()
        controls.addWidget(QLabel("View"))
        controls.addWidget(self.view_combo, 1)
        controls.addWidget(QLabel("Links"))
        controls.addWidget(self.show_combo, 1)
        controls.addWidget(self.save_button)
        drawing = QWidget()
        drawing_layout = QVBoxLayout(drawing)
        drawing_layout.setContentsMargins(0, 0, 0, 0)
        drawing_layout.addLayout(controls)
        drawing_layout.addWidget(self.canvas, 1)
        drawing_layout.addWidget(self.text)

        self.message = note_label("", "body")
        self.message.setObjectName("graph_message")
        self.message.setAlignment(Qt.AlignCenter)
        self.example_button = QPushButton("Open the paper's worked example (6 people)")
        self.example_button.setObjectName("graph_example")
        self.example_button.setToolTip("Loads the bundled sample “sports-example” (the paper's Table 1), sets "
                                       "k = 3 and publishes it, then shows its graph here.")
        self.example_button.clicked.connect(self.example_requested)
        waiting = QWidget()
        waiting_layout = QVBoxLayout(waiting)
        waiting_layout.addStretch(1)
        waiting_layout.addWidget(self.message)
        waiting_layout.addWidget(self.example_button, 0, Qt.AlignHCenter)
        waiting_layout.addStretch(2)
        self.stack = QStackedWidget()
        self.stack.addWidget(waiting)
        self.stack.addWidget(drawing)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self.set_waiting(None)

    @property
    def graph(self) -> GraphData | None:
        return self.canvas.graph

    def set_waiting(self, n_records: int | None) -> None:
        """No drawing: why (no run yet, or too many records) and the worked-example button."""
        self.canvas.set_graph(None)
        if n_records is not None and n_records > MAX_GRAPH_RECORDS:
            text = (f"The graph is drawn for datasets of at most {MAX_GRAPH_RECORDS} records; this one has "
                    f"{integer(n_records)}. To explain how nonreciprocal recoding keeps privacy, open the paper's "
                    "worked example:")
        else:
            text = ("After a run on a small dataset (at most 60 records) the generalization graph and its true "
                    "assignment are drawn here. To see it at once, open the paper's worked example:")
        self.message.setText(text)
        self.stack.setCurrentIndex(0)

    def set_graph(self, graph: GraphData) -> None:
        self.canvas.set_graph(graph)
        current = self.show_combo.currentData()
        self.show_combo.blockSignals(True)
        self.show_combo.clear()
        self.show_combo.addItem(f"all {graph.m} assignments (the true one thick)", ALL)
        self.show_combo.addItem("only the true assignment", TRUE)
        for r in range(graph.m):
            self.show_combo.addItem(f"assignment {r + 1}" + (" (the true one)" if r == graph.chosen else ""), r)
        index = self.show_combo.findData(current) if current in (ALL, TRUE) else 0
        self.show_combo.setCurrentIndex(max(index, 0))
        self.show_combo.blockSignals(False)
        self.canvas.set_show(self.show_combo.currentData())
        if not self._view_chosen:
            # Many people crowd the bipartite columns: the circle reads better (until the user picks a view).
            self.view_combo.blockSignals(True)
            self.view_combo.setCurrentIndex(0 if graph.n <= 16 else 1)
            self.view_combo.blockSignals(False)
        self.canvas.set_view(self.view_combo.currentData())
        self.text.setText(explanation(graph, None))
        self.stack.setCurrentIndex(1)

    def select_person(self, person: int | None) -> None:
        self.canvas.select(person)
        self.text.setText(explanation(self.canvas.graph, person))

    def _person_clicked(self, person: int) -> None:
        self.text.setText(explanation(self.canvas.graph, None if person < 0 else person))

    def save_picture(self, path: str | Path) -> Path:
        """Write the drawing (PNG or SVG by the suffix) atomically, without asking."""
        path = Path(path)
        fmt = path.suffix.lower().lstrip(".")
        if fmt not in ("png", "svg"):
            raise ValueError(f"cannot save the drawing as {path.suffix!r}; use .png or .svg")
        with atomic_write(path, "wb") as handle:
            handle.write(self.canvas.picture(fmt))
        return path

    def save_dialog(self) -> None:
        if self.canvas.graph is None:
            return
        answer = QMessageBox.question(self, "Save an audit picture?",
                                      f"The drawing shows which assignment is the true one. {AUDIT_WARNING}\n\n"
                                      "Save it anyway?")
        if answer != QMessageBox.Yes:
            return
        path = save_file_dialog(self, "Generalization graph", "generalization-graph.png", (".png", ".svg"))
        if path is None:
            return
        try:
            self.save_picture(path)
        except (OSError, ValueError) as exc:
            QMessageBox.critical(self, "Save failed", with_next_step(f"Could not write {path}: {exc}"))
