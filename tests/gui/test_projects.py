"""Projects in the studio: save, reopen with stored results, moved and changed data, autosave, command lines."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from anonstudio.gui.main_window import MainWindow
from anonstudio.gui.project_controller import ProjectController, autosave_path
from anonstudio.gui.workbenches.kmanon.workbench import KmAnonWorkbench
from anonstudio.gui.workbenches.uniqueness.workbench import UniquenessWorkbench
from anonstudio.studio.project import Project


@pytest.fixture
def study(window, wait_job, data_dir, tmp_path):
    """A window with a copy of tiny.dat loaded and two workbenches run: Risk and σ-k^m."""
    data_file = tmp_path / "tiny.dat"
    shutil.copy(data_dir / "gui" / "tiny.dat", data_file)
    wait_job(window.open_dataset(data_file))
    risk = window.workbench(UniquenessWorkbench)
    risk.param_panel.set_value("max_m", 2)
    risk.param_panel.set_value("method", "exact")
    risk.param_panel.run_button.click()
    wait_job(risk.job)
    km = window.workbench(KmAnonWorkbench)
    km.param_panel.set_value("k", 3)
    km.param_panel.set_value("m", 2)
    km.param_panel.set_value("seed", 9)
    km.param_panel.run_button.click()
    wait_job(km.job)
    assert risk.last_run.status == "done" and km.last_run.status == "done"
    return window, data_file


def _save(window, path, qtbot):
    window.projects._write(path)
    # The runs are stored by a background thread: wait until both are readable.
    cache = window.projects.cache
    for bench in (window.workbench(UniquenessWorkbench), window.workbench(KmAnonWorkbench)):
        run = bench.last_run
        qtbot.waitUntil(lambda b=bench, r=run: cache.get(b.spec, r.params, r.data) is not None, timeout=10000)


def _new_window(qtbot):
    w = MainWindow(warm_up=False, restore_layout=False)
    qtbot.addWidget(w)
    w.show()
    return w


def test_a_saved_project_reopens_with_its_plots_without_recomputing(study, qtbot, wait_job, tmp_path, monkeypatch):
    window, _ = study
    assert window.windowTitle().startswith("Untitled project*")
    _save(window, tmp_path / "study.toml", qtbot)
    assert window.windowTitle().startswith("study.toml —") and not window.projects.dirty
    risk_before = window.workbench(UniquenessWorkbench).last_run.to_json()
    km_before = window.workbench(KmAnonWorkbench).last_run.to_json()
    window.close()

    again = _new_window(qtbot)
    started = []
    monkeypatch.setattr("anonstudio.gui.method_workbench.run_and_verify",
                        lambda *a, **k: started.append(a) or pytest.fail("a stored run was recomputed"))
    job = again.open_project(tmp_path / "study.toml")
    wait_job(job)
    risk, km = again.workbench(UniquenessWorkbench), again.workbench(KmAnonWorkbench)
    qtbot.waitUntil(lambda: risk.last_run is not None and km.last_run is not None, timeout=10000)
    assert risk.last_run.cached and km.last_run.cached and started == []
    assert risk.last_run.to_json() == risk_before and km.last_run.to_json() == km_before
    assert risk.param_panel.params().max_m == 2 and km.param_panel.params().seed == 9
    x, y = risk.itemset_plot.series["exact count"].item.getData()
    assert list(x) == [1, 2] and np.all(np.isfinite(y))
    assert not again.projects.dirty and again.windowTitle().startswith("study.toml —")
    assert str(tmp_path / "study.toml") in again.projects.recent.paths()[0]


def test_editing_marks_the_project_unsaved_and_closing_asks(study, qtbot, tmp_path, monkeypatch):
    window, _ = study
    _save(window, tmp_path / "p.toml", qtbot)
    window.workbench(UniquenessWorkbench).param_panel.set_value("max_m", 3)
    assert window.projects.dirty and window.windowTitle().startswith("p.toml*")
    asked = []
    monkeypatch.setattr(ProjectController, "ask_unsaved", lambda self: asked.append(1) or "cancel")
    window.close()
    assert asked == [1] and window.isVisible()
    monkeypatch.setattr(ProjectController, "ask_unsaved", lambda self: "save")
    window.close()
    assert not window.isVisible()
    assert Project.load(tmp_path / "p.toml").step("uniqueness").params.max_m == 3


def test_a_moved_dataset_is_asked_for_and_a_changed_one_refused(study, qtbot, wait_job, tmp_path, monkeypatch,
                                                                dialogs):
    window, data_file = study
    _save(window, tmp_path / "p.toml", qtbot)
    window.close()
    moved = tmp_path / "elsewhere.dat"
    data_file.rename(moved)
    again = _new_window(qtbot)
    monkeypatch.setattr(ProjectController, "ask_moved_dataset", lambda self, entry: moved)
    wait_job(again.open_project(tmp_path / "p.toml"))
    wait_job(again.projects.last_job)
    assert again.dataset is not None and again.dataset.source == moved
    assert again.projects.project.datasets[again.projects.project.steps[0].dataset].origin.path == moved

    moved.write_text(moved.read_text() + "1 2\n", encoding="utf-8")
    third = _new_window(qtbot)
    wait_job(third.open_project(tmp_path / "p.toml"))
    # The refusal is shown by the job's error handler, which runs after the job's state says finished.
    qtbot.waitUntil(lambda: any("has changed since the project was saved" in text for _, _, text in dialogs),
                    timeout=5000)
    assert third.dataset is None


def test_autosave_keeps_unsaved_work_and_recovery_reopens_it(study, qtbot, wait_job):
    window, _ = study
    target = window.projects.autosave()
    assert target == autosave_path() and target.is_file()
    assert Project.load(target).step("kmanon").params.seed == 9
    window.projects.dirty = False  # as if the session had ended without saving
    window.close()
    again = _new_window(qtbot)
    assert again.projects.has_autosave() and again.recover_action.isEnabled()
    wait_job(again.projects.recover_autosave())
    assert again.projects.dirty and again.projects.path is None
    assert again.workbench(KmAnonWorkbench).param_panel.params().seed == 9


def test_copy_command_line_puts_the_exact_command_on_the_clipboard(study):
    from PySide6.QtWidgets import QApplication

    from anonstudio.studio.command_line import run_command_line

    window, data_file = study
    km = window.workbench(KmAnonWorkbench)
    km.export_row.buttons["command"].trigger()
    text = QApplication.clipboard().text()
    assert text == run_command_line(km.last_run)
    assert text.startswith(f"anonstudio-cli kmanon {data_file}") and "--seed 9" in text


def test_a_sweep_run_twice_takes_its_cells_from_the_cache(study, qtbot, wait_job):
    window, _ = study
    risk = window.workbench(UniquenessWorkbench)
    view = risk.sweep_view
    view.x_combo.setCurrentIndex(view.x_combo.findData("max_m"))
    view.x_values.setText("1,2")
    view.start()
    wait_job(view.job)
    assert view.result.complete and view.result.done == 2
    seen = []
    original = view.submit

    def spy(title, fn, **kw):
        def wrapped(progress):
            result = fn(progress)
            seen.append(result)
            return result
        return original(title, wrapped, **kw)

    view.submit = spy
    view.start()
    wait_job(view.job)
    assert [r.summary for r in seen[0].ordered()] == [r.summary for r in view.result.ordered()]
    assert all(r.seconds >= 0 for r in view.result.ordered())
    assert window.projects.capture().sweeps[0].axes[0].values == (1, 2)
