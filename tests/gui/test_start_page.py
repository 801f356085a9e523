"""The start page: each of its four entries ends in the right workbench with the data loaded."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from anonstudio.data.samples import load_sample
from anonstudio.gui.start_page import (
    FAMILY_REASONS,
    TASKS,
    data_kind,
    fitting_families,
    items_file_families,
    one_line,
)
from anonstudio.methods.contract import discover_methods


@pytest.fixture
def start(qtbot, dialogs):
    """A window opened on its start page, as ``anonstudio`` with no argument opens it."""
    from anonstudio.gui.main_window import MainWindow

    w = MainWindow(warm_up=False, restore_layout=False, start_page=True)
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    yield w
    w.runner.shutdown(10000)


def on_start_page(window) -> bool:
    return window.start_page.stack.currentWidget() is window.start_page


def follow(qtbot, window, key: str, sample: str) -> None:
    """Click entry ``key`` and load ``sample`` from its data step; wait for the page to move on."""
    page = window.start_page
    qtbot.mouseClick(page.entries[key], Qt.LeftButton)
    assert page.steps.currentWidget() is page.data_step
    page.sample_box.setCurrentIndex(page.sample_box.findData(sample))
    qtbot.mouseClick(page.sample_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: window.dataset is not None and window.dataset.name == sample, timeout=10000)


def test_start_page_shows_four_entries_and_hides_the_docks(start):
    assert on_start_page(start)
    assert [b.text() for b in start.start_page.entries.values()] == [t.title for t in TASKS]
    assert start.datasets_dock.isHidden() and start.params_dock.isHidden()
    from anonstudio.gui.accessibility import unnamed

    assert not unnamed(start.start_page)
    samples = start.start_page.sample_list
    assert samples.count() >= 6 and "Chess endgames" in samples.item(2).text()


def test_risk_opens_the_risk_tab_on_the_data(qtbot, start):
    follow(qtbot, start, "risk", "chess")
    qtbot.waitUntil(lambda: not on_start_page(start))
    bench = start.tabs.currentWidget()
    assert bench.spec.name == "uniqueness" and bench.dataset is start.dataset
    assert not start.params_dock.isHidden()  # the docks are back
    assert f"press “{bench.RUN_TEXT}”" in start.statusBar().currentMessage()


def test_publish_offers_the_families_that_fit_and_opens_the_chosen_one(qtbot, start):
    page = start.start_page
    follow(qtbot, start, "publish", "sports-example")
    qtbot.waitUntil(lambda: page.steps.currentWidget() is page.family_step)
    assert on_start_page(start)
    assert set(page.family_buttons) == {"kmanon", "rho", "nonreciprocal"}
    assert page.family_buttons["rho"].description() == FAMILY_REASONS["rho"]
    assert page.family_buttons["rho"].accessibleName()
    # Choosing among the families builds no tab; the chosen one is built when it opens (with the data).
    built = {type(b).__name__ for b in start.built_workbenches()}
    assert "NonreciprocalWorkbench" not in built and len(built) == 1, built
    qtbot.mouseClick(page.family_buttons["nonreciprocal"], Qt.LeftButton)
    assert not on_start_page(start)
    bench = start.tabs.currentWidget()
    assert bench.spec.name == "nonreciprocal" and bench.dataset is start.dataset
    assert len(start.built_workbenches()) == 2


def test_check_a_release_fills_the_audit_tab(qtbot, start, tmp_path, monkeypatch):
    page = start.start_page
    release = tmp_path / "release.dat"
    release.write_text("1 2\n1 2\n2 3\n2 3\n1 4\n1 4\n", encoding="utf-8")
    follow(qtbot, start, "check", "sports-example")
    qtbot.waitUntil(lambda: page.steps.currentWidget() is page.release_step)
    monkeypatch.setattr("anonstudio.gui.start_page.open_file_dialog", lambda *a, **k: release)
    qtbot.mouseClick(page.release_button, Qt.LeftButton)
    assert not on_start_page(start)
    bench = start.tabs.currentWidget()
    assert bench.spec.name == "audit" and bench.dataset is start.dataset
    assert Path(bench.param_panel.values()["release"]) == release
    assert "release.dat" in start.statusBar().currentMessage()


def test_attack_opens_the_linkage_attack_demo(qtbot, start):
    page = start.start_page
    # The demo takes set-valued data only: no table is offered.
    page.start_task("attack")
    offered = {page.sample_box.itemData(i) for i in range(page.sample_box.count())}
    assert "chess" in offered and "adult" not in offered and "small-clinic" not in offered
    follow(qtbot, start, "attack", "sports-example")
    qtbot.waitUntil(lambda: not on_start_page(start))
    bench = start.tabs.currentWidget()
    assert bench.tabs.currentWidget() is bench.attack_demo
    assert bench.attack_demo.dataset is start.dataset
    assert "Start attack" in start.statusBar().currentMessage()


def test_help_start_page_reopens_it_with_the_recent_projects(qtbot, start, tmp_path):
    follow(qtbot, start, "risk", "chess")
    qtbot.waitUntil(lambda: not on_start_page(start))
    project = tmp_path / "survey.anonstudio.toml"
    start.projects.recent.add(project)
    start.start_page_action.trigger()
    assert on_start_page(start) and start.params_dock.isHidden()
    items = start.start_page.recent_list
    assert items.count() == 1 and items.item(0).toolTip() == str(project.resolve())
    qtbot.mouseClick(start.start_page.skip_button, Qt.LeftButton)
    assert not on_start_page(start) and not start.params_dock.isHidden() and not start.datasets_dock.isHidden()


def test_the_layout_saved_on_the_start_page_keeps_the_docks(start):
    assert start.datasets_dock.isHidden()
    start.save_layout()  # as closing the window does: the state saved is the workbenches', docks shown
    assert not start.datasets_dock.isHidden() and not start.params_dock.isHidden()
    assert not on_start_page(start)


def test_a_dataset_loaded_from_the_menus_leaves_the_start_page(qtbot, start):
    start.datasets.load_sample("sports-example")
    qtbot.waitUntil(lambda: not on_start_page(start), timeout=10000)


def test_a_plain_window_does_not_open_on_the_start_page(window):
    assert not on_start_page(window)


@pytest.mark.parametrize(("sample", "kind", "families"), [
    ("chess", "set-valued", {"kmanon", "rho", "nonreciprocal"}),
    ("adult", "table", {"group-anonymize"}),
    ("small-clinic", "table with items", {"rt"}),
])
def test_fitting_families_follow_the_data_kind(sample, kind, families):
    data = load_sample(sample)
    assert data_kind(data) == kind
    specs = list(discover_methods().values())
    assert {s.name for s in fitting_families(data, specs)} == families
    # RT also takes a plain table with a separate file of each person's items.
    assert {s.name for s in items_file_families(data, specs)} == ({"rt"} if kind == "table" else set())


def test_one_line_keeps_a_short_first_sentence_and_cuts_a_long_one():
    assert one_line("Six people. And more.") == "Six people."
    long = "word " * 60
    cut = one_line(long)
    assert cut.endswith("…") and len(cut) <= 121
