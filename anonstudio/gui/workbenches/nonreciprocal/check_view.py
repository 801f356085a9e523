"""The independent check of a release: how many published records each person could be, and every check.

The verifier (separate code) counts, for every person of the original data,
the published records whose possible worlds include them: the promise holds
when nobody has fewer than k (ℓ). The histogram shows those counts with k
marked; beside it, one line per check (graph, assignments, votes, distance
items and thresholds, error rate, labels) with a tick or a cross.
"""
from __future__ import annotations

import html
import math

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from ....formatting import integer, number
from ....methods.contract import CHECK_FAILED, CHECK_PASSED, MethodRun, verdict, verdict_head
from ...controls import note_label
from ...plots import ExportablePlot

__all__ = ["CheckView", "check_lines_html"]

PEOPLE = "people"
NOT_YET = "The independent check runs after each run; its result appears here."


def check_lines_html(run: MethodRun | None) -> str:
    """The verdict in the contract's words, then the check's lines with a tick or a cross, as rich text."""
    v = run.verification if run is not None else None
    if v is None:
        if run is not None and verdict_head(run):
            head, sep, reason = verdict(run).partition(": ")
            return f"<b>{html.escape(head)}</b>{sep}{html.escape(reason)}"
        return NOT_YET
    head = verdict_head(run)
    good = head == CHECK_PASSED
    style = " style='color:#b00020'" if head == CHECK_FAILED else ""
    rows = []
    for line in v.lines():
        bad = not good and _reports_a_problem(line)
        mark = "<span style='color:#b00020'>✗</span>" if bad else "<span style='color:#1a7f37'>✓</span>"
        rows.append(f"{mark} {html.escape(line)}")
    return (f"<b{style}>{html.escape(head)}</b> (separate code from the method, {number(v.seconds, 2)} s):<br>"
            + "<br>".join(rows) + "<br><br>The possible-world counts are exact: every person against every "
            "published record.")


def _reports_a_problem(line: str) -> bool:
    """Whether a verifier line (of a check that did not pass) states a failure rather than a confirmation.

    The verifier words failures with NOT, "fewer", a leading count of bad cases ("12 people ...",
    "publication: 3 bases ..."), or a reported value that differs ("(reported 0.12)").
    """
    return ("NOT" in line or "fewer" in line or line[:1].isdigit() or line.startswith("publication:")
            or "(reported " in line or "are not" in line or "not counted" in line)


class CheckView(QWidget):
    """Histogram of possible-world counts with k marked, and the check's lines."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        # Log x: on sparse data a few people fit thousands of published records, most fit a handful.
        self.plot = ExportablePlot("People by how many published records they could be",
                                   x_label="published records a person could be", y_label="people",
                                   auto_legend=True, empty_text=NOT_YET, log_x=True)
        self.plot.add_series(PEOPLE, kind="line", color="#0072B2", symbol="o", symbol_size=6, width=1.5,
                             in_legend=False)
        self.plot.add_glossary("possible_worlds")
        self.plot.plot_item.setTitle(self.plot.title, size="10pt")
        self.plot.plot_widget.setMinimumHeight(120)
        self.k_line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#b00020", width=2, style=Qt.DashLine),
                                      label="k", labelOpts={"position": 0.45, "color": "#b00020",
                                                             "fill": pg.mkBrush(255, 255, 255, 230)})
        self.k_line.setVisible(False)
        self.plot.plot_item.addItem(self.k_line)
        self.lines = note_label(NOT_YET, "body")
        self.lines.setObjectName("check_lines")
        self.lines.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(4, 0, 0, 0)
        side_layout.addWidget(self.lines)
        side_layout.addStretch(1)
        splitter = QSplitter(Qt.Horizontal)
        splitter.addWidget(self.plot)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

    def show_check(self, run: MethodRun | None) -> None:
        v = run.verification if run is not None else None
        self.lines.setText(check_lines_html(run))
        if v is None or not v.world_histogram:
            self.plot.clear_data()
            self.k_line.setVisible(False)
            return
        counts = sorted(v.world_histogram.items())
        xs = [c for c, _ in counts]
        self.plot.set_series(PEOPLE, xs, [p for _, p in counts],
                             tips=[f"{integer(p)} people could be {integer(c)} published records" for c, p in counts])
        symbol = "k" if v.mode == "k" else "ℓ"
        # The label only re-renders while the line is visible; on the log axis the line sits at log10(k).
        self.k_line.setVisible(True)
        self.k_line.setValue(math.log10(v.m))
        self.k_line.label.setFormat(f"{symbol} = {v.m}: fewest allowed")
        low, top = min(xs + [v.m]), max(xs + [v.m])
        self.plot.plot_item.setXRange(math.log10(low) - 0.1, math.log10(top) + 0.1, padding=0)
        self.plot.fit_y_below_legend()

    def clear(self) -> None:
        self.show_check(None)
