"""The jobs dock (one row per job: progress, ETA, cancel; a log pane) and the job indicator of the status bar."""
from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..formatting import duration, percent
from .controls import ElidedLabel, splitter
from .workers import Job, JobRunner, JobState

__all__ = ["JobStatus", "JobsPanel"]

COLUMNS = ("Job", "Progress", "Status", "Elapsed", "Time left", "")
#: Finished rows kept before the oldest are dropped (the log keeps everything).
MAX_ROWS = 200


class JobsPanel(QWidget):
    """Lists the runner's jobs, newest last, and its log lines.

    Finished jobs stay listed with their final state (done, cancelled with a
    partial result, failed) so a user sees what happened to a run they left.
    """

    def __init__(self, runner: JobRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.runner = runner
        self._rows: list[Job] = []

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.Interactive)
        header.setSectionResizeMode(2, QHeaderView.Stretch)
        self.table.setColumnWidth(0, 220)
        self.table.setColumnWidth(1, 140)
        self.table.setToolTip("Background computations. Cancel keeps what was computed so far.")

        self.log_view = QPlainTextEdit()
        self.log_view.setReadOnly(True)
        self.log_view.setMaximumBlockCount(5000)
        self.log_view.setPlaceholderText("Messages from loads and analyses appear here.")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(splitter(Qt.Horizontal, (self.table, self.log_view), (3, 2)))

        runner.job_added.connect(self.add_job)
        runner.log.connect(self.append_log)
        # Elapsed time and ETA move even when a job reports nothing.
        self._clock = QTimer(self)
        self._clock.setInterval(500)
        self._clock.timeout.connect(self._tick)
        self._clock.start()

    # ---------------------------------------------------------------- rows
    def add_job(self, job: Job) -> None:
        if len(self._rows) >= MAX_ROWS:
            self._drop_oldest_finished()
        row = self.table.rowCount()
        self.table.insertRow(row)
        self._rows.append(job)
        self.table.setItem(row, 0, QTableWidgetItem(job.title))
        bar = QProgressBar()
        bar.setRange(0, 1000)
        bar.setTextVisible(True)
        self.table.setCellWidget(row, 1, bar)
        for col in (2, 3, 4):
            self.table.setItem(row, col, QTableWidgetItem(""))
        button = QPushButton("Cancel")
        button.setToolTip("Stop this job; whatever it computed so far is kept and shown.")
        button.clicked.connect(job.cancel)
        self.table.setCellWidget(row, 5, button)
        job.changed.connect(lambda j=job: self._refresh(j))
        self._refresh(job)
        self.table.scrollToBottom()

    def row_of(self, job: Job) -> int:
        return self._rows.index(job)

    def state_text(self, job: Job) -> str:
        """What the Status column shows for ``job`` (tests read it)."""
        return self.table.item(self.row_of(job), 2).text()

    def cancel_button(self, job: Job) -> QPushButton:
        return self.table.cellWidget(self.row_of(job), 5)

    def _refresh(self, job: Job) -> None:
        if job not in self._rows:
            return
        row = self._rows.index(job)
        bar: QProgressBar = self.table.cellWidget(row, 1)
        bar.setValue(int(round(job.fraction * 1000)))
        bar.setFormat(percent(job.fraction, 0))
        if job.state.finished:
            status = job.state_text()
            if job.state is JobState.FAILED:
                status += f": {job.status}"
        else:
            status = job.status
        item = self.table.item(row, 2)
        item.setText(status)
        item.setToolTip(job.error_details or status)
        if job.state is JobState.FAILED:
            item.setForeground(Qt.red)
        self.table.item(row, 3).setText(duration(job.elapsed()) if job.started_at else "–")
        self.table.item(row, 4).setText(duration(job.eta()))
        button: QPushButton = self.table.cellWidget(row, 5)
        button.setEnabled(not job.state.finished and not job.cancel_requested)

    def _tick(self) -> None:
        for job in self._rows:
            if not job.state.finished:
                self.runner.sync(job)
                self._refresh(job)

    def _drop_oldest_finished(self) -> None:
        for i, job in enumerate(self._rows):
            if job.state.finished:
                self.table.removeRow(i)
                del self._rows[i]
                return

    # ----------------------------------------------------------------- log
    def append_log(self, line: str) -> None:
        self.log_view.appendPlainText(f"{time.strftime('%H:%M:%S')}  {line}")


class JobStatus(QWidget):
    """The newest running job in the status bar: title, progress, time left and Cancel.

    Lets the jobs dock stay closed (View > Jobs and log, or the "Jobs…" button)
    without hiding a run's progress, its ETA or its Cancel button.

    Signals
    -------
    show_jobs()
        The "Jobs…" button was pressed.
    """

    show_jobs = Signal()

    def __init__(self, runner: JobRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.runner = runner
        self.job: Job | None = None
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # A long title and status (a sweep's cell) end in "…" instead of pushing the buttons off the bar.
        self.label = ElidedLabel(120)
        self.label.setObjectName("job_status_text")
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setFixedWidth(160)
        self.bar.setTextVisible(True)
        self.cancel = QPushButton("Cancel")
        self.cancel.setToolTip("Stop this job; whatever it computed so far is kept and shown.")
        self.cancel.clicked.connect(self._cancel)
        self.jobs_button = QToolButton()
        self.jobs_button.setText("Jobs…")
        self.jobs_button.setToolTip("Show every job and the log (View > Jobs and log).")
        self.jobs_button.clicked.connect(self.show_jobs)
        for w in (self.label, self.bar, self.cancel, self.jobs_button):
            layout.addWidget(w)
        runner.job_added.connect(self._added)
        self._clock = QTimer(self)
        self._clock.setInterval(500)
        self._clock.timeout.connect(self._tick)
        self._clock.start()
        self._refresh()

    def _tick(self) -> None:
        # The runner delivers progress with job.changed, which calls _refresh; sync here only, or the two
        # would call each other.
        if self.job is not None and not self.job.state.finished:
            self.runner.sync(self.job)
        self._refresh()

    def _added(self, job: Job) -> None:
        self.job = job
        job.changed.connect(self._refresh)
        self._refresh()

    def _cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()

    def _refresh(self) -> None:
        job = self.job
        running = job is not None and not job.state.finished
        for w in (self.bar, self.cancel):
            w.setVisible(running)
        if job is None:
            self.label.setText("")
            return
        if running:
            eta = job.eta()
            left = f", {duration(eta)} left" if eta is not None else ""
            self.bar.setValue(int(round(job.fraction * 1000)))
            self.bar.setFormat(percent(job.fraction, 0))
            self.label.setText(f"{job.title}: {job.status}{left}")
            self.cancel.setEnabled(not job.cancel_requested)
        else:
            self.label.setText(f"{job.title}: {job.state_text()}")
        self.label.setToolTip(self.label.text())
