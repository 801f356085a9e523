"""The independent check of a group release: the contract's verdict, then one line per thing checked.

The verifier (:mod:`anonstudio.verifiers.group_anonymize`, no code shared
with the anonymizers or the CSV reader) re-reads the release against the
cleartext rows: group sizes (k), distinct sensitive values per group (ℓ),
every row inside its group's cells, and the loss measures.
"""
from __future__ import annotations

import html

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from ....formatting import integer, number, probability
from ....methods.contract import MethodRun, verdict
from ...controls import STATE_COLOURS, note_label

__all__ = ["CheckView", "check_rows"]

EMPTY = "The independent check appears here when a release is made."


def _yes(flag: bool | None) -> str:
    return "yes" if flag else "NO"


def check_rows(report, sensitive: str) -> list[tuple[str, str, bool]]:
    """``(what was checked, what was found, fine)`` per line of a GroupPrivacyReport; rows and groups from 1."""
    rows = [("rows and groups", f"{integer(report.n_rows)} rows in {integer(report.n_groups)} groups "
                                f"({report.scheme} release)", not report.problems),
            ("group size", f"smallest {integer(report.min_group_size)}, mean {number(report.mean_group_size, 3)}, "
                           f"largest {integer(report.max_group_size)}", True)]
    if report.k is not None:
        rows.append((f"every group holds at least k = {report.k} rows", _yes(report.k_anonymous),
                     bool(report.k_anonymous)))
    if report.l is not None:
        rows.append((f"every group holds at least ℓ = {report.l} values of {sensitive}", _yes(report.l_diverse),
                     bool(report.l_diverse)))
    rows.append((f"fewest different {sensitive} values in a group", integer(report.min_distinct_sensitive), True))
    rows.append(("largest share of one value in a group", probability(report.max_sensitive_share), True))
    rows.append(("rows outside their group's published cells", integer(report.n_misfits), report.n_misfits == 0))
    for m in report.misfits[:20]:
        rows.append((f"row {m['row']}", f"{m['column']} = {m['value']!r} is not in group {m['group']}'s cell", False))
    rows.extend(("problem", p, False) for p in report.problems)
    rows.append(("NCP (information loss)", number(report.ncp, 4), True))
    rows.append(("discernibility (sum of squared group sizes)", integer(report.discernibility), True))
    return rows


class CheckView(QWidget):
    """The verdict in the contract's words over a table of what the verifier checked."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.verdict_label = note_label(EMPTY, "body")
        self.verdict_label.setObjectName("group_check_verdict")
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["checked", "found"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().setDefaultSectionSize(22)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeToContents)
        header.setStretchLastSection(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.verdict_label)
        layout.addWidget(self.table, 1)

    def clear(self) -> None:
        self.verdict_label.setText(EMPTY)
        self.verdict_label.setStyleSheet("")
        self.table.setRowCount(0)

    def show_run(self, run: MethodRun) -> None:
        """The check of a finished run: :func:`~anonstudio.methods.contract.verdict`'s head, then the table."""
        words = verdict(run)
        head, _, _ = words.partition(":")
        background, border = STATE_COLOURS.get(run.state, STATE_COLOURS["info"])
        self.verdict_label.setStyleSheet(f"background: {background}; border: 1px solid {border}; padding: 4px;")
        reason = run.status_reason()
        self.verdict_label.setText(f"<b>{html.escape(head.rstrip('.'))}</b>"
                                   + (f": {html.escape(reason)}" if reason else ""))
        report = run.verification
        if report is None:
            self.table.setRowCount(0)
            return
        release = run.result.release if run.result is not None else None
        rows = check_rows(report, release.sensitive if release is not None else "sensitive")
        self.table.setRowCount(len(rows))
        for r, (what, found, fine) in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(what))
            item = QTableWidgetItem(found)
            if not fine:
                item.setForeground(QColor("#a40000"))
            self.table.setItem(r, 1, item)

    def found(self, what: str) -> str | None:
        """The 'found' text of the line whose 'checked' text starts with ``what`` (tests, reports)."""
        for r in range(self.table.rowCount()):
            if self.table.item(r, 0).text().startswith(what):
                return self.table.item(r, 1).text()
        return None
