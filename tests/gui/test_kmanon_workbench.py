"""σ-k^m workbench on the bundled small city: run, map, plots vs m, check, cancel, exports, no coordinates."""
from __future__ import annotations

import html
import json

import numpy as np
import pytest

from anonstudio.data.samples import get_sample, load_sample
from anonstudio.data.transactions import TransactionData
from anonstudio.gui.workbenches.kmanon import KmAnonWorkbench
from anonstudio.gui.workbenches.kmanon.plots import BEST, RUNNING, TRIALS
from anonstudio.gui.workbenches.kmanon.workbench import NO_COORDINATES_TEXT
from anonstudio.gui.workers import JobState
from anonstudio.methods.contract import (
    CHECK_FAILED,
    CHECK_INCOMPLETE,
    CHECK_PASSED,
    get_method,
    run_and_verify,
    verdict,
)
from anonstudio.methods.kmanon.gamma import sample_bound
from anonstudio.methods.kmanon.params import KmAnonParams
from anonstudio.verifiers.kmanon import read_partition_map

# Small enough to run in about a second, strong enough to merge towers at m = 2.
FAST = dict(k=50, m=2, sigma=0.9, trials=1, seed=1, verify_samples=1000)


@pytest.fixture(scope="module")
def city():
    return load_sample("small-city")


@pytest.fixture(scope="module")
def finished_run(city):
    """One complete run with two trials, computed without the GUI, shown by several tests."""
    return run_and_verify(get_method("kmanon"), city, KmAnonParams(**dict(FAST, trials=2)))


@pytest.fixture
def bench(qtbot, runner, city):
    widget = KmAnonWorkbench(runner)
    qtbot.addWidget(widget)
    widget.resize(1200, 900)
    widget.show()
    widget.set_dataset(city)
    return widget


def set_params(bench, **values):
    for name, value in values.items():
        bench.param_panel.set_value(name, value)


def test_run_on_small_city_draws_map_plots_and_check(bench, wait_job):
    set_params(bench, **FAST)
    bench.param_panel.run_button.click()
    wait_job(bench.job, timeout=60000)
    assert bench.job.state is JobState.DONE
    result = bench.last_run.result
    assert result.complete and [lv.level for lv in result.levels] == [1, 2]
    # map: level 0 + two levels, the last one drawn, fewer partitions than towers
    assert bench.map.n_levels == 3 and bench.map.shown_level == 2
    assert bench.map.drawn_partitions == result.levels[-1].partitions < 200
    # plots vs m: one point per level
    for plot in bench.curve_plots.values():
        assert list(plot.series[BEST].x) == [1.0, 2.0]
    assert list(bench.curve_plots["partitions"].series[BEST].y) == [lv.partitions for lv in result.levels]
    assert bench.curve_plots["error"].series[BEST].y[-1] > 0
    assert "[m]" in bench.curve_plots["error"].y_label
    # independent check, one row per ℓ, and the promise in words, green; the verdict in the contract's words
    assert bench.verify_table.rowCount() == 2
    text = bench.callout.text()
    assert "Any 2 towers" in text and "at least 50 people" in text and "≥ 0.9" in text
    assert text.startswith(f"<b>{CHECK_PASSED}</b>: ") and bench.callout.state == "ok"
    assert html.unescape(text.split("<br>")[0].replace("<b>", "").replace("</b>", "")) == verdict(bench.last_run)
    assert all(b.isEnabled() for b in bench.export_row.buttons.values())


def test_level_slider_changes_drawn_partitions(bench, finished_run):
    bench._on_done(finished_run, True)
    final = finished_run.result.final
    bench.map.slider.setValue(0)
    assert bench.map.drawn_partitions == 200
    assert "original data" in bench.map.level_label.text()
    bench.map.slider.setValue(2)
    assert bench.map.drawn_partitions == final.partitions < 200
    assert f"{final.partitions} partitions" in bench.map.level_label.text()


def test_trials_shown_as_points_and_best_as_line(bench, finished_run):
    bench._on_done(finished_run, True)
    plot = bench.curve_plots["error"]
    assert len(plot.series[TRIALS].x) == 4  # 2 trials x 2 levels
    best = [lv.error for lv in finished_run.result.levels]
    assert list(plot.series[BEST].y) == best
    per_level = plot.series[TRIALS].y.reshape(2, 2)  # trial-major
    assert np.allclose(per_level.min(axis=0), best)
    assert len(plot.series[RUNNING].x) == 0


def test_hover_lists_the_towers_of_a_merged_partition(bench, city, finished_run):
    bench._on_done(finished_run, True)
    labels = finished_run.result.final.labels
    ids, counts = np.unique(labels, return_counts=True)
    pid = int(ids[np.argmax(counts)])
    members = np.flatnonzero(labels == pid)
    x, y = city.coords[members[0]] / 1000.0
    text = bench.map.hover_text_at(x, y)
    for item in members[:10]:
        assert city.vocab[item] in text
    assert f"Partition of {len(members)} towers" in text
    people = sum(1 for u in range(city.n_records) if np.isin(city.record(u), members).any())
    assert f"support): {people:,}" in text


def test_cancel_keeps_the_partial_generalization(bench, qtbot, wait_job):
    # σ = 0.99 with k = 20 up to m = 5 takes far longer than the first levels.
    set_params(bench, k=20, m=5, sigma=0.99, trials=1, seed=3)
    bench.param_panel.run_button.click()
    qtbot.waitUntil(lambda: bench.shown_result is not None and len(bench.shown_result.levels) >= 1,
                    timeout=60000)
    # live: the finished levels are on the plots and the map before the run ends
    assert not bench.job.state.finished
    assert len(bench.curve_plots["partitions"].series[BEST].x) >= 1 and bench.map.n_levels >= 2
    assert "levels finished" in bench.callout.text()
    bench.param_panel.cancel_button.click()
    wait_job(bench.job, timeout=60000)
    assert bench.job.state is JobState.CANCELLED
    run = bench.last_run
    result = run.result
    assert not result.complete and 1 <= len(result.levels) < 5
    assert bench.map.n_levels == len(result.levels) + 1
    assert bench.map.drawn_partitions == result.levels[-1].partitions
    # A cancelled run is never shown as a guarantee, and its release cannot be saved.
    assert run.status == "cancelled" and run.verification is None
    assert bench.callout.text().startswith(f"<b>{CHECK_INCOMPLETE}</b>: the run was cancelled")
    assert bench.callout.state == "incomplete"
    assert "<b>Any" not in bench.callout.text()
    assert not bench.export_row.buttons["release"].isEnabled()
    assert bench.export_row.buttons["json"].isEnabled()


def test_exports_write_valid_files(bench, city, finished_run, tmp_path):
    from anonstudio.data.io import load_transactions

    bench._on_done(finished_run, True)
    final = finished_run.result.final
    anon = load_transactions(bench.export_to("release", tmp_path / "anon.dat"))
    assert anon.n_records == city.n_records
    assert len(set(anon.indices.tolist())) <= final.partitions
    parts = read_partition_map(bench.export_to("map", tmp_path / "map.csv"), city.vocab)
    # same grouping as the published labels
    assert len(np.unique(parts)) == final.partitions
    pairs = set(zip(parts.tolist(), final.labels.tolist()))
    assert len(pairs) == final.partitions
    geo = json.loads(bench.export_to("geojson", tmp_path / "parts.geojson").read_text())
    assert geo["type"] == "FeatureCollection" and len(geo["features"]) == final.partitions
    assert sum(f["properties"]["size"] for f in geo["features"]) == 200
    assert all(f["properties"]["support"] >= 1 for f in geo["features"])
    report = json.loads(bench.export_to("json", tmp_path / "run.json").read_text())
    assert [lv["level"] for lv in report["levels"]] == [1, 2]
    assert report["verification"]["levels"][0]["ell"] == 1 and report["status"] == "done"
    assert report["run"]["params"]["k"] == 50 and report["run"]["input"]["name"] == "small-city"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["anon.dat", "map.csv", "parts.geojson", "run.json"]


def test_a_broken_promise_is_red_and_blocks_the_release(bench, finished_run, monkeypatch, tmp_path):
    import dataclasses

    verification = finished_run.verification
    broken = dataclasses.replace(verification, points=tuple(
        dataclasses.replace(p, k_anonymous=0, fraction=0.0, ci_low=0.0, ci_high=0.001) for p in verification.points))
    run = dataclasses.replace(finished_run, verification=broken)
    bench._on_done(run, True)
    assert run.status == "not-met"
    assert bench.callout.state == "failed" and bench.callout.text().startswith(f"<b>{CHECK_FAILED}</b>: ")
    assert "Do not publish this release" in bench.callout.text()
    assert not bench.export_row.buttons["release"].isEnabled()
    assert "broken" in bench.export_row.buttons["release"].toolTip()
    with pytest.raises(RuntimeError):
        bench.export_to("release", tmp_path / "anon.dat")
    assert not (tmp_path / "anon.dat").exists()


def test_dataset_without_coordinates_hides_the_map(bench, city, wait_job):
    plain = TransactionData(city.indptr, city.indices, city.vocab, name="no-coords")
    bench.set_dataset(plain)
    assert not bench.map.available
    assert bench.map.unavailable_label.text() == NO_COORDINATES_TEXT
    set_params(bench, **dict(FAST, verify_samples=500))
    bench.param_panel.run_button.click()
    wait_job(bench.job, timeout=60000)
    assert bench.job.state is JobState.DONE
    assert bench.last_run.result.constraint == "free"
    assert len(bench.curve_plots["partitions"].series[BEST].x) == 2
    assert not bench.curve_plots["area"].has_data()  # areas need cells
    assert "NCP" in bench.curve_plots["error"].y_label
    assert "Any 2 items" in bench.callout.text()
    assert not bench.export_row.buttons["geojson"].isEnabled() and bench.export_row.buttons["map"].isEnabled()


def test_per_level_table_writes_the_level_vectors_and_shows_gamma(bench):
    set_params(bench, m=3, bound="two-sided")
    set_params(bench, k_levels=(50, 40, 30), sigma_levels=(1.0, 0.99, 0.9))
    params = bench.param_panel.params()
    assert params.k_levels == (50, 40, 30) and params.sigma_levels == (1.0, 0.99, 0.9)
    assert params.k_vector() == [50, 40, 30] and params.sigma_vector() == [1.0, 0.99, 0.9]
    levels = bench.param_panel.editor("k_levels")
    table = levels.table
    assert table.rowCount() == 3
    assert table.item(0, 2).text() == "all (exact)"
    assert table.item(1, 2).text() == f"{sample_bound(0.99, 'two-sided').samples:,}" == "45,845"
    # an invalid entry is flagged and blocks the run
    table.item(2, 1).setText("1.5")
    assert "σ per level at level 3 must be at most 1" in bench.param_panel.error
    assert not bench.param_panel.run_button.isEnabled()
    levels.same_box.setChecked(True)
    assert bench.param_panel.values()["k_levels"] == () and bench.param_panel.error == ""


def test_hierarchy_rule_needs_a_file(bench):
    set_params(bench, **FAST)
    set_params(bench, constraint="hierarchy")
    assert "needs an item hierarchy file" in bench.param_panel.error
    assert not bench.param_panel.run_button.isEnabled()


def test_hierarchy_rule_runs_with_a_tree_file(bench, city, tmp_path, wait_job):
    tree = tmp_path / "districts.csv"
    tree.write_text("".join(f"{label},district-{i // 20},city\n" for i, label in enumerate(city.vocab)))
    set_params(bench, **dict(FAST, verify_samples=500))
    set_params(bench, constraint="hierarchy", item_hierarchy=tree)
    assert bench.param_panel.error == ""
    bench.param_panel.run_button.click()
    wait_job(bench.job, timeout=60000)
    assert bench.job.state is JobState.DONE
    final = bench.last_run.result.final
    # hierarchy cuts: every partition is a single tower or a whole district (or the whole city)
    for pid in np.unique(final.labels):
        members = np.flatnonzero(final.labels == pid)
        assert len(members) in (1, 20, 200)
    assert bench.map.drawn_partitions == final.partitions  # the towers still have coordinates
    assert "NCP" in bench.curve_plots["error"].y_label
    assert final.partitions < 200  # k = 50 forces district merges
    names = bench.export_to("map", tmp_path / "map.csv").read_text()
    assert "district-" in names  # partitions are named after their tree node


def test_polygon_file_replaces_the_default_study_area(bench):
    hull_area = bench.cells.total_area_km2
    set_params(bench, boundary=get_sample("small-city").file("boundary"))
    assert bench.cells.total_area_km2 == pytest.approx(19.6, rel=1e-3)
    assert bench.cells.total_area_km2 != pytest.approx(hull_area, rel=1e-3)
    assert bench.map.drawn_partitions == 200
    set_params(bench, boundary=None)
    assert bench.cells.total_area_km2 == pytest.approx(hull_area)


def test_coordinates_file_brings_the_map_back(bench, city, tmp_path):
    plain = TransactionData(city.indptr, city.indices, city.vocab, name="no-coords")
    bench.set_dataset(plain)
    assert not bench.map.available and bench.map.unavailable_button.isVisible()
    assert bench.map.unavailable_button.text() == "Choose item coordinates…"
    coords = tmp_path / "towers.csv"
    coords.write_text("item,x,y\n" + "".join(f"{label},{x},{y}\n" for label, (x, y) in zip(city.vocab, city.coords)))
    bench.attach_coordinates_file(coords)
    assert bench.map.available and bench.map.drawn_partitions == 200
    assert bench.dataset is plain  # the file is a parameter of the run, the dataset is unchanged
    # a file missing items: the map says why, and so would the run
    partial = tmp_path / "some.csv"
    partial.write_text("item,x,y\n" + "".join(f"{label},{x},{y}\n" for label, (x, y) in
                                                 zip(city.vocab[:10], city.coords[:10])))
    bench.attach_coordinates_file(partial)
    assert not bench.map.available and "cannot be drawn" in bench.map.unavailable_label.text()


def test_unusable_study_area_is_explained(bench, tmp_path):
    tiny = tmp_path / "tiny.wkt"
    tiny.write_text("POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))")  # leaves every tower outside
    set_params(bench, boundary=tiny)
    assert not bench.map.available and "cannot be drawn" in bench.map.unavailable_label.text()
    set_params(bench, boundary=None)
    assert bench.map.available and bench.map.drawn_partitions == 200


def test_switching_dataset_clears_every_result_text(bench, finished_run, city):
    bench._on_done(finished_run, True)
    assert "Any 2 towers" in bench.callout.text()
    bench.set_dataset(TransactionData(city.indptr, city.indices, city.vocab, name="other"))
    assert "Any" not in bench.callout.text() and bench.verify_table.rowCount() == 0
    assert not any(b.isEnabled() for b in bench.export_row.buttons.values())
