"""Items drawn as chips: a table delegate and a wrapping strip.

A published record of nonreciprocal recoding is a *base* (the items it
shows), *distance items* (where the people behind it disagree) and a
threshold. Chips make the difference visible at a glance:

* ``sure``: a base item outside the distance items, held by every person the
  record could be (filled);
* ``unsure``: a base item among the distance items, which a person behind it
  may lack (dashed outline);
* ``distance``: a distance item (grey);
* ``person``: an item of an original record (green).

A model hands the delegate ``[(text, style), ...]`` under :data:`CHIPS_ROLE`;
the display role keeps the plain ``a; b; c`` text (copy, sort, accessibility).
"""
from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

__all__ = ["CHIPS_ROLE", "CHIP_STYLES", "ChipDelegate", "ChipStrip", "paint_chips", "chip_legend_html"]

#: Item-data role holding a cell's chips.
CHIPS_ROLE = Qt.UserRole + 11

#: Fill, border and whether the border is dashed, per chip style.
CHIP_STYLES = {
    "sure": ("#d7e7f6", "#6d9fce", False),
    "unsure": ("#ffffff", "#6d9fce", True),
    "distance": ("#eeeeee", "#9a9a9a", False),
    "person": ("#dff2e4", "#79b98b", False),
}
PAD_X, PAD_Y, GAP, RADIUS = 5, 2, 4, 6
#: Lines a chip strip grows to before the rest is summed up as "+N".
MAX_STRIP_LINES = 3
#: Longest item text drawn whole; longer labels are cut with an ellipsis (the tooltip has them whole).
MAX_CHIP_CHARS = 24


def chip_legend_html() -> str:
    """A one-line legend of the chip styles, for a label above a table."""
    def chip(style: str, text: str) -> str:
        fill, border, dashed = CHIP_STYLES[style]
        return (f"<span style='background:{fill}; border:1px {'dashed' if dashed else 'solid'} {border}'>"
                f"&nbsp;{text}&nbsp;</span>")

    return (f"{chip('sure', 'item')} shown, all behind it have it · {chip('unsure', 'item')} shown, some may "
            f"lack it · {chip('distance', 'item')} distance item: where a person may differ")


def _chip_width(fm: QFontMetrics, text: str) -> int:
    return fm.horizontalAdvance(_short(text)) + 2 * PAD_X


def _short(text: str) -> str:
    return text if len(text) <= MAX_CHIP_CHARS else text[:MAX_CHIP_CHARS - 1] + "…"


def _draw_chip(painter: QPainter, rect: QRectF, text: str, style: str) -> None:
    fill, border, dashed = CHIP_STYLES.get(style, CHIP_STYLES["sure"])
    pen = QPen(QColor(border), 1.0, Qt.DashLine if dashed else Qt.SolidLine)
    painter.setPen(pen)
    painter.setBrush(QColor(fill))
    painter.drawRoundedRect(rect, RADIUS, RADIUS)
    painter.setPen(QColor("#222222"))
    painter.drawText(rect, Qt.AlignCenter, _short(text))


def paint_chips(painter: QPainter, rect: QRect, chips: Sequence[tuple[str, str]], fm: QFontMetrics, *,
                wrap: bool = False) -> int:
    """Draw ``chips`` left to right inside ``rect``; returns how many did not fit.

    Without ``wrap`` the chips stay on one line and the last place shows "+N"
    for the rest; with ``wrap`` they flow onto further lines while there is room.
    """
    height = fm.height() + 2 * PAD_Y
    x = rect.left() + 2
    y = rect.top() + 2 if wrap else rect.top() + max((rect.height() - height) // 2, 0)
    painter.save()
    painter.setRenderHint(QPainter.Antialiasing, True)
    for i, (text, style) in enumerate(chips):
        width = _chip_width(fm, text)
        left = len(chips) - i
        more = f"+{left - 1}" if left > 1 else ""
        reserve = (fm.horizontalAdvance(more) + 2 * PAD_X + GAP) if more else 0
        if x + width + reserve > rect.right() - 2:
            if wrap and y + 2 * height + GAP <= rect.bottom() and x > rect.left() + 2:
                x, y = rect.left() + 2, y + height + GAP
            if x + width + reserve > rect.right() - 2:
                rest = f"+{left}"
                _draw_chip(painter, QRectF(x, y, fm.horizontalAdvance(rest) + 2 * PAD_X, height), rest, "distance")
                painter.restore()
                return left
        _draw_chip(painter, QRectF(x, y, width, height), text, style)
        x += width + GAP
    painter.restore()
    return 0


class ChipDelegate(QStyledItemDelegate):
    """Paints a cell's :data:`CHIPS_ROLE` list as chips on one line (selection and focus as usual)."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:
        chips = index.data(CHIPS_ROLE)
        if chips is None:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        widget = option.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawControl(QStyle.CE_ItemViewItem, opt, painter, widget)
        paint_chips(painter, option.rect.adjusted(1, 0, -1, 0), chips, option.fontMetrics)

    def sizeHint(self, option: QStyleOptionViewItem, index) -> QSize:  # noqa: N802 (Qt naming)
        chips = index.data(CHIPS_ROLE)
        if chips is None:
            return super().sizeHint(option, index)
        fm = option.fontMetrics
        width = sum(_chip_width(fm, t) + GAP for t, _ in chips[:8]) + 6
        return QSize(min(width, 420), fm.height() + 2 * PAD_Y + 6)


class ChipStrip(QWidget):
    """A wrapping row of chips (one person's items), as tall as its chips need for its width."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.chips: list[tuple[str, str]] = []
        policy = QSizePolicy(QSizePolicy.Preferred, QSizePolicy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def set_chips(self, chips: Sequence[tuple[str, str]]) -> None:
        self.chips = list(chips)
        self.setToolTip("; ".join(t for t, _ in self.chips))
        self.updateGeometry()
        self.update()

    def _lines_for(self, width: int) -> int:
        fm = self.fontMetrics()
        lines, x = 1, 0
        for text, _ in self.chips:
            w = _chip_width(fm, text) + GAP
            if x and x + w > width - 4:
                lines, x = lines + 1, 0
            x += w
        return min(lines, MAX_STRIP_LINES)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt naming)
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt naming)
        line = self.fontMetrics().height() + 2 * PAD_Y + GAP
        return self._lines_for(width) * line + 4

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt naming)
        return QSize(200, self.heightForWidth(200))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt naming)
        return QSize(60, self.fontMetrics().height() + 2 * PAD_Y + 6)

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        painter = QPainter(self)
        paint_chips(painter, self.rect(), self.chips, self.fontMetrics(), wrap=True)
        painter.end()
