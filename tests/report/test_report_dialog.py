"""File › Export report…: the dialog, its checks, the background job and Cancel; the workbench hook it relies on."""
from __future__ import annotations

import time

import pytest

from anonstudio.studio.report import INTERNAL_LABEL
from tests.report.report_helpers import parse, text_of

pytest.importorskip("pytestqt")

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    from anonstudio.gui.main_window import MainWindow
    from anonstudio.gui.settings import SETTINGS_ENV

    monkeypatch.setenv(SETTINGS_ENV, str(tmp_path / "settings"))
    w = MainWindow(warm_up=False, restore_layout=False)
    qtbot.addWidget(w)
    w.show()
    yield w
    assert w.runner.shutdown(10000)


def _bench(window, name):
    return window.workbench(name)


def _ran(window, qtbot, project_runs, name="uniqueness"):
    """The workbench of ``name`` showing the project's run of it (as after Run)."""
    run = project_runs.runs[name]
    window.set_dataset(run.data)
    bench = _bench(window, name)
    bench.param_panel.set_params(run.params)
    bench.param_panel.run_button.click()
    qtbot.waitUntil(lambda: bench.last_run is not None, timeout=60000)
    return bench


def _dialog(window, qtbot):
    from anonstudio.gui.report_dialog import ReportDialog

    window.report_action.trigger()
    dialogs = window.findChildren(ReportDialog)
    assert len(dialogs) == 1
    qtbot.addWidget(dialogs[0])
    return dialogs[0]


def test_the_dialog_offers_each_workbench_and_writes_both_files(window, qtbot, project_runs, tmp_path):
    bench = _ran(window, qtbot, project_runs)
    dialog = _dialog(window, qtbot)
    boxes = {box.text().split(":")[0]: box for box, _run in dialog.run_boxes}
    assert boxes[bench.TITLE].isChecked() and boxes[bench.TITLE].isEnabled()
    others = [box for title, box in boxes.items() if title != bench.TITLE]
    assert others and all(not box.isEnabled() and "no finished run yet" in box.text() for box in others)
    html, pdf = tmp_path / "r.html", tmp_path / "c.pdf"
    dialog.html_row.set_path(html)
    dialog.pdf_box.setChecked(True)
    dialog.pdf_row.set_path(pdf)
    dialog.write_button.click()
    assert dialog.running and not dialog.write_button.isEnabled() and dialog.cancel_button.isVisible()
    qtbot.waitUntil(lambda: not dialog.running, timeout=60000)
    assert dialog.written == [f"report (external) written to {html}", f"certificate written to {pdf} (2 pages)"]
    assert dialog.progress.value() == 1000 and "Done" in dialog.status_label.text()
    tree = parse(html.read_text("utf-8"))
    assert len(list(tree.iter("img"))) >= 2
    assert bench.last_run.dataset.sha256 in text_of(tree)
    assert pdf.read_bytes().startswith(b"%PDF-")


def test_internal_warns_in_plain_words_and_bad_paths_are_refused(window, qtbot, project_runs, tmp_path):
    from anonstudio.gui.report_dialog import INTERNAL_WARNING

    _ran(window, qtbot, project_runs)
    dialog = _dialog(window, qtbot)
    assert dialog.flavour_note.property("role") == "note"
    dialog.internal_box.setChecked(True)
    assert dialog.flavour_note.text() == INTERNAL_WARNING and dialog.flavour_note.property("role") == "problem"
    assert INTERNAL_LABEL in INTERNAL_WARNING
    same = tmp_path / "same"
    dialog.html_row.set_path(same)
    dialog.pdf_box.setChecked(True)
    dialog.pdf_row.set_path(same)
    dialog.start()
    assert "two different files" in dialog.status_label.text() and not dialog.running
    dialog.pdf_box.setChecked(False)
    dialog.html_row.set_path(tmp_path / "nowhere" / "r.html")
    dialog.start()
    assert "does not exist" in dialog.status_label.text() and not dialog.running
    assert not same.exists()


def test_cancel_while_drawing_or_writing_writes_nothing(window, qtbot, project_runs, tmp_path, monkeypatch):
    from anonstudio.gui import report_dialog

    _ran(window, qtbot, project_runs)
    dialog = _dialog(window, qtbot)
    html = tmp_path / "r.html"
    dialog.html_row.set_path(html)
    dialog.start()
    dialog.cancel()  # before the first plot is drawn
    qtbot.waitUntil(lambda: not dialog.running, timeout=20000)
    assert dialog.written is None and "nothing was written" in dialog.status_label.text()

    def slow(*args, progress=None, **kwargs):  # the background job, stopped by Cancel at its next check
        while not progress.cancelled():
            time.sleep(0.01)
        return None

    monkeypatch.setattr(report_dialog, "write_report", slow)
    dialog.start()
    qtbot.waitUntil(lambda: dialog.job is not None, timeout=60000)
    dialog.reject()  # Escape while running cancels instead of closing
    assert dialog.isVisible()
    qtbot.waitUntil(lambda: not dialog.running, timeout=20000)
    assert dialog.written is None and not html.exists()


def test_show_run_draws_a_run_computed_elsewhere(window, qtbot, project_runs):
    from anonstudio.gui.plots import ExportablePlot

    run = project_runs.runs["uniqueness"]
    window.set_dataset(run.data)
    bench = _bench(window, "uniqueness")
    with qtbot.assertNotEmitted(bench.run_finished):
        bench.show_run(run)
    assert bench.last_run is run and bench.history == [run]
    assert any(p.has_data() for p in bench.findChildren(ExportablePlot))


def test_the_figures_are_the_plots_a_workbench_shows_after_the_run(window, qtbot, project_runs, figures):
    from PySide6.QtGui import QImage

    from anonstudio.gui.plots import ExportablePlot

    figs, _notes = figures
    for name in ("uniqueness", "threat"):
        bench = _ran(window, qtbot, project_runs, name)
        shown = {p.title for p in bench.findChildren(ExportablePlot) if p.has_data()}
        assert {f.title for f in figs[name]} == shown
        for fig in figs[name]:
            image = QImage.fromData(fig.png)
            assert image.width() > 200 and image.height() > 150
            assert "studio tab: " + bench.TITLE in fig.caption


def test_a_workbench_that_cannot_draw_a_run_costs_the_plots_not_the_report(project_runs, figures, monkeypatch):
    from anonstudio.gui.report_render import run_figures, workbench_class

    def broken(self, result, partial):
        raise RuntimeError("planted drawing fault")

    monkeypatch.setattr(workbench_class("uniqueness"), "show_result", broken)
    figs, note = run_figures(project_runs.runs["uniqueness"])
    assert figs == [] and "could not draw this run" in note and "planted drawing fault" in note


def test_cancel_before_a_worker_starts_the_job_still_finishes_the_dialog(window, qtbot, project_runs, tmp_path):
    """A job cancelled while it waits for a free worker never runs (no on_done): the dialog must still stop."""
    import threading

    _ran(window, qtbot, project_runs)
    dialog = _dialog(window, qtbot)
    html = tmp_path / "r.html"
    dialog.html_row.set_path(html)
    release = threading.Event()
    pool = window.runner.pool
    blockers = [window.runner.submit(f"blocker {i}", lambda progress: release.wait(30), key=f"blocker-{i}")
                for i in range(pool.maxThreadCount())]
    try:
        qtbot.waitUntil(lambda: pool.activeThreadCount() == pool.maxThreadCount(), timeout=20000)
        dialog.start()
        qtbot.waitUntil(lambda: dialog.job is not None, timeout=60000)
        dialog.cancel()
    finally:
        release.set()
    qtbot.waitUntil(lambda: all(b.state.finished for b in blockers), timeout=20000)
    qtbot.waitUntil(lambda: not dialog.running, timeout=20000)
    assert dialog.written is None and "nothing was written" in dialog.status_label.text() and not html.exists()
