"""The studio window: datasets (left), workbench tabs (centre), parameters
(right), jobs and log (bottom), and the menus."""
from __future__ import annotations

import html
import sys
import traceback
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSignalBlocker, QSize, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from .. import __version__
from .controls import STYLE, fitting_size
from .datasets_dock import DatasetsPanel, available_samples
from .jobs_dock import JobsPanel, JobStatus
from .method_workbench import MethodWorkbench
from .next_steps import next_step, with_next_step
from .plots import EXPORT_FORMATS, ExportablePlot
from .project_controller import ProjectController
from .report_dialog import show_report_dialog
from .settings import RecentFiles, open_settings
from .settings_dialog import add_settings_action
from .shortcuts import install_keyboard
from .start_page import install_start_page
from .workbench import Workbench
from .workbenches import WorkbenchDeclaration, workbench_declarations
from .workers import Job, JobRunner

__all__ = ["MainWindow", "method_references"]



def open_filter() -> str:
    """File-dialog filter: every registered format, plus all of them at once."""
    from ..data.io import dialog_filters, formats

    patterns = sorted({"*" + ext for fmt in formats() for ext in fmt.extensions})
    return ";;".join([f"All datasets ({' '.join(patterns)})", *dialog_filters(), "All files (*)"])


def method_references() -> str:
    """The Help menu's references: one entry per discovered method family, from its spec."""
    from ..methods.contract import discover_methods

    items = "".join(f"<li><b>{html.escape(spec.title)}</b><br>{spec.reference}</li>"
                    for spec in sorted(discover_methods().values(), key=lambda s: s.title))
    return f"<h3>Methods and the papers they come from</h3><ul>{items}</ul>"


#: Preferred window size on a large screen; smaller screens get what fits.
PREFERRED_SIZE = QSize(1500, 950)
#: Share of the available screen a new window takes at most.
SCREEN_SHARE = 0.92


def default_size(window: QWidget) -> QSize:
    """The preferred size, shrunk to fit the screen's available area (1280x720 laptops)."""
    return fitting_size(window, PREFERRED_SIZE, SCREEN_SHARE)


class CurrentPageStack(QStackedWidget):
    """A stacked widget sized by its current page only.

    QStackedWidget asks for the largest page, so one workbench with a wide
    form would widen the parameters dock for every tab.
    """

    def sizeHint(self):  # noqa: N802 (Qt naming)
        page = self.currentWidget()
        return page.sizeHint() if page is not None else super().sizeHint()

    def minimumSizeHint(self):  # noqa: N802 (Qt naming)
        page = self.currentWidget()
        if page is None:
            return super().minimumSizeHint()
        # An explicit minimum (the forms' width) counts as much as the hint.
        return page.minimumSizeHint().expandedTo(page.minimumSize())


#: How many finished runs a tab built late is offered (the newest; a run holds its release in memory).
HANDED_RUNS = 8


class MainWindow(QMainWindow):
    """The studio's main window.

    Parameters
    ----------
    warm_up
        Compile the numba kernels in the background at start-up (tests turn
        it off to keep the two CPU cores for themselves).
    restore_layout
        Restore the saved geometry and dock layout.
    start_page
        Open on the start page (the studio does when it opens with nothing to open).
    """

    #: A workbench was built (the first time its tab was shown or asked for): hooks that every workbench needs
    #: (undo histories, the project's dirty flag) attach to it then.
    workbench_built = Signal(object)

    def __init__(self, *, warm_up: bool = True, restore_layout: bool = True, start_page: bool = False,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("anonstudio")
        self.setObjectName("anonstudio-main")
        self.setStyleSheet(STYLE)
        self.settings = open_settings()
        self.recent = RecentFiles(self.settings)
        self.runner = JobRunner(self, error_handler=self.show_error)
        self.dataset: Any = None

        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.setCentralWidget(self.tabs)
        self.param_stack = CurrentPageStack()
        self._param_pages: dict[QWidget, QScrollArea] = {}
        #: Recent runs handed over between tabs, offered again to a tab built later.
        self._handed: list[tuple[Workbench, Any]] = []
        self._no_params = QLabel("This workbench has no parameters.")
        self._no_params.setAlignment(Qt.AlignTop | Qt.AlignHCenter)
        self._no_params.setWordWrap(True)
        self.param_stack.addWidget(self._no_params)

        self.datasets = DatasetsPanel(self.runner)
        self.jobs = JobsPanel(self.runner)
        self.datasets_dock = self._dock("Datasets", self.datasets, Qt.LeftDockWidgetArea)
        self.params_dock = self._dock("Parameters", self.param_stack, Qt.RightDockWidgetArea)
        self.jobs_dock = self._dock("Jobs and log", self.jobs, Qt.BottomDockWidgetArea)

        # Give the workbench most of the room: narrow side docks; the jobs dock starts closed, the newest
        # job's progress, time left and Cancel sit in the status bar (its "Jobs…" button opens the dock).
        self.resizeDocks([self.datasets_dock, self.params_dock], [250, 300], Qt.Horizontal)
        self.resizeDocks([self.jobs_dock], [150], Qt.Vertical)
        self.jobs_dock.hide()
        self.job_status = JobStatus(self.runner)
        self.job_status.show_jobs.connect(self.show_jobs)
        self.statusBar().addPermanentWidget(self.job_status)

        self._load_workbenches()
        self.tabs.currentChanged.connect(self._tab_changed)
        self._tab_changed(self.tabs.currentIndex())
        self.datasets.dataset_loaded.connect(self.set_dataset)
        self.datasets.file_loaded.connect(self._remember_file)
        self.datasets.open_requested.connect(self.open_dataset_dialog)
        self.projects = ProjectController(self)
        self.projects.title_changed.connect(self.setWindowTitle)
        self._build_menus()
        install_keyboard(self)  # Edit menu (undo/redo), Ctrl+R, Esc, F11 presentation, accessible names
        self.setWindowTitle(self.projects.title())
        self.statusBar().showMessage("Load a dataset to begin: File › Open dataset…, or a sample from File › Open "
                                     "sample (Help › Start page helps choose).")
        if self.projects.has_autosave():
            self.statusBar().showMessage("Unsaved work from an earlier session can be recovered: File › Recover "
                                         "autosaved project.", 15000)
        self._small_screens_and_scheme()
        self.resize(default_size(self))
        if restore_layout:
            self._restore_layout()
        self.warm_up_job: Job | None = self.start_warm_up() if warm_up else None
        self.start_page = install_start_page(self)
        if start_page:
            self.show_start_page()

    # --------------------------------------------------------------- layout
    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock-{title.split()[0].lower()}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _load_workbenches(self) -> None:
        """One tab per discovered workbench; each is built the first time it is shown or asked for.

        Building every workbench's plots takes seconds; the window appears with only the current tab built
        (:meth:`_build_tab`), which keeps the studio's start-up short. A tab's module is imported when the tab
        is built too: until then a :class:`~.workbenches.WorkbenchDeclaration` read from its source stands for
        its class (importing every family's plots took the window about two seconds and numba, scipy and pandas).
        """
        classes, problems = workbench_declarations()
        for module, details in problems:
            self.jobs.append_log(f"workbench {module} could not be loaded:\n{details}")
        for cls in classes:
            placeholder = QWidget()
            placeholder.setObjectName(f"unbuilt-{cls.__name__}")
            placeholder.bench_class = cls
            self.tabs.addTab(placeholder, cls.TITLE)
        self._build_tab(self.tabs.currentIndex())

    def _build_tab(self, index: int) -> Workbench | None:
        """The workbench of tab ``index``, built now if it was not yet (None: it failed to start)."""
        widget = self.tabs.widget(index)
        if isinstance(widget, Workbench) or widget is None:
            return widget
        cls = getattr(widget, "bench_class", None)
        if cls is None:
            return None  # failed before: its tab explains why
        widget.bench_class = None
        try:
            if isinstance(cls, WorkbenchDeclaration):
                cls = cls.load()
            bench = cls(self.runner, parent=widget)  # never parentless: a window of its own would take the focus
        except Exception:  # noqa: BLE001 - one broken tab must not stop the studio
            self.jobs.append_log(f"workbench {cls.TITLE} failed to start:\n{traceback.format_exc()}")
            note = QLabel(f"The {cls.TITLE} tab failed to start; the Jobs and log panel says why.", widget)
            note.setWordWrap(True)
            QVBoxLayout(widget).addWidget(note)
            return None
        current = self.tabs.currentIndex()
        bar = self.tabs.tabBar()
        title, tip, data = bar.tabText(index), bar.tabToolTip(index), bar.tabData(index)
        with QSignalBlocker(self.tabs):  # swapping the page is not a change of tab
            self.tabs.removeTab(index)
            self.tabs.insertTab(index, bench, title)
            bar.setTabToolTip(index, tip)
            bar.setTabData(index, data)  # the full title of a shortened one
            self.tabs.setCurrentIndex(current)
        # The empty placeholder stays (hidden, a few bytes): deleting it took the export rows' menu actions
        # (JSON, command line) of the workbenches with it.
        widget.hide()
        self._connect_workbench(bench)
        self._follow_tab_bar(bench)
        self.workbench_built.emit(bench)
        return bench

    def _follow_tab_bar(self, bench: Workbench) -> None:
        """Tab from the tab bar into the page, then its parameters: a widget built after the window joins the end
        of the focus chain, which would put a late tab's controls after every dock."""
        members = [bench, bench.param_panel] if bench.param_panel is not None else [bench]
        order, widget = [self.tabs.tabBar()], self.tabs.tabBar().nextInFocusChain()
        for _ in range(100_000):  # the chain is a cycle; the bound only guards against a broken one
            if widget is self.tabs.tabBar():
                break
            if widget.focusPolicy() & Qt.TabFocus and any(m is widget or m.isAncestorOf(widget) for m in members):
                order.append(widget)
            widget = widget.nextInFocusChain()
        # The page's widgets first, then its panel's, each in their own order.
        order[1:] = sorted(order[1:], key=lambda w: 0 if bench is w or bench.isAncestorOf(w) else 1)
        for first, second in zip(order, order[1:]):
            QWidget.setTabOrder(first, second)

    def _connect_workbench(self, bench: Workbench) -> None:
        if bench.param_panel is not None:
            # The panel scrolls its own fields and keeps Run and Cancel in view.
            self._param_pages[bench.param_panel] = bench.param_panel
            self.param_stack.addWidget(bench.param_panel)
        bench.status.connect(lambda text: self.statusBar().showMessage(text, 8000))
        if isinstance(bench, MethodWorkbench):
            bench.run_finished.connect(lambda run, _complete, source=bench: self._hand_over(source, run))
        # A tab that points at a person (the Audit tab's counterexample) has them selected in the data view.
        show_record = getattr(bench, "show_record", None)
        if show_record is not None:
            show_record.connect(self.show_record)
        if self.dataset is not None:
            self._show_dataset(bench, self.dataset)
        for source, run in self._handed:
            self._offer(bench, source, run)

    @property
    def workbenches(self) -> list[Workbench]:
        """Every workbench, in tab order; builds those not shown yet (use :meth:`built_workbenches` where an
        unbuilt tab has nothing to give: no runs, default parameters)."""
        for index in range(self.tabs.count()):
            self._build_tab(index)
        return self.built_workbenches()

    def built_workbenches(self) -> list[Workbench]:
        """The workbenches built so far (shown, or asked for), in tab order."""
        return [w for w in (self.tabs.widget(i) for i in range(self.tabs.count())) if isinstance(w, Workbench)]

    def workbench_classes(self) -> list[type]:
        """The class of every tab's workbench, built or not, in tab order (a tab not built yet gives its
        :class:`~.workbenches.WorkbenchDeclaration`: TITLE, ORDER, SPEC and OFFERS_ATTACK_DEMO, and equal to the
        class)."""
        return [cls for cls in map(self._tab_class, range(self.tabs.count())) if cls is not None]

    def _tab_class(self, index: int) -> type | None:
        """The workbench class of tab ``index``, built or not (None: it failed to start)."""
        widget = self.tabs.widget(index)
        return type(widget) if isinstance(widget, Workbench) else getattr(widget, "bench_class", None)

    def _small_screens_and_scheme(self) -> None:
        """The dataset bar below 1440 px, short tab titles and the desktop's light or dark scheme (issue 22)."""
        from .dataset_bar import SmallScreens
        from .scheme import follow_desktop_scheme

        self.small_screens = SmallScreens(self)
        follow_desktop_scheme(self)
        self._fit_small_screens()
        # A tab built later (when first shown) gets its short sub-tab titles and the scheme's plot colours then.
        self.workbench_built.connect(lambda _bench: self._fit_small_screens())

    def _fit_small_screens(self) -> None:
        """Tabs and plots of pages built since the last call: short titles, the scheme's plot colours."""
        from .scheme import restyle_plots
        from .tab_titles import shorten_tab_titles

        shorten_tab_titles(self.tabs)
        restyle_plots(self, only_new=True)
        self.small_screens.bar.set_dataset(self.dataset)

    def _hand_over(self, source: Workbench, run: Any) -> None:
        """Offer a run finished in one tab to the other tabs that take one (``receive_run``), e.g. a group release
        to Threats; the tabs stay independent of each other. A tab built later gets the recent runs then."""
        self._handed.append((source, run))
        del self._handed[:-HANDED_RUNS]
        for bench in self.built_workbenches():
            self._offer(bench, source, run)

    @staticmethod
    def _offer(bench: Workbench, source: Workbench, run: Any) -> None:
        receive = getattr(bench, "receive_run", None)
        if bench is not source and callable(receive):
            receive(run)

    def workbench(self, title_or_cls: str | type) -> Workbench:
        """The workbench instance with this TITLE, class or method name (built if it was not yet)."""
        for index in range(self.tabs.count()):
            cls = self._tab_class(index)
            if cls is not None and title_or_cls in (cls.TITLE, cls, getattr(cls, "SPEC", None)):
                bench = self._build_tab(index)
                if bench is not None:
                    return bench
        raise KeyError(title_or_cls)

    def _tab_changed(self, index: int) -> None:
        bench = self._build_tab(index)
        panel = getattr(bench, "param_panel", None)
        self.param_stack.setCurrentWidget(self._param_pages.get(panel, self._no_params))

    def current_param_panel(self) -> QWidget | None:
        """The parameter panel shown in the right dock (None: the active tab has none)."""
        page = self.param_stack.currentWidget()
        return page if page is not self._no_params else None

    # ---------------------------------------------------------------- menus
    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        projects = self.projects
        self.new_project_action = file_menu.addAction("&New project", projects.new)
        self.new_project_action.setShortcut(QKeySequence.New)
        self.open_project_action = file_menu.addAction("Open &project…", projects.open_dialog)
        self.open_project_action.setShortcut(QKeySequence("Ctrl+Shift+O"))
        self.open_project_action.setToolTip("A project holds the dataset, every tab's parameters and sweeps; its "
                                            "stored results show at once.")
        self.recent_projects_menu = file_menu.addMenu("Recent p&rojects")
        self.recent_projects_menu.aboutToShow.connect(self._fill_recent_projects)
        self._fill_recent_projects()
        self.save_project_action = file_menu.addAction("&Save project", projects.save)
        self.save_project_action.setShortcut(QKeySequence.Save)
        self.save_project_as_action = file_menu.addAction("Save project &as…", projects.save_as)
        self.save_project_as_action.setShortcut(QKeySequence.SaveAs)
        self.recover_action = file_menu.addAction("Recover autosaved project", projects.recover_autosave)
        self.recover_action.setEnabled(projects.has_autosave())
        file_menu.addSeparator()
        self.open_action = file_menu.addAction("&Open dataset…", self.open_dataset_dialog)
        self.open_action.setShortcut(QKeySequence.Open)
        self.open_database_action = file_menu.addAction("Open &database…", self.datasets.open_database_dialog)
        self.samples_menu = file_menu.addMenu("Open &sample")
        samples = available_samples()
        for sample in samples:
            label = getattr(sample, "title", None) or sample.name
            self.samples_menu.addAction(label, lambda name=sample.name: self.datasets.load_sample(name))
        self.samples_menu.setEnabled(bool(samples))
        self.recent_menu = file_menu.addMenu("&Recent files")
        self._fill_recent_menu()
        file_menu.addSeparator()
        self.export_action = file_menu.addAction("&Export plot…", self.export_plot_dialog)
        self.report_action = file_menu.addAction("Export &report…", lambda: show_report_dialog(self))
        file_menu.addSeparator()
        quit_action = file_menu.addAction("&Quit", self.close)
        quit_action.setShortcut(QKeySequence.Quit)

        view_menu = self.menuBar().addMenu("&View")
        self.data_view_action = view_menu.addAction("&Data view", self.show_data_view)
        self.data_view_action.setShortcut(QKeySequence("Ctrl+D"))
        self.data_view_action.setToolTip("Every record or row of the active dataset, searchable and sortable.")
        view_menu.addSeparator()
        for dock in (self.datasets_dock, self.params_dock, self.jobs_dock):
            view_menu.addAction(dock.toggleViewAction())

        tools_menu = self.menuBar().addMenu("&Tools")
        self.compare_runs_action = tools_menu.addAction("&Compare runs…", self.show_compare_runs)
        self.compare_runs_action.setToolTip("The finished runs of every tab on this dataset side by side: a table "
                                            "of their measures and a trade-off plot.")
        self.compare_methods_action = tools_menu.addAction("Compare &methods…", self.show_compare_methods)
        self.compare_methods_action.setToolTip("Several methods on this dataset, a grid of settings each, every "
                                               "release measured on one risk–utility plot with its Pareto front.")
        self.compare_values_action = tools_menu.addAction("Compare parameter &values…", self.show_compare_values)
        self.compare_values_action.setToolTip("Run the current tab's method over a grid of parameter values and "
                                              "seeds (its Compare tab).")
        tools_menu.addSeparator()
        self.settings_action = add_settings_action(tools_menu, self)

        help_menu = self.menuBar().addMenu("&Help")
        self.start_page_action = help_menu.addAction("&Start page", self.show_start_page)
        self.start_page_action.setToolTip("The four questions the studio answers, recent projects and samples.")
        self.glossary_action = help_menu.addAction("&Glossary", self.show_glossary)
        self.glossary_action.setShortcut(QKeySequence.HelpContents)
        help_menu.addAction("&Method references", self.show_references)
        help_menu.addAction("&About anonstudio", self.show_about)

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        paths = self.recent.paths()
        for path in paths:
            self.recent_menu.addAction(path, lambda p=path: self.datasets.import_file(p))
        if paths:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction("Clear list", self._clear_recent)
        self.recent_menu.setEnabled(bool(paths))

    def _fill_recent_projects(self) -> None:
        menu = self.recent_projects_menu
        menu.clear()
        paths = self.projects.recent.paths()
        for path in paths:
            menu.addAction(path, lambda p=path: self.projects.open(p))
        menu.setEnabled(bool(paths))
        if hasattr(self, "recover_action"):  # the menu is filled once before the action exists
            self.recover_action.setEnabled(self.projects.has_autosave())

    def open_project(self, path: str | Path) -> Job | None:
        """Open a project file (its dataset loads in the background); see :class:`ProjectController`."""
        return self.projects.open(path, ask=False)

    def _clear_recent(self) -> None:
        self.recent.clear()
        self._fill_recent_menu()

    def _remember_file(self, path: str) -> None:
        self.recent.add(path)
        self._fill_recent_menu()

    # -------------------------------------------------------------- actions
    def open_dataset_dialog(self) -> None:
        start = str(Path(self.recent.paths()[0]).parent) if self.recent.paths() else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open dataset", start, open_filter())
        if path:
            self.datasets.import_file(path)

    def open_dataset(self, path: str | Path) -> Job:
        """Load a file in the background; on success it becomes the active dataset."""
        return self.datasets.load_file(path)

    def show_data_view(self) -> None:
        """View > Data view: the data view of the active dataset."""
        if self.datasets.show_data_view() is None:
            self.statusBar().showMessage("Load a dataset first: its data view shows every record.", 8000)

    def show_record(self, record: int) -> Any:
        """Open the data view of the active dataset with ``record`` (numbered from 1) selected; returns the window."""
        from .data_view import go_to_row

        window = self.datasets.show_data_view()
        if window is None:
            self.statusBar().showMessage("Load a dataset first: its data view shows every record.", 8000)
            return None
        view = window.view
        go_to_row(view.search, [view.table], int(record) - 1)
        return window

    def set_dataset(self, dataset: Any) -> None:
        self.dataset = dataset
        for bench in self.built_workbenches():  # a tab built later gets it then
            self._show_dataset(bench, dataset)
        self._fit_small_screens()
        name = getattr(dataset, "name", "dataset")
        self.setWindowTitle(self.projects.title())
        self.statusBar().showMessage(f"Loaded {name}: set the parameters of a tab on the right and run it.", 8000)

    def _show_dataset(self, bench: Workbench, dataset: Any) -> None:
        try:
            bench.set_dataset(dataset)
        except Exception:  # noqa: BLE001
            self.jobs.append_log(f"{bench.TITLE}: could not show the dataset:\n{traceback.format_exc()}")

    def all_plots(self) -> list[ExportablePlot]:
        """Plots of the active workbench first, then the datasets dock."""
        current = self.tabs.currentWidget()
        plots = current.plots() if isinstance(current, Workbench) else []
        dock_plots = [self.datasets.length_plot, self.datasets.frequency_plot]
        return plots + [p for p in dock_plots if not p.isHidden()]

    def export_plot_dialog(self) -> None:
        plots = self.all_plots()
        titles = [p.title for p in plots]
        title, ok = QInputDialog.getItem(self, "Export plot", "Plot:", titles, 0, False)
        if not ok:
            return
        plot = plots[titles.index(title)]
        fmt, ok = QInputDialog.getItem(self, "Export plot", "Format:", list(EXPORT_FORMATS.values()), 0, False)
        if ok:
            plot.export_dialog(list(EXPORT_FORMATS)[list(EXPORT_FORMATS.values()).index(fmt)])

    def start_warm_up(self) -> Job:
        """Compile the numba kernels on a worker thread behind a status message."""
        from ..kernels.warmup import warm_up_all

        self.statusBar().showMessage("Compiling numerical kernels in the background (the first start takes a few "
                                     "minutes; later starts load them from the cache)…")
        self.runner.kernels_ready.clear()

        def done(timings: dict, complete: bool) -> None:
            self.runner.kernels_ready.set()
            total = sum(timings.values()) if timings else 0.0
            self.statusBar().showMessage(f"Kernels ready ({total:.1f} s).", 5000)

        def failed(exc: BaseException) -> None:
            self.runner.kernels_ready.set()  # the analyses compile what they need themselves

        # Compiling is single-threaded: the warm-up leaves the rest of the thread budget to the analyses.
        return self.runner.submit("Compile numerical kernels", warm_up_all, key="warm-up", on_done=done,
                                  on_error=failed, threads=1)

    def show_jobs(self) -> None:
        """Open the jobs dock (every job with its progress, plus the log)."""
        self.jobs_dock.show()
        self.jobs_dock.raise_()

    def show_compare_runs(self) -> None:
        """Tools › Compare runs: every tab's finished runs on this dataset, compared."""
        from .compare_runs import CompareRunsWindow

        window = getattr(self, "compare_runs_window", None)
        if window is None:
            window = self.compare_runs_window = CompareRunsWindow(self)
        else:
            window.refresh()
        window.show()
        window.raise_()

    def show_compare_methods(self) -> None:
        """Tools › Compare methods: several families on this dataset on one risk–utility plot."""
        from .compare_methods import CompareMethodsWindow

        window = getattr(self, "compare_methods_window", None)
        if window is None:
            window = self.compare_methods_window = CompareMethodsWindow(self)
        else:
            window.refresh()
        window.show()
        window.raise_()

    def show_compare_values(self) -> None:
        """Tools › Compare parameter values: the current tab's Compare tab (a sweep over its parameters)."""
        bench = self.tabs.currentWidget()
        if not isinstance(bench, MethodWorkbench):
            self.statusBar().showMessage("Compare parameter values works on a method's tab: open one (e.g. σ-k^m "
                                         "anonymity), then choose it again.", 8000)
            return
        bench.results.setCurrentWidget(bench.sweep_view)

    def show_error(self, title: str, message: str) -> None:
        """A failed job's dialog, ending with what to do next (gui/next_steps.py); the status bar says it too."""
        self.statusBar().showMessage(f"{title} failed: {next_step(message, title)}", 15000)
        QMessageBox.critical(self, f"{title} failed", with_next_step(message, title))

    def install_exception_hook(self) -> None:
        """Report an exception escaping a button handler or dialog instead of losing it on stderr.

        Qt keeps running after a slot raises; the user is told once (per
        distinct error) in a non-blocking message, the traceback goes to the
        Jobs log, and nothing else changes: data and results stay as they were.
        """
        previous = sys.excepthook
        reported: set[str] = set()

        def hook(kind, value, tb):
            if issubclass(kind, KeyboardInterrupt):
                previous(kind, value, tb)
                return
            details = "".join(traceback.format_exception(kind, value, tb))
            self.jobs.append_log(f"unexpected error:\n{details}")
            summary = f"{kind.__name__}: {value}"
            if summary in reported:
                return
            reported.add(summary)
            box = QMessageBox(QMessageBox.Warning, "Something went wrong",
                              f"An action failed: {summary[:300]}\n\nYour data and results are unchanged. The "
                              "details are in the Jobs log (View › Jobs and log); please report them.",
                              QMessageBox.Ok, self)
            box.setAttribute(Qt.WA_DeleteOnClose)
            box.open()

        sys.excepthook = hook

    def show_start_page(self) -> None:
        """Help › Start page: the four questions, recent projects and the samples (gui/start_page.py)."""
        self.start_page.show_page()

    def show_glossary(self) -> None:
        """Help > Glossary (F1): every measure and parameter with its one-line meaning."""
        from .glossary_dialog import show_glossary

        show_glossary(self)

    def show_references(self) -> None:
        QMessageBox.about(self, "Method references", method_references())

    def show_about(self) -> None:
        QMessageBox.about(
            self, "About anonstudio",
            f"<h3>anonstudio {__version__}</h3><p>Measure how identifying set-valued data is "
            "(shopping baskets, visited places, diagnoses), anonymize it and see what an attacker "
            "can still learn.</p><p>See Help &gt; Method references for the papers behind each method.</p>")

    # ------------------------------------------------------------- settings
    def _restore_layout(self) -> None:
        geometry = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        if isinstance(state, QByteArray):
            self.restoreState(state)

    def save_layout(self) -> None:
        self.start_page.leave()  # save the docks as the workbenches have them, not hidden behind the start page
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt naming)
        if not self.projects.maybe_save():
            event.ignore()
            return
        self.projects.autosave_timer.stop()
        self.save_layout()
        self.datasets.data_views.close_all()
        self.runner.shutdown(5000)
        super().closeEvent(event)
