"""The independent check of a ρ release: one row per number of known items ℓ, utilities recomputed, worst rules.

The verifier (``anonstudio.verifiers.rho``, no code shared with the
suppressor) enumerates every attacker (a person and ℓ of their items) when
that is affordable, or draws its own sample with an exact binomial interval
for the unsafe share; it also re-checks that every published record is a
subset of the original and recomputes the utilities.
"""
from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
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
from ....methods.contract import MethodRun, verdict, verdict_head
from ....verifiers.rho import RhoLevelCheck, RhoVerification
from ...controls import STATE_COLOURS, note_label

__all__ = ["CheckView", "LEVEL_COLUMNS", "level_verdict"]

LEVEL_COLUMNS = ("ℓ", "how", "attackers checked", "unsafe", "unsafe share", "interval", "allowed", "verdict")
LEVEL_TIPS = (
    "ℓ: number of the person's items the attacker knows.",
    "all: every attacker enumerated; sampled: a random sample drawn by the checker itself.",
    "Attackers (a person and ℓ of their items) checked.",
    "Attackers who can infer one of the person's sensitive items with more than ρ confidence.",
    "Unsafe attackers as a share of the attackers (under the sampler the run used: a random person then a "
    "random set of their items, or every (person, itemset) pair equally likely).",
    "Where the true unsafe share lies, at the check's confidence (exact binomial interval); exact when enumerated.",
    "The promise: no unsafe attacker (exact algorithm), or an unsafe share below ε (sampled algorithm).",
    "Whether this level keeps the promise.",
)
SAMPLER_WORDS = {"user": "as the run's promise counts them: a random person, then a random set of their items",
                 "pair": "as the run's promise counts them: every (person, itemset) pair equally likely"}
#: Names of the recomputed utilities (as in the Utility tab).
UTILITY_NAMES = {"suppressed_items": "suppressed occurrences", "util_info": "util_info", "util_dist": "util_dist",
                 "util_mining": "util_mining", "rules_original": "rules in the original",
                 "rules_published": "rules in the published", "rules_common": "rules in both"}
INTRO = ("<b>Independent check</b> (separate code from the suppressor): for each number ℓ of items an attacker "
         "knows, how many attackers can still infer a sensitive item with more than ρ confidence in the "
         "published data.")


def level_verdict(level: RhoLevelCheck, epsilon: float | None) -> tuple[str, str]:
    """(words, state) for one level ℓ: the promise holds, is consistent with the sample, or is broken."""
    if epsilon is None:
        if level.unsafe == 0:
            return ("holds" if level.method == "exhaustive" else "none unsafe drawn"), "ok"
        return "BROKEN", "failed"
    bound = level.share if level.method == "exhaustive" else level.ci_high
    if bound < epsilon:
        return "holds", "ok"
    return "BROKEN" if level.ci_low >= epsilon else "not shown below ε", "failed"


def _item(text: str, right: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if right:
        item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
    return item


def _table(columns, tips=(), stretch: int | None = None) -> QTableWidget:
    """A read-only table sized to its contents; ``stretch`` (a column) takes the room left, else the last one."""
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    for c, tip in enumerate(tips):
        table.horizontalHeaderItem(c).setToolTip(tip)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.NoEditTriggers)
    table.verticalHeader().setDefaultSectionSize(22)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeToContents)
    if stretch is None:
        header.setStretchLastSection(True)
    else:
        header.setSectionResizeMode(stretch, QHeaderView.Stretch)
    return table


class CheckView(QWidget):
    """Per-ℓ table, recomputed utilities and the worst rules found."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.intro = note_label(INTRO, "body")
        self.levels = _table(LEVEL_COLUMNS, LEVEL_TIPS)
        self.levels.setObjectName("check_levels")
        self.utilities = _table(("measure", "reported", "recomputed"),
                                ("", "What the run reported.", "What the checker computed on its own."))
        self.utilities.setObjectName("check_utilities")
        self.worst = _table(("person", "known items Q", "→ e", "confidence"),
                            ("Record number (from 1).", "Items the attacker knows.", "The sensitive item inferred.",
                             "How sure the attacker can be in the published data."), stretch=1)
        self.worst.setObjectName("check_worst")
        self.records = note_label("", "body")
        self.records.setObjectName("check_records")
        bottom = QSplitter(Qt.Horizontal)
        for title, widget in (("Utilities: reported and recomputed", self.utilities),
                              ("Strongest inferences still possible", self.worst)):
            box = QWidget()
            box_layout = QVBoxLayout(box)
            box_layout.setContentsMargins(0, 0, 0, 0)
            box_layout.setSpacing(1)
            box_layout.addWidget(note_label(title, "heading"))
            box_layout.addWidget(widget, 1)
            bottom.addWidget(box)
        bottom.setChildrenCollapsible(False)
        split = QSplitter(Qt.Vertical)
        split.addWidget(self.levels)
        split.addWidget(bottom)
        split.setChildrenCollapsible(False)
        split.setSizes([120, 200])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 0)
        layout.addWidget(self.intro)
        layout.addWidget(split, 1)
        layout.addWidget(self.records)
        self.show_check(None)

    def show_check(self, run: MethodRun | None, so_far: RhoVerification | None = None) -> None:
        """Fill the tables from ``run``'s verification (None, or no check: empty, saying why).

        ``so_far`` is a check of a stopped run's data so far: shown as such, never as the release's check.
        """
        v: RhoVerification | None = so_far if so_far is not None else run.verification if run is not None else None
        for table in (self.levels, self.utilities, self.worst):
            table.clearSpans()
            table.setRowCount(0)
        self.so_far = so_far is not None
        if v is None:
            self.intro.setText(INTRO)
            stopped = run is not None and run.result is not None and not run.result.complete
            self.records.setText("The run was stopped early: checking the data so far…" if stopped else
                                 "No independent check yet: it runs after a finished run." if run is None else
                                 html.escape(verdict(run)))
            return
        epsilon = v.epsilon
        self.levels.horizontalHeaderItem(5).setText(f"{v.confidence:.0%} interval")
        sampler = next((lv.sampler for lv in v.levels if lv.method == "sampled"), None)
        intro = INTRO + (f" Sampled attackers are drawn {SAMPLER_WORDS.get(sampler, sampler)}."
                         if sampler else " Every attacker was enumerated.")
        if so_far is not None:
            intro = (f"<b>Stopped early — the data so far, checked independently: "
                     f"{'NOT safe' if not v.privacy_holds else 'no unsafe attacker found, but the run did not finish'}"
                     f".</b> Do not publish it. " + intro)
        else:
            # The run's verdict in the contract's words, as the callout and the report say it.
            intro = f"<b>{html.escape(verdict_head(run))}.</b> " + intro
        self.intro.setText(intro)
        self.levels.setRowCount(len(v.levels))
        for r, lv in enumerate(v.levels):
            words, state = level_verdict(lv, epsilon)
            interval = "exact" if lv.method == "exhaustive" else \
                f"{percent(lv.ci_low, 2)} – {percent(lv.ci_high, 2)}"
            allowed = "none" if epsilon is None else f"< {percent(epsilon, 2)}"
            how = "all" if lv.method == "exhaustive" else "sampled"
            values = (str(lv.level), how, integer(lv.adversaries), integer(lv.unsafe), percent(lv.share, 2),
                      interval, allowed, words)
            for c, text in enumerate(values):
                item = _item(text, right=c in (0, 2, 3, 4))
                if c == len(values) - 1:
                    item.setBackground(QColor(STATE_COLOURS[state][0]))
                self.levels.setItem(r, c, item)
        self._fill_utilities(run, v)
        self.worst.setRowCount(len(v.worst))
        for r, w in enumerate(v.worst):
            values = (str(w.user + 1), ", ".join(w.antecedent), w.consequent,
                      f"{percent(w.confidence, 1)} ({integer(w.s_qe)} of {integer(w.s_q)})")
            for c, text in enumerate(values):
                self.worst.setItem(r, c, _item(text, right=c in (0, 3)))
        if not v.worst:
            self.worst.setRowCount(1)
            self.worst.setItem(0, 0, _item("none: no attacker checked succeeds"))
            self.worst.setSpan(0, 0, 1, self.worst.columnCount())
        if v.record_problems:
            records = (f"<b>Records: {integer(len(v.record_problems))} problem(s)</b>, e.g. "
                       f"{html.escape(v.record_problems[0])}")
        else:
            records = (f"Records: all {integer(v.records_checked)} published records are subsets of the originals, in "
                       "the same order.")
        if v.mismatches:
            records += " <b>Utilities differ from the reported ones:</b> " + "; ".join(v.mismatches)
        if not v.complete:
            records += " <b>The check was stopped before it finished.</b>"
        self.records.setText(records + f" Check took {number(v.seconds, 3)} s.")

    def _fill_utilities(self, run: MethodRun, v: RhoVerification) -> None:
        reported = run.result.to_json() if run.result is not None else {}
        keys = [k for k in ("suppressed_items", "util_info", "util_dist", "util_mining", "rules_original",
                            "rules_published", "rules_common") if k in v.utilities]
        self.utilities.setRowCount(len(keys))
        for r, key in enumerate(keys):
            for c, value in enumerate((UTILITY_NAMES.get(key, key), _value(key, reported.get(key)),
                                       _value(key, v.utilities.get(key)))):
                self.utilities.setItem(r, c, _item(value, right=c > 0))


def _value(key: str, value) -> str:
    if value is None:
        return "not computed"
    if key == "util_info":
        return percent(value, 2)
    return number(value, 6)
