"""Step-by-step linkage attack, for explaining re-identification to a room.

Pick a person, then reveal their items one at a time (in random order or
rarest first, the way a real attacker would prefer). After each item the
plot shows how many people in the dataset still have every revealed item;
when only the chosen person is left, they are singled out.

The attack itself is :func:`anonstudio.methods.uniqueness.linkage_attack.linkage_attack`;
this widget only replays its trace. People are shown by record number,
counted from 1 (the first record of the dataset is person #1).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ....methods.uniqueness.linkage_attack import AttackTrace, linkage_attack, random_person
from ...controls import Callout
from ...plots import ExportablePlot, integer_ticks

__all__ = ["AttackDemo"]

PLAY_INTERVAL_MS = 900
ORDERS = (("random", "Random order"), ("rarest", "Rarest items first"))


class AttackDemo(QWidget):
    """Controls, revealed-items list, matching-people plot and the verdict.

    Signals
    -------
    singled_out(int, int)
        The person's record number (from 1) and the number of items it took.
    """

    singled_out = Signal(int, int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.dataset: Any = None
        self.trace: AttackTrace | None = None
        self.revealed = 0
        self._seed = 0

        self.person_box = QSpinBox()
        self.person_box.setToolTip("Record number of the person to attack (1 = first record).")
        self.random_button = QPushButton("Random person")
        self.random_button.setToolTip("Pick a person at random.")
        self.order_box = QComboBox()
        for value, label in ORDERS:
            self.order_box.addItem(label, value)
        self.order_box.setToolTip("Random: the attacker learned arbitrary items (a receipt, a check-in).\n"
                                  "Rarest first: the attacker uses the most telling items, the worst case.")
        self.start_button = QPushButton("Start attack")
        self.start_button.setToolTip("Choose this person and hide all their items again.")
        self.next_button = QPushButton("Reveal next item")
        self.play_button = QPushButton("Play")
        self.play_button.setCheckable(True)
        self.play_button.setToolTip("Reveal one item every second until the person is singled out.")

        who = QHBoxLayout()
        who.addWidget(self.person_box, 1)
        who.addWidget(self.random_button)
        form = QFormLayout()
        form.addRow("Person", who)
        form.addRow("Attacker learns items in", self.order_box)
        buttons = QHBoxLayout()
        for b in (self.start_button, self.next_button, self.play_button):
            buttons.addWidget(b)

        self.person_items = QLabel()
        self.person_items.setWordWrap(True)
        self.revealed_list = QListWidget()
        self.revealed_list.setWordWrap(True)
        self.revealed_list.setToolTip("Items the attacker knows so far, and how many people have all of them.")
        self.verdict = Callout("Load a dataset, choose a person and press “Start attack”.")
        self.verdict.setObjectName("attack_verdict")

        self.plot = ExportablePlot("People still matching", x_label="items revealed to the attacker",
                                   y_label="people who have all revealed items", legend=False, log_y=True,
                                   empty_text="Reveal items to see the crowd shrink.")
        self.plot.add_series("people matching", kind="line", symbol="o", color="#D55E00")
        self.plot.add_series("singled out", kind="scatter", symbol="star", symbol_size=18, color="#009E73")

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addLayout(form)
        left_layout.addLayout(buttons)
        left_layout.addWidget(self.person_items)
        left_layout.addWidget(QLabel("Revealed so far:"))
        left_layout.addWidget(self.revealed_list, 1)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(left)
        split.addWidget(self.plot)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(self.verdict)
        layout.addWidget(split, 1)

        self.timer = QTimer(self)
        self.timer.setInterval(PLAY_INTERVAL_MS)
        self.timer.timeout.connect(self.reveal_next)
        self.random_button.clicked.connect(self.pick_random_person)
        self.start_button.clicked.connect(self.start)
        self.next_button.clicked.connect(self.reveal_next)
        self.play_button.toggled.connect(self._play_toggled)
        self._update_buttons()

    # ------------------------------------------------------------- control
    def set_dataset(self, dataset: Any) -> None:
        self.stop()
        self.dataset = dataset
        self.trace = None
        self.revealed = 0
        self.person_box.setRange(1, max(dataset.n_records, 1))
        self.revealed_list.clear()
        self.person_items.clear()
        self.plot.clear_data()
        self.verdict.show_text(f"{dataset.n_records:,} people in {dataset.name}. "
                               "Choose a person and press “Start attack”.", "info")
        self._update_buttons()

    def pick_random_person(self) -> int:
        """Attack a person drawn at random; returns their record number (from 1)."""
        self._seed += 1
        record = random_person(self.dataset, seed=self._seed) + 1
        self.person_box.setValue(record)
        self.start()
        return record

    def start(self) -> None:
        """Compute the attack on the chosen person and hide all their items."""
        self.stop()
        person = self.person_box.value()
        order = self.order_box.currentData()
        self._seed += 1
        self.trace = linkage_attack(self.dataset, person - 1, order=order, seed=self._seed)
        self.revealed = 0
        self.revealed_list.clear()
        self.plot.clear_data()
        trace = self.trace
        self.person_items.setText(f"Person #{person} has {trace.record_size} item"
                                  f"{'s' if trace.record_size != 1 else ''}. Before the attack, all "
                                  f"{trace.population:,} people are candidates.")
        self.verdict.show_text(f"The attacker knows nothing yet: {trace.population:,} people could be person "
                               f"#{person}. Press “Reveal next item” or “Play”.", "info")
        self._update_buttons()

    def reveal_next(self) -> None:
        if self.trace is None or self.revealed >= len(self.trace.steps):
            self.stop()
            return
        step = self.trace.steps[self.revealed]
        self.revealed += 1
        count = step.matches
        self.revealed_list.addItem(
            f"{self.revealed}. item “{step.label}”: now {count:,} {'person matches' if count == 1 else 'people match'}"
            f" (this item alone: {step.item_frequency:,} people)")
        self.revealed_list.scrollToBottom()
        x = np.arange(0, self.revealed + 1, dtype=float)
        y = np.array([self.trace.population] + [s.matches for s in self.trace.steps[: self.revealed]], dtype=float)
        self.plot.set_series("people matching", x, y)
        integer_ticks(self.plot.plot_item, "bottom", self.revealed)
        self.plot.plot_item.setXRange(0, max(self.revealed, 1), padding=0.04)
        self._show_verdict()
        self._update_buttons()

    def stop(self) -> None:
        self.timer.stop()
        if self.play_button.isChecked():
            self.play_button.setChecked(False)

    # ----------------------------------------------------------- internals
    def _show_verdict(self) -> None:
        trace = self.trace
        person = trace.record
        at = trace.items_needed
        if at is not None and self.revealed >= at:
            self.verdict.show_text(f"<b>Singled out.</b> After {at} item{'s' if at != 1 else ''} only person "
                                   f"#{person} has all of them: anyone who knows these items can find this "
                                   "person's full record.", "failed")
            self.plot.set_series("singled out", [at], [1.0])
            self.stop()
            self.singled_out.emit(person, at)
        elif self.revealed >= len(trace.steps):
            crowd = trace.steps[-1].matches if trace.steps else trace.population
            self.verdict.show_text(f"<b>Not singled out.</b> Even with all {trace.record_size} items known, "
                                   f"{crowd:,} people match: person #{person} hides in a crowd of {crowd:,}.", "ok")
            self.stop()
        else:
            count = trace.steps[self.revealed - 1].matches
            self.verdict.show_text(f"After {self.revealed} item{'s' if self.revealed != 1 else ''}, {count:,} "
                                   f"people still match person #{person}.", "info")

    def _play_toggled(self, on: bool) -> None:
        self.play_button.setText("Pause" if on else "Play")
        if on:
            if self._finished():
                self.start()
                self.play_button.blockSignals(True)
                self.play_button.setChecked(True)
                self.play_button.setText("Pause")
                self.play_button.blockSignals(False)
            self.timer.start()
        else:
            self.timer.stop()
        self._update_buttons()

    def _finished(self) -> bool:
        """No attack started, or every step of it is shown."""
        return self.trace is None or self.revealed >= len(self.trace.steps)

    def _update_buttons(self) -> None:
        has_data = self.dataset is not None
        for w in (self.person_box, self.random_button, self.order_box, self.start_button, self.play_button):
            w.setEnabled(has_data)
        self.next_button.setEnabled(not self._finished())
