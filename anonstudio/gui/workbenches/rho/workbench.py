"""Personalized ρ-uncertainty workbench: suppress single items until nobody can infer a person's sensitive items.

Nakagawa, Arai, Nakagawa (2018): each person names what they want kept
uncertain; SUPPRESSOR (exact) or SAMPLESUPPRESSOR (ε, δ) removes single item
occurrences until nobody who knows up to m of a person's items can infer one
of their sensitive items with confidence above ρ. The tab shows

* the paper's trade-off plots (Figs. 1-8): util_info, util_dist, util_mining
  and running time against ρ, the sensitive share, m and ε = δ, for fixed vs
  personalized and fixed+ vs personalized+, filled in live by small sweeps
  on a sample of the loaded data, the shown run ringed;
* the rule browser: the sensitive rules Q → e above ρ in the original data,
  their confidence before and after, whom they threatened and what was
  suppressed, filterable by item and person, with a person view;
* the independent check per ℓ, the utilities with glossary buttons and the
  run pass by pass (live), and the records before and after side by side.
"""
from __future__ import annotations

import html
import math
from typing import Any

from PySide6.QtWidgets import QTabWidget, QWidget

from ....formatting import integer, percent
from ....methods.contract import MethodRun
from ....methods.rho.compare import comparison_of
from ....methods.rho.params import RhoParams
from ....methods.rho.result import RhoResult
from ....methods.rho.rules import rule_browser
from ....methods.rho.suppressor import SuppressionProgress, adversary_count
from ....params import ParameterError
from ....verifiers.rho import verify_result
from ...method_workbench import MethodWorkbench
from ...side_by_side import SideBySideView
from .check_view import CheckView
from .figures import PAIRS
from .rule_rows import RuleRows
from .rules_view import RuleBrowserView
from .tradeoffs import TradeoffView
from .utility_view import THIS_RUN, UtilityView

__all__ = ["RhoWorkbench", "SUGGESTED", "HEAVY_ADVERSARIES"]

INTRO = ("<b>Publish purchase histories or click-streams so that nobody can infer what a person wants hidden from "
         "items they know the person has.</b>")
GUIDE = (
    "<b>What it answers.</b> Each person names the items they consider sensitive (a medicine, a purchase); items "
    "are then removed from single records until nobody who knows some of a person's items can guess one of "
    "their sensitive items with more than ρ confidence (Nakagawa, Arai, Nakagawa 2018). "
    "<b>What to set first.</b> ρ (0.5: at most a 50 % sure guess), the sensitive items (a person,item file, or "
    "drawn with a setting and a share), m (how many items an attacker knows; empty = any) and, for large data, "
    "ε and δ for the sampled algorithm. "
    "<b>How to read it.</b> Trade-offs: the paper's figures on a sample of your data, your run ringed — "
    "personalized sensitive items usually cost far less than protecting everything anyone protects (fixed+). "
    "Sensitive rules: what an attacker could infer before, and what was removed to stop it; filter by item or "
    "person. Independent check: separate code re-counts the attackers; a red row means do not publish. "
    "Utility: what was lost; “?” explains each measure.")
TAB_TRADEOFFS = "Trade-offs"
TAB_RULES = "Sensitive rules"
TAB_CHECK = "Independent check"
TAB_UTILITY = "Utility"
TAB_SIDE = "Before / after"
#: Exact passes examining more (person, itemset) pairs than this are slow: a loaded dataset gets ε, δ instead.
HEAVY_ADVERSARIES = 20_000_000
#: Parameters set for a dataset too large for the exact algorithm (the paper runs Alg. 2 on the full sets).
SUGGESTED = {"m": 3, "epsilon": 0.05, "delta": 0.05}


def _huge(count: float) -> str:
    """A count in words a reader takes in: "2,374,112" or "about 10^80" (no "2.37e+80")."""
    if count < 1e12:
        return integer(count)
    return f"about 10<sup>{int(math.log10(count))}</sup>"


def running_text(progress: SuppressionProgress) -> str:
    """What a running suppressor has done so far, without claiming safety."""
    passes = progress.passes
    if not passes:
        return "Running… preparing the sensitive items and the first pass."
    last = passes[-1]
    rules = sum(lv.repaired for lv in last.levels)
    return (f"Running… after pass {last.number}: {integer(last.suppressed_total)} item occurrences"
            f" suppressed so far ({percent(last.util_info, 2)}); the last pass repaired "
            f"{integer(rules)} rules. <b>Not safe yet:</b> the run stops after a pass that finds nothing to fix. "
            "Progress and time left: Jobs panel below. Cancel keeps what is done.")


class RhoWorkbench(MethodWorkbench):
    """Personalized ρ-uncertainty by partial suppression; see the module docstring."""

    SPEC = "rho"
    TITLE = "ρ-uncertainty"
    ORDER = 45
    RUN_TEXT = "Suppress"
    INTRO = INTRO
    GUIDE = GUIDE

    # ----------------------------------------------------------- building
    def build_results(self) -> QWidget:
        self._problem = ""
        self._browsers: dict[int, Any] = {}
        self.tradeoffs = TradeoffView(self.spec, self.submit, key=f"{self.job_key}:fig",
                                      wait_for_kernels=self.runner.wait_for_kernels)
        self.rules = RuleBrowserView()
        self.check = CheckView()
        self.utility = UtilityView()
        self.side_by_side = SideBySideView()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.tradeoffs, TAB_TRADEOFFS)
        self.tabs.addTab(self.rules, TAB_RULES)
        self.tabs.addTab(self.check, TAB_CHECK)
        self.tabs.addTab(self.utility, TAB_UTILITY)
        self.tabs.addTab(self.side_by_side, TAB_SIDE)
        for i, tip in enumerate((
                "The paper's Figures 1-8 on a sample of this data: loss and time against ρ, the sensitive share, "
                "m and ε = δ, for fixed vs personalized sensitive items.",
                "Rules an attacker could use before, their confidence after, whom they threatened, what was "
                "suppressed; one person's items.",
                "The separate checker's count of attackers who still succeed, per number of known items.",
                "What the suppression cost, with the run pass by pass.",
                "Each record before and after, the suppressed items highlighted.")):
            self.tabs.setTabToolTip(i, tip)
        return self.tabs

    # ------------------------------------------------------------ dataset
    def dataset_changed(self, dataset: Any) -> None:
        self._browsers = {}
        self.tradeoffs.set_dataset(dataset)
        self.rules.set_browser(None)
        self.side_by_side.set_comparison(None)
        note = self._suggest(dataset)
        if note:
            self.callout.show_text(note, "info")

    def _suggest(self, dataset: Any) -> str:
        """For data too large for the exact algorithm, set the sampled one (and say so); "" otherwise."""
        values = self.param_panel.values()
        if values.get("epsilon") is not None:
            return ""
        longest = int(dataset.lengths.max()) if dataset.n_records else 0
        top = longest if values.get("m") is None else min(int(values["m"]), longest)
        count = adversary_count(dataset.lengths, top)
        if count <= HEAVY_ADVERSARIES:
            return ""
        for name, value in SUGGESTED.items():
            self.param_panel.set_value(name, value)
        return (f"“{html.escape(str(dataset.name))}” has {integer(dataset.n_records)} records of up to "
                f"{integer(longest)} items: "
                f"checking every attacker would examine {_huge(count)} (person, itemset) pairs per pass. So m = "
                f"{SUGGESTED['m']} and ε = δ = {SUGGESTED['epsilon']:g} are set (the sampled algorithm, as the "
                "paper uses on full datasets). Clear ε and δ for the exact algorithm on smaller data. "
                f"Press “{self.RUN_TEXT}”.")

    def _params_edited(self) -> None:
        """Data-dependent limits (the exact algorithm's size) shown under the form like any invalid field."""
        problem = self._data_problem()
        if problem != self._problem:
            self._problem = problem
            self.param_panel.set_extra_problem(problem)

    def _data_problem(self) -> str:
        if self.dataset is None:
            return ""
        try:
            params = RhoParams(**self.param_panel.values())
            params.check()
        except (TypeError, ValueError):
            return ""  # the form shows its own problems
        try:
            self.spec.check_data(self.dataset, params)
        except ParameterError as exc:
            return str(exc)
        return ""

    # ------------------------------------------------------------ results
    def clear_results(self) -> None:
        self.runner.cancel_key(f"{self.job_key}:so-far")
        self.tradeoffs.show_run(None)
        self.tradeoffs.status.setText("")
        self.rules.set_browser(None)
        self.check.show_check(None)
        self.utility.show_values(None)
        self.utility.plot.show_passes(THIS_RUN, ())
        self.side_by_side.set_comparison(None)

    def show_result(self, result: RhoResult | SuppressionProgress, partial: bool) -> None:
        if isinstance(result, SuppressionProgress):
            self.utility.plot.show_passes(THIS_RUN, result.passes)
            self.callout.show_text(running_text(result), "info")
            return
        self.utility.plot.show_passes(THIS_RUN, result.passes)
        self.utility.show_values(result)
        if partial:
            return
        self.side_by_side.set_comparison(comparison_of(result))
        self._show_rules(result)

    def _show_rules(self, result: RhoResult) -> None:
        """The rule browser of ``result``, built in the background (it re-counts supports on D and D')."""
        rows = self._browsers.get(id(result))
        if rows is not None and rows.browser.result is result:
            self.rules.set_browser(rows)
            return
        self.rules.set_browser(None, "Listing the sensitive rules of this run…")

        def done(rows, complete: bool) -> None:
            self._browsers[id(result)] = rows
            if self.shown_result is result:
                self.rules.set_browser(rows)

        # The rows' indexes (one entry per rule) are built in the job too: a run can list 100,000s of rules.
        self.submit("ρ sensitive rules", lambda progress: RuleRows(rule_browser(result)),
                    key=f"{self.job_key}:rules", on_done=done)

    def show_verification(self, run: MethodRun) -> None:
        self.check.show_check(run)
        if run.result is not None and not run.result.complete:
            self._check_so_far(run)
        if run.result is not None and run.complete:
            setting = run.params.setting
            self.tradeoffs.choose(pair=next((k for k, pair in PAIRS.items() if setting in pair), None))
        self.tradeoffs.show_run(run)

    def _check_so_far(self, run: MethodRun) -> None:
        """A stopped run: the independent verifier counts the attackers who still succeed on the data so far."""
        result = run.result

        def done(verification, complete: bool) -> None:
            if self.last_run is not run:
                return
            self.check.show_check(run, so_far=verification)
            unsafe = verification.unsafe
            levels = ", ".join(f"{integer(lv.unsafe)} knowing {lv.level}" for lv in verification.levels if lv.unsafe)
            found = (f"{integer(unsafe)} attackers can still infer a sensitive item above ρ ({levels})" if unsafe else
                     "no attacker checked succeeds, but the run did not finish its last pass")
            stopped = "" if complete and verification.complete else " (the check was stopped too)"
            self.callout.show_text(self.run_text(run) + f"<br><b>The data so far, checked independently{stopped}:"
                                   f"</b> {html.escape(found)}. Not a release.", run.state)

        self.submit("ρ check of the data so far",
                    lambda progress: verify_result(run.data, result, run.params, progress),
                    key=f"{self.job_key}:so-far", on_done=done)

    def show_comparison(self, run: MethodRun | None) -> None:
        result = run.result if run is not None else None
        label = self.history_bar.compare_combo.currentText().split(" ")[0] if run is not None else ""
        self.utility.show_compared(result, label or "compared run")
