"""File › Export report…: an HTML report (and a PDF certificate) of the workbenches' last runs.

The dialog asks for the HTML file, an optional PDF certificate, whether the
report is internal (it then previews released records and audit files, which
re-identify people: the dialog says so in plain words) and which workbenches'
last runs to include. The plots are drawn on the GUI thread one run at a time
(each from an offscreen copy of the run's workbench, between event-loop turns
so the window stays responsive); building the report, hashing the outputs and
laying out the PDF run as a background job with progress and Cancel. Nothing
is written after a cancel.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..data.io.atomic import OutputPathError, check_output_path, resolve_output
from ..methods.contract import MethodRun
from ..studio.report import verdict
from .controls import STYLE, note_label, save_file_dialog
from .method_workbench import MethodWorkbench
from .next_steps import next_step
from .report_render import run_figures, write_report
from .workers import Job, JobRunner, JobState

__all__ = ["ReportDialog", "show_report_dialog", "INTERNAL_WARNING"]

INTRO = ("<b>A report an auditor can sign.</b> For each chosen run: the input and its SHA-256, the method and every "
         "parameter, the promise, the independent check's verdict, the measures with their meanings, the plots, the "
         "SHA-256 of each output file and the command that repeats the run. One self-contained HTML file (it opens "
         "in any browser, without network access), and optionally the same content as a PDF certificate.")
INTERNAL_WARNING = ("An internal report shows the first lines of each released file and of the audit files (the "
                    "nonreciprocal graph and record order, the threat per-row probabilities). Together with the "
                    "original data they can tell who is who: keep it inside the team that holds the original data. "
                    "Every page says “INTERNAL — contains re-identifying data”.")
EXTERNAL_NOTE = ("External report: no released records and no audit file, so it can be shared with auditors. The "
                 "release files' SHA-256 identify them without showing them.")
JOB_KEY = "report"
#: Width of the dialog (pixels): wide enough for a file path and the warning in a few lines.
MIN_WIDTH = 640


class _PathRow(QWidget):
    """A file name to write, typed or chosen with "Choose…"."""

    def __init__(self, title: str, default: Path, extension: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.title = title
        self.extension = extension
        self.edit = QLineEdit(str(default))
        self.button = QPushButton("Choose…")
        self.button.clicked.connect(self.choose)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.button)

    def path(self) -> Path | None:
        text = self.edit.text().strip()
        return Path(text).expanduser() if text else None

    def set_path(self, path: str | Path) -> None:
        self.edit.setText(str(path))

    def choose(self) -> None:
        current = self.path()
        chosen = save_file_dialog(self, self.title, current.name if current else f"report{self.extension}",
                                  (self.extension,), current.parent if current else "")
        if chosen is not None:
            self.set_path(chosen)


class ReportDialog(QDialog):
    """Choose runs and files, then write the report in the background (see the module docstring)."""

    def __init__(self, benches: Sequence[MethodWorkbench], runner: JobRunner, parent: QWidget | None = None,
                 folder: Path | None = None):
        super().__init__(parent)
        self.setWindowTitle("Export report")
        self.setObjectName("report-dialog")
        if parent is None:
            self.setStyleSheet(STYLE)
        self.runner = runner
        self.job: Job | None = None
        #: The lines saying what was written by the last export ([] before; None after a cancel).
        self.written: list[str] | None = []
        self._pending: list[MethodRun] = []
        self._figures: list = []
        self._notes: list[str] = []
        self._cancelled = False
        folder = folder or Path.home()

        layout = QVBoxLayout(self)
        layout.addWidget(note_label(INTRO, "body"))

        runs_box = QGroupBox("Runs to include (each workbench's last run)")
        runs_layout = QVBoxLayout(runs_box)
        self.run_boxes: list[tuple[QCheckBox, MethodRun | None]] = []
        for bench in benches:
            run = bench.last_run
            if run is None:
                box = QCheckBox(f"{bench.TITLE}: no finished run yet")
                box.setEnabled(False)
            else:
                word, _state, sentence = verdict(run)
                box = QCheckBox(f"{bench.TITLE}: {run.dataset.name} — {word}")
                box.setToolTip(sentence)
                box.setChecked(True)
            box.toggled.connect(self._update)
            runs_layout.addWidget(box)
            self.run_boxes.append((box, run))
        if not benches:
            runs_layout.addWidget(note_label("No workbench can be reported."))
        layout.addWidget(runs_box)

        files_box = QGroupBox("Files")
        files_layout = QFormLayout(files_box)
        self.html_row = _PathRow("HTML report", folder / "anonstudio-report.html", ".html")
        files_layout.addRow("HTML report:", self.html_row)
        self.pdf_box = QCheckBox("Also write the PDF certificate (the same content, A4 pages)")
        self.pdf_box.toggled.connect(self._update)
        files_layout.addRow(self.pdf_box)
        self.pdf_row = _PathRow("PDF certificate", folder / "anonstudio-certificate.pdf", ".pdf")
        files_layout.addRow("PDF certificate:", self.pdf_row)
        layout.addWidget(files_box)

        self.internal_box = QCheckBox("Internal report: include previews of the released records and the audit files")
        self.internal_box.toggled.connect(self._update)
        layout.addWidget(self.internal_box)
        self.flavour_note = note_label(EXTERNAL_NOTE)
        layout.addWidget(self.flavour_note)

        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        layout.addWidget(self.progress)
        self.status_label = note_label("")
        layout.addWidget(self.status_label)

        self.buttons = QDialogButtonBox()
        self.write_button = self.buttons.addButton("Write report", QDialogButtonBox.AcceptRole)
        self.cancel_button = self.buttons.addButton("Cancel", QDialogButtonBox.RejectRole)
        self.close_button = self.buttons.addButton("Close", QDialogButtonBox.RejectRole)
        self.write_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button.clicked.connect(self.reject)
        layout.addWidget(self.buttons)
        # Wrapped texts need the width before they know their height: fix the width, then fit the height.
        self._update()
        self.setMinimumWidth(MIN_WIDTH)
        self.resize(MIN_WIDTH, max(self.sizeHint().height(), layout.totalHeightForWidth(MIN_WIDTH)))

    # ------------------------------------------------------------ options
    def selected_runs(self) -> list[MethodRun]:
        return [run for box, run in self.run_boxes if run is not None and box.isChecked()]

    def problems(self) -> str:
        """What keeps the report from being written ("" when nothing does)."""
        if not self.selected_runs():
            return "Choose at least one run (run a workbench first if none is listed)."
        html = self.html_row.path()
        pdf = self.pdf_row.path() if self.pdf_box.isChecked() else None
        if html is None:
            return "Give the HTML file's name."
        if self.pdf_box.isChecked() and pdf is None:
            return "Give the PDF file's name, or untick the certificate."
        if pdf is not None and resolve_output(html).absolute() == resolve_output(pdf).absolute():
            return "The HTML report and the PDF certificate need two different files."
        inputs = tuple(Path(r.dataset.path) for r in self.selected_runs() if r.dataset.path)
        for path in (html, pdf):
            if path is None:
                continue
            try:
                check_output_path(path, inputs=inputs)
            except OutputPathError as exc:
                return str(exc)
        return ""

    def _update(self) -> None:
        internal = self.internal_box.isChecked()
        self.flavour_note.setText(INTERNAL_WARNING if internal else EXTERNAL_NOTE)
        self.flavour_note.setProperty("role", "problem" if internal else "note")
        self.flavour_note.style().unpolish(self.flavour_note)
        self.flavour_note.style().polish(self.flavour_note)
        self.pdf_row.setEnabled(self.pdf_box.isChecked() and not self.running)
        running = self.running
        self.write_button.setEnabled(not running and bool(self.selected_runs()))
        self.cancel_button.setVisible(running)
        self.close_button.setVisible(not running)
        for widget in (self.html_row, self.pdf_box, self.internal_box):
            widget.setEnabled(not running)
        for box, run in self.run_boxes:
            box.setEnabled(run is not None and not running)

    @property
    def running(self) -> bool:
        return bool(self._pending) or (self.job is not None and not self.job.state.finished)

    # ---------------------------------------------------------------- work
    def start(self) -> None:
        """Check the options, then draw the plots run by run and write the files in the background."""
        problem = self.problems()
        if problem:
            self._say(problem, "problem")
            return
        self._pending = self.selected_runs()
        self._figures, self._notes, self._cancelled = [], [], False
        self.written = []
        self.progress.setValue(0)
        self._say("Drawing the plots…")
        self._update()
        QTimer.singleShot(0, self._next_figures)

    def _next_figures(self) -> None:
        """Draw one run's plots per event-loop turn (widgets live on the GUI thread), then start the job."""
        runs = self._pending
        if self._cancelled:
            self._finish(None)
            return
        done = len(self._figures)
        if done < len(runs):
            self._say(f"Drawing the plots of {runs[done].spec.title}…")
            figures, note = run_figures(runs[done])
            self._figures.append(figures)
            self._notes.append(note)
            self.progress.setValue(int(500 * (done + 1) / len(runs)))
            QTimer.singleShot(0, self._next_figures)
            return
        html = self.html_row.path()
        pdf = self.pdf_row.path() if self.pdf_box.isChecked() else None
        internal = self.internal_box.isChecked()
        figures, notes = list(self._figures), list(self._notes)

        def work(progress: Any) -> list[str] | None:
            return write_report(runs, figures, notes, html=html, pdf=pdf, internal=internal, progress=progress)

        self._say("Writing the report…")
        # Rendering and writing the files is one thread's work; the rest of the budget stays with the runs.
        self.job = self.runner.submit("Export report", work, key=JOB_KEY, on_done=self._done, on_error=self._failed,
                                      threads=1)
        self.job.changed.connect(self._job_changed)
        self._pending = []
        self._update()

    def _job_changed(self) -> None:
        job = self.job
        if job is not None and job.state is JobState.CANCELLED:
            # A job cancelled before a worker picked it up never calls on_done: finish here.
            self._finish(None)
            return
        if job is not None and not job.state.finished:
            self.progress.setValue(500 + int(500 * job.fraction))
            if job.status:
                self._say(f"Writing the report: {job.status}")

    def _done(self, lines: list[str] | None, complete: bool) -> None:
        self._finish(lines if complete else None)

    def _failed(self, exc: BaseException) -> None:
        self.job = None
        self._pending = []
        self._say(f"The report could not be written: {exc}. What to do: {next_step(str(exc))}", "problem")
        self._update()

    def _finish(self, lines: list[str] | None) -> None:
        self.job = None
        self._pending = []
        self.written = lines
        if lines is None:
            self.progress.setValue(0)
            self._say("Cancelled: nothing was written.")
        else:
            self.progress.setValue(1000)
            self._say("Done: " + "; ".join(lines) + ".")
        self._update()

    def cancel(self) -> None:
        """Stop drawing plots or the background job; nothing is written."""
        self._cancelled = True
        if self.job is not None:
            self.job.cancel()

    def reject(self) -> None:  # Escape or Close: stop the work first
        if self.running:
            self.cancel()
            return
        super().reject()

    def _say(self, text: str, role: str = "note") -> None:
        self.status_label.setText(text)
        self.status_label.setProperty("role", role)
        self.status_label.style().unpolish(self.status_label)
        self.status_label.style().polish(self.status_label)


def show_report_dialog(window: Any) -> ReportDialog:
    """File › Export report… of the main window: every method workbench, its last run."""
    benches = [b for b in window.workbenches if isinstance(b, MethodWorkbench)]  # builds the tabs not shown yet
    dialog = ReportDialog(benches, window.runner, window)
    dialog.show()
    return dialog
