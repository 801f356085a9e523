"""Tools › Settings…: where the studio's work runs (the thread budget and a Dask cluster), kept in QSettings.

The two settings are run options, never part of a recipe: the same
parameters give the same numbers with any thread count and on any cluster.
They take effect through :func:`anonstudio.parallel.configure` when the
window starts (:func:`add_settings_action`) and whenever the dialog is
accepted; the Compare tab's sweeps and σ-k^m's trials then run there.
"""
from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMenu,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from .. import parallel
from .controls import note_label

__all__ = ["THREADS_KEY", "SCHEDULER_KEY", "SettingsDialog", "add_settings_action", "apply_saved_settings",
           "saved_settings", "configured_executor"]

THREADS_KEY = "execution/threads"
SCHEDULER_KEY = "execution/scheduler"
MAX_THREADS = 256

THREADS_TIP = (
    "How many threads anonstudio may use at once, all its work together: a comparison running two cells at "
    "once gives each cell half, and a cell's trials and samplers share that half. Automatic: the "
    f"{parallel.ENV_THREADS} environment variable when it is set, else every core of this computer. "
    "Results do not depend on it.")
SCHEDULER_TIP = (
    "The address of a Dask scheduler (tcp://host:8786) to run work on other computers. On the cluster run: "
    "the cells of a comparison (Compare parameter values), and the independent trials of σ-k^m when there "
    "is more than one. Everything else (loading data, single runs, the plots) stays on this computer. The "
    "workers need anonstudio installed (pip install anonstudio[cluster]). The numbers are the same as on "
    f"this computer. Empty: this computer only (or the {parallel.ENV_SCHEDULER} environment variable).")


def saved_settings(settings: QSettings) -> tuple[int, str]:
    """(threads, scheduler address) as stored; 0 threads means automatic, "" no cluster."""
    try:
        threads = int(settings.value(THREADS_KEY, 0) or 0)
    except (TypeError, ValueError):
        threads = 0
    address = str(settings.value(SCHEDULER_KEY, "") or "").strip()
    return max(0, min(threads, MAX_THREADS)), address


def apply_saved_settings(settings: QSettings) -> None:
    """Make the stored settings the studio's: the thread budget and the scheduler of sweeps and trials."""
    threads, address = saved_settings(settings)
    previous = parallel.scheduler_address()
    parallel.configure(threads=threads or None, scheduler=address or None)
    if parallel.scheduler_address() != previous:
        parallel.close_clients()  # a connection to the old cluster is of no more use


def configured_executor() -> Any:
    """Where a sweep's cells run: the configured cluster's client, or None (one after another here).

    Called on a worker thread: connecting may take up to the connection timeout.
    """
    address = parallel.scheduler_address()
    return parallel.shared_client(address) if address else None


class _Reporter(QObject):
    """Carries a background connection test's answer to the GUI thread."""

    answered = Signal(str, bool)


class SettingsDialog(QDialog):
    """The thread budget and the Dask scheduler address, with a background connection test."""

    #: Seconds the connection test waits for the scheduler.
    TEST_TIMEOUT = parallel.CONNECT_TIMEOUT

    def __init__(self, settings: QSettings, parent: QWidget | None = None):
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle("Settings — anonstudio")
        threads, address = saved_settings(settings)
        self.threads = QSpinBox()
        self.threads.setRange(0, MAX_THREADS)
        self.threads.setSpecialValueText(f"automatic ({self._automatic_text()})")
        self.threads.setValue(threads)
        self.threads.setToolTip(THREADS_TIP)
        self.scheduler = QLineEdit(address)
        self.scheduler.setPlaceholderText("empty: this computer only · e.g. tcp://cluster-host:8786")
        self.scheduler.setToolTip(SCHEDULER_TIP)
        self.scheduler.setClearButtonEnabled(True)
        self.scheduler.setMinimumWidth(self.scheduler.fontMetrics().horizontalAdvance("tcp://cluster-host:8786") + 40)
        self.scheduler.textChanged.connect(self._address_edited)
        self.test_button = QPushButton("Test connection")
        self.test_button.setToolTip("Connect to the scheduler once, in the background, and say how many workers "
                                    "it has.")
        self.test_button.clicked.connect(self.test_connection)
        self.test_status = note_label("", "body")
        self.test_status.setWordWrap(True)
        self.test_thread: threading.Thread | None = None
        self._reporter = _Reporter()
        self._reporter.answered.connect(self._show_answer)

        address_row = QHBoxLayout()
        address_row.addWidget(self.scheduler, 1)
        address_row.addWidget(self.test_button)
        form = QFormLayout()
        form.addRow("Threads", self.threads)
        form.addRow("Dask scheduler", address_row)
        form.addRow("", self.test_status)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(note_label("<b>Where the work runs.</b> These settings never change a result, only how "
                                    "fast it comes: hover over a field for what it does.", "body"))
        layout.addLayout(form)
        layout.addWidget(buttons)
        self._address_edited(address)

    @staticmethod
    def _automatic_text() -> str:
        try:
            env = parallel.env_threads()
        except parallel.ExecutionError:
            env = None
        if env is not None:
            return f"{env} from {parallel.ENV_THREADS}"
        n = parallel.machine_threads()
        return f"{n} core{'s' if n != 1 else ''}"

    def _address_edited(self, text: str) -> None:
        self.test_button.setEnabled(bool(text.strip()) and self.test_thread is None)
        self.test_status.setText("")

    # ------------------------------------------------------------- testing
    def test_connection(self) -> None:
        """Connect to the address in the background; the answer appears under the field."""
        address = self.scheduler.text().strip()
        if not address or self.test_thread is not None:
            return
        self.test_button.setEnabled(False)
        self.test_status.setText(f"Connecting to {address} (up to {self.TEST_TIMEOUT:g} s)…")
        reporter, timeout = self._reporter, self.TEST_TIMEOUT

        def work() -> None:
            try:
                text, ok = f"Connected: {parallel.describe_cluster(address, timeout)} at {address}.", True
            except parallel.ExecutionError as exc:
                text, ok = str(exc), False
            try:
                reporter.answered.emit(text, ok)
            except RuntimeError:  # the dialog is gone
                pass

        self.test_thread = threading.Thread(target=work, name="scheduler-test", daemon=True)
        self.test_thread.start()

    def _show_answer(self, text: str, ok: bool) -> None:
        self.test_thread = None
        colour = "#1b7837" if ok else "#b00020"
        self.test_status.setText(f"<span style='color:{colour}'>{text}</span>")
        self.test_button.setEnabled(bool(self.scheduler.text().strip()))

    # -------------------------------------------------------------- saving
    def accept(self) -> None:
        """Save and apply; a scheduler address of the wrong form is named under the field and nothing changes."""
        address = self.scheduler.text().strip()
        if address:
            try:
                address = parallel.check_address(address)
            except parallel.ExecutionError as exc:
                self.test_status.setText(f"<span style='color:#b00020'>{exc}</span>")
                self.scheduler.setFocus()
                return
        self.settings.setValue(THREADS_KEY, int(self.threads.value()))
        self.settings.setValue(SCHEDULER_KEY, address)
        self.settings.sync()
        apply_saved_settings(self.settings)
        super().accept()


def add_settings_action(menu: QMenu, window: Any) -> QAction:
    """Add Settings… to ``menu`` and make the stored settings the studio's now (window start)."""
    apply_saved_settings(window.settings)

    def open_dialog() -> None:
        dialog = SettingsDialog(window.settings, window)
        window._settings_dialog = dialog  # reachable while open (tests, a second click)
        dialog.open()

    action = menu.addAction("&Settings…", open_dialog)
    action.setToolTip("Threads and the Dask cluster the studio's sweeps and trials run on.")
    action.setMenuRole(QAction.PreferencesRole)
    return action
