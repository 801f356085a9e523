"""The independent check of a σ-k^m release, one row per itemset size ℓ."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from ....formatting import integer
from ....verifiers.kmanon import KmVerifyResult
from ...controls import STATE_COLOURS

__all__ = ["VerifyTable"]

VERIFY_COLUMNS = ("ℓ", "k", "checked", "share k-anonymous", "95 % CI", "σ asked", "σ promised", "verdict", "how")
VERDICT_STATE = {"confirmed": "ok", "no violation found": "ok", "consistent": "warning", "below target": "failed"}


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
            "'consistent': σ lies inside the interval; 'below target': the promise is broken. 'σ promised' is 1 "
            "where the level was checked exactly because that was cheaper than sampling (a stronger promise "
            "than asked).")
        self.verticalHeader().setDefaultSectionSize(22)

    def show_check(self, verify: KmVerifyResult | None, asked: list[float] | None = None) -> None:
        """One row per ℓ; ``asked`` are the σ the user set per level (the promise may be stronger)."""
        points = verify.points if verify is not None else ()
        self.setRowCount(len(points))
        for r, p in enumerate(points):
            ci = f"{p.ci_low:.4f} – {p.ci_high:.4f}" if p.method == "sampling" else "exact"
            how = "exhaustive: every itemset" if p.method == "exact" else "sampled: uniform random itemsets"
            wanted = asked[p.ell - 1] if asked and p.ell <= len(asked) else p.sigma
            row = (str(p.ell), integer(p.k), integer(p.itemsets), f"{p.fraction:.4f}", ci, f"{wanted:g}",
                   f"{p.sigma:g}" + (" (exact)" if p.sigma >= 1.0 > wanted else ""), p.verdict, how)
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                if c < 7:
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                if c == 7:
                    item.setBackground(QColor(STATE_COLOURS[VERDICT_STATE[p.verdict]][0]))
                self.setItem(r, c, item)
