"""What the suppression cost: util_info, util_dist, util_mining, rule counts, passes and time, each with a "?".

Beside the table, the run pass by pass (suppressed occurrences so far), drawn
live from the suppressor's partial results; an earlier run chosen under
“compare with” adds a column and a dashed curve.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ....formatting import integer, number, percent
from ....glossary import meaning
from ....methods.rho.result import RhoResult
from ....methods.rho.suppressor import PassRecord
from ...controls import note_label
from ...glossary_dialog import glossary_button
from ...plots import ExportablePlot, integer_ticks

__all__ = ["UtilityView", "PassPlot", "UTILITY_ROWS", "utility_values"]

#: (key, label, glossary key) of the table's rows.
UTILITY_ROWS = (
    ("util_info", "Items suppressed (util_info)", "util_info"),
    ("util_dist", "Distribution change (util_dist)", "util_dist"),
    ("util_mining", "Rules lost (util_mining)", "util_mining"),
    ("rules_original", "Rules in the original", "association_rules"),
    ("rules_published", "Rules in the published", "association_rules"),
    ("rules_common", "Rules in both", "association_rules"),
    ("minsup", "Rule mining: minimum support", "minsup"),
    ("minconf", "Rule mining: minimum confidence", "minconf"),
    ("suppressed_items", "Suppressed occurrences", "suppressed_items"),
    ("iterations", "Passes", "passes"),
    ("seconds", "Running time", "runtime"),
    ("sensitive", "Sensitive items", "sensitive_setting"),
    ("samples", "Attackers drawn per pass and ℓ", "epsilon"),
)
THIS_RUN = "this run"
COMPARED = "compared run"


def utility_values(result: RhoResult | None) -> dict[str, str]:
    """The table's value texts of ``result`` (empty for None)."""
    if result is None:
        return {}
    doc = result.to_json()
    mining = result.mining
    not_mined = mining.reason if mining is not None and mining.value is None else \
        "not computed (the run was stopped)" if mining is None else ""
    total = int(doc["occurrences"])
    out = {
        # Short enough for the value column at 1280 px; the row's label and "?" say what is counted.
        "util_info": f"{percent(result.util_info, 2)} ({integer(result.suppressed_items)} of {integer(total)})",
        "util_dist": "n/a (nothing left)" if result.util_dist is None else
        f"{number(result.util_dist, 4)} (0 = unchanged)",
        "util_mining": not_mined or f"{number(mining.value, 4)} (0 = same rules)",
        "suppressed_items": integer(result.suppressed_items),
        "iterations": integer(result.iterations) + ("" if result.complete else " (stopped)"),
        "seconds": f"{number(result.seconds, 3)} s (suppression {number(result.suppression.seconds, 3)} s)",
        "sensitive": _sensitive_text(result),
        "samples": "all (exact algorithm)" if result.suppression.samples_per_level is None
        else integer(result.suppression.samples_per_level),
    }
    if mining is not None:
        records = "record" if mining.min_count == 1 else "records"
        out["minsup"] = f"{percent(float(mining.minsup), 3)} (at least {integer(mining.min_count)} {records})"
        out["minconf"] = percent(float(mining.minconf), 1)
        for key in ("rules_original", "rules_published", "rules_common"):
            value = getattr(mining, key)
            out[key] = "not computed" if value is None else integer(value)
    else:
        p = result.params
        out["minsup"] = percent(p.minsup, 3)
        out["minconf"] = percent(p.minconf, 1)
        for key in ("rules_original", "rules_published", "rules_common"):
            out[key] = "not computed"
    return out


def _sensitive_text(result: RhoResult) -> str:
    """"fixed: 4.0 per person, 4 shared" (the setting, or the file's name)."""
    constraint = result.constraint
    sizes = constraint.sizes()
    what = constraint.setting if constraint.setting != "file" else \
        (constraint.source.name if constraint.source else "from a file")
    mean = float(sizes.mean()) if len(sizes) else 0.0
    return f"{what}: {number(mean, 2)} per person, {integer(len(constraint.global_items))} shared"


class PassPlot(ExportablePlot):
    """Suppressed occurrences so far, after each pass (live)."""

    def __init__(self):
        super().__init__("Suppression, pass by pass", x_label="pass", y_label="suppressed so far",
                         y_units="occurrences", auto_legend=True,
                         empty_text="Each pass of the run adds a point here while it runs.")
        self.add_series(THIS_RUN, kind="line", color="#0072B2", symbol="o")
        self.add_series(COMPARED, kind="line", color="#7a7a7a", symbol="x", style=Qt.DashLine, width=1.5)
        self.add_glossary("passes")
        self.plot_widget.setMinimumHeight(200)

    def show_passes(self, name: str, passes: tuple[PassRecord, ...]) -> None:
        # Pass 0 is the original data: the curve starts at nothing suppressed.
        xs = [0] + [p.number for p in passes] if passes else []
        ys = [0] + [p.suppressed_total for p in passes] if passes else []
        tips = ["before the first pass: the original data"] if passes else []
        for p in passes:
            rules = sum(lv.repaired for lv in p.levels)
            unsafe = sum(lv.unsafe for lv in p.levels)
            state = "clean: nothing left to fix" if p.clean else f"{rules:,} rules repaired, {unsafe:,} unsafe " \
                                                                 "attackers found"
            tips.append(f"pass {p.number}: {p.suppressed_total:,} suppressed so far ({percent(p.util_info, 2)}); "
                        f"{state}; {p.seconds:.2f} s" + ("" if p.complete else " (stopped in this pass)"))
        self.set_series(name, xs, ys, tips=tips)
        largest = max([max(s.x, default=1) for s in self.series.values() if len(s.x)], default=1)
        integer_ticks(self.plot_item, "bottom", largest)
        highest = max([max(s.y, default=1) for s in self.series.values() if len(s.y)], default=1)
        if highest <= 12:
            integer_ticks(self.plot_item, "left", highest)
        else:
            self.plot_item.getAxis("left").setTickSpacing()
        self.fit_y_below_legend()


class UtilityView(QWidget):
    """The measures table (with glossary buttons) beside the pass-by-pass plot."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.table = QTableWidget(len(UTILITY_ROWS), 3)
        self.table.setObjectName("utility_table")
        self.table.setHorizontalHeaderLabels(["measure", "", "value"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.setWordWrap(False)
        for r, (_key, label, term_key) in enumerate(UTILITY_ROWS):
            item = QTableWidgetItem(label)
            item.setToolTip(meaning(term_key, "rho"))
            self.table.setItem(r, 0, item)
            self.table.setCellWidget(r, 1, glossary_button(term_key))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.setTextElideMode(Qt.ElideRight)
        self.compared_label = ""
        self.note = note_label("", "note")
        self.plot = PassPlot()
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.table, 1)
        left_layout.addWidget(self.note)
        splitter = QSplitter(Qt.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.plot)
        splitter.setChildrenCollapsible(False)
        splitter.setSizes([620, 380])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 0)
        layout.addWidget(splitter, 1)
        self._shown: dict[str, str] = {}
        self._compared: dict[str, str] | None = None
        self.show_values(None)

    def value_text(self, key: str) -> str | None:
        """The value shown for ``key`` (tests)."""
        keys = [k for k, _, _ in UTILITY_ROWS]
        item = self.table.item(keys.index(key), 2)
        return item.text() if item is not None else None

    def show_values(self, result: RhoResult | None) -> None:
        self._shown = utility_values(result)
        self.note.setText("" if result is None or result.complete else
                          "Stopped early: the values describe the data so far, which may still break ρ.")
        self._fill()

    def show_compared(self, result: RhoResult | None, label: str = "compared run") -> None:
        self._compared = utility_values(result) if result is not None else None
        self.compared_label = label
        self.plot.show_passes(COMPARED, result.passes if result is not None else ())
        self._fill()

    def _fill(self) -> None:
        extra = self._compared is not None
        self.table.setColumnCount(4 if extra else 3)
        self.table.setHorizontalHeaderLabels(["measure", "", "value", *([self.compared_label] if extra else [])])
        for r, (key, _, _) in enumerate(UTILITY_ROWS):
            for c, values in ((2, self._shown), (3, self._compared if extra else None)):
                if values is None:
                    continue
                item = QTableWidgetItem(values.get(key, ""))
                item.setToolTip(values.get(key, ""))
                self.table.setItem(r, c, item)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeToContents)
        for c in range(2, self.table.columnCount()):
            header.setSectionResizeMode(c, QHeaderView.Stretch)
