"""σ-k^m anonymity workbench: generalize items until any m of a person's items match k people.

Probabilistic k^m-anonymization (Ács, Achara, Castelluccia 2015, Algorithm 2)
merges items (cell towers) into partitions. The tab shows

* the partitions on a map (:class:`~anonstudio.gui.partition_map.PartitionMap`)
  with a before/after slider over the levels ℓ = 0..m of the run;
* the paper's Figures 4-6 against m (partitions, error, people-weighted
  area), growing live as levels finish, every trial faint and the published
  one as a line;
* the independent verifier's table per ℓ and the promise in plain words;
* exports of the anonymized records, the item → partition CSV, the polygons
  (GeoJSON) and the run's JSON report, all written atomically.

Datasets without item coordinates can still be anonymized with a hierarchy
or free merging; the map then explains why it is missing.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFileDialog,
    QGridLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ...data.errors import DataFormatError
from ...data.geo import LocalProjection, PartitionGeometry, write_partitions_geojson
from ...data.io import attach_coordinates, dialog_filters, load_coordinates
from ...methods.kmanon import KmAnonParams, KmAnonResult, LevelResult
from ...methods.kmanon.export import result_json, write_anonymized, write_json, write_partition_map
from ...params import ParameterError
from ..kmanon_job import KmJobSetup, KmRun, build_cells, run_kmanon
from ..kmanon_plots import make_curve_plots
from ..kmanon_report import VerifyTable, check_text, guarantee_notes, guarantee_text
from ..kmanon_setup import KmSetupPanel
from ..partition_map import PartitionMap
from ..workbench import Workbench

__all__ = ["KmAnonWorkbench", "NO_COORDINATES_TEXT"]

INTRO = (
    "<b>Publish the data so that any m items a stranger knows about a person match at least k people.</b> "
    "Items (e.g. cell towers) are merged into partitions until random combinations of up to m items are "
    "shared by at least k people, with probability σ. Set k, m and σ on the right and press "
    "<i>Anonymize</i>; the map and the plots fill in level by level (ℓ = number of known items)."
)
NO_COORDINATES_TEXT = (
    "No map: this dataset has no coordinates for its items, so their places cannot be drawn and "
    "“touching towers only” cannot be used. You can still anonymize it with a hierarchy of the items or by "
    "free merging (right). To get the map, attach a coordinates file for the items "
    "(CSV item,x,y in metres or item,lat,lon); it is used by this tab only."
)
ATTACH_TEXT = "Attach item coordinates…"
#: Height of map, check and plots below which the page scrolls (pixels).
MIN_CONTENT_HEIGHT = 640
ERROR_LABELS = {
    "m": ("error", "m"),
    "": ("information loss (NCP)", None),
}
EXPORT_TIP = ("Saves the release for the largest m whose level finished (the save dialog's title says which m). "
              "Written atomically: an existing file is only replaced once the new one is complete.")


class KmAnonWorkbench(Workbench):
    """Probabilistic k^m-anonymization with map, curves vs m, independent check and exports."""

    TITLE = "σ-k^m anonymity"
    ORDER = 30
    PARAMS = KmAnonParams
    RUN_TEXT = "Anonymize"

    def __init__(self, runner, parent: QWidget | None = None):
        super().__init__(runner, parent)
        self.setup = KmSetupPanel(self.param_panel)
        self.setup.boundary_changed.connect(self._rebuild_cells)
        self.setup.changed.connect(self._label_error_axis)
        self._label_error_axis()

    # ----------------------------------------------------------- building
    def build(self) -> QWidget:
        self.cells = None
        self.projection: LocalProjection | None = None  # of coordinates attached here from lat/lon
        self._projection_of: Any = None
        self.last_run: KmRun | None = None
        self.last_result: KmAnonResult | None = None
        self.item_word = "item"

        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        self.guarantee_label = QLabel("Press “Anonymize” (right) to compute a release.")
        self.guarantee_label.setObjectName("guarantee")
        self.guarantee_label.setWordWrap(True)
        self.guarantee_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.guarantee_label.setStyleSheet(
            "background: #eef4fa; border: 1px solid #b8cfe6; border-radius: 4px; padding: 8px; font-size: 11pt;")

        self.map = PartitionMap(item_word="tower")
        self.plots = make_curve_plots()
        plot_column = QSplitter(Qt.Vertical)
        for plot in self.plots.values():
            plot_column.addWidget(plot)

        self.verify_table = VerifyTable()
        self.export_buttons: dict[str, QPushButton] = {}
        # Two rows of two: one row of four would set the page's minimum width.
        exports = QGridLayout()
        exports.addWidget(QLabel("Save the release:"), 0, 0)
        for index, (key, text, slot) in enumerate((
            ("data", "Anonymized data…", self._export_data_dialog),
            ("map", "Item → partition CSV…", self._export_map_dialog),
            ("geojson", "Polygons (GeoJSON)…", self._export_geojson_dialog),
            ("report", "Run report (JSON)…", self._export_report_dialog),
        )):
            button = QPushButton(text)
            button.setObjectName(f"export_{key}")
            button.setToolTip(EXPORT_TIP)
            button.setEnabled(False)
            button.clicked.connect(slot)
            exports.addWidget(button, index // 2, 1 + index % 2)
            self.export_buttons[key] = button
        exports.setColumnStretch(3, 1)
        check = QWidget()
        check_layout = QVBoxLayout(check)
        check_layout.setContentsMargins(0, 0, 0, 0)
        check_layout.addWidget(QLabel("<b>Independent check</b> per number of known items ℓ"))
        check_layout.addWidget(self.verify_table, 1)
        check_layout.addLayout(exports)

        # Map and check on the left, the three curves over the full height on the right.
        left = QSplitter(Qt.Vertical)
        left.addWidget(self.map)
        left.addWidget(check)
        left.setStretchFactor(0, 4)
        left.setStretchFactor(1, 1)
        left.setSizes([520, 190])
        split = QSplitter(Qt.Horizontal)
        split.addWidget(left)
        split.addWidget(plot_column)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([600, 480])
        # Inside a scrolling page the wrapped labels make the layout ask for
        # the splitter's (large) preferred height; "Ignored" lets map and
        # plots take the visible height instead, down to a usable minimum.
        split.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Ignored)
        # Fixed, not the splitter's minimumSizeHint: wrapped captions grow
        # when the window narrows, and the hint is taken before they are filled.
        split.setMinimumHeight(MIN_CONTENT_HEIGHT)
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addWidget(intro)
        layout.addWidget(self.guarantee_label)
        layout.addWidget(split, 1)
        return page

    # ------------------------------------------------------------ dataset
    def dataset_changed(self, dataset: Any) -> None:
        if dataset is not self._projection_of:
            self.projection = None
        self._show_result(None)
        self.last_run = None
        located = dataset.coords is not None
        self.item_word = "tower" if located else "item"
        self.setup.set_has_coordinates(located)
        self._rebuild_cells()

    def _rebuild_cells(self) -> None:
        data = self.dataset
        if data is None:
            return
        if data.coords is None:
            self.cells = None
            self.map.set_unavailable(NO_COORDINATES_TEXT, (ATTACH_TEXT, self._attach_dialog))
            return
        try:
            self.cells = build_cells(data, self.setup.boundary_path, self.projection)
        except (DataFormatError, ValueError, OSError) as exc:
            # A bad polygon file (or one that leaves towers outside): fall back
            # to the default study area, switch the setting back and say so.
            message = f"The study area file cannot be used ({exc}); using the buffered hull of the towers."
            self.status.emit(message)
            self.guarantee_label.setText(message)
            self.setup.set_boundary_path(None)  # rebuilds the cells through boundary_changed
            return
        self.map.set_cells(self.cells, data.vocab, data.indptr, data.indices)
        if self.last_result is not None:
            self._show_levels(self.last_result)

    def attach_coordinates_file(self, path: str | Path) -> None:
        """Give the items of the current dataset positions from a coordinates file (this tab only).

        Raises DataFormatError for a bad file and ValueError when items of the
        data have no coordinates (naming them); the dataset is then unchanged.
        """
        coords = load_coordinates(path)
        located = attach_coordinates(self.dataset, coords)
        self._projection_of = located
        self.projection = LocalProjection.of(coords)
        self.set_dataset(located)
        self.status.emit(f"Coordinates of {located.n_items:,} items attached from {Path(path).name}.")

    def _attach_dialog(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Item coordinates", "", "Coordinates (*.csv *.tsv *.txt);;All files (*)")
        if not name:
            return
        try:
            self.attach_coordinates_file(name)
        except (DataFormatError, ValueError, OSError) as exc:
            QMessageBox.warning(self, "Coordinates not attached", str(exc))

    def _label_error_axis(self) -> None:
        """Before a run, the error axis follows the chosen merge rule (metres only for touching towers)."""
        if self.last_result is None:
            label, units = ERROR_LABELS["m" if self.setup.constraint == "contiguity" else ""]
            self.plots["error"].set_y_label(label, units)

    # ---------------------------------------------------------------- run
    def run(self, params: KmAnonParams) -> None:
        data = self.dataset
        problem = self.setup.problem()
        try:
            params = params.checked()
        except ParameterError as exc:
            problem = problem or str(exc)
        if problem:
            self.guarantee_label.setText(f"Cannot start: {problem}")
            self.status.emit(problem)
            return
        setup = KmJobSetup(
            constraint=self.setup.constraint,
            cells=self.cells if self.setup.constraint == "contiguity" else None,
            hierarchy_path=self.setup.hierarchy_path,
            verify_samples=self.setup.verify_samples,
        )
        self._show_result(None)
        self.last_run = None
        self.guarantee_label.setText("Running… the plots and the map fill in as levels finish.")
        self.submit(f"σ-k^m anonymization ({data.name}, k = {params.k}, m = {params.m}, σ = {params.sigma:g})",
                    lambda progress: run_kmanon(data, params, setup, progress),
                    on_partial=self._on_partial, on_done=self._on_done, on_error=self._on_error)

    def _on_partial(self, partial: KmAnonResult) -> None:
        self._show_result(partial)
        done = sum(lv.complete for lv in partial.levels)
        self.guarantee_label.setText(
            f"Running… {done} of {partial.m} levels finished (ℓ = number of known items); the map and the plots "
            f"show each level as it finishes. Progress and time left: Jobs panel below. Cancel keeps what is done.")

    def _on_done(self, run: KmRun, complete: bool) -> None:
        self.last_run = run
        self._show_result(run.result)
        levels = run.result.levels
        self.verify_table.show_check(run.verify, levels)
        promise = f"<b>{guarantee_text(levels, self.item_word)}</b> {guarantee_notes(levels, self.item_word)}"
        check = check_text(run.verify, levels, self.item_word)
        if complete:
            text = f"{promise}<br>{check}"
        else:
            reason = run.result.stopped_reason or "stopped at your request"
            kept = self._release_level()
            kept_text = (f"The map keeps the partial generalization; the release offered for saving is the one "
                         f"for m = {kept.level}, the last level that finished." if kept is not None
                         else "No level finished, so there is nothing to save.")
            text = f"<b>Stopped early ({reason}).</b> {kept_text}<br>{promise}<br>{check}"
        self.guarantee_label.setText(text)
        has_release = self._release_level() is not None
        for key, button in self.export_buttons.items():
            button.setEnabled(has_release and (key != "geojson" or self.cells is not None))
        self.status.emit("σ-k^m anonymization " + ("finished." if complete else "stopped; partial result shown."))

    def _on_error(self, exc: BaseException) -> None:
        self.guarantee_label.setText(f"The run failed: {exc}")

    # ------------------------------------------------------------ showing
    def _show_result(self, result: KmAnonResult | None) -> None:
        self.last_result = result
        if result is None:
            for plot in self.plots.values():
                plot.clear_data()
            self.verify_table.show_check(None, ())
            for button in self.export_buttons.values():
                button.setEnabled(False)
            self.map.set_levels([])
            return
        label, units = ERROR_LABELS.get(result.error_unit, (f"average error ({result.error_name})",
                                                            result.error_unit or None))
        self.plots["error"].set_y_label(label, units)
        for plot in self.plots.values():
            plot.show_result(result)
        self._show_levels(result)

    def _show_levels(self, result: KmAnonResult) -> None:
        notes = []
        for lv, trial in zip(result.levels, result.best_trial):
            note = f"Average error {lv.error:.4g}{' ' + result.error_unit if result.error_unit else ''}"
            if len(result.trials) > 1:
                note += f", best of {len(result.trials)} trials (trial {trial + 1})"
            note += "."
            if not lv.complete:
                note += " Stopped before this level finished: partial, NOT yet protected."
            notes.append(note)
        self.map.set_levels([lv.labels for lv in result.levels], notes)

    # ------------------------------------------------------------- export
    def _release_level(self) -> LevelResult | None:
        """The generalization to publish: the last level that finished."""
        result = self.last_run.result if self.last_run is not None else None
        if result is None:
            return None
        done = [lv for lv in result.levels if lv.complete]
        return done[-1] if done else None

    def _need_release(self) -> LevelResult:
        level = self._release_level()
        if level is None:
            raise RuntimeError("no finished anonymization to save; run one first")
        return level

    def export_anonymized(self, path: str | Path) -> Path:
        """The anonymized records (one line per person, partition names), format by extension."""
        write_anonymized(path, self.dataset, self._need_release())
        return Path(path)

    def export_partition_map(self, path: str | Path) -> Path:
        """CSV ``item,partition``."""
        write_partition_map(path, self.dataset, self._need_release())
        return Path(path)

    def export_geojson(self, path: str | Path) -> Path:
        """Partition polygons with their items, size, area and support (people)."""
        if self.cells is None:
            raise RuntimeError("partition polygons need item coordinates")
        data = self.dataset
        geometry = PartitionGeometry(self.cells, self._need_release().labels)
        write_partitions_geojson(path, geometry, item_labels=data.vocab,
                                 supports=geometry.supports(data.indptr, data.indices), projection=self.projection)
        return Path(path)

    def export_report(self, path: str | Path) -> Path:
        """Per-level summary of the run and the independent check (JSON)."""
        run = self.last_run
        if run is None:
            raise RuntimeError("no run to report; run one first")
        doc = result_json(run.result, run.verify.to_json() if run.verify is not None else None)
        doc["dataset"] = {"name": self.dataset.name, "records": self.dataset.n_records,
                          "items": self.dataset.n_items}
        doc["guarantee"] = " ".join(filter(None, (guarantee_text(run.result.levels, self.item_word),
                                                  guarantee_notes(run.result.levels, self.item_word))))
        write_json(path, doc)
        return Path(path)

    def _save_dialog(self, what: str, default: str, filters: str, write) -> None:
        level = self._release_level()
        if level is None:
            return
        name, _ = QFileDialog.getSaveFileName(self, f"Save {what} (m = {level.level})", default, filters)
        if not name:
            return
        try:
            path = write(name)
        except (OSError, ValueError, RuntimeError) as exc:
            QMessageBox.critical(self, "Save failed", f"Could not write {name}: {exc}")
            return
        self.status.emit(f"Saved {what} for m = {level.level} to {path}.")

    def _export_data_dialog(self) -> None:
        stem = _stem(self.dataset.name)
        self._save_dialog("anonymized data", f"{stem}-km-anonymized.dat", ";;".join(dialog_filters("transactions")),
                          self.export_anonymized)

    def _export_map_dialog(self) -> None:
        self._save_dialog("item → partition map", f"{_stem(self.dataset.name)}-partitions.csv", "CSV (*.csv)",
                          self.export_partition_map)

    def _export_geojson_dialog(self) -> None:
        self._save_dialog("partition polygons", f"{_stem(self.dataset.name)}-partitions.geojson",
                          "GeoJSON (*.geojson *.json)", self.export_geojson)

    def _export_report_dialog(self) -> None:
        self._save_dialog("run report", f"{_stem(self.dataset.name)}-kmanon.json", "JSON (*.json)",
                          self.export_report)


def _stem(name: str) -> str:
    return Path(str(name)).stem or "dataset"
