"""Every discovered method workbench keeps the GUI contract: a new family's tab gets these tests for free."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from anonstudio.data.table import Table
from anonstudio.data.transactions import TransactionData
from anonstudio.gui.method_workbench import MethodWorkbench
from anonstudio.gui.plots import ExportablePlot
from anonstudio.gui.workbenches import discover_workbenches

CLASSES = [cls for cls in discover_workbenches()[0] if issubclass(cls, MethodWorkbench)]


def _wrong_kind(bench):
    """A dataset the tab does not take (None: it takes both kinds, as the Audit tab does)."""
    table = Table(pd.DataFrame({"age": [30, 40, 50]}), {}, "ages", None)
    baskets = TransactionData.from_id_lists([[0, 1], [1]], n_items=2, vocab=("a", "b"), name="baskets")
    return next((d for d in (table, baskets) if not bench.accepts(d)), None)


@pytest.fixture(params=CLASSES, ids=lambda cls: cls.SPEC)
def bench(request, qtbot, runner):
    widget = request.param(runner)
    qtbot.addWidget(widget)
    widget.resize(1280, 720)
    widget.show()
    return widget


def families_without_a_tab(classes, families) -> list[str]:
    """The method families (spec names) no workbench class is for."""
    return sorted(set(families) - {cls.SPEC for cls in classes})


def test_every_family_has_a_workbench():
    # Every discovered method family gets a tab: a family without one fails here, naming it.
    from anonstudio.methods.contract import discover_methods

    families = set(discover_methods())
    assert families_without_a_tab(CLASSES, families) == []
    assert {cls.SPEC for cls in CLASSES} <= families, "a workbench of no discovered family"
    assert len({cls.ORDER for cls in CLASSES}) == len(CLASSES)


def test_the_check_names_a_family_without_a_tab():
    from anonstudio.methods.contract import discover_methods

    assert families_without_a_tab(CLASSES, [*discover_methods(), "toy-family"]) == ["toy-family"]
    without_group = [cls for cls in CLASSES if cls.SPEC != "group-anonymize"]
    assert families_without_a_tab(without_group, discover_methods()) == ["group-anonymize"]


def test_survives_no_dataset_and_a_dataset_of_the_wrong_kind(bench):
    bench.set_dataset(None)
    assert bench.dataset is None and not bench.param_panel.run_button.isEnabled()
    wrong = _wrong_kind(bench)
    if wrong is None:
        return
    bench.set_dataset(wrong)
    assert bench.dataset is None and "works on" in bench.empty_label.text() and wrong.name in bench.empty_label.text()
    assert not bench.param_panel.run_button.isEnabled()


def test_run_with_defaults_then_cancel(bench, wait_job):
    data, _ = bench.spec.example()
    bench.set_dataset(data)
    assert bench.param_panel.error == "", bench.param_panel.error
    bench.param_panel.run_button.click()
    wait_job(bench.job, timeout=120000)
    run = bench.last_run
    assert run is not None and run.status == "done", run.status_reason() if run else "no run"
    assert bench.callout.state == "ok" and bench.export_row.buttons["json"].isEnabled()
    # File › Export plot asks every tab for its plots: a family attribute must not hide the method.
    plots = bench.plots()
    assert plots and all(isinstance(p, ExportablePlot) for p in plots)
    for export in bench.spec.exports:
        if export.kind == "release" and export.offered(run):
            assert bench.export_row.buttons[export.key].isEnabled()
    # Cancel right away: the job stops, nothing claims to be finished.
    bench.param_panel.run_button.click()
    job = bench.job
    bench.param_panel.cancel_button.click()
    wait_job(job, timeout=120000)
    if bench.last_run is not None and job.state.value == "cancelled":
        assert bench.last_run.status == "cancelled" and bench.callout.state == "incomplete"


def test_state_round_trip(bench, qtbot, runner):
    data, params = bench.spec.example()
    bench.set_dataset(data)
    bench.param_panel.set_params(params)
    state = bench.state()
    assert state["schema"] == bench.spec.params_schema and state["method"] == bench.spec.name
    json.dumps(state)  # ready for a project file
    other = type(bench)(runner)
    qtbot.addWidget(other)
    other.set_dataset(data)
    other.restore(json.loads(json.dumps(state)))
    assert other.param_panel.params() == params
    with pytest.raises(ValueError):
        other.restore({**state, "method": "something-else"})
    with pytest.raises(ValueError):
        other.restore({**state, "schema": bench.spec.params_schema + 1})
