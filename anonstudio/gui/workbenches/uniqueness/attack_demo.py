"""Step-by-step linkage attack, for explaining re-identification to a room.

Pick a person, then reveal their items one at a time (in random order or
rarest first, the way a real attacker would prefer). After each item the
plot shows how many people in the dataset still have every revealed item;
when only the chosen person is left, they are singled out.

The attack itself is :func:`anonstudio.methods.uniqueness.linkage_attack.linkage_attack`;
this widget only replays its trace. People are shown by record number,
counted from 1 (the first record of the dataset is person #1).

Before/after: with a release chosen (a file with its item map, or a finished
run of another tab), the same victim and the same revealed items are tried on
the release too (:func:`~anonstudio.methods.uniqueness.linkage_attack.replay_attack`,
whose candidates are the independent evaluator's), and the plot and the list
show both counts side by side: the attack that singles someone out in the
original stops working on a good release.
"""
from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
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

from ....methods.uniqueness.linkage_attack import (
    AttackTrace,
    ReadRelease,
    ReleaseAttack,
    linkage_attack,
    random_person,
    read_attack_release,
    replay_attack,
)
from ...animated_count import AnimatedCount
from ...controls import Callout, open_file_dialog
from ...next_steps import next_step
from ...plots import ExportablePlot, integer_ticks
from ...release_sources import has_release, run_label, write_release

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
    #: Presentation mode's → and ← call :meth:`step` on this widget while it is on screen.
    presentation_step = True

    def __init__(self, parent: QWidget | None = None, submit: Any = None, release_folder: Any = None):
        super().__init__(parent)
        self.dataset: Any = None
        self.trace: AttackTrace | None = None
        #: ``submit(title, fn, on_done=..., on_error=...)`` runs a job in the background (the workbench's).
        self._submit = submit
        #: ``release_folder()``: where the releases of finished runs are written.
        self._release_folder = release_folder
        #: The release the attack is replayed on (None: the original only), and the replay of the current trace.
        self.release: ReadRelease | None = None
        self.after: ReleaseAttack | None = None
        #: Finished runs of other tabs on this dataset with a release, newest first.
        self.sources: list[Any] = []
        #: The name of a release chosen as a file (listed in the release box), or None.
        self._file_release: str | None = None
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
        self.release_box = QComboBox()
        self.release_box.setToolTip("Replay the same attack on a release: a finished run of another tab, or a file.")
        self.release_box.currentIndexChanged.connect(self._release_chosen)
        # Run labels are long: the box must not widen the controls and squeeze the plot.
        self.release_box.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.release_box.setMinimumContentsLength(10)
        self.release_file_button = QPushButton("Release file…")
        self.release_file_button.setToolTip("A release file of this dataset (suppressed, generalized or "
                                            "nonreciprocal); asks for its item map next (Cancel: none).")
        self.release_file_button.clicked.connect(self.choose_release_file)
        release_row = QHBoxLayout()
        release_row.addWidget(self.release_box, 1)
        release_row.addWidget(self.release_file_button)
        self.release_label = QLabel("")
        self.release_label.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Person", who)
        form.addRow("Attacker learns items in", self.order_box)
        form.addRow("Then on a release", release_row)
        form.addRow("", self.release_label)
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

        self.plot = ExportablePlot("People still matching", x_label="items revealed",
                                   y_label="records matching (people)", legend=True, auto_legend=True, log_y=True,
                                   empty_text="Reveal items to see the crowd shrink.")
        self.plot.add_series("in the original", kind="line", symbol="o", color="#D55E00")
        self.plot.add_series("singled out", kind="scatter", symbol="star", symbol_size=18, color="#009E73",
                             in_legend=False)
        self.plot.add_series("in the release", kind="line", symbol="s", color="#0072B2")

        # The candidates as one large number that counts down as items are revealed (the class watches it
        # shrink; presentation mode makes it larger still); the release's count beside it once one is chosen.
        self.count_original = AnimatedCount(lambda n: f"{n:,} {'person matches' if n == 1 else 'people match'}")
        self.count_release = AnimatedCount(lambda n: f"{n:,} candidate{'s' if n != 1 else ''} in the release")
        for label, name in ((self.count_original, "people still matching in the original"),
                            (self.count_release, "candidates still matching in the release")):
            label.setProperty("role", "count")
            label.setAccessibleName(name)
            font = label.font()
            font.setPointSizeF(font.pointSizeF() * 1.6)
            font.setBold(True)
            label.setFont(font)
        self.count_release.hide()
        # One above the other: side by side, two large numbers would widen the page beyond a small screen.
        counts = QVBoxLayout()
        counts.setSpacing(0)
        counts.addWidget(self.count_original)
        counts.addWidget(self.count_release)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addLayout(counts)
        right_layout.addWidget(self.plot, 1)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addLayout(form)
        left_layout.addLayout(buttons)
        left_layout.addWidget(self.person_items)
        left_layout.addWidget(QLabel("Revealed so far:"))
        left_layout.addWidget(self.revealed_list, 1)
        self.split = split = QSplitter(Qt.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        # The plot gets the larger share: its legend and axis captions must not be cut off at 1280x720.
        split.setSizes([360, 540])
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
        self.sources = []
        self.release = None
        self.after = None
        self._file_release = None
        self._update_release_box()
        self.revealed_list.clear()
        self.person_items.clear()
        self.plot.clear_data()
        self.count_original.set_count(None)
        self.count_release.set_count(None)
        self.count_release.hide()
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
        self.after = replay_attack(self.trace, self.release) if self.release is not None else None
        self.revealed = 0
        self.revealed_list.clear()
        self.plot.clear_data()
        trace = self.trace
        self.person_items.setText(f"Person #{person} has {trace.record_size} item"
                                  f"{'s' if trace.record_size != 1 else ''}. Before the attack, all "
                                  f"{trace.population:,} people are candidates.")
        self.verdict.show_text(self._start_text(), "info")
        self.count_original.set_count(trace.population, animate=False)
        self.count_release.set_count(self.after.records if self.after is not None else None, animate=False)
        self.count_release.setVisible(self.after is not None)
        self._update_buttons()

    def _start_text(self) -> str:
        return (f"The attacker knows nothing yet: {self.trace.population:,} people could be person "
                f"#{self.trace.record}. Press “Reveal next item” or “Play”.")

    def reveal_next(self) -> None:
        if self.trace is None or self.revealed >= len(self.trace.steps):
            self.stop()
            return
        self.revealed += 1
        self._show_revealed(forward=True)

    def reveal_previous(self) -> None:
        """Hide the last revealed item again (the candidates grow back); stops Play."""
        self.stop()
        if self.trace is None or self.revealed <= 0:
            return
        self.revealed -= 1
        self._show_revealed(forward=False)

    def step(self, delta: int) -> None:
        """→ (+1) reveals the next item, ← (-1) hides the last one: presentation mode's arrow keys.

        Without a started attack, → starts one on the chosen person first.
        """
        if delta > 0:
            if self.trace is None and self.dataset is not None:
                self.start()
            self.reveal_next()
        elif delta < 0:
            self.reveal_previous()

    def _step_line(self, i: int) -> str:
        """The revealed list's line for step ``i`` (from 1)."""
        step = self.trace.steps[i - 1]
        count = step.matches
        matching = "person matches" if count == 1 else "people match"
        line = f"{i}. item “{step.label}”: now {count:,} {matching} (this item alone: " \
               f"{step.item_frequency:,} people)"
        if self.after is not None:
            cands = self.after.matches[i - 1]
            line += (f"; in the release {cands:,} candidate{'s' if cands != 1 else ''}"
                     + ("" if self.after.own[i - 1] else ", the person's own record not among them"))
        return line

    def _show_revealed(self, forward: bool) -> None:
        """Draw the list, the plot, the counters and the verdict for the first ``self.revealed`` items."""
        shown = self.revealed_list.count()
        if shown > self.revealed:
            for _ in range(shown - self.revealed):
                self.revealed_list.takeItem(self.revealed_list.count() - 1)
        for i in range(shown + 1, self.revealed + 1):
            self.revealed_list.addItem(self._step_line(i))
        self.revealed_list.scrollToBottom()
        x = np.arange(0, self.revealed + 1, dtype=float)
        y = np.array([self.trace.population] + [s.matches for s in self.trace.steps[: self.revealed]], dtype=float)
        self.plot.set_series("in the original", x, y)
        self.count_original.set_count(int(y[-1]))
        if self.after is not None:
            after = np.array([self.after.records] + list(self.after.matches[: self.revealed]), dtype=float)
            # A log axis cannot show 0 candidates: they are drawn at 0.5, below one record.
            self.plot.set_series("in the release", x, np.maximum(after, 0.5))
            self.count_release.set_count(int(after[-1]))
        else:
            self.plot.set_series("in the release", [], [])
        integer_ticks(self.plot.plot_item, "bottom", self.revealed)
        self.plot.plot_item.setXRange(0, max(self.revealed, 1), padding=0.04)
        self._leave_room_for_legend(np.concatenate([y, [1.0]]) if self.after is None else
                                    np.concatenate([y, np.maximum(after, 0.5)]))
        if self.revealed:
            self._show_verdict(forward)
        else:
            self.plot.set_series("singled out", [], [])
            self.verdict.show_text(self._start_text(), "info")
        self._update_buttons()

    def stop(self) -> None:
        self.timer.stop()
        if self.play_button.isChecked():
            self.play_button.setChecked(False)

    # -------------------------------------------------------------- release
    def receive_run(self, run: Any) -> None:
        """A run finished in another tab: offer its release when it is of this dataset and made one."""
        if self.dataset is not None and run.data is self.dataset and has_release(run):
            self.sources.insert(0, run)
            self._update_release_box()

    def _update_release_box(self) -> None:
        self.release_box.blockSignals(True)
        self.release_box.clear()
        self.release_box.addItem("none (the original only)", None)
        for run in self.sources:
            self.release_box.addItem(run_label(run), run)
        if self._file_release is not None:
            self.release_box.addItem(f"file: {self._file_release}", "file")
        self.release_box.blockSignals(False)

    def _release_chosen(self, index: int) -> None:
        choice = self.release_box.itemData(index)
        if choice is None:
            self.release = None
            self.release_label.setText("")
            self.start_if_shown()
        elif choice != "file":
            folder = self._release_folder() if callable(self._release_folder) else Path.home()
            try:
                values = write_release(choice, folder)
            except (OSError, RuntimeError, ValueError) as exc:
                self.release_label.setText(f"Could not write that run's release: {exc}")
                return
            self.load_release(values["release"], values.get("map"), values.get("sensitive"))

    def choose_release_file(self) -> None:
        path = open_file_dialog(self, "Release of this dataset", "All files (*)")
        if not path:
            return
        map_path, _ = QFileDialog.getOpenFileName(self, "Its item → published item map (Cancel: none)", str(
            Path(path).parent), "CSV files (*.csv);;All files (*)")
        self.load_release(Path(path), Path(map_path) if map_path else None, from_file=True)

    def load_release(self, path: Any, map_path: Any = None, sensitive: Any = None, from_file: bool = False) -> None:
        """Read a release (in the background when the tab gives a job runner) and replay the attack on it."""
        from ....evaluate import SideFiles

        data = self.dataset
        side = SideFiles(map=map_path, sensitive=sensitive)
        self.release_label.setText(f"Reading {Path(path).name}…")

        def read(progress=None):
            return read_attack_release(data, path, None, side)

        def done(release, complete=True):
            if self.dataset is not data or release is None:
                return
            self.release = release
            self.release_label.setText(f"Release: {release.name} ({release.kind}, {release.records:,} records)"
                                       + (f", map {Path(map_path).name}" if map_path else ""))
            if from_file:
                self._file_release = release.name
                self._update_release_box()
                self.release_box.blockSignals(True)
                self.release_box.setCurrentIndex(self.release_box.count() - 1)
                self.release_box.blockSignals(False)
            self.start_if_shown()

        def failed(exc):
            self.release = None
            self.release_label.setText(f"Could not read the release: {exc}. What to do: {next_step(str(exc), 'load')}")

        if self._submit is None:
            try:
                done(read())
            except (OSError, ValueError) as exc:
                failed(exc)
        else:
            self._submit(f"Read the release {Path(path).name}", read, on_done=done, on_error=failed)

    def start_if_shown(self) -> None:
        """Recompute the current attack (now with or without the release)."""
        if self.trace is not None:
            self.start()

    # ----------------------------------------------------------- internals
    def _show_verdict(self, forward: bool = True) -> None:
        trace = self.trace
        person = trace.record
        at = trace.items_needed
        if at is not None and self.revealed >= at:
            text = (f"<b>Singled out.</b> After {at} item{'s' if at != 1 else ''} only person #{person} has all of "
                    "them: anyone who knows these items can find this person's full record.")
            state = "failed"
            if self.after is not None:
                text += " " + self._after_text(at)
                state = "failed" if self.after.singled_out else "ok"
            self.verdict.show_text(text, state)
            self.plot.set_series("singled out", [at], [1.0])
            self.stop()
            if forward:
                self.singled_out.emit(person, at)
            return
        self.plot.set_series("singled out", [], [])
        if self.revealed >= len(trace.steps):
            crowd = trace.steps[-1].matches if trace.steps else trace.population
            text = (f"<b>Not singled out.</b> Even with all {trace.record_size} items known, {crowd:,} people "
                    f"match: person #{person} hides in a crowd of {crowd:,}.")
            if self.after is not None:
                text += " " + self._after_text(self.revealed)
            self.verdict.show_text(text, "ok")
            self.stop()
        else:
            count = trace.steps[self.revealed - 1].matches
            text = (f"After {self.revealed} item{'s' if self.revealed != 1 else ''}, {count:,} people still match "
                    f"person #{person}.")
            if self.after is not None:
                text += f" In the release: {self.after.matches[self.revealed - 1]:,} candidates."
            self.verdict.show_text(text, "info")

    def _leave_room_for_legend(self, ys: np.ndarray) -> None:
        """A log y range with a free band at the top for the legend, which the first points would reach."""
        logs = np.log10(ys[ys > 0])
        lo, hi = float(logs.min()), float(logs.max())
        span = max(hi - lo, 1.0)
        room = self.plot.legend_headroom()
        self.plot.plot_item.setYRange(lo - 0.05 * span, hi + span * (0.05 + room / max(1.0 - room, 0.4)), padding=0)
        self.plot.keep_legend_clear()

    def _after_text(self, steps: int) -> str:
        """What the same items give on the release, in words."""
        after = self.after
        count = after.matches[steps - 1]
        name = html.escape(after.release_name)
        if after.matches[steps - 1] == 1 and after.own[steps - 1]:
            return f"<b>On the release {name} too</b>: the attack still works; do not publish it."
        if not after.own[steps - 1]:
            return (f"<b>On the release {name}</b> the same items leave {count:,} candidates, none of them this "
                    "person's own record: the attack finds no one.")
        return (f"<b>On the release {name}</b> the same items leave {count:,} candidates: the attack stops "
                "working.")

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
