"""Column pickers and the CSV chooser of the Threats workbench.

:class:`ThreatSetupPanel` sits inside the workbench's parameter panel, under
the fields built from :class:`~anonstudio.gui.threat_job.ThreatRunParams`:

* the sensitive attribute (a combo over the table's columns);
* one line per other column with two boxes: *quasi-identifier* (published,
  generalized) and *attacker knows* (the victim's values the attacker has
  from elsewhere; a subset of the quasi-identifiers);
* for the "Imported CSV" scheme, the anonymized file and an optional domain file.

Defaults: for the UCI Adult table the paper's nine attributes with occupation
sensitive; otherwise the column marked sensitive (or the last column with few
distinct values) and every other column that is not an identifier.
"""
from __future__ import annotations

import csv
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..data.table import Table
from .param_panel import ParamPanel
from .threat_job import ThreatSetup

__all__ = ["ThreatSetupPanel", "default_columns", "PAPER_ADULT_QI", "PAPER_ADULT_SENSITIVE"]

#: Section VI of Boreale et al. (2020): eight quasi-identifiers of Adult, occupation sensitive.
PAPER_ADULT_QI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "income")
PAPER_ADULT_SENSITIVE = "occupation"
#: A column with more distinct values than this is not offered as a default
#: quasi-identifier (fnlwgt, free-text ids): its groups could never be small.
MAX_DEFAULT_DISTINCT = 200
QI_COL, KNOWN_COL = 1, 2
#: Form fields that mean nothing for an already anonymized, imported CSV.
IGNORED_BY_CSV = ("k", "l", "rows")


def default_columns(table: Table) -> tuple[list[str], str]:
    """Quasi-identifiers and sensitive column a first run should use."""
    columns = [str(c) for c in table.frame.columns]
    if set(PAPER_ADULT_QI) | {PAPER_ADULT_SENSITIVE} <= set(columns):
        return list(PAPER_ADULT_QI), PAPER_ADULT_SENSITIVE
    distinct = {c: int(table.frame[c].nunique(dropna=True)) for c in columns}
    marked = [c for c in table.sensitive if c in columns]
    if marked:
        sensitive = marked[0]
    else:
        few = [c for c in columns if 2 <= distinct[c] <= 50]
        sensitive = few[-1] if few else columns[-1]
    n = table.n_rows
    qi = [c for c in table.quasi_identifiers
          if c != sensitive and distinct[c] <= MAX_DEFAULT_DISTINCT and not (n > 1 and distinct[c] == n)]
    return qi, sensitive


class ThreatSetupPanel(QWidget):
    """Sensitive column, quasi-identifiers, attacker knowledge and the CSV file; see the module docstring.

    Signals
    -------
    changed()
        Any choice here changed.
    """

    changed = Signal()

    def __init__(self, panel: ParamPanel, parent: QWidget | None = None):
        super().__init__(parent)
        self.panel = panel
        self.csv_path: Path | None = None
        self.domain_path: Path | None = None
        self.csv_header: list[str] = []
        self._filling = False

        columns_box = QGroupBox("Columns")
        columns_layout = QVBoxLayout(columns_box)
        form = QFormLayout()
        self.sensitive_combo = QComboBox()
        self.sensitive_combo.setObjectName("threat_sensitive")
        self.sensitive_combo.setToolTip("The attribute the attacker tries to guess (the paper: occupation). "
                                        "The number of different values is shown in brackets.")
        self.sensitive_combo.currentIndexChanged.connect(self._sensitive_changed)
        form.addRow("Sensitive", self.sensitive_combo)
        columns_layout.addLayout(form)
        self.column_table = QTableWidget(0, 3)
        self.column_table.setObjectName("threat_columns")
        self.column_table.setHorizontalHeaderLabels(["column (values)", "QI", "known"])
        self.column_table.horizontalHeaderItem(QI_COL).setToolTip(
            "Quasi-identifier: published (generalized or exact) and used to link people.")
        self.column_table.horizontalHeaderItem(KNOWN_COL).setToolTip(
            "The attacker knows the victim's value of this quasi-identifier from elsewhere. "
            "The learner is compared on the same knowledge.")
        self.column_table.verticalHeader().setVisible(False)
        self.column_table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.column_table.setSelectionMode(QAbstractItemView.NoSelection)
        header = self.column_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.Stretch)
        header.setSectionResizeMode(QI_COL, QHeaderView.ResizeToContents)
        header.setSectionResizeMode(KNOWN_COL, QHeaderView.ResizeToContents)
        self.column_table.verticalHeader().setDefaultSectionSize(20)
        self.column_table.setMinimumHeight(150)
        self.column_table.setToolTip("QI: tick the quasi-identifiers. known: which of them the attacker knows "
                                     "about the victim (default: all).")
        self.column_table.itemChanged.connect(self._item_changed)
        columns_layout.addWidget(self.column_table)

        self.csv_box = QGroupBox("Anonymized CSV")
        csv_layout = QVBoxLayout(self.csv_box)
        for attr, text, tip in (
            ("csv", "Anonymized file…",
             "One line per row of the loaded table, in the same order (or an 'id' column naming the row): "
             "gid, quasi-identifier cells ([20-29], {a|b}, 4550*, *), sensitive value or {multiset} for Anatomy."),
            ("domain", "Domain file (optional)…",
             "CSV 'column,value' listing every value a '*' or mask stands for, when the table does not "
             "show them all (e.g. the ten ZIP codes of 4550*)."),
        ):
            row = QHBoxLayout()
            button = QPushButton(text)
            button.setToolTip(tip)
            label = QLabel("none")
            label.setStyleSheet("color: #555;")
            # A long file name must not widen the narrow parameters dock.
            label.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
            row.addWidget(button)
            row.addWidget(label, 1)
            csv_layout.addLayout(row)
            setattr(self, f"{attr}_button", button)
            setattr(self, f"{attr}_label", label)
        self.csv_button.clicked.connect(self._choose_csv)
        self.domain_button.clicked.connect(self._choose_domain)

        self.problem_label = QLabel()
        self.problem_label.setObjectName("threat_setup_problem")
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet("color: #b00020;")
        self.problem_label.setVisible(False)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(columns_box)
        layout.addWidget(self.csv_box)
        layout.addWidget(self.problem_label)
        panel_layout = panel.layout()
        panel_layout.insertWidget(panel_layout.indexOf(panel.error_label), self)
        panel.params_changed.connect(lambda _p: self.refresh())
        self.refresh()

    # ------------------------------------------------------------ dataset
    def set_table(self, table: Table) -> None:
        """Offer ``table``'s columns, with the default choice ticked."""
        qi, sensitive = default_columns(table)
        self._filling = True
        self.sensitive_combo.clear()
        self._distinct = {str(c): int(table.frame[c].nunique(dropna=True)) for c in table.frame.columns}
        for c in table.frame.columns:
            self.sensitive_combo.addItem(f"{c} ({self._distinct[str(c)]})", str(c))
        self.sensitive_combo.setCurrentIndex(max(self.sensitive_combo.findData(sensitive), 0))
        self._filling = False
        self._fill_columns(set(qi), set(qi))

    def _fill_columns(self, qi: set[str], known: set[str]) -> None:
        self._filling = True
        sensitive = self.sensitive
        names = [self.sensitive_combo.itemData(i) for i in range(self.sensitive_combo.count())]
        names = [n for n in names if n != sensitive]
        self.column_table.setRowCount(len(names))
        for r, name in enumerate(names):
            label = QTableWidgetItem(f"{name} ({self._distinct.get(name, 0)})")
            label.setData(Qt.UserRole, name)
            self.column_table.setItem(r, 0, label)
            for col, ticked in ((QI_COL, name in qi), (KNOWN_COL, name in known and name in qi)):
                box = QTableWidgetItem()
                box.setFlags(Qt.ItemIsUserCheckable | Qt.ItemIsEnabled)
                box.setCheckState(Qt.Checked if ticked else Qt.Unchecked)
                self.column_table.setItem(r, col, box)
        self._filling = False
        self._sync_known_enabled()
        self.refresh()

    # ------------------------------------------------------------ choices
    @property
    def sensitive(self) -> str:
        return self.sensitive_combo.currentData() or ""

    def _ticked(self, col: int) -> list[str]:
        out = []
        for r in range(self.column_table.rowCount()):
            box = self.column_table.item(r, col)
            if box is not None and box.checkState() == Qt.Checked:
                out.append(self.column_table.item(r, 0).data(Qt.UserRole))
        return out

    @property
    def qi(self) -> list[str]:
        return self._ticked(QI_COL)

    @property
    def known(self) -> list[str]:
        qi = set(self.qi)
        return [c for c in self._ticked(KNOWN_COL) if c in qi]

    def set_columns(self, qi: list[str], sensitive: str, known: list[str] | None = None) -> None:
        """Choose columns programmatically (tests, project files)."""
        self._filling = True
        self.sensitive_combo.setCurrentIndex(max(self.sensitive_combo.findData(sensitive), 0))
        self._filling = False
        self._fill_columns(set(qi), set(qi if known is None else known))

    def setup(self) -> ThreatSetup:
        """The current choice; ``known`` is empty when the attacker knows every quasi-identifier."""
        qi, known = self.qi, self.known
        id_column = "id" if "id" in self.csv_header else None
        return ThreatSetup(tuple(qi), self.sensitive, tuple(known) if set(known) != set(qi) else (),
                           self.csv_path, self.domain_path, id_column)

    def problem(self) -> str:
        scheme = self.panel.values().get("scheme")
        problem = self.setup().problem(scheme)
        if not problem and not self.known:
            problem = "Tick at least one quasi-identifier the attacker knows."
        return problem

    def refresh(self) -> None:
        """Show or hide the CSV part and the problem line; grey out what an imported CSV ignores."""
        imported = self.panel.values().get("scheme") == "csv"
        self.csv_box.setVisible(imported)
        for name in IGNORED_BY_CSV:
            field = self.panel.fields.get(name)
            if field is None:
                continue
            box = field.enable_box
            if box is not None:
                box.setEnabled(not imported)
            field.editor.setEnabled(not imported and (box is None or box.isChecked()))
        problem = self.problem() if self.column_table.rowCount() else ""
        self.problem_label.setText(problem)
        self.problem_label.setVisible(bool(problem))

    # ----------------------------------------------------------- handlers
    def _sensitive_changed(self) -> None:
        if self._filling:
            return
        qi = set(self.qi) - {self.sensitive}
        known = set(self.known) - {self.sensitive}
        self._fill_columns(qi, known)
        self.changed.emit()

    def _item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling:
            return
        if item.column() == QI_COL:
            # A new quasi-identifier is known to the attacker by default.
            self._filling = True
            known = self.column_table.item(item.row(), KNOWN_COL)
            known.setCheckState(item.checkState())
            self._filling = False
            self._sync_known_enabled()
        self.refresh()
        self.changed.emit()

    def _sync_known_enabled(self) -> None:
        self._filling = True
        for r in range(self.column_table.rowCount()):
            is_qi = self.column_table.item(r, QI_COL).checkState() == Qt.Checked
            known = self.column_table.item(r, KNOWN_COL)
            known.setFlags(Qt.ItemIsUserCheckable | (Qt.ItemIsEnabled if is_qi else Qt.NoItemFlags))
        self._filling = False

    def set_csv(self, path: Path | str | None, domain_path: Path | str | None = None) -> None:
        """Use this anonymized CSV; its quasi-identifier columns become the ticked ones."""
        self.csv_path = Path(path) if path else None
        self.domain_path = Path(domain_path) if domain_path else None
        self.csv_header = _read_header(self.csv_path) if self.csv_path else []
        self.csv_label.setText(self.csv_path.name if self.csv_path else "none")
        self.csv_label.setToolTip(str(self.csv_path or ""))
        self.domain_label.setText(self.domain_path.name if self.domain_path else "none")
        self.domain_label.setToolTip(str(self.domain_path or ""))
        if self.csv_header:
            shared = [c for c in self.csv_header if c not in ("gid", "id", self.sensitive)]
            names = {self.column_table.item(r, 0).data(Qt.UserRole) for r in range(self.column_table.rowCount())}
            qi = [c for c in shared if c in names]
            if qi:
                self._fill_columns(set(qi), set(qi))
        self.refresh()
        self.changed.emit()

    def _choose_csv(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Anonymized CSV", "", "CSV files (*.csv);;All files (*)")
        if name:
            self.set_csv(name, self.domain_path)

    def _choose_domain(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Domain file", "", "CSV files (*.csv);;All files (*)")
        if name:
            self.set_csv(self.csv_path, name)


def _read_header(path: Path) -> list[str]:
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            return [h.strip() for h in next(csv.reader(fh), [])]
    except (OSError, UnicodeDecodeError, csv.Error):
        return []  # the import reports the file's problem with its line number
