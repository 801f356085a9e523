"""Settings of the σ-k^m workbench that are not fields of :class:`KmAnonParams`.

:class:`KmSetupPanel` sits inside the workbench's parameter panel, under the
fields built from the params dataclass, and adds

* the constraint family (touching towers / hierarchy cuts / free merging),
  the study-area boundary and the hierarchy file;
* a per-level table of k_l and σ_l ("same for all levels" or one row per
  itemset size), which writes the ``k_levels`` / ``sigma_levels`` fields of
  the panel, and shows how many samples γ each level needs under the chosen
  bound;
* how many itemsets the independent verifier draws per size.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..methods.kmanon.gamma import sample_bound
from .param_panel import ParamPanel

__all__ = ["KmSetupPanel", "CONSTRAINT_LABELS", "BOUNDARY_HULL", "BOUNDARY_FILE"]

CONSTRAINT_LABELS = {
    "contiguity": "Touching towers only (each partition one region)",
    "hierarchy": "Cuts of an item hierarchy (tree file)",
    "free": "Any items (free merging)",
}
CONSTRAINT_TIPS = {
    "contiguity": "Merge only partitions whose Voronoi cells touch, so every published partition is one "
                  "connected area on the map (the paper's setting). Needs item coordinates.",
    "hierarchy": "Items are generalized to nodes of a tree (e.g. street → district → city); a partition is "
                 "everything under one node. Needs a hierarchy CSV whose leaves are the items.",
    "free": "Any two partitions may merge. The most flexible, but a partition can mix unrelated items.",
}
BOUNDARY_HULL = "hull"
BOUNDARY_FILE = "file"
DEFAULT_VERIFY_SAMPLES = 5000


class KmSetupPanel(QWidget):
    """Constraint, boundary, per-level k/σ table and verifier size; see the module docstring.

    Signals
    -------
    changed()
        Any setting here changed.
    boundary_changed()
        The study area changed (the cells must be rebuilt).
    """

    changed = Signal()
    boundary_changed = Signal()

    def __init__(self, panel: ParamPanel, parent: QWidget | None = None):
        super().__init__(parent)
        self.panel = panel
        self._boundary_path: Path | None = None
        self._hierarchy_path: Path | None = None
        self._has_coordinates = True
        self._writing = False  # table -> panel writes must not refill the table
        self.level_error = ""

        # ---- what may be merged
        merge_box = QGroupBox("What may be merged")
        form = QFormLayout(merge_box)
        self.constraint_combo = QComboBox()
        self.constraint_combo.setObjectName("constraint")
        for key, label in CONSTRAINT_LABELS.items():
            self.constraint_combo.addItem(label, key)
            self.constraint_combo.setItemData(self.constraint_combo.count() - 1, CONSTRAINT_TIPS[key],
                                              Qt.ToolTipRole)
        self.constraint_combo.setToolTip("Which items may be published together as one partition.")
        _narrow(self.constraint_combo)
        self.constraint_combo.currentIndexChanged.connect(self._constraint_changed)
        form.addRow("Merge", self.constraint_combo)

        self.boundary_combo = QComboBox()
        self.boundary_combo.setObjectName("boundary")
        self.boundary_combo.addItem("Buffered hull of the towers (default)", BOUNDARY_HULL)
        self.boundary_combo.addItem("Polygon file…", BOUNDARY_FILE)
        self.boundary_combo.setToolTip(
            "The study area the Voronoi cells are cut to. Default: the convex hull of the towers widened by the "
            "typical distance between neighbouring towers. Or a GeoJSON (longitude/latitude) or WKT (metres) "
            "polygon, e.g. the city outline.")
        self.boundary_combo.activated.connect(self._boundary_activated)
        _narrow(self.boundary_combo)
        self.boundary_label = QLabel()
        self.boundary_label.setWordWrap(True)
        self.boundary_label.setStyleSheet("color: #555;")
        form.addRow("Study area", self.boundary_combo)
        form.addRow("", self.boundary_label)
        self.boundary_label.setVisible(False)

        hierarchy_row = QHBoxLayout()
        self.hierarchy_button = QPushButton("Choose file…")
        self.hierarchy_button.setToolTip("A hierarchy CSV, one row per item: item, parent, grandparent, …")
        self.hierarchy_button.clicked.connect(self._choose_hierarchy)
        self.hierarchy_label = QLabel("no file")
        self.hierarchy_label.setWordWrap(True)
        hierarchy_row.addWidget(self.hierarchy_button)
        hierarchy_row.addWidget(self.hierarchy_label, 1)
        self.hierarchy_row = QWidget()
        self.hierarchy_row.setLayout(hierarchy_row)
        form.addRow("Hierarchy", self.hierarchy_row)
        self.merge_form = form

        self.constraint_note = QLabel()
        self.constraint_note.setObjectName("constraint_note")
        self.constraint_note.setWordWrap(True)
        self.constraint_note.setStyleSheet("color: #555;")
        form.addRow(self.constraint_note)

        # ---- k and sigma per level
        level_box = QGroupBox("k and σ per itemset size ℓ")
        level_layout = QVBoxLayout(level_box)
        self.same_box = QCheckBox("Same k and σ for all levels")
        self.same_box.setObjectName("same_for_all_levels")
        self.same_box.setChecked(True)
        self.same_box.setToolTip("Unchecked: give each itemset size ℓ = 1..m its own k and σ in the table, "
                                 "e.g. σ = 1 (check every itemset) for small ℓ.")
        self.same_box.toggled.connect(self._same_toggled)
        self.level_table = QTableWidget(0, 3)
        self.level_table.setObjectName("level_table")
        self.level_table.setHorizontalHeaderLabels(["k", "σ", "samples γ"])
        self.level_table.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.level_table.verticalHeader().setDefaultSectionSize(22)
        self.level_table.setToolTip(
            "Row ℓ: itemsets of ℓ items must be shared by at least k people, with probability σ. "
            "'samples γ': how many random itemsets in a row must pass before the level is accepted "
            "(Theorem 1, under the chosen sample bound); σ = 1 checks every itemset instead.")
        self.level_table.cellChanged.connect(self._cell_changed)
        self.level_table.setMaximumHeight(170)
        self.level_table.setMinimumWidth(120)
        self.level_note = QLabel()
        self.level_note.setWordWrap(True)
        self.level_note.setStyleSheet("color: #555;")
        level_layout.addWidget(self.same_box)
        level_layout.addWidget(self.level_table)
        level_layout.addWidget(self.level_note)

        # ---- verifier
        verify_form = QFormLayout()
        self.verify_spin = QSpinBox()
        self.verify_spin.setObjectName("verify_samples")
        self.verify_spin.setRange(0, 1_000_000)
        self.verify_spin.setSingleStep(1000)
        self.verify_spin.setValue(DEFAULT_VERIFY_SAMPLES)
        self.verify_spin.setToolTip("After the run an independent check draws this many random itemsets of "
                                    "each size and counts how many are shared by at least k people. 0: skip.")
        verify_form.addRow("Check per size", self.verify_spin)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(merge_box)
        layout.addWidget(level_box)
        layout.addLayout(verify_form)

        # The per-level strings are edited through the table, not as text.
        advanced = panel.advanced_box.layout()
        for name in ("k_levels", "sigma_levels"):
            if name in panel.fields and isinstance(advanced, QFormLayout):
                advanced.setRowVisible(panel.editor(name), False)
        # Long choice labels and captions of the params dataclass would make the
        # dock wider than the window leaves it.
        if "bound" in panel.fields:
            _narrow(panel.editor("bound"))
        for label in panel.findChildren(QLabel):
            if label.buddy() is not None:
                label.setWordWrap(True)
        panel.params_changed.connect(lambda _p: self.refresh_levels())
        panel_layout = panel.layout()
        panel_layout.insertWidget(panel_layout.indexOf(panel.error_label), self)
        self._constraint_changed()
        self.refresh_levels()

    # ------------------------------------------------------------ queries
    @property
    def constraint(self) -> str:
        return self.constraint_combo.currentData()

    @property
    def boundary_path(self) -> Path | None:
        """The polygon file of the study area, or None for the buffered hull."""
        return self._boundary_path if self.boundary_combo.currentData() == BOUNDARY_FILE else None

    @property
    def hierarchy_path(self) -> Path | None:
        return self._hierarchy_path

    @property
    def verify_samples(self) -> int:
        return int(self.verify_spin.value())

    def problem(self) -> str:
        """Why a run cannot start with these settings ("" if it can)."""
        if self.constraint == "contiguity" and not self._has_coordinates:
            return "Touching towers needs item coordinates; choose another merge rule."
        if self.constraint == "hierarchy" and self._hierarchy_path is None:
            return "Choose a hierarchy file (Merge: cuts of an item hierarchy)."
        return self.level_error

    # ------------------------------------------------------------- set up
    def set_has_coordinates(self, has: bool) -> None:
        """Offer the contiguity rule and the study area only for located items."""
        self._has_coordinates = has
        model = self.constraint_combo.model()
        model.item(0).setEnabled(has)
        if not has and self.constraint == "contiguity":
            self.constraint_combo.setCurrentIndex(self.constraint_combo.findData("free"))
        elif has and self.constraint != "contiguity":
            self.constraint_combo.setCurrentIndex(0)
        self._constraint_changed()

    def set_constraint(self, key: str) -> None:
        self.constraint_combo.setCurrentIndex(self.constraint_combo.findData(key))

    def set_boundary_path(self, path: str | Path | None) -> None:
        """Use a polygon file as study area (None: the buffered hull)."""
        self._boundary_path = Path(path) if path else None
        self.boundary_combo.setCurrentIndex(1 if path else 0)
        self.boundary_label.setText(self._boundary_path.name if self._boundary_path else "")
        self.boundary_label.setVisible(self._boundary_path is not None)
        self.boundary_changed.emit()
        self.changed.emit()

    def set_hierarchy_path(self, path: str | Path | None) -> None:
        self._hierarchy_path = Path(path) if path else None
        self.hierarchy_label.setText(self._hierarchy_path.name if self._hierarchy_path else "no file")
        self.changed.emit()

    # ---------------------------------------------------------- internals
    def _constraint_changed(self, *_args) -> None:
        key = self.constraint
        located = self._has_coordinates
        self.boundary_combo.setEnabled(located)
        self.hierarchy_row.setEnabled(key == "hierarchy")
        notes = {
            "contiguity": "Partitions are unions of touching Voronoi cells; error = distance to the partition's "
                          "centre in metres.",
            "hierarchy": "Error = information loss of the tree nodes (NCP: 0 = none, 1 = everything merged).",
            "free": "Error = information loss (NCP: 0 = none, 1 = everything in one partition).",
        }
        text = notes[key]
        if not located:
            text += " This dataset has no item coordinates, so touching towers and the map are not available."
        self.constraint_note.setText(text)
        self.changed.emit()

    def _boundary_activated(self, index: int) -> None:
        if self.boundary_combo.itemData(index) != BOUNDARY_FILE:
            self.set_boundary_path(None)
            return
        name, _ = QFileDialog.getOpenFileName(self, "Study area polygon", "",
                                              "Polygons (*.geojson *.json *.wkt *.txt);;All files (*)")
        self.set_boundary_path(name or self._boundary_path)

    def _choose_hierarchy(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Item hierarchy", "", "Hierarchy CSV (*.csv *.txt);;All files (*)")
        if name:
            self.set_hierarchy_path(name)

    def _same_toggled(self, same: bool) -> None:
        if same:
            self._write_levels("", "")
        else:
            p = self.panel.values()
            m = int(p["m"])
            self._write_levels(",".join([str(p["k"])] * m), ",".join([f"{p['sigma']:g}"] * m))
        self.refresh_levels()

    def _write_levels(self, k_text: str, sigma_text: str) -> None:
        values = self.panel.values()
        if values.get("k_levels") == k_text and values.get("sigma_levels") == sigma_text:
            return
        self._writing = True
        try:
            self.panel.fields["k_levels"].set_value(k_text)
            self.panel.fields["sigma_levels"].set_value(sigma_text)
            self.panel._on_edit()  # revalidate once after both strings changed
        finally:
            self._writing = False

    def _level_vectors(self) -> tuple[list[str], list[str]]:
        """The k and σ of every level ℓ = 1..m as the panel holds them (text)."""
        v = self.panel.values()
        m = int(v["m"])

        def expand(text: str, default: str) -> list[str]:
            parts = [t.strip() for t in (text or "").split(",") if t.strip()]
            if not parts:
                return [default] * m
            return (parts + [parts[-1]] * m)[:m]

        return expand(v["k_levels"], str(v["k"])), expand(v["sigma_levels"], f"{v['sigma']:g}")

    def refresh_levels(self) -> None:
        """Fill the table from the panel (rows ℓ = 1..m, γ per row)."""
        if self._writing:
            return
        same = self.same_box.isChecked()
        ks, sigmas = self._level_vectors()
        bound = self.panel.values().get("bound") or "conservative"
        table = self.level_table
        table.blockSignals(True)
        table.setRowCount(len(ks))
        table.setVerticalHeaderLabels([f"ℓ = {i}" for i in range(1, len(ks) + 1)])
        errors = []
        for row, (k, s) in enumerate(zip(ks, sigmas)):
            for col, text in enumerate((k, s)):
                item = QTableWidgetItem(text)
                flags = Qt.ItemIsSelectable | Qt.ItemIsEnabled
                if not same:
                    flags |= Qt.ItemIsEditable
                item.setFlags(flags)
                table.setItem(row, col, item)
            gamma_item = QTableWidgetItem(self._gamma_text(s, bound))
            gamma_item.setFlags(Qt.ItemIsSelectable | Qt.ItemIsEnabled)
            gamma_item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            table.setItem(row, 2, gamma_item)
            errors += self._mark_invalid(row, k, s)
        table.setEditTriggers(QAbstractItemView.AllEditTriggers if not same else QAbstractItemView.NoEditTriggers)
        table.blockSignals(False)
        self.level_error = errors[0] if errors else ""
        note = ("Exact checking (σ = 1) is also used automatically where it is cheaper than sampling "
                "(Advanced settings).")
        self.level_note.setText(f"<span style='color:#b00020'>{self.level_error}</span>" if errors else note)
        self.changed.emit()

    @staticmethod
    def _gamma_text(sigma_text: str, bound: str) -> str:
        try:
            sigma = float(sigma_text)
            if sigma >= 1.0:
                return "all (exact)"
            return f"{sample_bound(sigma, bound).samples:,}"
        except ValueError:
            return "?"

    def _mark_invalid(self, row: int, k_text: str, sigma_text: str) -> list[str]:
        problems = []
        try:
            k_ok = float(k_text) == int(float(k_text)) and int(float(k_text)) >= 2
        except ValueError:
            k_ok = False
        try:
            s_ok = 0.5 <= float(sigma_text) <= 1.0
        except ValueError:
            s_ok = False
        if not k_ok:
            problems.append(f"ℓ = {row + 1}: k must be a whole number ≥ 2")
            self.level_table.item(row, 0).setBackground(QColor("#f8d0d0"))
        if not s_ok:
            problems.append(f"ℓ = {row + 1}: σ must be between 0.5 and 1")
            self.level_table.item(row, 1).setBackground(QColor("#f8d0d0"))
        return problems

    def _cell_changed(self, row: int, col: int) -> None:
        if self.same_box.isChecked() or col > 1:
            return
        table = self.level_table
        ks = [table.item(r, 0).text().strip() if table.item(r, 0) else "" for r in range(table.rowCount())]
        sigmas = [table.item(r, 1).text().strip() if table.item(r, 1) else "" for r in range(table.rowCount())]
        self._write_levels(",".join(ks), ",".join(sigmas))
        self.refresh_levels()

    def set_level_values(self, ks: list[int], sigmas: list[float]) -> None:
        """Switch to per-level values (tests, project files)."""
        self.same_box.setChecked(False)
        self._write_levels(",".join(map(str, ks)), ",".join(f"{s:g}" for s in sigmas))
        self.refresh_levels()


def _narrow(combo: QComboBox) -> None:
    """Let a combo box with long item texts shrink with the parameter dock."""
    combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(10)
