"""Chips: the items of a record and the generalized cells of a release, drawn as small labels.

:class:`ChipDelegate` paints a cell holding a tuple of
:class:`~anonstudio.data.rows.Chip` (the model's :data:`CELL_ROLE`) as a row
of rounded labels, one look per kind (an item, a value published exactly, a
generalized value such as ``[20-29]`` or ``{a|b}``, a suppressed ``*``, a
published partition), and ends a row that does not fit with "+N". Chips
whose key is highlighted (the selected record's partitions) get a strong
colour of their own, the same in every view that shares the highlight.
Other cells are painted as usual.
"""
from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QModelIndex, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from ..data.rows import CHIP_KINDS, Chip

__all__ = ["ChipDelegate", "CHIP_COLOURS", "HIGHLIGHT_COLOURS", "CELL_ROLE", "chip_width", "chips_text"]

#: The model role holding a cell as the row source made it (text, None or chips).
CELL_ROLE = Qt.UserRole + 1

#: Fill, border and text colour of a chip per kind.
CHIP_COLOURS = {
    "item": ("#e8eef7", "#aebfd8", "#1c2b40"),
    "value": ("#f1f3f5", "#c5ccd4", "#1f2328"),
    "general": ("#fff0cc", "#d9b050", "#4a3500"),
    "suppressed": ("#e4e4e4", "#8f8f8f", "#303030"),
    "partition": ("#ddf1e3", "#8cc79f", "#123d21"),
    "sensitive": ("#fbe1e1", "#d99494", "#5a1616"),
    "more": ("#ffffff", "#ffffff", "#666666"),
}
assert set(CHIP_COLOURS) == set(CHIP_KINDS)

#: Fills of highlighted keys, in the order keys are highlighted (then repeated).
HIGHLIGHT_COLOURS = ("#ffcf4d", "#7cc6f2", "#97d98f", "#f59ac0", "#c9a0e8", "#ffa882", "#6fd1c4", "#d9e36b")

#: Space around and inside a chip, in pixels.
GAP, PAD_X, PAD_Y = 4, 6, 2
#: A chip is never wider than this (its text is elided in the middle).
MAX_CHIP_WIDTH = 260


def chip_width(chip: Chip, metrics: QFontMetrics) -> int:
    """Width of a chip drawn with ``metrics``, capped at :data:`MAX_CHIP_WIDTH`."""
    # Two pixels of slack: an advance rounded down must not elide a text that fits.
    return min(metrics.horizontalAdvance(chip.text) + 2 * PAD_X + 2, MAX_CHIP_WIDTH)


def chips_text(chips: Iterable[Chip], limit: int = 60) -> str:
    """The chips as plain text (for tooltips and copying): ``a, b, c`` and "… (N in all)"."""
    chips = list(chips)
    shown = ", ".join(c.text for c in chips[:limit])
    return shown + (f", … ({len(chips):,} in all)" if len(chips) > limit else "")


class ChipDelegate(QStyledItemDelegate):
    """Paints chip cells (see the module docstring); other cells are painted as usual."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.highlight: dict[int, QColor] = {}

    def set_highlight(self, keys: Iterable[int]) -> None:
        """Highlight chips with these keys, each in its own colour (in the given order)."""
        self.highlight = {int(k): QColor(HIGHLIGHT_COLOURS[i % len(HIGHLIGHT_COLOURS)])
                          for i, k in enumerate(k for k in keys if k >= 0)}

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        cell = index.data(CELL_ROLE)
        if not isinstance(cell, tuple):
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawControl(QStyle.CE_ItemViewItem, opt, painter, widget)
        painter.save()
        painter.setRenderHint(QPainter.Antialiasing, True)
        painter.setFont(opt.font)
        self.paint_chips(painter, opt.rect, cell, QFontMetrics(opt.font))
        painter.restore()

    def paint_chips(self, painter: QPainter, rect: QRect, chips: tuple[Chip, ...], metrics: QFontMetrics) -> int:
        """Draw ``chips`` left to right inside ``rect``; returns how many were drawn."""
        height = min(metrics.height() + 2 * PAD_Y, rect.height() - 2)
        top = rect.top() + (rect.height() - height) // 2
        x = rect.left() + GAP
        right = rect.right() - GAP
        for n, chip in enumerate(chips):
            width = chip_width(chip, metrics)
            rest = len(chips) - n - 1
            marker = metrics.horizontalAdvance(f"+{rest:,}") + GAP if rest else 0
            if x + width > right - marker:
                if n > 0:
                    self._paint_more(painter, QRect(x, top, right - x, height), len(chips) - n, metrics)
                    return n
                # The first chip is always drawn, elided to the room there is (a narrow column).
                width = max(right - marker - x, 2 * PAD_X + metrics.horizontalAdvance("…"))
            self._paint_chip(painter, QRect(x, top, width, height), chip, metrics)
            x += width + GAP
        return len(chips)

    def _paint_chip(self, painter: QPainter, box: QRect, chip: Chip, metrics: QFontMetrics) -> None:
        fill, border, ink = CHIP_COLOURS.get(chip.kind, CHIP_COLOURS["value"])
        if chip.kind == "more":
            painter.setPen(QColor(ink))
            painter.drawText(box, Qt.AlignVCenter | Qt.AlignLeft, chip.text)
            return
        colour = self.highlight.get(chip.key)
        painter.setPen(QPen(QColor(colour.darker(150) if colour is not None else QColor(border)), 1))
        painter.setBrush(colour if colour is not None else QColor(fill))
        painter.drawRoundedRect(QRectF(box).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4)
        painter.setPen(QColor(ink))
        room = box.width() - 2 * PAD_X
        text = chip.text if metrics.horizontalAdvance(chip.text) <= room else \
            metrics.elidedText(chip.text, Qt.ElideMiddle, room)
        painter.drawText(box.adjusted(PAD_X, 0, -PAD_X + 2, 0), Qt.AlignVCenter | Qt.AlignLeft, text)

    @staticmethod
    def _paint_more(painter: QPainter, box: QRect, count: int, metrics: QFontMetrics) -> None:
        painter.setPen(QColor(CHIP_COLOURS["more"][2]))
        painter.drawText(box, Qt.AlignVCenter | Qt.AlignLeft, metrics.elidedText(f"+{count:,}", Qt.ElideRight,
                                                                                  max(box.width(), 0)))

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802 (Qt naming)
        cell = index.data(CELL_ROLE)
        if not isinstance(cell, tuple):
            return super().sizeHint(option, index)
        metrics = QFontMetrics(option.font)
        width = sum(chip_width(c, metrics) + GAP for c in cell[:12]) + GAP
        return QSize(min(width, 4 * MAX_CHIP_WIDTH), metrics.height() + 2 * PAD_Y + 6)
