"""Group anonymization workbench: k-anonymity and ℓ-diversity by Mondrian or global recoding, and Anatomy.

One run anonymizes the loaded table (or reads a published CSV aligned with
it) and checks the release with the independent verifier. The tab shows

* the release beside the original, row for row (each row's group, its
  published cells as chips; select a row to see its whole group);
* the group sizes (bars left of k would break the promise) and the NCP of
  each quasi-identifier (how much of its precision was given up);
* the independent check, in the contract's verdict words, line by line.

A finished release can be analysed in the Threats tab ("Use the release of the
Group anonymization tab" there).
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QTabWidget, QWidget

from ....methods.contract import MethodRun
from ....methods.group_anonymize.compare import comparison_of
from ...method_workbench import MethodWorkbench
from ...side_by_side import SideBySideView
from .check_view import CheckView
from .plots import GroupSizePlot, NcpPlot

__all__ = ["GroupAnonymizeWorkbench"]

INTRO = ("<b>Publish a table so that every person hides in a group of at least k, and every group shows at least "
         "ℓ different sensitive values.</b>")
GUIDE = (
    "<b>What it answers.</b> Which version of the table may be published so that anyone who knows a person's "
    "quasi-identifiers (age, sex, ZIP…) finds at least k rows that could be that person, among at least ℓ "
    "different sensitive values. "
    "<b>What to set first.</b> The quasi-identifiers and the sensitive column (a sample's roles are used when left "
    "empty), k and ℓ, and the scheme: Mondrian cuts the table into boxes and publishes each box's ranges; global "
    "recoding climbs a hierarchy per column, the same for everyone (optionally suppressing a few rows, up to the "
    "suppression limit); Anatomy keeps the quasi-identifiers exact and publishes each group's sensitive values as "
    "an unordered bag. “Check a published CSV” reads a release you already have. "
    "<b>How to read it.</b> Original vs published: the same rows side by side; select one to see its group. "
    "Group sizes and NCP: how large the groups are and how much each column was blurred (0 = exact). "
    "Independent check: separate code re-reads the release; a red line means do not publish. The Threats tab can "
    "then measure what an attacker still learns from this release.")
TAB_SIDE = "Original vs published"
TAB_PLOTS = "Group sizes and NCP"
TAB_CHECK = "Independent check"
EMPTY_TEXT = ("Load a table to begin: pick the bundled “UCI Adult census extract” sample on the left (or File > Open "
              "a CSV table). Group anonymization works on tables, one row per person.")


class GroupAnonymizeWorkbench(MethodWorkbench):
    """k-anonymity, ℓ-diversity and Anatomy releases of a table; see the module docstring."""

    SPEC = "group-anonymize"
    TITLE = "Group anonymization"
    ORDER = 47
    RUN_TEXT = "Anonymize"
    EMPTY_TEXT = EMPTY_TEXT
    INTRO = INTRO
    GUIDE = GUIDE

    def build_results(self) -> QWidget:
        self.side_by_side = SideBySideView()
        self.size_plot = GroupSizePlot()
        self.size_plot.add_glossary("group_size")
        self.ncp_plot = NcpPlot()
        plots = QSplitter(Qt.Horizontal)
        plots.addWidget(self.size_plot)
        plots.addWidget(self.ncp_plot)
        plots.setChildrenCollapsible(False)
        self.check_view = CheckView()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.side_by_side, TAB_SIDE)
        self.tabs.addTab(plots, TAB_PLOTS)
        self.tabs.addTab(self.check_view, TAB_CHECK)
        return self.tabs

    def clear_results(self) -> None:
        self.side_by_side.set_comparison(None)
        self.size_plot.clear_data()
        self.ncp_plot.clear_data()
        self.check_view.clear()

    def show_result(self, result: Any, partial: bool) -> None:
        if result.release is None:
            return
        self.side_by_side.set_comparison(comparison_of(result))
        self.size_plot.show_sizes(result.release.group_sizes())

    def show_verification(self, run: MethodRun) -> None:
        self.check_view.show_run(run)
        if run.result is not None and run.result.release is not None and run.params.scheme in ("mondrian", "global"):
            self.size_plot.show_sizes(run.result.release.group_sizes(), run.params.k)
        report = run.verification
        if report is not None:
            self.ncp_plot.show_ncp(report.ncp_columns, report.ncp)
        else:
            self.ncp_plot.clear_data()
