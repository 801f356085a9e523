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

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QTabWidget, QVBoxLayout, QWidget

from ....methods.contract import MethodRun
from ....methods.uniqueness.result import UniquenessResult
from ...controls import note_label
from ...method_workbench import MethodWorkbench
from .attack_demo import AttackDemo
from .plots import ITEMSET_Y, PERSON_Y, ResultsTable, UniquenessPlot, ci_caption

__all__ = ["UniquenessWorkbench"]

INTRO = "<b>How many items does an attacker need to single someone out?</b>"
GUIDE = (
    "<b>What it answers.</b> How identifying the raw data is: of the combinations of m items a stranger could "
    "know, how many single out one person (itemset uniqueness, Ács et al. 2015), and how likely a person is to be "
    "unique given m of their items (person unicity, de Montjoye et al. 2013). "
    "<b>What to set first.</b> The largest m (how many items an attacker may know); ε and δ set the precision "
    "of sampled estimates (±ε with confidence 1-δ). Automatic counts exactly when that is cheap. "
    "<b>How to read it.</b> Points appear as each m finishes: ● counted exactly, ▲ estimated from a random "
    "sample, with error bars for the confidence interval. The table lists every point; the linkage attack demo "
    "reveals one person's items one by one, for training sessions.")
ITEMSET_NOTE = (
    "Of all combinations of m items that occur in the data, the share that belongs to exactly one "
    "person. A high value means knowing m items often identifies someone."
)
PERSON_NOTE = (
    "A different, person-level quantity: chance that a person is unique given m of their items, "
    "i.e. pick a person and m of their items at random; how often does no one else have all m? "
    "(de Montjoye et al.)"
)


class UniquenessWorkbench(MethodWorkbench):
    """Uniqueness vs m (itemset and person level) and the linkage-attack demo."""

    SPEC = "uniqueness"
    TITLE = "Risk"
    ORDER = 10
    RUN_TEXT = "Measure uniqueness"
    OFFERS_ATTACK_DEMO = True
    INTRO = INTRO
    GUIDE = GUIDE

    def build_results(self) -> QWidget:
        self._shown: UniquenessResult | None = None
        uniqueness_page = QWidget()
        self.itemset_plot = UniquenessPlot("Uniqueness of m-itemsets", ITEMSET_Y,
                                           "Press “Measure uniqueness” (Ctrl+R) to compute this curve.",
                                           estimated="estimated (MCMC sample)")
        self.person_plot = UniquenessPlot("Person-level unicity", PERSON_Y,
                                          "Computed after the itemset curve.",
                                          estimated="estimated (random people)")
        self.itemset_plot.add_glossary("uniqueness")
        self.person_plot.add_glossary("unicity")
        plots = QSplitter(Qt.Horizontal)
        for plot, note in ((self.itemset_plot, ITEMSET_NOTE), (self.person_plot, PERSON_NOTE)):
            holder = QWidget()
            layout = QVBoxLayout(holder)
            layout.setContentsMargins(0, 0, 0, 0)
            layout.addWidget(plot, 1)
            layout.addWidget(note_label(note))
            plots.addWidget(holder)
        self.table = ResultsTable()
        layout = QVBoxLayout(uniqueness_page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(plots, 1)

        self.attack_demo = AttackDemo(
            submit=lambda title, fn, **kw: self.submit(title, fn, key=f"{self.job_key}:release", **kw),
            release_folder=self._release_folder)
        self.tabs = QTabWidget()
        self.tabs.addTab(uniqueness_page, "Uniqueness vs m")
        self.tabs.addTab(self.table, "Every point (table)")
        self.tabs.addTab(self.attack_demo, "Linkage attack demo")
        return self.tabs

    def _release_folder(self):
        """Where the releases of other tabs' runs are written for the attack demo (beside the result cache)."""
        from pathlib import Path

        from ....studio.cache import default_cache_folder

        cache = getattr(self.result_cache, "folder", None)
        return (Path(cache) if cache is not None else default_cache_folder()).parent / "releases"

    def receive_run(self, run: MethodRun) -> None:
        """A run finished in another tab: the attack demo may replay its attack on that run's release."""
        self.attack_demo.receive_run(run)

    # ------------------------------------------------------------ dataset
    def dataset_changed(self, dataset: Any) -> None:
        self.attack_demo.set_dataset(dataset)
        self._label_plots(None)

    def run(self, params) -> None:
        super().run(params)
        self._label_plots(params)
        for plot in (self.itemset_plot, self.person_plot):
            plot.set_m_range(params.min_m, params.max_m)

    def _label_plots(self, params) -> None:
        """Name the dataset (and the confidence level once a run starts) on both plots."""
        name = getattr(self.dataset, "name", "") if self.dataset is not None else ""
        parts = [name] if name else []
        if params is not None:
            parts.append(ci_caption(params.delta))
        for plot in (self.itemset_plot, self.person_plot):
            plot.set_caption("\n".join(parts))

    # ------------------------------------------------------------ results
    @property
    def itemsets(self):
        return self._shown.itemset if self._shown is not None else None

    @property
    def people(self):
        return self._shown.person if self._shown is not None else None

    def show_result(self, result: UniquenessResult, partial: bool) -> None:
        self._shown = result
        self.itemset_plot.show_result(result.itemset)
        self.person_plot.show_result(result.person)
        self.table.show_results([result.itemset, result.person])

    def clear_results(self) -> None:
        self._shown = None
        for plot in (self.itemset_plot, self.person_plot):
            plot.show_result(None)
            plot.set_caption("")
        self.table.show_results([])

    def show_comparison(self, run: MethodRun | None) -> None:
        result = run.result if run is not None else None
        self.itemset_plot.show_compared(result.itemset if result is not None else None)
        self.person_plot.show_compared(result.person if result is not None else None)

    def show_verification(self, run: MethodRun) -> None:
        # A measurement, not a release: nothing to check independently.
        pass
