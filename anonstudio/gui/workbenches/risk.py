"""Risk workbench: how identifying is the raw data?

Two curves over m, the number of a person's items an attacker knows:

* **itemset uniqueness** (paper 000, Fig. 2): of all combinations of m items
  that occur in the data, the share held by exactly one person;
* **person-level unicity** (de Montjoye et al.): pick a person and m of their
  items at random; the chance that no one else has all m.

They answer different questions and are plotted side by side, never on one
axis. The second tab is a step-by-step linkage attack for training sessions.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import csv
import io

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...jobs import SubProgress
from ...methods.risk.uniqueness import UniquenessParams, UniquenessResult, person_unicity_curve, uniqueness_curve
from ..attack_demo import AttackDemo
from ..plots import ExportablePlot, integer_ticks
from ..workbench import Workbench

__all__ = ["RiskWorkbench", "RiskResult", "run_risk_analysis"]

ITEMSET_Y = "share of m-itemsets that single out one person"
PERSON_Y = "chance that a person is unique given m of their items"
X_LABEL = "m (items the attacker knows)"

INTRO = (
    "<b>How many items does an attacker need to single someone out?</b> "
    "Press <i>Measure uniqueness</i>: points appear as each m finishes. "
    "Error bars are confidence intervals; ● counted exactly, ▲ estimated from a random sample. "
    "The <i>Linkage attack demo</i> tab shows the attack step by step for one person."
)
ITEMSET_NOTE = (
    "Of all combinations of m items that occur in the data, the share that belongs to exactly one "
    "person. A high value means knowing m items often identifies someone."
)
PERSON_NOTE = (
    "A different, person-level quantity: chance that a person is unique given m of their items, "
    "i.e. pick a person and m of their items at random; how often does no one else have all m? "
    "(de Montjoye et al.)"
)

#: Share of the job's progress bar given to the itemset curve; the person
#: curve gets the rest.
ITEMSET_SHARE = 0.6
METHOD_TEXT = {"exact": "exact count", "mcmc": "estimated (MCMC sample)", "sampling": "estimated (random people)"}


@dataclass
class RiskResult:
    """Both curves of one run; ``person`` is None if the run stopped early."""

    itemset: UniquenessResult | None
    person: UniquenessResult | None

    @property
    def complete(self) -> bool:
        return all(r is not None and r.complete for r in (self.itemset, self.person))


def run_risk_analysis(data: Any, params: UniquenessParams, progress) -> RiskResult:
    """Itemset uniqueness, then person-level unicity, as one cancellable job."""
    itemset = uniqueness_curve(data, params, SubProgress(progress, 0.0, ITEMSET_SHARE, "itemsets: "))
    if progress.cancelled() or not itemset.complete:
        return RiskResult(itemset, None)
    person = person_unicity_curve(data, params, SubProgress(progress, ITEMSET_SHARE, 1.0, "people: "))
    return RiskResult(itemset, person)


def is_exact(point: Any) -> bool:
    return str(getattr(point, "method", "")).lower() == "exact"


class UniquenessPlot(ExportablePlot):
    """Uniqueness vs m: exact points (●) and estimated points (▲) with CI bars."""

    def __init__(self, title: str, y_label: str, empty_text: str, estimated: str = "estimated (sample)"):
        super().__init__(title, x_label=X_LABEL, y_label=y_label, empty_text=empty_text, auto_legend=True)
        self.estimated = estimated
        self.points: list[Any] = []
        # The trend line only joins the points below; the CSV lists each point once.
        self.add_series("trend", kind="line", color="#999999", width=1.5, in_legend=False, in_csv=False)
        self.add_series("exact count", kind="scatter", symbol="o", color="#0072B2", error_bars=True)
        self.add_series(estimated, kind="scatter", symbol="t1", color="#D55E00", error_bars=True)
        # Percent labels next to the points: on the fixed 0-1 scale small
        # values are hard to read off the axis. Reused, never recreated.
        self._labels: list[pg.TextItem] = []
        self._m_range: tuple[int, int] | None = None
        self.plot_item.setYRange(0.0, 1.0, padding=0.02)
        self.plot_item.getViewBox().setLimits(yMin=-0.05, yMax=1.05)
        self.plot_item.enableAutoRange(y=False)
        self.zoom_button = self.add_tool_button(
            "Zoom y", "Fit the y axis to the points. Off: the full 0–1 scale, which shows how large the "
                      "risk is in absolute terms.", checkable=True)
        self.zoom_button.toggled.connect(lambda _=None: self._apply_y_range())

    def set_m_range(self, lowest: int, highest: int) -> None:
        """Fix the x axis to the m values of the run, so live points do not rescale it."""
        self._m_range = (lowest, highest)
        self._apply_x_range(highest)

    def _apply_x_range(self, highest: float) -> None:
        lowest = self._m_range[0] if self._m_range else 1
        # Extra room on the right for the last point's percent label.
        self.plot_item.setXRange(lowest - 0.5, max(highest, lowest) + 0.9, padding=0)
        integer_ticks(self.plot_item, "bottom", highest)

    def _show_labels(self, m: np.ndarray, u: np.ndarray) -> None:
        while len(self._labels) < len(m):
            label = pg.TextItem(color="#222222", anchor=(-0.15, 1.0))
            self.plot_item.addItem(label)
            self._labels.append(label)
        for i, label in enumerate(self._labels):
            if i < len(m):
                label.setText(_percent(u[i]))
                label.setPos(m[i], u[i])
            label.setVisible(i < len(m))

    def _apply_y_range(self) -> None:
        finite = [s.high if s.high is not None else s.y for s in self.series.values() if len(s.y)]
        top = max((float(np.nanmax(v)) for v in finite), default=1.0)
        if self.zoom_button.isChecked() and top > 0:
            # Head-room above the highest error bar for its percent label and
            # the legend band, so the legend never hides a point.
            room = self.legend_headroom(pad=LABEL_PX)
            self.plot_item.setYRange(0.0, min(1.0, top * 1.1 / (1.0 - room)), padding=0.02)
        else:
            self.plot_item.setYRange(0.0, 1.0, padding=0.02)

    def show_result(self, result: UniquenessResult | None) -> None:
        points = sorted(result.points, key=lambda p: p.m) if result is not None else []
        # NaN: no record has m items, so uniqueness is undefined for that m.
        points = [p for p in points if np.isfinite(p.uniqueness)]
        m = np.array([p.m for p in points], dtype=float)
        u = np.array([p.uniqueness for p in points], dtype=float)
        low = np.array([p.ci_low for p in points], dtype=float)
        high = np.array([p.ci_high for p in points], dtype=float)
        exact = np.array([is_exact(p) for p in points], dtype=bool)
        self.points = points
        tips = [point_tip(p) for p in points]
        self.set_series("trend", m, u)
        self.set_series("exact count", m[exact], u[exact], low=low[exact], high=high[exact],
                        tips=[t for t, e in zip(tips, exact) if e])
        self.set_series(self.estimated, m[~exact], u[~exact], low=low[~exact], high=high[~exact],
                        tips=[t for t, e in zip(tips, exact) if not e])
        self._show_labels(m, u)
        if self._m_range is not None:
            self._apply_x_range(max(self._m_range[1], m.max() if len(m) else 0))
        elif len(m):
            self._apply_x_range(m.max())
        self._apply_y_range()


    def csv_text(self) -> str:
        """One row per point: m, value, interval, method, samples and the precision note."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["m", self.y_label, "ci_low", "ci_high", "method", "samples", "itemsets_counted", "seconds",
                         "precision_note"])
        for p in self.points:
            counted = getattr(p, "itemsets", None)
            writer.writerow([p.m, repr(float(p.uniqueness)), repr(float(p.ci_low)), repr(float(p.ci_high)),
                             p.method, int(p.samples), "" if counted is None else int(counted),
                             f"{p.seconds:.3f}", precision_warning(p)])
        return out.getvalue()


#: Pixels above the highest point kept free for its percent label.
LABEL_PX = 24.0


def precision_warning(point: Any) -> str:
    """The point's "precision not reached" note, or "" (older results carry none)."""
    if getattr(point, "precision_met", True):
        return ""
    return getattr(point, "warning", "") or "confidence interval wider than the requested ±ε"


def samples_text(point: Any) -> str:
    """What a value rests on: the draws of an estimate, or every itemset of an exact count."""
    if is_exact(point):
        # Exact points draw nothing (samples = 0); newer results say how many
        # distinct m-itemsets were counted.
        itemsets = getattr(point, "itemsets", None)
        return f"all {int(itemsets):,} counted" if itemsets is not None else "all counted"
    return f"{int(point.samples):,}"


def point_tip(point: Any) -> str:
    """Hover text of one plotted point."""
    lines = [f"m = {point.m}: {point.uniqueness * 100:.2f} %",
             f"confidence interval {point.ci_low * 100:.2f} – {point.ci_high * 100:.2f} %",
             f"{METHOD_TEXT.get(str(point.method), str(point.method))}, samples: {samples_text(point)}",
             f"{point.seconds:.2f} s"]
    warning = precision_warning(point)
    if warning:
        lines.append(f"⚠ {warning}")
    return "\n".join(lines)


def ci_caption(delta: float) -> str:
    """'error bars: 99 % confidence interval (δ = 0.01)'."""
    return f"error bars: {(1.0 - delta) * 100:g} % confidence interval (δ = {delta:g})"


def _percent(share: float) -> str:
    """0.0465 -> "4.7 %"; tiny non-zero shares stay visible as "< 0.1 %"."""
    if share == 0:
        return "0 %"
    if share < 0.001:
        return "< 0.1 %"
    return f"{share * 100:.1f} %"


TABLE_COLUMNS = ("quantity", "m", "unique", "confidence interval", "method", "samples", "seconds", "note")


class ResultsTable(QTableWidget):
    """One row per finished point of either curve."""

    def __init__(self):
        super().__init__(0, len(TABLE_COLUMNS))
        self.setHorizontalHeaderLabels(TABLE_COLUMNS)
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.horizontalHeader().setStretchLastSection(True)
        self.setToolTip("Every finished point. 'unique': share of m-itemsets (or of people) singled out; "
                        "'samples': how many itemsets or people were drawn (exact counts check them all).")

    def show_results(self, results: list[UniquenessResult | None]) -> None:
        rows = []
        for result in results:
            if result is None:
                continue
            quantity = "m-itemsets" if result.kind == "itemset" else "people"
            for p in sorted(result.points, key=lambda p: p.m):
                if not np.isfinite(p.uniqueness):
                    rows.append((quantity, str(p.m), "undefined", "no record has m items", "", "0",
                                 f"{p.seconds:.2f}", ""))
                    continue
                warning = precision_warning(p)
                rows.append((quantity, str(p.m), f"{p.uniqueness * 100:.2f} %",
                             f"{p.ci_low * 100:.2f} – {p.ci_high * 100:.2f} %",
                             METHOD_TEXT.get(str(p.method), str(p.method)), samples_text(p),
                             f"{p.seconds:.2f}", f"⚠ {warning}" if warning else ""))
        self.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                item.setToolTip(text)  # long notes are elided in the cell
                if 0 < c < len(TABLE_COLUMNS) - 1:  # numbers right, the note reads left to right
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.setItem(r, c, item)


class RiskWorkbench(Workbench):
    """Uniqueness vs m (itemset and person level) and the linkage-attack demo.

    Signals
    -------
    analysis_finished(object, bool)
        The :class:`RiskResult` of a run and whether it completed.
    """

    TITLE = "Risk"
    ORDER = 10
    PARAMS = UniquenessParams
    RUN_TEXT = "Measure uniqueness"

    analysis_finished = Signal(object, bool)

    def build(self) -> QWidget:
        self.itemsets: UniquenessResult | None = None
        self.people: UniquenessResult | None = None

        uniqueness_page = QWidget()
        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        self.itemset_plot = UniquenessPlot("Uniqueness of m-itemsets", ITEMSET_Y,
                                           "Press “Measure uniqueness” (right) to compute this curve.",
                                           estimated="estimated (MCMC sample)")
        self.person_plot = UniquenessPlot("Person-level unicity", PERSON_Y,
                                          "Computed after the itemset curve.",
                                          estimated="estimated (random people)")
        plots = QSplitter(Qt.Horizontal)
        for plot, note in ((self.itemset_plot, ITEMSET_NOTE), (self.person_plot, PERSON_NOTE)):
            holder = QWidget()
            layout = QVBoxLayout(holder)
            layout.setContentsMargins(0, 0, 0, 0)
            layout.addWidget(plot, 1)
            label = QLabel(note)
            label.setWordWrap(True)
            label.setStyleSheet("color: #333;")
            layout.addWidget(label)
            plots.addWidget(holder)
        self.table = ResultsTable()
        split = QSplitter(Qt.Vertical)
        split.addWidget(plots)
        split.addWidget(self.table)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([460, 190])
        layout = QVBoxLayout(uniqueness_page)
        layout.addWidget(intro)
        layout.addWidget(split, 1)

        self.attack_demo = AttackDemo()
        self.tabs = QTabWidget()
        self.tabs.addTab(uniqueness_page, "Uniqueness vs m")
        self.tabs.addTab(self.attack_demo, "Linkage attack demo")
        page = QWidget()
        outer = QHBoxLayout(page)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.tabs)
        return page

    def check_params(self, params: UniquenessParams) -> str | None:
        if params.min_m > params.max_m:
            return f"Smallest m ({params.min_m}) must not exceed largest m ({params.max_m})."
        return None

    def set_dataset(self, dataset: Any) -> None:
        # Clear before the base class decides whether to show the page: a
        # dataset this tab does not accept must not leave the old curves behind.
        super().set_dataset(dataset)
        self._show(None, None)
        self._label_plots(None)

    def dataset_changed(self, dataset: Any) -> None:
        self.attack_demo.set_dataset(dataset)

    def run(self, params: UniquenessParams) -> None:
        data = self.dataset
        self._show(None, None)
        self._label_plots(params)
        for plot in (self.itemset_plot, self.person_plot):
            plot.set_m_range(params.min_m, params.max_m)
        self.submit(f"Uniqueness vs m ({data.name}, m ≤ {params.max_m})",
                    lambda progress: run_risk_analysis(data, params, progress),
                    on_partial=self._on_partial, on_done=self._on_done)

    def _label_plots(self, params: UniquenessParams | None) -> None:
        """Name the dataset (and the confidence level once a run starts) on both plots."""
        name = getattr(self.dataset, "name", "") if self.dataset is not None else ""
        parts = [name] if name else []
        if params is not None:
            parts.append(ci_caption(params.delta))
        for plot in (self.itemset_plot, self.person_plot):
            plot.set_caption("\n".join(parts))

    # ------------------------------------------------------------ results
    def _on_partial(self, partial: UniquenessResult) -> None:
        if getattr(partial, "kind", "itemset") == "person":
            self._show(self.itemsets, partial)
        else:
            self._show(partial, None)

    def _on_done(self, result: RiskResult, complete: bool) -> None:
        self._show(result.itemset, result.person)
        state = "finished" if complete else "stopped early; the points computed so far are shown"
        self.status.emit(f"Uniqueness analysis {state}.")
        self.analysis_finished.emit(result, complete)

    def _show(self, itemsets: UniquenessResult | None, people: UniquenessResult | None) -> None:
        self.itemsets, self.people = itemsets, people
        self.itemset_plot.show_result(itemsets)
        self.person_plot.show_result(people)
        self.table.show_results([itemsets, people])
