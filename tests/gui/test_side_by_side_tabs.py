"""The σ-k^m and Threats workbenches show the original beside the published rows once a run has finished."""
from __future__ import annotations

from anonstudio.gui.workbenches.kmanon.workbench import KmAnonWorkbench
from anonstudio.gui.workbenches.threat.workbench import ThreatWorkbench


def _run_example(window, bench, wait_job):
    data, params = bench.spec.example()
    window.set_dataset(data)
    window.tabs.setCurrentWidget(bench)
    bench.param_panel.set_params(params)
    bench.param_panel.run_button.click()
    wait_job(bench.job, timeout=120000)
    assert bench.last_run.status == "done"
    return data


def test_kmanon_builds_its_comparison_when_the_tab_is_opened(window, wait_job, qtbot):
    bench = window.workbench(KmAnonWorkbench)
    data = _run_example(window, bench, wait_job)
    view = bench.side_by_side
    assert view.comparison is None  # nothing is built for a tab nobody opened
    bench.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.comparison is not None, timeout=5000)
    assert view.comparison.original.n_rows == data.n_records
    bench.clear_results()
    assert view.comparison is None


def test_threats_shows_the_release_beside_the_table(window, wait_job, qtbot):
    bench = window.workbench(ThreatWorkbench)
    _run_example(window, bench, wait_job)
    view = bench.side_by_side
    bench.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.comparison is not None, timeout=5000)
    run = bench.last_run.result
    assert view.comparison.published.n_rows == run.release.table.n_rows
