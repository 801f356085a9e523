"""Background jobs for the GUI: one shared thread pool, Qt progress, cancel.

Every long computation in the studio runs through :class:`JobRunner`. A job
is a plain function ``fn(progress) -> result`` from the Qt-free core; it gets
a :class:`QtProgress` that forwards ``set``/``partial`` to the GUI thread as
queued signals and answers ``cancelled()`` from a flag the Cancel button sets.

Rules the runner enforces so workbenches need not:

* Jobs submitted with the same ``key`` supersede each other: submitting a new
  one cancels the older, and a result arriving from an older *generation* is
  dropped (its callbacks never run).
* A cancelled job that returns normally still delivers what it computed:
  ``on_done(result, complete=False)``. A cancel that comes after the job's
  function returned, or that it never acted on (its result says
  ``complete = True``), is too late: the job is done, and ``complete`` is
  what the result says (True unless it says otherwise).
* A *retired* job (:meth:`JobRunner.retire`, e.g. its dataset was replaced)
  is cancelled and never calls back again: its results describe data that is
  no longer on screen. The jobs dock still lists it as cancelled.
* An exception in a job never reaches the event loop: it marks the job
  failed, calls ``on_error(exc)`` and shows an error dialog.

Examples
--------
>>> runner = JobRunner()                                    # doctest: +SKIP
>>> runner.submit("Uniqueness vs m", lambda p: curve(data, params, p),
...               key="risk", on_partial=plot.update,
...               on_done=lambda result, complete: table.fill(result))
"""
from __future__ import annotations

import enum
import itertools
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from ..parallel import budget

__all__ = ["JobState", "Job", "QtProgress", "JobRunner"]

#: Worker threads run numba kernels and deep recursions in pure Python
#: (partition refinement); the platform default (512 KiB on some systems) is
#: too small for those.
WORKER_STACK_BYTES = 16 * 1024 * 1024

#: Minimum spacing of progress signals; kernels may call ``set`` thousands of
#: times a second and every signal costs a GUI repaint.
PROGRESS_INTERVAL_S = 0.05


class JobState(str, enum.Enum):
    """Life cycle of a job, as shown in the jobs dock."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    CANCELLED = "cancelled"
    FAILED = "failed"

    @property
    def finished(self) -> bool:
        return self in (JobState.DONE, JobState.CANCELLED, JobState.FAILED)


class QtProgress:
    """The :class:`anonstudio.jobs.Progress` a job sees, bridged to Qt.

    ``set`` and ``partial`` are called on the worker thread. They only store the
    newest value under a lock and post a signal when none is pending, so a
    flood of updates coalesces into one repaint per event-loop turn and the
    GUI always shows the newest state.
    """

    def __init__(self, job: Job):
        self._job = job
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._last_emit = 0.0
        self._pending_progress = False
        self._pending_partial = False
        self._fraction = 0.0
        self._status = ""
        self._partial: Any = None
        #: When the job's real work began (None: when it started running).
        self.work_started: float | None = None

    # -- Progress protocol (worker thread) --------------------------------
    def set(self, fraction: float, status: str = "") -> None:
        now = time.perf_counter()
        with self._lock:
            self._fraction = min(max(float(fraction), 0.0), 1.0)
            if status:
                self._status = status
            due = now - self._last_emit >= PROGRESS_INTERVAL_S or self._fraction >= 1.0
            if self._pending_progress or not due:
                return
            self._pending_progress = True
            self._last_emit = now
        self._job._progress_posted.emit()

    def partial(self, result: Any) -> None:
        with self._lock:
            self._partial = result
            if self._pending_partial:
                return
            self._pending_partial = True
        self._job._partial_posted.emit()

    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def mark_started(self) -> None:
        """The real work starts now (after a wait): the job's time left is measured from here."""
        with self._lock:
            self.work_started = time.monotonic()

    # -- GUI side ----------------------------------------------------------
    def cancel(self) -> None:
        self._cancel.set()

    def take_progress(self) -> tuple[float, str]:
        with self._lock:
            self._pending_progress = False
            return self._fraction, self._status

    def take_partial(self) -> Any:
        # Hand over and forget: finished jobs stay listed in the dock and must
        # not pin their (possibly large) last partial result in memory.
        with self._lock:
            self._pending_partial = False
            partial, self._partial = self._partial, None
            return partial


class Job(QObject):
    """One submitted computation and its state, owned by the GUI thread.

    Signals
    -------
    changed
        State, fraction or status changed (the jobs dock listens).
    """

    changed = Signal()
    # Posted from the worker thread; delivered queued to this (GUI-thread) object.
    _progress_posted = Signal()
    _partial_posted = Signal()
    _finished_posted = Signal(object, bool, bool)
    _failed_posted = Signal(object, str)

    def __init__(self, title: str, key: str | None, generation: int, parent: QObject | None = None):
        super().__init__(parent)
        self.title = title
        self.key = key
        self.generation = generation
        self.state = JobState.QUEUED
        self.fraction = 0.0
        self.status = "waiting for a free worker"
        self.submitted_at = time.monotonic()
        self.started_at: float | None = None
        self.finished_at: float | None = None
        self.error: BaseException | None = None
        self.error_details = ""
        self.superseded = False
        #: Why the job was retired (e.g. "dataset changed"); "" while its
        #: callbacks may still run. See :meth:`JobRunner.retire`.
        self.retired = ""
        self.partial_result = False
        #: A GUI callback of this job raised; its later partial results are not shown.
        self.callback_failed = False
        self.progress = QtProgress(self)
        self._runner: JobRunner | None = None
        # Worker-thread signals connected to slots of this GUI-thread object:
        # Qt sees the receiver lives in another thread and queues the call, so
        # the runner's handlers always run on the GUI thread.
        self._progress_posted.connect(self._deliver_progress)
        self._partial_posted.connect(self._deliver_partial)
        self._finished_posted.connect(self._deliver_finished)
        self._failed_posted.connect(self._deliver_failed)

    @Slot()
    def _deliver_progress(self) -> None:
        if self._runner is not None:
            self._runner._on_progress(self)

    @Slot()
    def _deliver_partial(self) -> None:
        if self._runner is not None:
            self._runner._on_partial(self)

    @Slot(object, bool, bool)
    def _deliver_finished(self, result: Any, ran: bool, cancel_seen: bool) -> None:
        if self._runner is not None:
            self._runner._on_finished(self, result, ran, cancel_seen)

    @Slot(object, str)
    def _deliver_failed(self, exc: BaseException, details: str) -> None:
        if self._runner is not None:
            self._runner._on_failed(self, exc, details)

    # ------------------------------------------------------------ queries
    @property
    def cancel_requested(self) -> bool:
        return self.progress.cancelled()

    def elapsed(self) -> float:
        """Seconds running (frozen once finished)."""
        if self.started_at is None:
            return 0.0
        end = self.finished_at if self.finished_at is not None else time.monotonic()
        return end - self.started_at

    def eta(self) -> float | None:
        """Seconds left, extrapolated from the progress rate so far (None: unknown)."""
        if self.state is not JobState.RUNNING or self.fraction <= 0.02:
            return None
        started = self.progress.work_started
        elapsed = self.elapsed() if started is None else time.monotonic() - started
        if elapsed < 0.5:
            return None
        return elapsed * (1.0 - self.fraction) / self.fraction

    def state_text(self) -> str:
        if self.state is JobState.CANCELLED:
            if self.retired:
                return f"cancelled ({self.retired})"
            if self.superseded:
                return "cancelled (replaced by a newer run)"
            return "cancelled (partial result kept)" if self.partial_result else "cancelled"
        if self.state is JobState.DONE and self.cancel_requested:
            return "done before the cancel"  # the jobs dock and the log say why a cancelled job is not
        return self.state.value

    def cancel(self) -> None:
        """Ask the job to stop; it returns what it has at its next check."""
        if self.state.finished:
            return
        self.progress.cancel()
        if self.state is JobState.RUNNING:
            self.status = "cancelling…"
            self.changed.emit()


class _Runnable(QRunnable):
    def __init__(self, job: Job, fn: Callable[[QtProgress], Any], threads: int | None = None):
        super().__init__()
        self._job = job
        self._fn = fn
        self._threads = threads
        # The runner keeps the reference; Qt must not delete the wrapper while
        # Python still holds it.
        self.setAutoDelete(False)

    def run(self) -> None:  # worker thread
        job = self._job
        job.started_at = time.monotonic()
        if job.progress.cancelled():
            job._finished_posted.emit(None, False, True)
            return
        job._progress_posted.emit()  # show "running" promptly
        try:
            # Jobs running at once share the thread budget instead of each taking all of it.
            with budget.lease(self._threads):
                result = self._fn(job.progress)
        except BaseException as exc:  # noqa: BLE001 - a job must never kill the app
            job._failed_posted.emit(exc, traceback.format_exc())
            return
        # Whether the cancel flag was up when the work returned: a Cancel pressed later came too late.
        job._finished_posted.emit(result, True, job.progress.cancelled())


class JobRunner(QObject):
    """Runs jobs on one shared :class:`QThreadPool` and routes their results.

    Parameters
    ----------
    max_threads
        Worker threads (default: the pool's ideal count, at least 2 so a
        long analysis never blocks a dataset load).
    error_handler
        ``(title, message) -> None`` shown for failed jobs. Default: a modal
        :class:`QMessageBox`. The main window passes its own so the dialog
        has a parent; the ``--demo`` mode prints instead.

    Signals
    -------
    job_added(Job)
        A job was submitted (the jobs dock adds a row).
    log(str)
        A line for the log pane.
    idle()
        The last running job finished.
    """

    job_added = Signal(object)
    log = Signal(str)
    idle = Signal()

    def __init__(self, parent: QObject | None = None, *, max_threads: int | None = None,
                 error_handler: Callable[[str, str], None] | None = None):
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setStackSize(WORKER_STACK_BYTES)
        self.pool.setMaxThreadCount(max(2, max_threads or QThreadPool.globalInstance().maxThreadCount()))
        self.error_handler = error_handler or _message_box_error
        self._generations = itertools.count(1)
        self._current: dict[str, Job] = {}
        self._callbacks: dict[Job, tuple] = {}
        self._runnables: dict[Job, _Runnable] = {}
        self.jobs: list[Job] = []
        #: Set once the numba kernels are compiled (or loaded from the cache); the main window clears it
        #: while its start-up warm-up runs, and analyses wait for it (see :meth:`wait_for_kernels`).
        self.kernels_ready = threading.Event()
        self.kernels_ready.set()

    def wait_for_kernels(self, progress: QtProgress) -> None:
        """Inside a job: wait for the start-up compilation, saying so, and start the job's clock afterwards.

        On the very first start compiling the kernels takes a while; an analysis
        started meanwhile would otherwise report a time left that ignores it.
        """
        if self.kernels_ready.is_set():
            return
        progress.set(0.0, "waiting for the numerical kernels to compile (first start only)")
        while not self.kernels_ready.wait(0.1):
            if progress.cancelled():
                return
        progress.mark_started()

    # ------------------------------------------------------------- submit
    def submit(
        self,
        title: str,
        fn: Callable[[QtProgress], Any],
        *,
        key: str | None = None,
        on_partial: Callable[[Any], None] | None = None,
        on_done: Callable[[Any, bool], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        show_error_dialog: bool = True,
        threads: int | None = None,
    ) -> Job:
        """Start ``fn(progress)`` on a worker thread.

        Parameters
        ----------
        title
            Shown in the jobs dock and in error dialogs.
        key
            Jobs sharing a key supersede each other (one per workbench).
        on_partial
            GUI-thread callback with each (coalesced) partial result.
        on_done
            ``on_done(result, complete)``; ``complete`` is False when the job
            was cancelled and returned its partial result, or when the result
            itself says ``complete = False``.
        on_error
            Called with the exception after the job failed.
        show_error_dialog
            Also report the failure through ``error_handler``.
        threads
            Threads of the shared budget the job needs (None: as many as are left); jobs running at once
            share the budget (:meth:`anonstudio.parallel.ThreadBudget.lease`).
        """
        job = Job(title, key, next(self._generations), parent=self)
        if key is not None:
            older = self._current.get(key)
            if older is not None and not older.state.finished:
                older.superseded = True
                older.cancel()
                self.log.emit(f"{older.title}: replaced by a newer run")
            self._current[key] = job
        job._runner = self
        self._callbacks[job] = (on_partial, on_done, on_error, show_error_dialog)
        runnable = _Runnable(job, fn, threads)
        self._runnables[job] = runnable
        self.jobs.append(job)
        self.job_added.emit(job)
        self.log.emit(f"{title}: started")
        self.pool.start(runnable)
        return job

    # ------------------------------------------------------------ queries
    def is_current(self, job: Job) -> bool:
        """False once a newer job with the same key was submitted, or the job was retired."""
        if job.retired:
            return False
        return job.key is None or self._current.get(job.key) is job

    def retire(self, job: Job, reason: str) -> None:
        """Cancel ``job`` and drop every callback it has not delivered yet.

        For jobs whose inputs are gone (the dataset was replaced): unlike a
        user's cancel, which still shows the partial result, nothing of a
        retired job reaches its owner, not even results already queued.
        """
        if not reason:
            raise ValueError("a retired job needs a reason")
        if job.state.finished:
            return
        job.retired = reason
        if job.key is not None and self._current.get(job.key) is job:
            del self._current[job.key]
        # Forget the callbacks now: a queued partial or finish signal still
        # updates the dock row but finds nothing to call.
        if job in self._callbacks:
            self._callbacks[job] = (None, None, None, False)
        job.cancel()
        self.log.emit(f"{job.title}: cancelled ({reason})")

    def active_jobs(self) -> list[Job]:
        return [j for j in self.jobs if not j.state.finished]

    def sync(self, job: Job) -> None:
        """Pull the newest fraction/status of a running job.

        ``QtProgress.set`` drops updates closer than PROGRESS_INTERVAL_S to the
        previous one; a job that then computes for seconds without reporting
        would show a stale line. The jobs dock calls this on its clock.
        """
        if job.state is JobState.RUNNING:
            self._on_progress(job)

    def cancel_all(self) -> None:
        for job in self.active_jobs():
            job.cancel()

    def cancel_key(self, key: str) -> None:
        job = self._current.get(key)
        if job is not None:
            job.cancel()

    def shutdown(self, timeout_ms: int = 5000) -> bool:
        """Cancel everything and wait for the workers (window close, tests)."""
        self.cancel_all()
        return self.pool.waitForDone(timeout_ms)

    # ----------------------------------------------------- worker reports
    def _on_progress(self, job: Job) -> None:
        fraction, status = job.progress.take_progress()
        if job.state.finished:
            return
        if job.state is JobState.QUEUED and job.started_at is not None:
            job.state = JobState.RUNNING
        job.fraction = fraction
        if not (job.cancel_requested and job.state is JobState.RUNNING):
            job.status = status or job.status
        if job.status == "waiting for a free worker":
            job.status = "running"
        job.changed.emit()

    def _on_partial(self, job: Job) -> None:
        result = job.progress.take_partial()
        on_partial = self._callbacks.get(job, (None,))[0]
        if on_partial is None or not self.is_current(job) or job.state.finished:
            return
        if not job.callback_failed:
            self._call(job, on_partial, result)

    def _on_finished(self, job: Job, result: Any, ran: bool, cancel_seen: bool) -> None:
        _, on_done, _, _ = self._release(job)
        # Queued signals keep their order, so every partial was delivered
        # before this; drop any stored reference to free its memory.
        job.progress.take_partial()
        job.finished_at = time.monotonic()
        # A user's cancel that came after the work returned, or that the work never acted on (its result says it
        # is complete), came too late: the job is done, and says so everywhere, rather than calling a whole
        # result partial. A superseded or retired job stays cancelled: its result is not wanted.
        late_cancel = (job.cancel_requested and ran and not (job.superseded or job.retired)
                       and (not cancel_seen or bool(getattr(result, "complete", False))))
        cancelled = job.cancel_requested and not late_cancel
        complete = ran and not cancelled and getattr(result, "complete", True) is not False
        if cancelled:
            job.state = JobState.CANCELLED
            job.partial_result = ran and result is not None
            job.status = job.retired or ("superseded" if job.superseded else "stopped at user request")
        else:
            job.state = JobState.DONE
            job.fraction = 1.0
            job.status = "finished"  # state_text() tells a late cancel apart
        job.changed.emit()
        self.log.emit(f"{job.title}: {job.state_text()}, {job.elapsed():.1f} s")
        if ran and on_done is not None and self.is_current(job):
            self._call(job, on_done, result, complete)
        self._maybe_idle()

    def _on_failed(self, job: Job, exc: BaseException, details: str) -> None:
        _, _, on_error, show_dialog = self._release(job)
        job.finished_at = time.monotonic()
        job.state = JobState.FAILED
        job.error = exc
        job.error_details = details
        job.status = _one_line(exc)
        job.changed.emit()
        self.log.emit(f"{job.title}: failed: {_one_line(exc)}")
        if self.is_current(job) and not job.superseded:
            if on_error is not None:
                self._call(job, on_error, exc)
            if show_dialog:
                self.error_handler(job.title, str(exc) or type(exc).__name__)
        self._maybe_idle()

    def _release(self, job: Job) -> tuple:
        self._runnables.pop(job, None)
        return self._callbacks.pop(job, (None, None, None, False))

    def _call(self, job: Job, callback: Callable, *args: Any) -> None:
        """Run a GUI callback; a bug in it is reported once, not raised into Qt.

        After a failure the job's later partial results are not shown (the
        final result still is): a flood of error dialogs, each running its own
        event loop, would freeze the window.
        """
        try:
            callback(*args)
        except Exception as exc:  # noqa: BLE001
            self.log.emit(f"{job.title}: error while showing the result: {_one_line(exc)}")
            self.log.emit(traceback.format_exc())
            first = not job.callback_failed
            job.callback_failed = True
            if first:
                self.error_handler(job.title, f"Could not show the result: {exc}")

    def _maybe_idle(self) -> None:
        if not self.active_jobs():
            self.idle.emit()


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _message_box_error(title: str, message: str) -> None:
    from PySide6.QtWidgets import QMessageBox

    from .next_steps import with_next_step

    QMessageBox.critical(None, f"{title} failed", with_next_step(message, title))
