"""Short tab titles, so every tab bar shows all its tabs at 1280 px without scroll arrows.

The workbenches name their tabs in full ("Partitions, error and area vs m"); at 1280 px wide the σ-k^m and
Threats sub-tab bars then need scroll arrows, and a reader cannot see that the last tabs exist. The main window
passes itself to :func:`shorten_tab_titles` whenever pages may have been built (start-up, a new dataset): every
tab whose title is listed in :data:`SHORT_TITLES` gets the short title, and the full one as its tooltip and as
its tab data (:func:`full_tab_title`, what a report prints as the figure's place).
"""
from __future__ import annotations

from PySide6.QtWidgets import QTabWidget, QWidget

__all__ = ["SHORT_TITLES", "full_tab_title", "shorten_tab_titles"]

#: Full tab title -> the title shown on the tab.
SHORT_TITLES = {
    # main tabs
    "σ-k^m anonymity": "σ-k^m",
    # every method tab
    "Compare parameter values": "Compare",
    "Original vs published": "Before/after",
    "Independent check": "Check",
    # σ-k^m
    "Map of the partitions": "Partition map",
    "Partitions, error and area vs m": "Curves vs m",
    # Threats
    "(a)(b) Attacker right": "(a)(b) Attacker",
    "(c)(d) Learner right": "(c)(d) Learner",
    "Selected people": "People",
    "Beliefs about the victim (Table III)": "Beliefs (Table III)",
    # ρ-uncertainty
    "Sensitive rules": "Rules",
    "Before / after": "Before/after",
    # Group anonymization
    "Group sizes and NCP": "Sizes and NCP",
    # RT-data
    "Published table": "Table",
    "Merge heuristics vs δ": "Heuristics vs δ",
    # Risk
    "Every point (table)": "Table",
    "Linkage attack demo": "Attack demo",
    # Audit
    "Every m (table)": "Table",
    # the Compare tab
    "Every cell (table)": "Table",
}


def full_tab_title(tabs: QTabWidget, index: int) -> str:
    """The full title of tab ``index`` (its shown title when it was never shortened)."""
    full = tabs.tabBar().tabData(index)
    return full if isinstance(full, str) and full else tabs.tabText(index)


def shorten_tab_titles(root: QWidget) -> int:
    """Give every tab under ``root`` (``root`` included) listed in :data:`SHORT_TITLES` its short title.

    The full title becomes the tab's tooltip (unless it has one) and its tab data. Idempotent; returns how many
    tabs were shortened by this call.
    """
    widgets = [root] if isinstance(root, QTabWidget) else []
    changed = 0
    for tabs in widgets + root.findChildren(QTabWidget):
        for index in range(tabs.count()):
            text = tabs.tabText(index)
            short = SHORT_TITLES.get(text)
            if short is None:
                continue
            tabs.tabBar().setTabData(index, text)
            tabs.setTabText(index, short)
            if not tabs.tabToolTip(index):
                tabs.setTabToolTip(index, text)
            changed += 1
    return changed
