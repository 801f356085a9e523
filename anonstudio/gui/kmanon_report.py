"""What a σ-k^m run promises, in plain words, and what the independent check found.

:func:`guarantee_text` turns the finished levels (their k and σ) into the
sentence a privacy officer needs ("Any 5 towers a stranger knows about a
person match at least 20 people, with probability ≥ 0.99"); :func:`check_text`
adds the verifier's verdict. :class:`VerifyTable` lists the check per ℓ.
"""
from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from ..methods.kmanon import LevelResult
from ..verifiers.km_verify import KmVerifyPoint, KmVerifyResult

__all__ = ["guarantee_text", "guarantee_notes", "check_text", "verdict", "VerifyTable"]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _chance(sigma: float) -> str:
    return "always (every combination was checked)" if sigma >= 1.0 else f"with probability ≥ {sigma:g}"


def guarantee_text(levels: Sequence[LevelResult], item_word: str = "item") -> str:
    """The promise of the finished levels, e.g. "Any 5 towers ... match at least 20 people ..."."""
    done = [lv for lv in levels if lv.complete]
    if not done:
        return "No level finished, so nothing is guaranteed yet."
    m = done[-1].level
    ks = {lv.k for lv in done}
    if len(ks) == 1:
        # Levels checked exactly (sigma = 1) promise more than the others; the
        # weakest level is what holds for every number of known items.
        k, sigma = done[0].k, min(lv.sigma for lv in done)
        text = (f"Any {_plural(m, item_word)} a stranger knows about a person match at least {k} people "
                f"in the published data, {_chance(sigma)}.")
        if m > 1:
            text += f" Knowing fewer {item_word}s is covered the same way."
    else:
        parts = [f"{_plural(lv.level, item_word)}: at least {lv.k} people, {_chance(lv.sigma)}" for lv in done]
        text = (f"If a stranger knows some {item_word}s of a person, the published data matches them to "
                f"many people — " + "; ".join(parts) + ".")
    return text


def guarantee_notes(levels: Sequence[LevelResult], item_word: str = "item") -> str:
    """What "probability" means and any level that could not be fully protected."""
    done = [lv for lv in levels if lv.complete]
    text = ""
    if any(lv.sigma < 1.0 for lv in done):
        text += (f"“Probability” means: of all combinations of {item_word}s that people in the data have, "
                 f"at least that share is protected (checked on random samples, Theorem 1 of the paper).")
    if any(lv.unfixable for lv in done):
        text += (f" Warning: {sum(lv.unfixable for lv in done):,} sampled combinations could not be protected "
                 f"under the merge rule (e.g. separate map regions).")
    return text.strip()


def verdict(point: KmVerifyPoint, sigma: float) -> str:
    """"confirmed", "no violation found", "consistent" or "below target" for one level of the check.

    A sample can never confirm σ = 1 (the interval always reaches below 1), so
    a sample without a single violation gets its own, reassuring verdict.
    """
    if point.ci_low >= sigma:
        return "confirmed"
    if point.ci_high < sigma:
        return "below target"
    if point.k_anonymous == point.itemsets:
        return "no violation found"
    return "consistent"


def check_text(verify: KmVerifyResult | None, levels: Sequence[LevelResult], item_word: str = "item") -> str:
    """The independent check in one or two sentences."""
    if verify is None:
        return "Independent check: not run (stopped early, or switched off)."
    if not verify.points:
        return "Independent check: nothing to check."
    sigma_of = {lv.level: lv.sigma for lv in levels}
    last = verify.points[-1]
    conf = f"{verify.confidence:.0%}"
    text = (f"Independent check (separate code): of {last.itemsets:,} random combinations of "
            f"{_plural(last.ell, item_word)} from the original data, {last.fraction:.2%} match at least "
            f"{last.k} people ({conf} confidence interval {last.ci_low:.2%} – {last.ci_high:.2%}).")
    bad = [p.ell for p in verify.points if verdict(p, sigma_of.get(p.ell, 1.0)) == "below target"]
    if bad:
        text += (f" ⚠ Below the promised share for ℓ = {', '.join(map(str, bad))}: "
                 f"do not publish this result as σ-k^m-anonymous.")
    else:
        text += " This agrees with the promise for every ℓ."
    if not verify.complete:
        text += " (The check was stopped early.)"
    return text


VERIFY_COLUMNS = ("ℓ", "k", "checked", "share k-anonymous", "95 % CI", "target σ", "verdict", "how")


class VerifyTable(QTableWidget):
    """One row per itemset size ℓ of the independent check."""

    def __init__(self):
        super().__init__(0, len(VERIFY_COLUMNS))
        self.setObjectName("verify_table")
        self.setHorizontalHeaderLabels(VERIFY_COLUMNS)
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.horizontalHeader().setStretchLastSection(True)
        self.setToolTip(
            "The independent verifier draws itemsets of the ORIGINAL data uniformly at random and counts how many "
            "are shared by at least k people after generalization. 'confirmed': the whole confidence interval is "
            "at or above σ; 'no violation found': every drawn itemset passed (a sample cannot prove σ = 1); "
            "'consistent': σ lies inside the interval; 'below target': the promise is broken.")
        self.verticalHeader().setDefaultSectionSize(22)

    def show_check(self, verify: KmVerifyResult | None, levels: Sequence[LevelResult]) -> None:
        points = verify.points if verify is not None else ()
        sigma_of = {lv.level: lv.sigma for lv in levels}
        mode_of = {lv.level: lv.mode for lv in levels}
        self.setRowCount(len(points))
        colours = {"confirmed": "#d7f0dd", "no violation found": "#d7f0dd", "consistent": "#fdf3d0",
                   "below target": "#f8d0d0"}
        for r, p in enumerate(points):
            sigma = sigma_of.get(p.ell, 1.0)
            v = verdict(p, sigma)
            ci = f"{p.ci_low:.4f} – {p.ci_high:.4f}" if p.method == "sampling" else "exact"
            how = "all itemsets enumerated" if p.method == "exact" else "uniform random sample"
            target = f"{sigma:g}" + (" (exact)" if mode_of.get(p.ell) == "exact" else "")
            row = (str(p.ell), str(p.k), f"{p.itemsets:,}", f"{p.fraction:.4f}", ci, target, v, how)
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                if c < 6:
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                if c == 6:
                    item.setBackground(QColor(colours[v]))
                self.setItem(r, c, item)
