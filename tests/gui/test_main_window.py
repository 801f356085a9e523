"""Main window: loading files as jobs, bad files, recent files, layout persistence."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from anonstudio.data.transactions import TransactionData
from anonstudio.gui.settings import RecentFiles, open_settings
from anonstudio.gui.workbench import Workbench


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
        assert bench.dataset is (window.dataset if bench.accepts(window.dataset) else None)


def test_repaired_input_is_reported_in_the_summary(window, wait_job, tmp_path):
    path = tmp_path / "dups.dat"
    path.write_text("1 2 2\n3 4\n5 5 6\n")
    load(window, wait_job, path)
    assert window.dataset.record_labels(0) == ["1", "2"]
    summary = window.datasets.summary.text()
    assert "⚠" in summary and "2 records had duplicate items" in summary


def test_bad_file_shows_error_and_keeps_previous_dataset(window, wait_job, data_dir, dialogs):
    load(window, wait_job, data_dir / "gui" / "tiny.dat")
    good = window.dataset
    job = load(window, wait_job, data_dir / "gui" / "bad.dat")
    assert job.state.value == "failed"
    kind, title, text = dialogs[-1]
    assert kind == "critical" and "bad.dat" in title
    assert text.startswith("bad.dat, line 3: 'x7' is not an integer item\n\nNothing was changed: “tiny.dat” is "
                           "still loaded. What to do: Fix that line of the file, or change how it is read")
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
    from anonstudio.gui.dataset_bar import WIDE
    from anonstudio.gui.main_window import MainWindow

    w = MainWindow(warm_up=False, restore_layout=False)
    qtbot.addWidget(w)
    w.show()
    w.show_jobs()  # the jobs dock starts closed; the user opened it
    w.datasets_dock.hide()
    geometry = w.saveGeometry()
    w.close()
    settings = open_settings()
    assert settings.value("window/geometry") == geometry
    assert settings.value("window/state") is not None
    again = MainWindow(warm_up=False)
    qtbot.addWidget(again)
    again.show()
    assert not again.jobs_dock.isHidden() and again.datasets_dock.isHidden()
    fresh = MainWindow(warm_up=False, restore_layout=False)
    qtbot.addWidget(fresh)
    fresh.show()
    # Below 1440 px the datasets dock starts folded into the dataset bar.
    assert fresh.jobs_dock.isHidden() and fresh.datasets_dock.isHidden() == (fresh.width() < WIDE)
    # Closed, the dock's work is in the status bar: the newest job, its progress and Cancel.
    assert fresh.job_status.jobs_button.isVisible()


def test_warm_up_runs_as_a_job_behind_a_status_message(qtbot, dialogs, wait_job, monkeypatch):
    # Compiling every kernel takes long and is tested with the kernels; here
    # only the window's wiring: a background job and status-bar messages.
    from anonstudio.gui.main_window import MainWindow
    from anonstudio.kernels import warmup

    def fake_warm_up_all(progress):
        progress.set(0.5, "compiling support kernels")
        return {"support": 0.25, "sampler": 0.5}

    monkeypatch.setattr(warmup, "warm_up_all", fake_warm_up_all)
    w = MainWindow(warm_up=True, restore_layout=False)
    qtbot.addWidget(w)
    assert w.statusBar().currentMessage().startswith("Compiling numerical kernels in the background")
    assert not w.runner.kernels_ready.is_set()  # analyses started now wait for it, saying so
    wait_job(w.warm_up_job)
    assert w.jobs.state_text(w.warm_up_job) == "done" and w.runner.kernels_ready.is_set()
    assert w.statusBar().currentMessage() == "Kernels ready (0.8 s)."
    w.runner.shutdown()


def test_an_analysis_started_during_the_warm_up_waits_and_says_so(qtbot, dialogs, wait_job, data_dir):
    import threading

    from anonstudio.gui.main_window import MainWindow
    from anonstudio.gui.workbenches.uniqueness import UniquenessWorkbench

    w = MainWindow(warm_up=False, restore_layout=False)
    qtbot.addWidget(w)
    w.runner.kernels_ready.clear()  # as if the first start's compilation were still running
    wait_job(w.open_dataset(data_dir / "gui" / "tiny.dat"))
    bench = w.workbench(UniquenessWorkbench)
    bench.param_panel.set_value("max_m", 2)
    bench.param_panel.run_button.click()
    qtbot.waitUntil(lambda: "kernels to compile" in bench.job.status, timeout=5000)
    assert bench.job.eta() is None and not bench.job.state.finished
    threading.Timer(0.3, w.runner.kernels_ready.set).start()
    wait_job(bench.job)
    assert bench.last_run.status == "done" and bench.job.progress.work_started is not None
    w.runner.shutdown()


def test_help_menus_show_references(window, dialogs):
    window.show_references()
    window.show_about()
    kinds = [d[0] for d in dialogs]
    assert kinds == ["about", "about"]
    assert "Probabilistic k<sup>m</sup>-anonymity" in dialogs[0][2]


def test_export_plot_menu_writes_the_chosen_plot(window, wait_job, data_dir, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QInputDialog

    load(window, wait_job, data_dir / "gui" / "tiny.dat")
    answers = iter([("Item frequencies", True), ("Plot data as CSV (*.csv)", True)])
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: next(answers))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "freq"), ""))
    window.export_action.trigger()
    rows = (tmp_path / "freq.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0] == "rank,item,records containing the item"
    assert len(rows) == 1 + 13  # one row per distinct item
    # Each row names its item and its count matches the data.
    data = window.dataset
    for row in rows[1:]:
        rank, label, count = row.split(",")
        assert int(count) == data.item_frequencies[data.vocab.index(label)]


def test_open_dialog_filter_lists_registered_formats(window, monkeypatch, wait_job, data_dir):
    from PySide6.QtWidgets import QFileDialog

    seen = {}

    def fake_open(parent, caption, start, filters):
        seen["filters"] = filters
        return str(data_dir / "gui" / "tiny.dat"), ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", fake_open)
    window.open_action.trigger()
    window.datasets.import_dialog.load_button.click()  # the import preview comes first
    wait_job(window.datasets.last_job)
    assert window.dataset.n_records == 40
    assert "FIMI" in seen["filters"] and "*.dat" in seen["filters"].split(";;")[0]


def test_a_table_explains_why_set_valued_workbenches_do_not_apply(window):
    import pandas as pd

    from anonstudio.data.table import Table
    from anonstudio.gui.workbenches.uniqueness import UniquenessWorkbench

    table = Table(pd.DataFrame({"age": [30, 40], "job": ["a", "b"]}), name="people.csv")
    window.datasets.set_dataset(table)
    bench = window.workbench(UniquenessWorkbench)
    assert bench.dataset is None
    assert "set-valued data" in bench.empty_label.text() and "people.csv" in bench.empty_label.text()
    assert not bench.param_panel.run_button.isEnabled()
    assert "rows: 2" in window.datasets.summary.text()
    assert not window.datasets.length_plot.has_data()
    # No empty "set-valued only" plots for a table, and none offered for export.
    assert not window.datasets.length_plot.isVisible() and not window.datasets.frequency_plot.isVisible()
    assert window.datasets.frequency_plot not in window.all_plots()


def test_dataset_plots_come_back_for_set_valued_data(window, wait_job, data_dir):
    import pandas as pd

    from anonstudio.data.table import Table

    window.datasets.set_dataset(Table(pd.DataFrame({"age": [30, 40]}), name="people.csv"))
    load(window, wait_job, data_dir / "gui" / "tiny.dat")
    # Visible in the panel (the dock itself starts folded on a small screen).
    panel = window.datasets
    assert panel.length_plot.isVisibleTo(panel) and panel.frequency_plot.isVisibleTo(panel)
    assert window.datasets.length_plot.has_data()


def test_bundled_sample_from_the_list_then_uniqueness_points(window, wait_job):
    from PySide6.QtCore import Qt

    from anonstudio.gui.workbenches.uniqueness import UniquenessWorkbench

    samples = window.datasets.samples
    names = [samples.item(i).data(Qt.UserRole) for i in range(samples.count())]
    assert "chess" in names
    samples.itemActivated.emit(samples.item(names.index("chess")))
    wait_job(window.datasets.last_job)
    assert window.dataset.name == "chess" and window.dataset.n_records == 3196
    bench = window.workbench(UniquenessWorkbench)
    bench.param_panel.set_value("max_m", 2)
    bench.param_panel.run_button.click()
    wait_job(bench.job, timeout=60000)
    x, y = bench.itemset_plot.series["exact count"].item.getData()
    assert list(x) == [1, 2] and np.all((y >= 0) & (y <= 1))


def test_double_click_on_a_sample_loads_it_once(window, wait_job, qtbot):
    from PySide6.QtCore import Qt

    samples = window.datasets.samples
    row = [samples.item(i).data(Qt.UserRole) for i in range(samples.count())].index("chess")
    rect = samples.visualItemRect(samples.item(row))
    before = len(window.runner.jobs)
    # A real double-click: press/release, then the double-click event.
    qtbot.mouseClick(samples.viewport(), Qt.LeftButton, pos=rect.center())
    qtbot.mouseDClick(samples.viewport(), Qt.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: len(window.runner.jobs) > before, timeout=3000)
    qtbot.wait(100)
    loads = window.runner.jobs[before:]
    assert [j.title for j in loads] == ["Load sample chess"]
    wait_job(loads[0])
    assert window.dataset.name == "chess"


@pytest.mark.parametrize("size", [(1280, 720), (1366, 768)])
def test_window_fits_small_screens_with_readable_run_buttons(window, qtbot, size):
    from PySide6.QtWidgets import QApplication

    width, height = size
    minimum = window.minimumSizeHint().expandedTo(window.minimumSize())
    assert minimum.width() <= width and minimum.height() <= height, minimum
    window.resize(width, height)
    QApplication.processEvents()
    assert (window.width(), window.height()) == size
    for bench in window.workbenches:
        if bench.param_panel is None:
            continue
        window.tabs.setCurrentWidget(bench)
        QApplication.processEvents()
        button = bench.param_panel.run_button
        assert button.isVisible()
        # Not elided: the button gets at least the width its text needs.
        assert button.width() >= button.sizeHint().width(), (bench.TITLE, button.width(), button.sizeHint())
        assert window.params_dock.width() >= bench.param_panel.minimumSizeHint().width()


def test_default_size_fits_the_available_screen(qtbot, dialogs):
    from anonstudio.gui.main_window import PREFERRED_SIZE, MainWindow

    w = MainWindow(warm_up=False, restore_layout=False)
    qtbot.addWidget(w)
    available = w.screen().availableGeometry()
    assert w.width() <= max(available.width(), w.minimumSizeHint().width())
    assert w.height() <= max(available.height(), w.minimumSizeHint().height())
    assert w.width() <= PREFERRED_SIZE.width() and w.height() <= PREFERRED_SIZE.height()
    w.runner.shutdown(10000)


def test_an_exception_escaping_a_handler_is_reported_once_and_logged(window, monkeypatch):
    import sys

    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    window.install_exception_hook()
    try:
        raise ValueError("boom in a dialog handler")
    except ValueError as exc:
        sys.excepthook(type(exc), exc, exc.__traceback__)
        sys.excepthook(type(exc), exc, exc.__traceback__)
    boxes = [b for b in window.findChildren(QMessageBox) if b.isVisible()]
    assert len(boxes) == 1 and "boom in a dialog handler" in boxes[0].text()
    assert window.jobs.log_view.toPlainText().count("ValueError: boom in a dialog handler") == 2
    assert window.isVisible()
    boxes[0].close()


def test_tabs_are_built_when_first_shown_without_a_window_flashing_up(window, qtbot):
    """The window starts with one workbench built; showing a tab builds it, as a page of the window: no widget of
    it is shown on its own for a moment (which would take the focus, and Ctrl+R, from the studio's window)."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication, QWidget

    assert len(window.built_workbenches()) == 1
    flashed = []

    class Watch(QObject):
        def eventFilter(self, obj, event):  # noqa: N802 (Qt naming)
            if event.type() == QEvent.Show and isinstance(obj, QWidget) and obj.isWindow() and obj is not window:
                flashed.append(f"{type(obj).__name__} {obj.objectName()}")
            return False

    watch = Watch()
    QApplication.instance().installEventFilter(watch)
    try:
        for index in range(window.tabs.count()):
            window.tabs.setCurrentIndex(index)
            qtbot.wait(1)
            assert isinstance(window.tabs.currentWidget(), Workbench)
    finally:
        QApplication.instance().removeEventFilter(watch)
    assert flashed == []
    assert len(window.built_workbenches()) == window.tabs.count()
    assert window.workbenches == window.built_workbenches()
