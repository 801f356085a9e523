"""The datasets dock: open a file or a bundled sample, see what it contains, set a table's column roles.

Opening a file shows the import preview first (:class:`~anonstudio.gui.import_dialog.ImportDialog`).
Loading runs as a background job. The active dataset only changes when a
load succeeds; a bad file leaves the previous dataset in place and the job's
error (file, line, reason) is shown in a dialog.

A table's columns and roles are listed under the summary; changing a role
makes a new active table (same rows, new roles) and announces it like a
load, so every workbench takes the roles as its defaults. "View data" opens
the data view of the active dataset.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..data.datasets import ReadOptions, table_with_roles
from ..data.errors import LoadCancelled
from ..data.io import load_report
from ..data.table import Role, Table
from ..data.transactions import TransactionData
from .column_roles import ColumnRolesEditor
from .controls import splitter
from .data_view import DataViews, DataViewWindow
from .plots import HistogramPlot, RankFrequencyPlot
from .workers import Job, JobRunner

__all__ = ["DatasetsPanel", "available_samples", "describe_dataset"]

LOAD_KEY = "dataset-load"


def available_samples() -> list[Any]:
    """Bundled samples (``anonstudio.data.samples.list_samples``), or [] if none ship."""
    try:
        from ..data.samples import list_samples
    except ImportError:
        return []
    return list(list_samples())


def describe_dataset(dataset: Any) -> list[str]:
    """Summary lines for the dock (and the demo's log), ending with load warnings."""
    if isinstance(dataset, TransactionData):
        lines = dataset.summary().lines()
    elif isinstance(dataset, Table):
        frame = dataset.frame
        lines = [f"dataset: {dataset.name}", f"rows: {len(frame):,}", f"columns: {frame.shape[1]}",
                 f"quasi-identifiers: {len(dataset.quasi_identifiers)} of {frame.shape[1]} columns",
                 "sensitive: " + (", ".join(map(str, dataset.sensitive)) or "none")]
    else:
        lines = [f"dataset: {getattr(dataset, 'name', type(dataset).__name__)}"]
    # Loaders repair some problems (e.g. duplicate items) instead of failing;
    # the user must still be told what was changed.
    return lines + [f"⚠ {warning}" for warning in load_report(dataset).warnings]


class DatasetsPanel(QWidget):
    """Open/sample buttons, a summary and two small plots of the active dataset.

    Signals
    -------
    dataset_loaded(object)
        A load succeeded, or a table's roles changed; carries the new active dataset.
    file_loaded(str)
        The path of a file (not a sample) that loaded successfully.
    open_requested()
        The user pressed "Open file…" (the main window asks for the file).
    """

    dataset_loaded = Signal(object)
    file_loaded = Signal(str)
    open_requested = Signal()

    def __init__(self, runner: JobRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.runner = runner
        self.dataset: Any = None
        self.last_job: Job | None = None

        self.open_button = QPushButton("Open file…")
        self.open_button.setToolTip("Load a dataset: FIMI/SPMF transactions, CSV, Parquet, check-ins or a table. "
                                    "A preview shows how the file will be read first.")
        self.open_button.clicked.connect(self.open_requested)
        self.view_button = QPushButton("View data")
        self.view_button.setToolTip("Every record or row of the active dataset, searchable (View > Data view).")
        self.view_button.clicked.connect(lambda: self.show_data_view())
        self.view_button.setEnabled(False)
        self.data_views = DataViews(self, window_parent=self.window)
        self.import_dialog = None
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)

        self.samples = QListWidget()
        self.samples.setToolTip("Datasets shipped with anonstudio. Double-click one to load it.")
        self.samples.setMaximumHeight(110)
        self.samples.setMinimumHeight(64)
        for sample in available_samples():
            text = f"{getattr(sample, 'title', None) or sample.name}"
            item = QListWidgetItem(text)
            item.setData(Qt.UserRole, sample.name)
            item.setToolTip(f"{getattr(sample, 'description', '')}\n\n{getattr(sample, 'license', '')}".strip())
            self.samples.addItem(item)
        if self.samples.count() == 0:
            self.samples.addItem(QListWidgetItem("(no bundled samples installed)"))
            self.samples.setEnabled(False)
        # itemActivated covers double-click and Enter; also connecting
        # itemDoubleClicked would load the sample twice.
        self.samples.itemActivated.connect(self._sample_activated)
        self.load_sample_button = QPushButton("Load sample")
        self.load_sample_button.clicked.connect(self._load_selected_sample)
        self.load_sample_button.setEnabled(self.samples.isEnabled())
        buttons.addWidget(self.load_sample_button)
        buttons.addWidget(self.view_button)

        self.summary = QLabel("No dataset loaded.\nOpen a file or load a bundled sample.")
        self.summary.setObjectName("dataset_summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.summary.setAlignment(Qt.AlignTop | Qt.AlignLeft)

        self.length_plot = HistogramPlot("Record lengths", x_label="items in the record", y_label="records",
                                         empty_text="No dataset loaded")
        self.frequency_plot = RankFrequencyPlot("Item frequencies", empty_text="No dataset loaded")
        for plot in (self.length_plot, self.frequency_plot):
            plot.setMinimumHeight(110)
        self.roles = ColumnRolesEditor()
        self.roles.setMinimumHeight(150)
        self.roles.setVisible(False)
        self.roles.roles_changed.connect(self.set_roles)

        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addLayout(buttons)
        top_layout.addWidget(QLabel("Bundled samples:"))
        top_layout.addWidget(self.samples)
        top_layout.addWidget(self.summary)
        # Extra height goes to the plots (or the columns); the list and summary keep their size.
        panes = splitter(Qt.Vertical, (top, self.length_plot, self.frequency_plot, self.roles), (0, 1, 1, 1))
        panes.setCollapsible(0, False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(panes)

    # ------------------------------------------------------------- loading
    def import_file(self, path: str | Path, options: ReadOptions | None = None):
        """Show the import preview of ``path``; Load there loads it in the background.

        Returns the (window-modal, non-blocking) dialog.
        """
        from .import_dialog import ImportDialog

        dialog = ImportDialog(path, options, self.window())
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.load_file(path, dialog.load_options()))
        self.import_dialog = dialog
        dialog.open()
        return dialog

    def open_database_dialog(self, url: str = ""):
        """File › Open database…: choose a table or query; Load fetches it in the background (Cancel stops it).

        Returns the (window-modal, non-blocking) dialog.
        """
        from ..data.datasets import open_dataset
        from ..data.io.database import redact_url
        from .database_dialog import DatabaseDialog

        dialog = DatabaseDialog(self.window(), url)
        dialog.setAttribute(Qt.WA_DeleteOnClose)

        def load() -> None:
            source = dialog.source()
            spec = source.pop("spec")
            what = source.get("table") or "query"
            self.load_job(f"Load {what} from {redact_url(spec)}",
                          lambda progress: open_dataset(spec, progress=progress, **source))

        dialog.accepted.connect(load)
        self.database_dialog = dialog
        dialog.open()
        return dialog

    def load_file(self, path: str | Path, options: ReadOptions | None = None,
                  on_loaded: Callable[[Any], None] | None = None) -> Job:
        """Load ``path`` (read as ``options`` say; default: guessed) in the background; Cancel stops it."""
        from ..data.datasets import load_with_options

        path = Path(path)
        return self._start(f"Load {path.name}", lambda progress: load_with_options(path, options, progress=progress),
                           file=str(path), on_loaded=on_loaded)

    def load_sample(self, name: str, on_loaded: Callable[[Any], None] | None = None) -> Job:
        """Load a bundled sample by name in the background."""
        from ..data.samples import load_sample

        return self._start(f"Load sample {name}", lambda progress: load_sample(name), file=None, on_loaded=on_loaded)

    def load_job(self, title: str, load: Callable[[Any], Any], *, on_loaded: Callable[[Any], None] | None = None,
                 on_error: Callable[[BaseException], None] | None = None) -> Job:
        """Run ``load(progress)`` in the background like a file load; its dataset becomes the active one.

        ``on_error`` replaces the standard error message (a project asks where a moved file went).
        """
        return self._start(title, load, file=None, on_loaded=on_loaded, on_error=on_error)

    def _start(self, title: str, fn, *, file: str | None, on_loaded, on_error=None) -> Job:
        def done(dataset: Any, complete: bool) -> None:
            if dataset is None or not complete:
                # A cancelled load keeps the previous dataset (the job row says "cancelled"). A Cancel that came
                # after the file was read is too late: the load is done and its dataset shown, as the row says.
                return
            self.set_dataset(dataset, origin=_origin(dataset, file))
            if file is not None:
                self.file_loaded.emit(file)
            if on_loaded is not None:
                on_loaded(dataset)

        def failed(exc: BaseException) -> None:
            if on_error is not None:
                on_error(exc)
                return
            # The message names file, line and reason (DataFormatError); add
            # what the user most wants to know next.
            if self.dataset is not None:
                after = f"Nothing was changed: “{getattr(self.dataset, 'name', 'the dataset')}” is still loaded."
            else:
                after = "No dataset is loaded."
            self.runner.error_handler(title, f"{exc}\n\n{after}")

        def job(progress):
            progress.set(0.0, "reading")
            try:
                dataset = fn(progress)
            except LoadCancelled:
                return None  # stopped between chunks: nothing half-loaded is kept
            progress.set(1.0, "loaded")
            return dataset

        # Reading a file is one thread's work: the job leaves the rest of the budget to a run started meanwhile.
        self.last_job = self.runner.submit(title, job, key=LOAD_KEY, on_done=done, on_error=failed,
                                           show_error_dialog=False, threads=1)
        return self.last_job

    def _sample_activated(self, item: QListWidgetItem) -> None:
        name = item.data(Qt.UserRole)
        if name:
            self.load_sample(name)

    def _load_selected_sample(self) -> None:
        item = self.samples.currentItem() or self.samples.item(0)
        if item is not None:
            self._sample_activated(item)

    # ------------------------------------------------------------- display
    def set_dataset(self, dataset: Any, origin: str = "", *, loaded: bool = True) -> None:
        """Make ``dataset`` active: update summary, plots and columns, notify listeners.

        ``origin`` says where a table's roles came from; ``loaded`` is False
        when only the roles of the active table changed.
        """
        self.dataset = dataset
        self.view_button.setEnabled(dataset is not None)
        self.summary.setText("\n".join(describe_dataset(dataset)))
        if isinstance(dataset, Table):
            self.summary.setToolTip("Columns: " + ", ".join(
                f"{c} ({dataset.role(c).value})" for c in dataset.frame.columns))
        else:
            self.summary.setToolTip("")
        self.roles.setVisible(isinstance(dataset, Table))
        self.roles.set_table(dataset if isinstance(dataset, Table) else None, origin, loaded=loaded)
        # The two plots describe sets of items; a table has none, so they are
        # hidden (the summary lists its columns) rather than left empty.
        set_valued = isinstance(dataset, TransactionData)
        for plot in (self.length_plot, self.frequency_plot):
            plot.setVisible(set_valued)
        if set_valued:
            self.length_plot.set_values(dataset.lengths)
            self.frequency_plot.set_frequencies(dataset.item_frequencies, dataset.vocab)
        else:
            for plot in (self.length_plot, self.frequency_plot):
                plot.clear_data()
        self.dataset_loaded.emit(dataset)

    def set_roles(self, roles: dict[str, Role]) -> None:
        """Give the active table these column roles and announce it again (every workbench re-reads them).

        The rows are shared; the table is a new object, so a run that already
        started keeps the roles it started with.
        """
        old = self.dataset
        if not isinstance(old, Table):
            return
        new = table_with_roles(old, roles)
        self.data_views.roles_changed(old, new)
        self.set_dataset(new, loaded=False)

    def show_data_view(self, dataset: Any = None) -> DataViewWindow | None:
        """Open (or raise) the data view of ``dataset`` (default: the active one)."""
        dataset = self.dataset if dataset is None else dataset
        if dataset is None:
            return None
        return self.data_views.show(dataset)


def _origin(dataset: Any, file: str | None) -> str:
    """Where a freshly loaded table's roles came from, in words."""
    if not isinstance(dataset, Table):
        return ""
    if dataset.roles and file is None:
        return "Roles from the sample's description. Columns not marked are quasi-identifiers."
    if dataset.roles:
        return "Roles stored in the file. Columns not marked are quasi-identifiers."
    return "Every column starts as a quasi-identifier: mark the sensitive column and those an attacker cannot know."
