"""Main window: loading files as jobs, bad files, recent files, layout persistence."""
from __future__ import annotations

import shutil

from anonstudio.data.transactions import TransactionData
from anonstudio.gui.settings import RecentFiles, open_settings


def load(window, wait_job, path):
    job = window.open_dataset(path)
    wait_job(job)
    return job


def test_open_file_shows_summary_and_plots(window, wait_job, data_dir):
    load(window, wait_job, data_dir / "gui" / "tiny.dat")
    assert isinstance(window.dataset, TransactionData) and window.dataset.n_records == 40
    summary = window.datasets.summary.text()
    assert "records: 40" in summary and "distinct items: 13" in summary
    lengths = window.datasets.length_plot.series["records"]
    assert lengths.y.sum() == 40
    ranks = window.datasets.frequency_plot.series["items"]
    assert list(ranks.x[:3]) == [1, 2, 3] and ranks.y[0] >= ranks.y[-1]
    assert window.jobs.state_text(window.datasets.last_job) == "done"
    for bench in window.workbenches:
        assert bench.dataset is window.dataset


def test_bad_file_shows_error_and_keeps_previous_dataset(window, wait_job, data_dir, dialogs):
    load(window, wait_job, data_dir / "gui" / "tiny.dat")
    good = window.dataset
    job = load(window, wait_job, data_dir / "gui" / "bad.dat")
    assert job.state.value == "failed"
    kind, title, text = dialogs[-1]
    assert kind == "critical" and "bad.dat" in title
    assert text == "bad.dat, line 3: 'x7' is not an integer item"
    assert window.dataset is good
    assert "records: 40" in window.datasets.summary.text()
    assert window.jobs.state_text(job).startswith("failed")
    # Still usable: the next load works.
    load(window, wait_job, data_dir / "gui" / "tiny.dat")
    assert window.dataset is not good and window.dataset.n_records == 40


def test_recent_files_persist_in_the_test_settings(window, wait_job, data_dir, tmp_path, isolated_settings):
    copy = tmp_path / "copy.dat"
    shutil.copy(data_dir / "gui" / "tiny.dat", copy)
    load(window, wait_job, copy)
    assert RecentFiles(open_settings()).paths() == [str(copy.resolve())]
    assert [a.text() for a in window.recent_menu.actions()][0] == str(copy.resolve())
    assert (isolated_settings / "anonstudio.ini").exists()


def test_layout_is_saved_on_close(qtbot, dialogs):
    from anonstudio.gui.main_window import MainWindow

    w = MainWindow(warm_up=False, restore_layout=False)
    qtbot.addWidget(w)
    w.show()
    w.jobs_dock.hide()
    geometry = w.saveGeometry()
    w.close()
    settings = open_settings()
    assert settings.value("window/geometry") == geometry
    assert settings.value("window/state") is not None
    again = MainWindow(warm_up=False)
    qtbot.addWidget(again)
    again.show()
    assert again.jobs_dock.isHidden() and not again.datasets_dock.isHidden()
    fresh = MainWindow(warm_up=False, restore_layout=False)
    qtbot.addWidget(fresh)
    fresh.show()
    assert not fresh.jobs_dock.isHidden()


def test_warm_up_runs_as_a_job(qtbot, dialogs, wait_job):
    from anonstudio.gui.main_window import MainWindow

    w = MainWindow(warm_up=True, restore_layout=False)
    qtbot.addWidget(w)
    wait_job(w.warm_up_job, timeout=120000)
    assert w.warm_up_job.state.value == "done"
    assert w.jobs.state_text(w.warm_up_job) == "done"
    w.runner.shutdown()


def test_help_menus_show_references(window, dialogs):
    window.show_references()
    window.show_about()
    kinds = [d[0] for d in dialogs]
    assert kinds == ["about", "about"]
    assert "Probabilistic k<sup>m</sup>-anonymity" in dialogs[0][2]
