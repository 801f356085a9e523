"""The rule browser: sensitive rules Q → e above ρ in the original data, and one person's view.

The rules sit in a virtual table (:class:`~anonstudio.gui.data_view.RowsTable`
over :class:`.rule_rows.RuleRows`): thousands of rows cost nothing until they
are on screen. Filter by item (in Q or as e) and by person (record number, from 1);
selecting a rule says in words what it let an attacker infer and what was
suppressed for it, and shows the first person it threatened below:
their items, their sensitive items, what was suppressed and what is published.
"""
from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QLineEdit, QSplitter, QVBoxLayout, QWidget

from ....formatting import integer
from ....methods.rho.rules import RuleBrowser
from ...controls import note_label
from ...data_view import RowsTable
from .rule_rows import PersonRows, RuleRows, rule_sentence

__all__ = ["RuleBrowserView"]

WAITING = "The sensitive rules appear when a run finishes (or is stopped)."
PERSON_HINT = ("<b>Person view.</b> Select a rule to see the first person it threatened, or type a record number "
               "in “Person”.")


class RuleBrowserView(QWidget):
    """Rules table with item/person filters, a sentence per rule and a person view; see the module docstring.

    Signals
    -------
    person_shown(int)
        The record index (from 0) of the person the view shows (-1: none).
    """

    person_shown = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.browser: RuleBrowser | None = None
        self.rows: RuleRows | None = None
        self.person: int | None = None
        self.banner = note_label(WAITING, "body")
        self.banner.setObjectName("rules_banner")
        self.item_filter = QLineEdit()
        self.item_filter.setPlaceholderText("item, e.g. 10311")
        self.item_filter.setToolTip("Show only rules with this item among the known items Q or as the sensitive "
                                    "item e (a label, or part of one).")
        self.item_filter.setClearButtonEnabled(True)
        self.person_filter = QLineEdit()
        self.person_filter.setPlaceholderText("record number")
        self.person_filter.setToolTip("Show only the rules that threatened this person (record number, from 1), "
                                      "and the person below.")
        self.person_filter.setClearButtonEnabled(True)
        self.still_above = QCheckBox("still above ρ")
        self.still_above.setToolTip("Only rules whose confidence in the published data is still above ρ: after a "
                                    "stopped run, or allowed by the sampled algorithm's ε.")
        self.count = QLabel("")
        self.count.setObjectName("rules_count")
        self.table = RowsTable()
        self.table.setObjectName("rules_table")
        self.detail = note_label("", "body")
        self.detail.setObjectName("rule_detail")
        self.person_label = note_label(PERSON_HINT, "body")
        self.person_label.setObjectName("person_heading")
        self.person_table = RowsTable()
        self.person_table.setObjectName("person_table")
        self.person_table.setSortingEnabled(False)
        self.person_table.horizontalHeader().setVisible(False)

        filters = QHBoxLayout()
        filters.setContentsMargins(0, 0, 0, 0)
        filters.addWidget(QLabel("Item"))
        filters.addWidget(self.item_filter, 2)
        filters.addWidget(QLabel("Person"))
        filters.addWidget(self.person_filter, 1)
        filters.addWidget(self.still_above)
        filters.addWidget(self.count, 2)
        person = QWidget()
        person_layout = QVBoxLayout(person)
        person_layout.setContentsMargins(0, 0, 0, 0)
        person_layout.addWidget(self.person_label)
        person_layout.addWidget(self.person_table, 1)
        # The rules get the tab's full width (seven columns); the sentence and the person share the bottom.
        bottom = QSplitter(Qt.Horizontal)
        bottom.addWidget(self.detail)
        bottom.addWidget(person)
        bottom.setChildrenCollapsible(False)
        bottom.setSizes([400, 600])
        splitter = QSplitter(Qt.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(bottom)
        splitter.setChildrenCollapsible(False)
        splitter.setSizes([520, 480])
        self.detail.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 0)
        layout.addWidget(self.banner)
        layout.addLayout(filters)
        layout.addWidget(splitter, 1)

        self.item_filter.textChanged.connect(self.apply_filters)
        self.person_filter.textChanged.connect(self.apply_filters)
        self.still_above.toggled.connect(self.apply_filters)
        self.table.selectionModel().currentRowChanged.connect(lambda current, _previous: self._rule_selected(current))

    # ------------------------------------------------------------ content
    def set_browser(self, browser: RuleBrowser | RuleRows | None, waiting: str = WAITING) -> None:
        """Show ``browser``'s rules (None: an empty table and ``waiting``).

        Pass the :class:`RuleRows` built in a background job for a large run (they index every rule).
        """
        rows = browser if isinstance(browser, RuleRows) else RuleRows(browser) if browser is not None else None
        self.browser = rows.browser if rows is not None else None
        self.rows = rows
        self.table.set_source(self.rows)
        if self.rows is not None:
            # Narrow number columns leave room for what was suppressed; the people's list stretches last.
            for column, width in ((0, 44), (2, 72), (3, 112), (4, 112), (5, 210)):
                self.table.setColumnWidth(column, width)
            self.table.setColumnWidth(1, min(self.table.columnWidth(1), 170))
        self.detail.setText("")
        self.banner.setText(self._banner() if browser is not None else waiting)
        self.still_above.setVisible(self.rows is not None and bool(self.rows.still_above.any()))
        self.apply_filters()

    def _banner(self) -> str:
        browser = self.browser
        result = browser.result
        rho = float(result.params.rho_fraction)
        n = len(browser)
        above = int(sum(r.above(result.params.rho_fraction) for r in browser.rules))
        if browser.scanned:
            head = (f"<b>{integer(above)} sensitive rule{'s' if above != 1 else ''} Q → e</b> let an attacker "
                    f"infer a person's sensitive item with more than {rho * 100:g} % confidence in the original data")
        else:
            head = (f"<b>{integer(n)} sensitive rules Q → e the suppressor repaired</b> (too many attackers or rules "
                    "to list every rule above ρ in the original data)")
        extra = n - above if browser.scanned else 0
        if extra > 0:
            head += f"; {integer(extra)} more only rose above ρ after other suppressions and were repaired too"
        stopped = ""
        still = int(self.rows.still_above.sum()) if self.rows is not None else 0
        if result.complete and still:
            stopped = (f" {integer(still)} of them are above ρ again in the published data: the sampled promise lets "
                       "up to ε of the attackers succeed.")
        if not result.complete:
            stopped = (f" <b>Stopped early: the data so far is not a safe release.</b> {integer(still)} of the listed "
                       "rules are still above ρ (marked STILL ABOVE ρ); rules that only rose above ρ after the last "
                       "repairs are not listed: the Independent check tab counts every attacker who still succeeds.")
        return head + ". Before / after: the confidence in the original / published data." + stopped

    # ------------------------------------------------------------ filters
    def set_filters(self, item: str = "", person: int | None = None) -> None:
        """Filter by item text and/or person (its record index, from 0; the field shows its number, from 1)."""
        self.item_filter.setText(item)
        self.person_filter.setText("" if person is None else str(person + 1))

    def apply_filters(self) -> None:
        rows = self.rows
        if rows is None:
            self.count.setText("")
            self.table.rows_model.set_filter(None)
            self._show_person(None)
            return
        person, problem = self._person()
        item = self.item_filter.text()
        if problem:
            self.table.rows_model.set_filter([])
            self.count.setText(problem)
            self._show_person(None)
            return
        filtered = bool(item.strip()) or person is not None or self.still_above.isChecked()
        chosen = rows.select(item, person, self.still_above.isChecked()) if filtered else None
        self.table.rows_model.set_filter(chosen)
        shown = rows.n_rows if chosen is None else len(chosen)
        self.count.setText(f"{integer(shown)} of {integer(rows.n_rows)} rules")
        if person is not None:
            self._show_person(person)
        elif self.person is not None and self.person_filter.text().strip() == "":
            self._rule_selected(self.table.currentIndex())
        if self.table.rows_model.rowCount() and not self.table.currentIndex().isValid():
            self.table.selectRow(0)

    def _person(self) -> tuple[int | None, str]:
        text = self.person_filter.text().strip().lstrip("#")
        if not text:
            return None, ""
        n = self.browser.result.original.n_records
        if not text.isdigit() or not 1 <= int(text) <= n:
            return None, f"no record {text} (records are 1 to {integer(n)})"
        return int(text) - 1, ""

    # ---------------------------------------------------------- selection
    def _rule_selected(self, current) -> None:
        if self.rows is None or not current.isValid():
            self.detail.setText("")
            return
        row = self.table.rows_model.data_row(current.row())
        self.detail.setText(html.escape(rule_sentence(self.rows, row)))
        person, _ = self._person()
        if person is None:
            people = self.browser.rules[row].people
            self._show_person(int(people[0]) if len(people) else None, of_rule=len(people))

    def _show_person(self, person: int | None, of_rule: int = 0) -> None:
        self.person = person
        if person is None or self.browser is None:
            self.person_table.set_source(None)
            self.person_label.setText(PERSON_HINT)
            self.person_shown.emit(-1)
            return
        source = PersonRows(self.browser, person)
        self.person_table.set_source(source)
        self.person_table.setColumnWidth(0, 90)
        which = (f"The first of the {integer(of_rule)} people the selected rule threatened; type a record number in "
                 "“Person” for another.") if of_rule > 1 else ""
        self.person_label.setText(f"<b>{html.escape(source.summary())}</b>")
        self.person_label.setToolTip(which)
        self.person_shown.emit(person)
