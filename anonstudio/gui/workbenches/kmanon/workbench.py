"""σ-k^m anonymity workbench: generalize items until any m of a person's items match k people.

Probabilistic k^m-anonymization (Ács, Achara, Castelluccia 2015, Algorithm 2)
merges items (cell towers) into partitions. The tab shows

* the partitions on a map (:class:`PartitionMap`) with a before/after slider
  over the levels ℓ = 0..m of the run;
* the paper's Figures 4-6 against m (partitions, error, people-weighted
  area), growing live as levels finish, every trial faint and the published
  one as a line;
* the independent verifier's table per ℓ and the promise in plain words.

Datasets without item coordinates can still be anonymized with a hierarchy
or free merging; the map explains how to add coordinates (a coordinates file
in the parameters).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from ....data.errors import DataFormatError
from ....formatting import integer, number
from ....methods.contract import MethodRun
from ....methods.kmanon.compare import comparison_of
from ....methods.kmanon.gamma import sample_bound
from ....methods.kmanon.inputs import prepare_cells, resolve_constraint
from ....methods.kmanon.params import KmAnonParams
from ....methods.kmanon.result import KmAnonResult
from ....parallel import scheduler_address
from ...controls import note_label
from ...method_workbench import MethodWorkbench
from ...plot_grid import PlotGrid
from ...side_by_side import LazySideBySide
from .partition_map import PartitionMap
from .plots import make_curve_plots
from .verify_table import VerifyTable

__all__ = ["KmAnonWorkbench", "NO_COORDINATES_TEXT"]

INTRO = ("<b>Publish the data so that any m items a stranger knows about a person match at least k "
         "people.</b>")
GUIDE = (
    "<b>What it answers.</b> Items (e.g. cell towers) are merged into partitions until random combinations of up "
    "to m items of a person are shared by at least k people, with probability σ (Ács et al. 2015). "
    "<b>What to set first.</b> k (the crowd size), m (how many of a person's items a stranger may know) and σ "
    "(1 checks every combination; 0.99 checks random samples, Theorem 1). Merging follows the items' "
    "coordinates (touching towers), an item hierarchy, or any two partitions. "
    "<b>How to read it.</b> The map shows the published partitions level by level (ℓ = number of known items; "
    "slide back to ℓ = 0 for the original cells). The curves vs m are the paper's Figures 4-6: more partitions "
    "and less error are better. The independent check re-draws itemsets with separate code: a row 'below "
    "target' means the release must not be published.")
CHECK_TEXT = ("<b>Independent check</b> per number of known items ℓ: separate code draws itemsets of the original "
              "data at random (or enumerates them) and counts how many match at least k published records.")
NO_COORDINATES_TEXT = (
    "No map: this dataset has no coordinates for its items, so their places cannot be drawn and "
    "“touching towers only” cannot be used. You can still anonymize it with a hierarchy of the items or by "
    "free merging. To get the map, choose an item coordinates file in the parameters "
    "(CSV item,x,y in metres or item,lat,lon)."
)
ATTACH_TEXT = "Choose item coordinates…"
ERROR_LABELS = {"m": ("error", "m"), "": ("information loss (NCP)", None)}


def running_text(result) -> str:
    """What a partial run has finished, without claiming more (trials run side by side)."""
    r = max(len(result.trials), 1)
    finished = sum(t.complete for t in result.trials)
    if r == 1:
        done = sum(lv.complete for lv in result.levels)
        head = f"Running… {done} of {result.m} levels finished (ℓ = number of known items)."
    else:
        head = (f"Running {r} trials… {finished} of {r} finished; the map and the plots show, per level, the best "
                "trial that finished it so far.")
        address = scheduler_address()
        if address:  # Tools › Settings sent the trials to a cluster: each one shows up when it comes back
            head += f" The trials run on the Dask cluster at {address}."
    return (f"{head} Each level is drawn as it finishes. Progress and time left: in the status bar; Cancel keeps "
            "what is done (partial, not a guarantee).")


class KmAnonWorkbench(MethodWorkbench):
    """Probabilistic k^m-anonymization with map, curves vs m, independent check and exports."""

    SPEC = "kmanon"
    TITLE = "σ-k^m anonymity"
    ORDER = 30
    RUN_TEXT = "Anonymize"
    INTRO = INTRO
    GUIDE = GUIDE

    def __init__(self, runner, parent: QWidget | None = None):
        super().__init__(runner, parent)
        levels = next(iter(self.param_panel.levels_tables.values()))
        levels.add_info_column("samples γ", self._gamma_text)
        self._label_error_axis()

    def _gamma_text(self, row: dict[str, str]) -> str:
        bound = self.param_panel.values().get("bound") or "conservative"
        try:
            sigma = float(row.get("sigma_levels", ""))
        except ValueError:
            return "?"
        if sigma >= 1.0:
            return "all (exact)"
        try:
            return integer(sample_bound(sigma, bound).samples)
        except ValueError:
            return "?"

    # ----------------------------------------------------------- building
    def build_results(self) -> QWidget:
        self.cells = None
        self._cells_key: Any = None
        self.map = PartitionMap(item_word="tower")
        self.curve_plots = make_curve_plots()
        # The paper's three curves vs m side by side, each with the tab's full height; two columns or a stack
        # when the tab is too narrow for three readable plots.
        curves = PlotGrid(list(self.curve_plots.values()))
        self.verify_table = VerifyTable()
        check = QWidget()
        check_layout = QVBoxLayout(check)
        check_layout.addWidget(note_label(CHECK_TEXT, "body"))
        check_layout.addWidget(self.verify_table, 1)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.map, "Map of the partitions")
        self.tabs.addTab(curves, "Partitions, error and area vs m")
        self.tabs.addTab(check, "Independent check")
        self.side_by_side = LazySideBySide()
        self.tabs.addTab(self.side_by_side, "Original vs published")
        return self.tabs

    # ------------------------------------------------------------ dataset
    def dataset_changed(self, dataset: Any) -> None:
        self._cells_key = None
        self._rebuild_cells()

    def _params_edited(self) -> None:
        self._label_error_axis()
        self._rebuild_cells()

    def _rebuild_cells(self) -> None:
        """Voronoi cells of the items for the map, from the dataset's or the chosen coordinates."""
        data = self.dataset
        if data is None:
            return
        values = self.param_panel.values()
        key = (id(data), values.get("coords"), values.get("boundary"), values.get("drop_missing"))
        if key == self._cells_key:
            return
        self._cells_key = key
        if data.coords is None and values.get("coords") is None:
            self.cells = None
            self.map.set_unavailable(NO_COORDINATES_TEXT, (ATTACH_TEXT, self._choose_coordinates))
            return
        try:
            params = KmAnonParams(coords=values.get("coords"), boundary=values.get("boundary"),
                                  drop_missing=bool(values.get("drop_missing")))
            located, self.cells, _ = prepare_cells(data, params)
        except (DataFormatError, ValueError, OSError) as exc:
            self.cells = None
            self.map.set_unavailable(f"The map cannot be drawn: {exc}", (ATTACH_TEXT, self._choose_coordinates))
            return
        self.map.set_cells(self.cells, located.vocab, located.indptr, located.indices)

    def _choose_coordinates(self) -> None:
        self.param_panel.fields["coords"].editor._choose()

    def _label_error_axis(self) -> None:
        """Before a run, the error axis follows the chosen merge rule (metres only for touching towers)."""
        if self.last_run is None and self.dataset is not None:
            values = self.param_panel.values()
            try:
                params = KmAnonParams(constraint=values["constraint"], coords=values.get("coords"),
                                      item_hierarchy=values.get("item_hierarchy"))
                name = resolve_constraint(self.dataset, params)
            except (TypeError, ValueError):
                name = "free"
            label, units = ERROR_LABELS["m" if name == "contiguity" else ""]
            self.curve_plots["error"].set_y_label(label, units)

    # ------------------------------------------------------------ results
    def show_result(self, result: KmAnonResult, partial: bool) -> None:
        label, units = ERROR_LABELS.get(result.error_unit, (f"average error ({result.error_name})",
                                                            result.error_unit or None))
        self.curve_plots["error"].set_y_label(label, units)
        for plot in self.curve_plots.values():
            plot.show_result(result)
        if result.cells is not None and result.cells is not self.cells:
            self.cells = result.cells
            self.map.set_cells(result.cells, result.data.vocab, result.data.indptr, result.data.indices)
        notes = []
        for lv, trial in zip(result.levels, result.best_trial):
            note = f"Average error {number(lv.error)}{' ' + result.error_unit if result.error_unit else ''}"
            if len(result.trials) > 1:
                note += f", best of {len(result.trials)} trials (trial {trial + 1})"
            note += "."
            if not lv.complete:
                note += " Stopped before this level finished: partial, NOT yet protected."
            notes.append(note)
        if self.map.available:
            self.map.set_levels([lv.labels for lv in result.levels], notes)
        if partial:
            self.callout.show_text(running_text(result), "info")
        else:
            self.side_by_side.offer(lambda: comparison_of(result))

    def show_comparison(self, run: MethodRun | None) -> None:
        result = run.result if run is not None else None
        for plot in self.curve_plots.values():
            plot.show_compared(result)

    def show_verification(self, run: MethodRun) -> None:
        self.verify_table.show_check(run.verification, run.params.sigma_vector())

    def clear_results(self) -> None:
        for plot in self.curve_plots.values():
            plot.clear_data()
        self.verify_table.show_check(None)
        self.side_by_side.offer(None)
        if self.map.available:
            self.map.set_levels([])

    # --------------------------------------------------------- test helpers
    def attach_coordinates_file(self, path: str | Path) -> None:
        """Use a coordinates file for the items of the current dataset (the ``coords`` parameter)."""
        self.param_panel.set_value("coords", Path(path))
