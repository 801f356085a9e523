"""Base class of the centre tabs ("workbenches") of the studio window.

A workbench is one module in :mod:`anonstudio.gui.workbenches` defining a
subclass of :class:`Workbench`. The main window imports every module of that
package, instantiates each subclass once, orders the tabs by ``ORDER`` and
hands every loaded dataset to all of them; there is no list to edit.

What the base class does for you
--------------------------------
* builds the parameter panel from ``PARAMS`` (shown in the right dock while
  the tab is active) and calls :meth:`Workbench.run` with the validated
  params when the user presses Run;
* shows ``EMPTY_TEXT`` ("Load a dataset to begin") until a dataset this
  workbench ``accepts`` is loaded, then your :meth:`Workbench.build` page;
* :meth:`Workbench.submit` starts a background job keyed to this workbench,
  so a new Run cancels the previous one, stale results are dropped, the Run
  panel's Cancel button works and the jobs dock shows progress;
* a new dataset retires every job started for the previous one: none of
  their callbacks runs afterwards (the jobs dock shows them as cancelled), so
  a workbench never draws one dataset's results next to another's name;
* :meth:`Workbench.plots` lists the :class:`~anonstudio.gui.plots.ExportablePlot`
  children so *File > Export plot...* can offer them;
* ``DATASET_TYPES`` names the kinds of data the tab works on (others get a
  plain explanation instead of the page); rules across fields belong in the
  params class's ``check()`` (shown inline under the form, Run disabled).

Method families do not subclass this directly: they subclass
:class:`~anonstudio.gui.method_workbench.MethodWorkbench`, which builds
everything from the family's MethodSpec.

Plots: create each :class:`~anonstudio.gui.plots.ExportablePlot` once in
``build``, declare its series with ``add_series`` and feed them with
``set_series`` from partial results; the plot exports PNG, SVG and the data
of every series as CSV by itself.

Example
-------
A complete workbench (save as ``anonstudio/gui/workbenches/lengths.py``)::

    from dataclasses import dataclass

    import numpy as np
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from ...params import param
    from ..plots import ExportablePlot
    from ..workbench import Workbench


    @dataclass(frozen=True)
    class LengthParams:
        top: int = param(10, label="Records shown", minimum=1, maximum=1000,
                         tooltip="How many of the longest records to plot.")


    def longest(data, params, progress):
        # Qt-free work; a real method would loop in chunks and call
        # progress.set / progress.partial / progress.cancelled between them.
        progress.set(0.5, "sorting records")
        return np.sort(data.lengths)[::-1][: params.top]


    class LengthsWorkbench(Workbench):
        TITLE = "Lengths"
        ORDER = 90
        PARAMS = LengthParams

        def build(self) -> QWidget:
            page = QWidget()
            self.plot = ExportablePlot("Longest records", x_label="rank",
                                       y_label="items in the record")
            self.plot.add_series("length", kind="bars")
            QVBoxLayout(page).addWidget(self.plot)
            return page

        def dataset_changed(self, dataset) -> None:
            self.plot.clear_data()

        def run(self, params) -> None:
            data = self.dataset
            self.submit(f"Longest records ({data.name})",
                        lambda progress: longest(data, params, progress),
                        on_done=self.show_result)

        def show_result(self, lengths, complete: bool) -> None:
            self.plot.set_series("length", np.arange(1, len(lengths) + 1), lengths)

Callbacks run on the GUI thread. ``on_partial(result)`` receives each partial
result a job publishes (coalesced: always the newest); ``on_done(result,
complete)`` gets ``complete=False`` after a cancel the job acted on, with
whatever it returned (a cancel that came after the work ended is too late:
see :mod:`.workers`). Never touch widgets from inside the job function.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QStackedLayout, QWidget

from ..data.kinds import kind_words
from ..data.transactions import TransactionData
from .param_panel import ParamPanel
from .plots import ExportablePlot
from .workers import Job, JobRunner

__all__ = ["Workbench", "EMPTY_TEXT"]

EMPTY_TEXT = "Load a dataset to begin: File > Open dataset…, or pick a bundled sample on the left."
WRONG_KIND_TEXT = ("{title} works on {wanted}; the loaded dataset “{name}” is {actual}. "
                   "Open another dataset, or use a workbench for this kind of data.")



class PageScroll(QScrollArea):
    """Shows a page at the viewport's size, scrolling only below the page's minimum size.

    ``QScrollArea.setWidgetResizable`` sizes a page with word-wrapped labels
    by its *preferred* height for the width, so a page that fits would still
    scroll; this one gives the page exactly the viewport unless the page's
    layout cannot shrink that far.
    """

    def __init__(self, page: QWidget, parent: QWidget | None = None):
        super().__init__(parent)
        self.setFrameShape(QFrame.NoFrame)
        self.setWidgetResizable(False)
        self.setWidget(page)
        page.installEventFilter(self)

    def fit_page(self) -> None:
        page = self.widget()
        view = self.viewport().size()
        least = page.minimumSizeHint().expandedTo(page.minimumSize())
        page.resize(max(view.width(), least.width()), max(view.height(), least.height()))

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        super().resizeEvent(event)
        self.fit_page()

    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802 (Qt naming)
        # A scroll bar appearing or going shrinks or grows the viewport.
        if event.type() == QEvent.Resize:
            self.fit_page()
        return super().viewportEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt naming)
        if watched is self.widget() and event.type() == QEvent.LayoutRequest:
            self.fit_page()
        return super().eventFilter(watched, event)


class Workbench(QWidget):
    """One centre tab. Subclass it; see the module docstring for an example.

    Class attributes
    ----------------
    TITLE
        Tab caption.
    ORDER
        Tabs are sorted by it (Risk is 10; leave gaps).
    PARAMS
        A params dataclass (``anonstudio.params.param`` fields) or None.
    RUN_TEXT
        Caption of the Run button.
    DATASET_TYPES
        Dataset classes this workbench works on (default: set-valued data).
    EMPTY_TEXT
        Shown while no suitable dataset is loaded.

    Signals
    -------
    status(str)
        A short message for the window's status bar.
    """

    TITLE = "Workbench"
    ORDER = 100
    PARAMS: type | None = None
    RUN_TEXT = "Run"
    DATASET_TYPES: tuple[type, ...] = (TransactionData,)
    #: The tab holds the linkage-attack demo (the start page's "Show an attack" opens it without building the
    #: other tabs).
    OFFERS_ATTACK_DEMO = False
    EMPTY_TEXT = EMPTY_TEXT

    status = Signal(str)

    def __init__(self, runner: JobRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.runner = runner
        self.dataset: Any = None
        self.job: Job | None = None
        #: Bumped on every dataset change; callbacks of jobs submitted under
        #: an older generation are dropped.
        self.dataset_generation = 0
        self._jobs: list[Job] = []
        self.param_panel: ParamPanel | None = None
        if self.PARAMS is not None:
            self.param_panel = ParamPanel(self.PARAMS, run_text=self.RUN_TEXT, title=self.TITLE)
            self.param_panel.run_requested.connect(self._on_run_requested)
            self.param_panel.cancel_requested.connect(self.cancel)
            self.param_panel.set_can_run(False)

        self._stack = QStackedLayout(self)
        self.empty_label = QLabel(self.EMPTY_TEXT)
        self.empty_label.setAlignment(Qt.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setProperty("role", "empty")
        self._stack.addWidget(self.empty_label)
        self.page = self.build()
        # The page scrolls instead of imposing its minimum size on the
        # window: the studio must fit 1280x720 whatever a workbench packs in.
        self.page_scroll = PageScroll(self.page)
        self._stack.addWidget(self.page_scroll)
        self._stack.setCurrentIndex(0)

    # ------------------------------------------------------------ override
    def build(self) -> QWidget:
        """Create and return the page shown once a dataset is loaded."""
        return QWidget()

    def accepts(self, dataset: Any) -> bool:
        """Whether this workbench can work on ``dataset``."""
        return isinstance(dataset, self.DATASET_TYPES)

    def dataset_changed(self, dataset: Any) -> None:
        """Hook: a new dataset this workbench accepts became active."""

    def run(self, params: Any) -> None:
        """Hook: the user pressed Run with valid ``params``."""

    # ------------------------------------------------------------- helpers
    @property
    def job_key(self) -> str:
        return f"workbench:{type(self).__module__}.{type(self).__name__}"

    def set_dataset(self, dataset: Any) -> None:
        """Called by the main window for every dataset loaded."""
        self.dataset_generation += 1
        for job in self._jobs:
            self.runner.retire(job, "dataset changed")
        self._jobs.clear()
        self.job = None
        self._set_running(False)
        if dataset is not None and self.accepts(dataset):
            self.dataset = dataset
            self.empty_label.setText(self.EMPTY_TEXT)
            self._stack.setCurrentIndex(1)
            self.dataset_changed(dataset)
        else:
            self.dataset = None
            self.empty_label.setText(self.EMPTY_TEXT if dataset is None else self._wrong_kind_text(dataset))
            self._stack.setCurrentIndex(0)
        if self.param_panel is not None:
            self.param_panel.set_can_run(self.dataset is not None)

    def submit(self, title: str, fn: Callable[[Any], Any], *, on_partial: Callable[[Any], None] | None = None,
               on_done: Callable[[Any, bool], None] | None = None,
               on_error: Callable[[BaseException], None] | None = None, key: str | None = None) -> Job:
        """Run ``fn(progress)`` in the background as this workbench's job.

        A newer submit with the same key (default: one per workbench) cancels
        the older job; only the newest job's callbacks run, and none after
        the dataset changed.
        """
        generation = self.dataset_generation

        def fresh() -> bool:
            # Second line of defence behind JobRunner.retire: a callback
            # queued for an older dataset must never reach the page.
            return generation == self.dataset_generation

        def partial(result: Any) -> None:
            if fresh() and on_partial is not None:
                on_partial(result)

        def done(result: Any, complete: bool) -> None:
            if not fresh():
                return
            self._set_running(self._others_running(job))
            if on_done is not None:
                on_done(result, complete)

        def failed(exc: BaseException) -> None:
            if not fresh():
                return
            self._set_running(self._others_running(job))
            if on_error is not None:
                on_error(exc)

        job = self.runner.submit(title, fn, key=key or self.job_key, on_partial=partial, on_done=done,
                                 on_error=failed)
        job.changed.connect(lambda j=job: self._job_changed(j))
        self._jobs = [j for j in self._jobs if not j.state.finished] + [job]
        self.job = job
        self._set_running(True)
        return job

    def cancel(self) -> None:
        """Stop everything this workbench is computing: its run and any background job it started.

        Partial results are kept. Cancelling only the newest job would let the pinned Cancel stop a
        background comparison started after a run while the run itself went on.
        """
        for job in [*self._jobs, self.job]:
            if job is not None and not job.state.finished:
                job.cancel()

    def plots(self) -> list[ExportablePlot]:
        """Every exportable plot on this workbench, in creation order."""
        return self.findChildren(ExportablePlot)

    # ----------------------------------------------------------- internals
    def _wrong_kind_text(self, dataset: Any) -> str:
        wanted = " or ".join(kind_words(t) for t in self.DATASET_TYPES)
        actual = kind_words(type(dataset))
        return WRONG_KIND_TEXT.format(title=self.TITLE, wanted=wanted, name=getattr(dataset, "name", "dataset"),
                                      actual=actual)

    def _on_run_requested(self, params: Any) -> None:
        if self.dataset is None:
            self.status.emit("Load a dataset first: File › Open dataset…, or a sample from File › Open sample.")
            return
        self.run(params)

    def _set_running(self, running: bool) -> None:
        if self.param_panel is not None:
            self.param_panel.set_running(running)

    def _others_running(self, job: Job) -> bool:
        """Whether a job of this workbench other than ``job`` still runs (a Run started while a sweep ended)."""
        return any(j is not job and not j.state.finished for j in self._jobs)

    def _job_changed(self, job: Job) -> None:
        # A superseded or cancelled-before-start job never calls on_done.
        if job is self.job and job.state.finished:
            self._set_running(False)
