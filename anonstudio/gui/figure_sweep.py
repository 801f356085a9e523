"""One background figure sweep at a time: the lifecycle shared by every view that draws a sweep as it runs.

The ρ trade-off figures, the nonreciprocal Fig. 6, the RT heuristics' comparison and the Compare tab all run a
:func:`~anonstudio.methods.sweep.run_sweep` in the background and draw its cells as they finish. This controller
is the one place that lifecycle is written:

* the job waits for the numerical kernels compiled at start-up before it starts its clock
  (:meth:`~anonstudio.gui.workers.JobRunner.wait_for_kernels`);
* cells already known are not run again: the caller's own (the run on screen, cells a view kept) first, then
  the studio's result cache; every new cell is stored in the cache;
* each finished cell arrives as a partial :class:`~anonstudio.methods.sweep.SweepResult` (:attr:`partial`),
  the last one as :attr:`finished`, complete or stopped;
* :meth:`stop` keeps what finished (``finished`` still arrives, marked incomplete); :meth:`discard` forgets
  a running job (nothing of it arrives any more), :meth:`reset` every job; starting again reruns (a newer
  sweep replaces an older one);
* a sweep stopped before it started delivers no result: :attr:`not_started` says so, so a view never waits
  with its buttons disabled for a result that will not come.

Only the controller's current job reaches the view: a replaced or discarded job's late callbacks are dropped.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QObject, Signal

from ..jobs import ForwardingProgress, Progress
from ..methods.sweep import Axis, Cell, CellResult, SweepResult, run_sweep
from .workers import Job, JobState

__all__ = ["FigureSweep", "CellCount"]


class CellCount(ForwardingProgress):
    """A sweep's progress as "7 of 20 cells": short enough for the status bar (cell labels can be long)."""

    def __init__(self, parent: Progress, total: int):
        super().__init__(parent)
        self.total = max(int(total), 1)

    def set(self, fraction: float, status: str = "") -> None:
        done = min(int(fraction * self.total + 1e-9), self.total)
        self.parent.set(fraction, f"{done} of {self.total} cells")


class FigureSweep(QObject):
    """Runs one background sweep at a time for a view; see the module docstring.

    Parameters
    ----------
    submit
        ``submit(title, fn, *, key=, on_partial=, on_done=, on_error=) -> Job``: a workbench's
        :meth:`~anonstudio.gui.workbench.Workbench.submit` (or the runner's).
    key
        The jobs' key: a newer job of the same key replaces the older one.
    wait_for_kernels
        ``wait_for_kernels(progress)``, called first in the job (the runner's); None: start at once.

    Signals
    -------
    partial(object)
        The :class:`~anonstudio.methods.sweep.SweepResult` so far, after every finished cell.
    finished(object, bool)
        The last result and whether every cell ran (False: stopped, the finished cells are in it).
    not_started()
        The sweep was stopped before it delivered anything: no result will come.
    failed(object)
        The exception that stopped the sweep.
    running_changed(bool)
        A sweep started, or the current one ended (finished, stopped before it started, or failed).
    """

    partial = Signal(object)
    finished = Signal(object, bool)
    not_started = Signal()
    failed = Signal(object)
    running_changed = Signal(bool)

    def __init__(self, submit: Callable[..., Job], *, key: str | None = None,
                 wait_for_kernels: Callable[[Progress], None] | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.submit = submit
        self.key = key
        self.wait_for_kernels = wait_for_kernels
        #: The current job (running or finished), None before the first start and after :meth:`discard` of a
        #: running one.
        self.job: Job | None = None
        #: What the caller attached to the current sweep in :meth:`start` (e.g. the run it is drawn around).
        self.context: Any = None
        #: The newest result delivered for the current sweep (partial or final), None before the first.
        self.result: SweepResult | None = None
        self._delivered = False

    # ------------------------------------------------------------- queries
    @property
    def running(self) -> bool:
        return self.job is not None and not self.job.state.finished

    # ----------------------------------------------------------------- run
    def start(self, title: str, spec: Any, data: Any, cells: Sequence[Cell], *, axes: Sequence[Axis] = (),
              cached: Callable[[Cell], CellResult | None] | None = None,
              on_cell: Callable[[CellResult], None] | None = None, result_cache: Any = None,
              read_cache: bool = True, keep_runs: bool = False, prepare: Callable[[Any], Any] | None = None,
              executor: Callable[[], Any] | None = None, executor_text: str = "", brief: bool = False,
              context: Any = None) -> Job:
        """Start a sweep of ``cells`` (the current one, if any, is replaced and its callbacks dropped).

        Parameters
        ----------
        cached, on_cell
            The caller's own known cells and its hook for each new cell (both run on the worker thread).
        result_cache
            A :class:`~anonstudio.studio.cache.ResultCache`: its stored cells are not run again (unless
            ``read_cache`` is False, for views that need more of a cell than the cache keeps) and every new
            cell is stored.
        keep_runs
            Keep each cell's :class:`~anonstudio.methods.contract.MethodRun` in its result (``on_cell`` may
            take what it needs and drop it).
        prepare
            ``prepare(data) -> data``, run once on the worker thread before the cells (data shared by all).
        executor, executor_text
            ``executor()`` gives where the cells run (None: here, one after the other); called on the worker
            thread, after ``executor_text`` is shown (connecting to a cluster may take a while).
        brief
            Report progress as "7 of 20 cells" instead of each cell's own status.
        context
            Kept as :attr:`context` while this sweep is the current one.
        """
        self.discard()
        stored, store = result_cache.sweep_hooks(spec, data) if result_cache is not None else (None, None)
        if not read_cache:
            stored = None
        wait = self.wait_for_kernels

        def known(cell: Cell) -> CellResult | None:
            own = cached(cell) if cached is not None else None
            return own if own is not None or stored is None else stored(cell)

        def finished_cell(result: CellResult) -> None:
            if on_cell is not None:
                on_cell(result)
            if store is not None:
                store(result)

        def job(progress: Progress) -> SweepResult | None:
            if wait is not None:
                wait(progress)
            if progress.cancelled():
                return None  # stopped while waiting: nothing ran
            work = prepare(data) if prepare is not None else data
            if executor_text:
                progress.set(0.0, executor_text)
            pool = executor() if executor is not None else None
            return run_sweep(spec, work, cells, CellCount(progress, len(cells)) if brief else progress, axes=axes,
                             executor=pool, keep_runs=keep_runs, cached=known, on_cell=finished_cell)

        self.context = context
        self.result = None
        self._delivered = False
        kwargs = {"key": self.key} if self.key is not None else {}
        current: list[Job] = []

        def mine(callback: Callable) -> Callable:
            # A replaced or discarded job's callbacks are dropped: they describe a sweep no longer shown.
            return lambda *args: callback(*args) if current and current[0] is self.job else None

        self.job = self.submit(title, job, on_partial=mine(self._partial), on_done=mine(self._done),
                               on_error=mine(self._failed), **kwargs)
        current.append(self.job)
        self.job.changed.connect(lambda j=self.job: self._job_changed(j))
        self.running_changed.emit(True)
        return self.job

    def stop(self) -> None:
        """Cancel the sweep; the cells finished so far still arrive through :attr:`finished`."""
        if self.running:
            self.job.cancel()

    def discard(self) -> None:
        """Cancel a running sweep and forget it: nothing of it arrives any more.

        A finished sweep stays the current one (it has delivered everything already).
        """
        if not self.running:
            return
        job, self.job = self.job, None
        job.cancel()
        self.context = None
        self.running_changed.emit(False)

    def reset(self) -> None:
        """Forget every sweep, finished ones included (a new dataset): :attr:`job` and :attr:`result` are None."""
        self.discard()
        self.job = None
        self.result = None
        self.context = None

    # ----------------------------------------------------------- callbacks
    def _partial(self, result: SweepResult) -> None:
        self.result = result
        self.partial.emit(result)

    def _done(self, result: SweepResult | None, complete: bool) -> None:
        if self._delivered:  # already ended as "not started" (the job returned nothing)
            return
        self._delivered = True
        if result is None:
            self.running_changed.emit(False)
            self.not_started.emit()
            return
        self.result = result
        self.running_changed.emit(False)
        self.finished.emit(result, complete)

    def _failed(self, exc: BaseException) -> None:
        if self._delivered:
            return
        self._delivered = True
        self.running_changed.emit(False)
        self.failed.emit(exc)

    def _job_changed(self, job: Job) -> None:
        """A job cancelled before it ran calls back nothing: end it here (a retired job ends silently)."""
        if job is not self.job or not job.state.finished or self._delivered:
            return
        # Cancelled without a result to deliver (it never ran, or the runner dropped it): nothing else will come.
        # A job that ran and has a result (``partial_result``) delivers it through ``on_done`` right after this.
        if job.state is JobState.CANCELLED and not job.partial_result:
            self._delivered = True
            self.running_changed.emit(False)
            if not job.retired:
                self.not_started.emit()
