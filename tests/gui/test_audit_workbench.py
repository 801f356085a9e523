"""The Audit tab: a release file and a finished run audited, a false claim's counterexample selected in the data
view, the audit run kept by a saved project."""
from __future__ import annotations

import pytest

from anonstudio.glossary import meaning
from anonstudio.gui.main_window import MainWindow
from anonstudio.gui.workbenches.audit import AuditWorkbench
from anonstudio.gui.workbenches.uniqueness.workbench import UniquenessWorkbench

SETS = [{1, 2, 3}, {1, 2}, {1, 2, 3}, {2, 3}, {3, 4}, {1, 2, 4}, {4}, {2, 3, 4}, {1, 3}, {1, 2, 3, 4}]


@pytest.fixture
def opened(window, wait_job, tmp_path):
    """The window on orig.dat, with rel.dat (item 4 suppressed) beside it; the Audit tab in front."""
    (tmp_path / "orig.dat").write_text("".join(" ".join(map(str, sorted(s))) + "\n" for s in SETS))
    (tmp_path / "rel.dat").write_text("".join(" ".join(map(str, sorted(s - {4}))) + "\n" for s in SETS))
    wait_job(window.open_dataset(tmp_path / "orig.dat"))
    bench = window.workbench(AuditWorkbench)
    window.tabs.setCurrentWidget(bench)
    return window, bench, tmp_path


def _audit(bench, wait_job, **values):
    for name, value in values.items():
        bench.param_panel.set_value(name, value)
    bench.param_panel.run_button.click()
    wait_job(bench.job, timeout=60000)
    return bench.last_run


def test_an_audit_of_a_release_file_draws_the_curves_and_the_utility(opened, wait_job):
    window, bench, folder = opened
    run = _audit(bench, wait_job, release=folder / "rel.dat", m=2, k=3, queries=20)
    assert run.status == "done" and bench.callout.state == "ok"
    x, y = bench.plot.series["prosecutor risk"].item.getData()
    assert list(x) == [1, 2]
    assert list(y) == pytest.approx([level.prosecutor_risk.value for level in run.result.levels])
    assert bench.table.rowCount() == 2 and bench.table.item(0, 1).text() == "exact"
    utility = bench.utility_label.text()
    assert "Count-query error" in utility and "Frequency distortion" in utility
    assert meaning("frequency_distortion")[:40] in utility
    assert not bench.counter_box.isVisibleTo(bench)


def test_a_false_claim_shows_the_counterexample_and_selects_the_person(opened, wait_job, qtbot):
    window, bench, folder = opened
    run = _audit(bench, wait_job, release=folder / "rel.dat", m=2, k=3, queries=10, claim_k=5, claim_m=2)
    assert run.status == "not-met" and bench.callout.state == "failed"
    assert bench.callout.text().startswith("<b>Independent check FAILED</b>")
    person = run.result.counterexample["person"]
    assert bench.counter_box.isVisibleTo(bench)
    assert f"Person #{person}" in bench.counterexample.text()
    assert bench.show_record_button.text() == f"Show person #{person} in the data view"
    bench.show_record_button.click()
    qtbot.waitUntil(lambda: bool(window.datasets.data_views.windows), timeout=5000)
    view = window.datasets.data_views.windows[0].view
    assert view.table.selected_data_row() == person - 1


def test_a_finished_run_of_another_tab_is_audited(opened, wait_job):
    window, bench, folder = opened
    from anonstudio.gui.workbenches.kmanon.workbench import KmAnonWorkbench

    km = window.workbench(KmAnonWorkbench)
    km.param_panel.set_value("k", 2)
    km.param_panel.set_value("m", 2)
    km.param_panel.run_button.click()
    wait_job(km.job, timeout=60000)
    assert km.last_run.status == "done"
    assert bench.sources == [km.last_run] and bench.use_button.isEnabled()
    bench.release_folder = folder / "releases"
    bench.use_selected_source()
    values = bench.param_panel.values()
    assert values["release"].parent.parent == folder / "releases" and values["map"] is not None
    run = _audit(bench, wait_job, m=2, k=2, claim_k=2, claim_m=2, queries=10)
    # The release σ-k^m promised (k = 2, m = 2) passes the evaluator's audit.
    assert run.status == "done" and run.verification.passed, bench.callout.text()
    assert run.result.evaluation.kind == "generalized"
    # Saved, the project keeps a copy of that release beside it and names it relatively: the studio's own
    # folder is no place a shared project can point at.
    (folder / "proj").mkdir()
    assert window.projects._write(folder / "proj" / "audit.toml")
    text = (folder / "proj" / "audit.toml").read_text()
    assert 'release = "releases/kmanon-' in text and str(folder / "releases") not in text
    assert (folder / "proj" / values["release"].relative_to(folder)).read_bytes() == values["release"].read_bytes()


def test_a_saved_project_reopens_with_the_audit_run(opened, wait_job, qtbot, tmp_path):
    window, bench, folder = opened
    run = _audit(bench, wait_job, release=folder / "rel.dat", m=2, k=3, queries=10, claim_k=5)
    cache = window.projects.cache
    qtbot.waitUntil(lambda: cache.get(bench.spec, run.params, run.data) is not None, timeout=10000)
    window.projects._write(tmp_path / "audit.toml")
    assert "[workbenches.audit]" in (tmp_path / "audit.toml").read_text()
    window.close()
    again = MainWindow(warm_up=False, restore_layout=False)
    qtbot.addWidget(again)
    again.show()
    wait_job(again.open_project(tmp_path / "audit.toml"))
    reopened = again.workbench(AuditWorkbench)
    qtbot.waitUntil(lambda: reopened.last_run is not None, timeout=10000)
    assert reopened.last_run.cached and reopened.last_run.status == "not-met"
    assert reopened.param_panel.params().claim_k == 5
    assert reopened.counter_box.isVisibleTo(reopened)
    assert reopened.last_run.to_json()["levels"] == run.to_json()["levels"]
    again.runner.shutdown(10000)


def test_the_attack_demo_replays_the_attack_on_a_release(opened, wait_job):
    window, _, folder = opened
    demo = window.workbench(UniquenessWorkbench).attack_demo
    demo.load_release(folder / "rel.dat", from_file=True)
    wait_job(window.workbench(UniquenessWorkbench).job)
    assert demo.release is not None and demo.release_box.currentText() == "file: rel.dat"
    demo.person_box.setValue(10)
    demo.order_box.setCurrentIndex(1)  # rarest first
    demo.start()
    while not demo._finished():
        demo.reveal_next()
    original = demo.plot.series["in the original"].y
    release = demo.plot.series["in the release"].y
    assert original[-1] == 1 and release[0] == len(SETS)
    # Item 4 (the rarest) is suppressed in the release: no record holds it; 0 is drawn at 0.5 on the log axis.
    assert list(release[1:]) == [max(c, 0.5) for c in demo.after.matches] and demo.after.matches[0] == 0
    assert "the attack finds no one" in demo.verdict.text() and demo.verdict.state == "ok"
