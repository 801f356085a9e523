"""Projects in the studio: File › New, Open, Save, Save As, recent projects, unsaved changes, autosave.

The controller turns the window's state into a :class:`~anonstudio.studio.project.Project`
(the active dataset, every method workbench's parameters, the sweeps run in
their Compare tabs) and back. Opening a project loads its dataset in the
background, asks where a moved file went (and checks its SHA-256), refuses a
changed one, restores each workbench's parameters and shows the runs the
result cache holds for them, so the plots appear without recomputing.

Every change (parameters, dataset, roles, a finished run) marks the project
unsaved; the window title gets a ``*`` and New, Open and Quit ask first.
Unsaved work is also written every minute to an autosave file in the
user's data folder, which File › Recover autosaved project reopens after a
crash.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox

from ..methods.contract import get_method
from ..params import ParameterError, from_dict
from ..studio.cache import ResultCache
from ..studio.command_line import NotReproducible
from ..studio.project import (
    PROJECT_FILTER,
    PROJECT_SUFFIX,
    DatasetChanged,
    DatasetMissing,
    Project,
    ProjectError,
    SweepEntry,
)
from .method_workbench import MethodWorkbench
from .next_steps import with_next_step
from .settings import SETTINGS_ENV, RecentFiles

__all__ = ["ProjectController", "RecentProjects", "autosave_path", "AUTOSAVE_MS"]

#: How often unsaved work is written to the autosave file.
AUTOSAVE_MS = 60_000


class RecentProjects(RecentFiles):
    """Most recently opened or saved project files, newest first."""

    KEY = "recent_projects"


def autosave_path() -> Path:
    """The autosave file: beside the redirected settings (tests, demos), else in the user's data folder."""
    folder = os.environ.get(SETTINGS_ENV)
    if not folder:
        import platformdirs

        folder = platformdirs.user_data_dir("anonstudio", appauthor=False)
    return Path(folder) / "autosave" / f"autosave{PROJECT_SUFFIX}"


class ProjectController(QObject):
    """The window's project: what is saved, where, and whether there are unsaved changes.

    Signals
    -------
    title_changed(str)
        The window title to show ("study.toml* — anonstudio").
    opened(object)
        A project finished opening (its dataset loaded, parameters and cached runs shown).
    """

    title_changed = Signal(str)
    opened = Signal(object)

    def __init__(self, window: Any, cache: ResultCache | None = None):
        super().__init__(window)
        self.window = window
        self.project = Project()
        self.cache = cache if cache is not None else ResultCache()
        self.recent = RecentProjects(window.settings)
        self.dirty = False
        #: False in scripted runs (demo screenshots): closing never asks.
        self.prompt_on_close = True
        self._restoring = False
        self.last_job = None
        for bench in self.workbenches():
            self._adopt(bench)
        window.workbench_built.connect(self._adopt)  # tabs are built when first shown
        window.datasets.dataset_loaded.connect(lambda _: self.mark_dirty())
        self.autosave_timer = QTimer(self)
        self.autosave_timer.setInterval(AUTOSAVE_MS)
        self.autosave_timer.timeout.connect(self.autosave)
        self.autosave_timer.start()

    def _adopt(self, bench: Any) -> None:
        """Give a (newly built) workbench the result cache and let its edits and runs mark the project changed."""
        if not isinstance(bench, MethodWorkbench):
            return
        bench.result_cache = self.cache
        bench.sweep_view.result_cache = self.cache
        if bench.param_panel is not None:
            bench.param_panel.edited.connect(self.mark_dirty)
        bench.run_finished.connect(lambda *_: self.mark_dirty())

    # ------------------------------------------------------------- state
    def workbenches(self) -> list[MethodWorkbench]:
        """The method workbenches built so far (a tab not shown yet has default parameters and no runs)."""
        return [b for b in self.window.built_workbenches() if isinstance(b, MethodWorkbench)]

    @property
    def path(self) -> Path | None:
        return self.project.path

    def title(self) -> str:
        """"study.toml* — adult — anonstudio": the project, ``*`` for unsaved changes, the active dataset."""
        name = self.path.name if self.path is not None else "Untitled project"
        data = getattr(self.window, "dataset", None)
        shown = f" — {getattr(data, 'name', 'dataset')}" if data is not None else ""
        return f"{name}{'*' if self.dirty else ''}{shown} — anonstudio"

    def mark_dirty(self) -> None:
        if self._restoring or self.dirty:
            return
        self.dirty = True
        self.title_changed.emit(self.title())

    def _set_clean(self) -> None:
        self.dirty = False
        self.title_changed.emit(self.title())

    def capture(self) -> Project:
        """The window as a project: the active dataset, every workbench's parameters, the sweeps it ran.

        Workbenches that do not work on the active dataset keep the step the
        project had for them. Raises NotReproducible when the active dataset
        was built in memory.
        """
        old = self.project
        project = Project(datasets=dict(old.datasets), steps=list(old.steps), path=old.path)
        data = self.window.dataset
        key = project.add_dataset(data) if data is not None else None
        project.sweeps = [s for s in old.sweeps if not self._owns(s.method, data)]
        # A tab never opened keeps the step the project had (or none: it opens with its defaults).
        for bench in self.workbenches():
            spec = bench.spec
            if data is not None and not bench.accepts(data):
                continue
            try:
                params = from_dict(spec.params, bench.state()["params"], check=False)
            except (ParameterError, TypeError):
                continue  # a half-typed field: the step keeps its saved values
            project.set_step(spec.name, params, key)
            grid = bench.sweep_view.grid() if bench.sweep_view.result is not None else None
            if grid is not None:
                axes, seeds = grid
                project.sweeps.append(SweepEntry(spec.name, key, tuple(axes), params, seeds))
        current = self.window.tabs.currentWidget()
        project.active = current.spec.name if isinstance(current, MethodWorkbench) else old.active
        project.drop_unused_datasets()
        return project

    def _owns(self, method: str, data: Any) -> bool:
        cls = next((c for c in self.window.workbench_classes() if getattr(c, "SPEC", None) == method), None)
        return cls is not None and (data is None or get_method(method).accepts(data))

    def _bench(self, method: str) -> MethodWorkbench | None:
        """The workbench of ``method`` (built if it was not yet), None if the studio has none."""
        try:
            bench = self.window.workbench(method)
        except KeyError:
            return None
        return bench if isinstance(bench, MethodWorkbench) else None

    # ------------------------------------------------------------ saving
    def save(self) -> bool:
        """File › Save (Save As when the project has no file yet). False when nothing was saved."""
        if self.path is None:
            return self.save_as()
        return self._write(self.path)

    def save_as(self) -> bool:
        recent = self.recent.paths()
        start = str(self.path) if self.path else (str(Path(recent[0]).parent) if recent else "")
        path, _ = QFileDialog.getSaveFileName(self.window, "Save project", start, PROJECT_FILTER)
        if not path:
            return False
        if not path.endswith(PROJECT_SUFFIX):
            path += PROJECT_SUFFIX
        return self._write(Path(path))

    def private_folders(self) -> list[Path]:
        """Folders of this machine's studio whose files a saved project copies next to itself.

        The releases of finished runs written for the Audit tab and the attack demo (beside the result cache,
        or where a workbench was told to write them).
        """
        folders = [Path(self.cache.folder).parent / "releases"]
        for bench in self.workbenches():
            folder = getattr(bench, "release_folder", None)
            if isinstance(folder, Path):
                folders.append(folder)
        return folders

    def _write(self, path: Path) -> bool:
        try:
            project = self.capture()
            project.save(path, adopt=self.private_folders())
        except NotReproducible as exc:
            QMessageBox.warning(self.window, "Project not saved", with_next_step(f"{exc}.", "project"))
            return False
        except (OSError, ValueError) as exc:
            QMessageBox.critical(self.window, "Project not saved", with_next_step(f"Could not write {path}: {exc}"))
            return False
        self.project = project
        self.recent.add(path)
        self._remove_autosave()
        self._set_clean()
        self.window.statusBar().showMessage(f"Saved the project to {path}.", 8000)
        return True

    def autosave(self) -> Path | None:
        """Write unsaved work to :func:`autosave_path` (the project's own file is left alone)."""
        if not self.dirty or self.window.dataset is None:
            return None
        try:
            project = self.capture()
            target = autosave_path()
            target.parent.mkdir(parents=True, exist_ok=True)
            project.path = None
            project.save(target)
        except (NotReproducible, OSError, ValueError):
            return None  # autosave is a safety net: a failure must not interrupt the user
        return target

    def _remove_autosave(self) -> None:
        try:
            autosave_path().unlink(missing_ok=True)
        except OSError:
            pass

    def has_autosave(self) -> bool:
        return autosave_path().is_file()

    # ------------------------------------------------------ unsaved work
    def ask_unsaved(self) -> str:
        """Ask what to do with unsaved changes: ``"save"``, ``"discard"`` or ``"cancel"``."""
        answer = QMessageBox.question(
            self.window, "Unsaved changes",
            f"{self.path.name if self.path else 'This project'} has changes that are not saved. Save them?",
            QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
        return {QMessageBox.Save: "save", QMessageBox.Discard: "discard"}.get(answer, "cancel")

    def maybe_save(self) -> bool:
        """True when the caller may go on (saved, discarded or nothing to save); False to stay."""
        if not self.dirty or not self.prompt_on_close:
            return True
        choice = self.ask_unsaved()
        if choice == "save":
            return self.save()
        if choice == "discard":
            self._remove_autosave()
            return True
        return False

    # ---------------------------------------------------------- new, open
    def new(self) -> None:
        """File › New project: every workbench back to its defaults, no project file (the dataset stays)."""
        if not self.maybe_save():
            return
        self._restoring = True
        try:
            for bench in self.workbenches():
                bench.param_panel.set_params(bench.spec.params())
        finally:
            self._restoring = False
        self.project = Project()
        self._set_clean()

    def open_dialog(self) -> None:
        if not self.maybe_save():
            return
        start = str(Path(self.recent.paths()[0]).parent) if self.recent.paths() else ""
        path, _ = QFileDialog.getOpenFileName(self.window, "Open project", start, PROJECT_FILTER)
        if path:
            self.open(path, ask=False)

    def recover_autosave(self) -> Any:
        """File › Recover autosaved project: open the autosave as an unsaved, untitled project."""
        if not self.has_autosave() or not self.maybe_save():
            return None
        return self.open(autosave_path(), ask=False, untitled=True)

    def open(self, path: str | Path, *, ask: bool = True, untitled: bool = False) -> Any:
        """Open a project: read it, load its dataset in the background, then show its parameters and cached runs.

        Returns the loading job (None when there is nothing to load or the file is bad).
        """
        if ask and not self.maybe_save():
            return None
        try:
            project = Project.load(path)
            _check_values(project)
        except ProjectError as exc:
            QMessageBox.critical(self.window, "Cannot open the project", with_next_step(str(exc), "project"))
            return None
        if untitled:
            project.path = None
        else:
            self.recent.add(path)
        key = self._active_dataset(project)
        if key is None:
            self._apply(project, None)
            return None
        return self._load(project, key, locate=None)

    @staticmethod
    def _active_dataset(project: Project) -> str | None:
        active = project.step(project.active) if project.active else None
        if active is not None and active.dataset is not None:
            return active.dataset
        return next((s.dataset for s in project.steps if s.dataset is not None), None)

    def _load(self, project: Project, key: str, locate: Callable | None, password: str | None = None) -> Any:
        entry = project.datasets[key]

        def failed(exc: BaseException) -> None:
            if isinstance(exc, DatasetMissing):
                new_path = self.ask_moved_dataset(entry)
                if new_path is not None:
                    self.last_job = self._load(project, key, lambda _: new_path)
                return
            from ..data.io.database import needs_password

            if needs_password(exc):
                # No PGPASSWORD, no .pgpass (or a refused password): ask. The answer lives in this closure only.
                from .database_dialog import ask_password

                given = ask_password(self.window, exc.where, again=password is not None)
                if given is not None:
                    self.last_job = self._load(project, key, locate, password=given)
                    return
            title = "Dataset changed" if isinstance(exc, DatasetChanged) else "Cannot open the project's dataset"
            QMessageBox.critical(self.window, title, with_next_step(str(exc), "project"))

        self.last_job = self.window.datasets.load_job(
            f"Open project dataset {entry.label}",
            lambda progress: project.open_dataset(key, locate, password=password),
            on_loaded=lambda data: self._apply(project, data), on_error=failed)
        return self.last_job

    def ask_moved_dataset(self, entry: Any) -> Path | None:
        """Ask where a moved dataset file is now (None: the user gave up)."""
        QMessageBox.information(
            self.window, "Dataset moved",
            f"The project's dataset {entry.origin.path} is not there any more. Please show where it is now; "
            "anonstudio checks that it is the same file (SHA-256).")
        path, _ = QFileDialog.getOpenFileName(self.window, f"Where is {entry.label} now?",
                                              str(entry.origin.path.parent) if entry.origin.path else "")
        return Path(path) if path else None

    def _apply(self, project: Project, data: Any) -> None:
        """Show ``project``: its parameters in every workbench, its sweeps' grids, then its cached runs."""
        self._restoring = True
        try:
            self._show_values(project)
        except Exception as exc:  # noqa: BLE001 - a value no control can show: the project is not adopted
            QMessageBox.critical(self.window, "Cannot open the project",
                                 with_next_step(f"{project.path}: a saved value cannot be shown "
                                                f"({type(exc).__name__}: {exc})", "project"))
            return
        finally:
            self._restoring = False
        self.project = project
        self._set_clean()
        if project.path is None:
            self.dirty = True  # a recovered autosave is unsaved work
            self.title_changed.emit(self.title())
        if data is not None:
            self._show_cached(project, data)
        self.opened.emit(project)

    def _show_values(self, project: Project) -> None:
        """Every step's parameters and every sweep's grid into its workbench; the project's tab in front."""
        for step in project.steps:
            bench = self._bench(step.method)
            if bench is not None:
                bench.param_panel.set_params(step.params)
        for sweep in project.sweeps:
            bench = self._bench(sweep.method)
            if bench is not None:
                bench.sweep_view.set_grid(sweep.axes, sweep.seeds)
        if project.active and self._bench(project.active) is not None:
            self.window.tabs.setCurrentWidget(self._bench(project.active))

    def _show_cached(self, project: Project, data: Any) -> None:
        """Read the steps' runs from the cache in the background and show each one found."""
        wanted = [(self._bench(s.method), s) for s in project.steps]
        wanted = [(b, s) for b, s in wanted if b is not None and b.accepts(data)]
        if not wanted:
            return
        cache = self.cache

        def read(progress):
            found = []
            for i, (bench, step) in enumerate(wanted):
                if progress.cancelled():
                    break
                progress.set(i / len(wanted), f"reading the stored {bench.spec.title} run")
                run = cache.get(bench.spec, step.params, data)
                if run is not None:
                    found.append((bench, run))
            return found

        def show(found, complete):
            self._restoring = True
            try:
                for bench, run in found or []:
                    bench.show_stored_run(run)
            finally:
                self._restoring = False

        self.window.runner.submit("Show the project's stored results", read, key="project:cache", on_done=show,
                                  show_error_dialog=False, threads=1)  # reading files: one thread's work


def _check_values(project: Project) -> None:
    """ProjectError for a step's number or choice outside its range (NaN, a count beyond any spin box).

    The studio shows a step's values in controls that cannot hold such values; the CLI refuses them
    the same way when it runs the step. Files are checked when the step runs (one may have moved).
    """
    from ..params import ParameterError, problem_of, spec_of, specs, validate

    for step in project.steps:
        for spec in specs(step.params):
            if spec.kind in ("int", "float", "levels", "choice", "bool", "str"):
                problem = problem_of(spec, getattr(step.params, spec.name))
                if problem is not None:
                    raise ProjectError(f"{project.path}: workbenches.{step.method}: {spec.label} {problem}")
        try:
            validate(step.params)  # the cross-field rules (a ρ that is no fraction...)
        except ParameterError as exc:
            try:
                kind = spec_of(step.params, exc.name).kind if exc.name else ""
            except KeyError:
                kind = ""
            if kind not in ("path", "column", "columns", "column_paths"):
                raise ProjectError(f"{project.path}: workbenches.{step.method}: {exc}") from None
