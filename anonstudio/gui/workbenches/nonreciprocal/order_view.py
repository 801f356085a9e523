"""How well the records were ordered, and where the time went.

Nonreciprocal recoding blends every person with the k - 1 records after them
in one order, so the order decides the loss. The left plot shows the cyclic
Hamming sums (items differing between neighbours, around the order) of the
input order, the Gray order, the Gray-TSP order and, for the ℓ ring, the
label-spaced order the ring was built on; the right one the seconds per phase.
A compared run is drawn as grey bars beside each.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from ....formatting import integer
from ....methods.nonreciprocal.result import PHASES, NonreciprocalResult
from ...controls import note_label
from ...plots import ExportablePlot

__all__ = ["OrderView", "hamming_bars"]

SHOWN = "this run"
COMPARED = "compared run"
WIDTH = 0.38


def hamming_bars(result: NonreciprocalResult | None) -> list[tuple[str, int]]:
    """(order, cyclic Hamming sum) of every order the run reached."""
    if result is None:
        return []
    bars = [("input", result.hamming_before), ("Gray", result.hamming_gray)]
    if result.order_kind == "gray-tsp" and result.segments is not None:
        bars.append(("Gray-TSP", result.hamming_after))
    if result.hamming_ring:
        bars.append(("spaced ring", result.hamming_ring))
    return [(name, int(v)) for name, v in bars if v is not None]


#: Short bar captions of the phases (the glossary's "time per phase" names them in full).
PHASE_NAMES = {"sort": "sort", "tsp": "TSP", "graph": "graph", "assignments": "walks", "publish": "vote",
               "metrics": "ER, QE", "cahd": "CAHD"}


def _phase_bars(result: NonreciprocalResult | None) -> list[tuple[str, float]]:
    if result is None:
        return []
    names = [p for p in PHASES if p in result.seconds] + [p for p in result.seconds if p not in PHASES]
    return [(PHASE_NAMES.get(p, p), float(result.seconds[p])) for p in names]


class _BarPlot(ExportablePlot):
    """Bars per category; a compared run's bars in grey beside them."""

    def __init__(self, title: str, x_label: str, y_label: str, y_units: str, glossary: str, empty: str):
        super().__init__(title, x_label=x_label, y_label=y_label, y_units=y_units, auto_legend=True,
                         empty_text=empty)
        self.add_series(SHOWN, kind="bars", color="#0072B2", bar_width=WIDTH)
        self.add_series(COMPARED, kind="bars", color="#b9b9b9", bar_width=WIDTH)
        self.add_glossary(glossary)
        self.plot_item.setTitle(title, size="10pt")
        self.plot_widget.setMinimumHeight(120)

    def show_bars(self, shown: list[tuple[str, float]], compared: list[tuple[str, float]]) -> None:
        names = [n for n, _ in shown] + [n for n, _ in compared if n not in {m for m, _ in shown}]
        position = {n: i for i, n in enumerate(names)}
        offset = WIDTH / 2 if compared else 0.0
        # A legend only when there is something to tell apart.
        self.series[SHOWN].in_legend = bool(compared)
        self.set_series(SHOWN, [position[n] - offset for n, _ in shown], [v for _, v in shown])
        self.set_series(COMPARED, [position[n] + offset for n, _ in compared], [v for _, v in compared])
        self.plot_item.getAxis("bottom").setTicks([[(i, n) for i, n in enumerate(names)]])
        if names:
            self.plot_item.setXRange(-0.6, len(names) - 0.4, padding=0)
            top = max([v for _, v in shown] + [v for _, v in compared] + [0]) or 1.0
            # Bars start at 0 (a cut axis would exaggerate the differences), with room for the legend on top.
            room = self.legend_headroom() if compared else 0.0
            self.plot_item.setYRange(0, top * (1.04 + room / max(1.0 - room, 0.4)), padding=0)


class OrderView(QWidget):
    """Hamming sums of the orders and seconds per phase, with a plain-language reading."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.result: NonreciprocalResult | None = None
        self.compared: NonreciprocalResult | None = None
        self.hamming = _BarPlot("Cyclic Hamming sum of each order", "order", "Hamming sum", "items",
                                "hamming_sum", "The orders' Hamming sums appear as the run sorts the records.")
        self.phases = _BarPlot("Time per phase", "phase", "time", "s", "phase_seconds",
                               "Seconds per phase appear as the run goes.")
        self.note = note_label(order_text(None), "body")
        self.note.setObjectName("order_note")
        plots = QSplitter(Qt.Horizontal)
        plots.addWidget(self.hamming)
        plots.addWidget(self.phases)
        plots.setStretchFactor(0, 1)
        plots.setStretchFactor(1, 1)
        plots.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(plots, 1)
        layout.addWidget(self.note)

    def show_result(self, result: NonreciprocalResult | None) -> None:
        self.result = result
        self._draw()

    def show_compared(self, result: NonreciprocalResult | None) -> None:
        self.compared = result
        self._draw()

    def clear(self) -> None:
        self.result = None
        self._draw()

    def _draw(self) -> None:
        self.hamming.show_bars(hamming_bars(self.result), hamming_bars(self.compared))
        self.phases.show_bars(_phase_bars(self.result), _phase_bars(self.compared))
        self.note.setText(order_text(self.result))


def order_text(result: NonreciprocalResult | None) -> str:
    """What the bars say, in words (percentages of the input order's sum)."""
    base = ("Each person is blended with the k - 1 records that follow them in the order: the smaller its Hamming "
            "sum, the less the release loses.")
    if result is None or result.hamming_before is None:
        return base
    parts = [base]
    before, gray = result.hamming_before, result.hamming_gray

    def cut(a: int, b: int) -> str:
        return f"{100.0 * (a - b) / a:.0f} %" if a else "0 %"

    parts.append(f"Sorting in Gray order cut the sum from {integer(before)} to {integer(gray)} ({cut(before, gray)} "
                 "shorter).")
    if result.order_kind == "gray-tsp" and result.segments is not None and result.hamming_after is not None:
        sizes = np.diff(result.segments)
        parts.append(f"The TSP step, run on {integer(len(sizes))} segment{'s' if len(sizes) != 1 else ''} of "
                     f"{integer(sizes.min())}–{integer(sizes.max())} records, took it to "
                     f"{integer(result.hamming_after)} (another {cut(gray, result.hamming_after)}).")
    if result.hamming_ring:
        parts.append(f"For ℓ the records were then spaced so that neighbours carry different labels: "
                     f"{integer(result.hamming_ring)}, the price of the diversity guarantee.")
    if result.walk_steps:
        parts.append(f"The closed walks took {integer(sum(result.walk_steps))} steps over {len(result.walk_steps)} "
                     "rounds.")
    return " ".join(parts)
