"""Group anonymization workbench: a run, its release beside the original, the plots, the check, and the
hand-over of its release to the Threats tab."""
from __future__ import annotations

import numpy as np
import pytest

from anonstudio.data.table import Table
from anonstudio.gui.workbenches.group_anonymize import GroupAnonymizeWorkbench
from anonstudio.gui.workbenches.threat import ThreatWorkbench
from anonstudio.methods.contract import CHECK_PASSED
from tests.reference import group_anonymize_reference as ref


@pytest.fixture(scope="module")
def adult200() -> Table:
    from anonstudio.data.samples import load_sample

    table = load_sample("adult")
    frame = table.frame.dropna().iloc[:200].reset_index(drop=True)
    return Table(frame, dict(table.roles), "adult-200", None)


@pytest.fixture
def group(window, adult200, wait_job) -> GroupAnonymizeWorkbench:
    bench = window.workbench(GroupAnonymizeWorkbench)
    window.tabs.setCurrentWidget(bench)
    window.set_dataset(adult200)
    for name, value in {"k": 5, "l": 2, "qi": ("age", "sex", "race", "education")}.items():
        bench.param_panel.set_value(name, value)
    assert bench.param_panel.error == ""
    bench.param_panel.run_button.click()
    wait_job(bench.job, timeout=60000)
    assert bench.last_run is not None and bench.last_run.status == "done"
    return bench


def test_a_run_shows_release_plots_and_check_in_the_contracts_words(group):
    run = group.last_run
    release, table = run.result.release, run.result.table
    # The callout and the check view say the verdict as the CLI does.
    assert group.callout.text().startswith(f"<b>{CHECK_PASSED}</b>: ")
    assert run.spec.report_lines(run)[1].startswith(f"{CHECK_PASSED}: ")
    assert group.check_view.verdict_label.text().startswith(f"<b>{CHECK_PASSED}</b>")
    assert group.check_view.found("every group holds at least k = 5 rows") == "yes"
    assert group.check_view.found("rows outside") == "0"
    # The slow reference confirms what the tab shows.
    columns = (release.qi, release.sensitive)
    assert ref.check_release(table.frame, release, 5, 2) == (True, True, True), columns
    # Release beside the original, row for row.
    view = group.side_by_side
    assert view.comparison is not None and view.comparison.original.n_rows == table.n_rows
    assert view.select_row(3)
    assert view.detail.text().startswith(f"Row 4 is in group {release.row_group[3] + 1} of {release.n_groups}")
    # Group sizes: one count per group, none below k; NCP per quasi-identifier, as the reference computes it.
    sizes = group.size_plot
    assert sizes.series["groups"].y.sum() == release.n_groups and sizes.edges[0] >= 5 - 0.5
    assert "smallest" in sizes.caption and "(k = 5)" in sizes.caption
    ncp = group.ncp_plot
    assert ncp.columns == list(release.qi)
    assert np.mean(ncp.series["NCP"].y) == pytest.approx(ref.ncp(table.frame, release), abs=1e-9)
    assert ncp.csv_text().splitlines()[0] == "quasi-identifier,NCP"
    assert ncp.plot_item.getAxis("bottom").labelText.startswith("NCP")
    assert sizes.plot_item.getAxis("bottom").labelText == "group size [rows]"
    assert group.export_row.buttons["release"].isEnabled()


def test_threats_analyses_the_release_of_the_group_tab(window, group, wait_job):
    threat = window.workbench(ThreatWorkbench)
    window.tabs.setCurrentWidget(threat)
    button = threat.use_group_button
    assert button.isEnabled() and "Mondrian, k = 5" in button.toolTip()
    for name, value in {"iterations": 300, "burn_in": 100, "thinning": 1, "chains": 1}.items():
        threat.param_panel.set_value(name, value)
    button.click()
    assert threat.job is not None and not button.isEnabled()  # one analysis at a time
    wait_job(threat.job, timeout=120000)
    run, made = threat.last_run, group.last_run.result
    assert run.status == "done" and run.result.estimates is not None and run.result.estimates.complete
    # The very release of the Group tab: same rows, same groups, same cells.
    assert run.result.release.release.same_as(made.release) and run.result.table.n_rows == made.table.n_rows
    values = threat.param_panel.values()
    assert values["scheme"] == "mondrian" and values["k"] == 5 and values["qi"] == tuple(made.release.qi)
    assert threat.callout.text().startswith(f"<b>{CHECK_PASSED}</b>: ")
    # A new dataset withdraws the offer: the release belongs to the table it was made of.
    window.set_dataset(Table(made.table.frame.iloc[:50].copy(), dict(made.table.roles), "other", None))
    assert threat.group_run is None and not button.isEnabled()


def test_the_offer_needs_a_checked_release_of_this_table(window, adult200):
    threat = window.workbench(ThreatWorkbench)
    window.set_dataset(adult200)
    assert not threat.use_group_button.isEnabled() and "Group anonymization tab first" in \
        threat.use_group_button.toolTip()
