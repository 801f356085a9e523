"""σ-k^m workbench on the bundled small city: run, map, plots vs m, check, cancel, exports, no coordinates."""
from __future__ import annotations

import json

import numpy as np
import pytest

from anonstudio.data.samples import load_sample
from anonstudio.data.transactions import TransactionData
from anonstudio.gui.kmanon_job import KmJobSetup, build_cells, run_kmanon
from anonstudio.gui.kmanon_plots import BEST, RUNNING, TRIALS
from anonstudio.gui.workbenches.kmanon import NO_COORDINATES_TEXT, KmAnonWorkbench
from anonstudio.gui.workers import JobState
from anonstudio.jobs import NullProgress
from anonstudio.methods.kmanon import KmAnonParams, sample_bound
from anonstudio.verifiers.km_verify import read_partition_map

# Small enough to run in about a second, strong enough to merge towers at m = 2.
FAST = dict(k=50, m=2, sigma=0.9, trials=1, seed=1)


@pytest.fixture(scope="module")
def city():
    return load_sample("small-city")


@pytest.fixture(scope="module")
def finished_run(city):
    """One complete run with two trials, computed without the GUI, shown by several tests."""
    params = KmAnonParams(**dict(FAST, trials=2))
    return run_kmanon(city, params, KmJobSetup("contiguity", build_cells(city), verify_samples=1000), NullProgress())


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
    bench.setup.verify_spin.setValue(1000)
    bench.param_panel.run_button.click()
    wait_job(bench.job, timeout=60000)
    assert bench.job.state is JobState.DONE
    result = bench.last_run.result
    assert result.complete and [lv.level for lv in result.levels] == [1, 2]
    # map: level 0 + two levels, the last one drawn, fewer partitions than towers
    assert bench.map.n_levels == 3 and bench.map.shown_level == 2
    assert bench.map.drawn_partitions == result.levels[-1].partitions < 200
    # plots vs m: one point per level
    for plot in bench.plots.values():
        assert list(plot.series[BEST].x) == [1.0, 2.0]
    assert list(bench.plots["partitions"].series[BEST].y) == [lv.partitions for lv in result.levels]
    assert bench.plots["error"].series[BEST].y[-1] > 0
    assert "[m]" in bench.plots["error"].y_label
    # independent check, one row per ℓ, and the promise in words
    assert bench.verify_table.rowCount() == 2
    text = bench.guarantee_label.text()
    assert "Any 2 towers" in text and "at least 50 people" in text and "≥ 0.9" in text
    assert "Independent check" in text
    assert all(b.isEnabled() for b in bench.export_buttons.values())


def test_level_slider_changes_drawn_partitions(bench, finished_run):
    bench._on_done(finished_run, True)
    final = finished_run.result.levels[-1]
    bench.map.slider.setValue(0)
    assert bench.map.drawn_partitions == 200
    assert "original data" in bench.map.level_label.text()
    bench.map.slider.setValue(2)
    assert bench.map.drawn_partitions == final.partitions < 200
    assert f"{final.partitions} partitions" in bench.map.level_label.text()


def test_trials_shown_as_points_and_best_as_line(bench, finished_run):
    bench._on_done(finished_run, True)
    plot = bench.plots["error"]
    assert len(plot.series[TRIALS].x) == 4  # 2 trials x 2 levels
    best = [lv.error for lv in finished_run.result.levels]
    assert list(plot.series[BEST].y) == best
    per_level = plot.series[TRIALS].y.reshape(2, 2)  # trial-major
    assert np.allclose(per_level.min(axis=0), best)
    assert len(plot.series[RUNNING].x) == 0


def test_hover_lists_the_towers_of_a_merged_partition(bench, city, finished_run):
    bench._on_done(finished_run, True)
    labels = finished_run.result.levels[-1].labels
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
    qtbot.waitUntil(lambda: bench.last_result is not None and len(bench.last_result.levels) >= 1, timeout=60000)
    # live: the finished levels are on the plots and the map before the run ends
    assert not bench.job.state.finished
    assert len(bench.plots["partitions"].series[BEST].x) >= 1 and bench.map.n_levels >= 2
    assert "levels finished" in bench.guarantee_label.text()
    bench.param_panel.cancel_button.click()
    wait_job(bench.job, timeout=60000)
    assert bench.job.state is JobState.CANCELLED
    result = bench.last_run.result
    assert not result.complete and 1 <= len(result.levels) < 5
    assert bench.map.n_levels == len(result.levels) + 1
    assert bench.map.drawn_partitions == result.levels[-1].partitions
    assert "Stopped early" in bench.guarantee_label.text()
    assert bench.last_run.verify is None
    if result.levels[-1].complete:
        assert bench.export_buttons["map"].isEnabled()


def test_exports_write_valid_files(bench, city, finished_run, tmp_path):
    from anonstudio.data.io import load_transactions

    bench._on_done(finished_run, True)
    final = finished_run.result.levels[-1]
    data_path = bench.export_anonymized(tmp_path / "anon.dat")
    anon = load_transactions(data_path)
    assert anon.n_records == city.n_records
    assert len(set(anon.indices.tolist())) <= final.partitions
    map_path = bench.export_partition_map(tmp_path / "map.csv")
    parts = read_partition_map(map_path, city.vocab)
    # same grouping as the published labels
    assert len(np.unique(parts)) == final.partitions
    pairs = set(zip(parts.tolist(), final.labels.tolist()))
    assert len(pairs) == final.partitions
    geo = json.loads(bench.export_geojson(tmp_path / "parts.geojson").read_text())
    assert geo["type"] == "FeatureCollection" and len(geo["features"]) == final.partitions
    assert sum(f["properties"]["size"] for f in geo["features"]) == 200
    assert all(f["properties"]["support"] >= 1 for f in geo["features"])
    report = json.loads(bench.export_report(tmp_path / "run.json").read_text())
    assert [lv["level"] for lv in report["levels"]] == [1, 2]
    assert report["verify"]["levels"][0]["ell"] == 1
    assert "Any 2 towers" in report["guarantee"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["anon.dat", "map.csv", "parts.geojson", "run.json"]


def test_dataset_without_coordinates_hides_the_map(bench, city, qtbot, wait_job):
    plain = TransactionData(city.indptr, city.indices, city.vocab, name="no-coords")
    bench.set_dataset(plain)
    assert not bench.map.available
    assert bench.map.unavailable_label.text() == NO_COORDINATES_TEXT
    combo = bench.setup.constraint_combo
    assert bench.setup.constraint == "free"
    assert not combo.model().item(combo.findData("contiguity")).isEnabled()
    set_params(bench, **FAST)
    bench.setup.verify_spin.setValue(500)
    bench.param_panel.run_button.click()
    wait_job(bench.job, timeout=60000)
    assert bench.job.state is JobState.DONE
    assert len(bench.plots["partitions"].series[BEST].x) == 2
    assert not bench.plots["area"].has_data()  # areas need cells
    assert "NCP" in bench.plots["error"].y_label
    assert "Any 2 items" in bench.guarantee_label.text()
    assert not bench.export_buttons["geojson"].isEnabled() and bench.export_buttons["map"].isEnabled()


def test_per_level_table_writes_the_level_vectors_and_shows_gamma(bench):
    set_params(bench, m=3, bound="two-sided")
    bench.setup.set_level_values([50, 40, 30], [1.0, 0.99, 0.9])
    values = bench.param_panel.values()
    assert values["k_levels"] == "50,40,30" and values["sigma_levels"] == "1,0.99,0.9"
    params = bench.param_panel.params()
    assert params.k_vector() == [50, 40, 30] and params.sigma_vector() == [1.0, 0.99, 0.9]
    table = bench.setup.level_table
    assert table.rowCount() == 3
    assert table.item(0, 2).text() == "all (exact)"
    assert table.item(1, 2).text() == f"{sample_bound(0.99, 'two-sided').samples:,}" == "45,845"
    # an invalid entry is flagged and blocks the run
    table.item(2, 1).setText("1.5")
    assert "σ must be between" in bench.setup.problem()
    bench.setup.same_box.setChecked(True)
    assert bench.param_panel.values()["k_levels"] == "" and bench.setup.problem() == ""


def test_hierarchy_rule_needs_a_file(bench):
    bench.setup.set_constraint("hierarchy")
    set_params(bench, **FAST)
    bench.param_panel.run_button.click()
    assert bench.job is None
    assert "hierarchy file" in bench.guarantee_label.text()


def test_hierarchy_rule_runs_with_a_tree_file(bench, city, tmp_path, wait_job):
    tree = tmp_path / "districts.csv"
    tree.write_text("".join(f"{label},district-{i // 20},city\n" for i, label in enumerate(city.vocab)))
    bench.setup.set_constraint("hierarchy")
    bench.setup.set_hierarchy_path(tree)
    assert bench.setup.problem() == ""
    set_params(bench, **FAST)
    bench.setup.verify_spin.setValue(500)
    bench.param_panel.run_button.click()
    wait_job(bench.job, timeout=60000)
    assert bench.job.state is JobState.DONE
    final = bench.last_run.result.levels[-1]
    # hierarchy cuts: every partition is a single tower or a whole district (or the whole city)
    for pid in np.unique(final.labels):
        members = np.flatnonzero(final.labels == pid)
        assert len(members) in (1, 20, 200)
    assert bench.map.drawn_partitions == final.partitions  # the towers still have coordinates
    assert "NCP" in bench.plots["error"].y_label
    assert final.partitions < 200  # k = 50 forces district merges
    names = bench.export_partition_map(tmp_path / "map.csv").read_text()
    assert "district-" in names  # partitions are named after their tree node


def test_polygon_file_replaces_the_default_study_area(bench, city):
    from anonstudio.data.samples import get_sample

    hull_area = bench.cells.total_area_km2
    outline = get_sample("small-city").file("boundary")
    bench.setup.set_boundary_path(outline)
    assert bench.cells.total_area_km2 == pytest.approx(19.6, rel=1e-3)
    assert bench.cells.total_area_km2 != pytest.approx(hull_area, rel=1e-3)
    assert bench.map.drawn_partitions == 200
    bench.setup.set_boundary_path(None)
    assert bench.cells.total_area_km2 == pytest.approx(hull_area)


def _level(level, k, sigma, mode="sampling", complete=True, unfixable=0):
    from anonstudio.methods.kmanon import LevelResult

    return LevelResult(level=level, k=k, sigma=sigma, gamma=0, mode=mode, samples=0, violations=0, merges=0,
                       partitions=1, error=0.0, avg_area_km2=None, seconds=0.0, support_checks=0,
                       unfixable=unfixable, complete=complete, labels=np.zeros(1, dtype=np.int32))


def test_guarantee_text_follows_k_sigma_and_levels():
    from anonstudio.gui.kmanon_report import guarantee_notes, guarantee_text

    same = [_level(1, 20, 1.0, "exact"), _level(2, 20, 0.99), _level(3, 20, 0.99)]
    text = guarantee_text(same, "tower")
    assert text.startswith("Any 3 towers a stranger knows about a person match at least 20 people")
    assert "probability ≥ 0.99" in text
    assert "share is protected" in guarantee_notes(same, "tower")
    exact = [_level(1, 5, 1.0, "exact")]
    assert "Any 1 tower " in guarantee_text(exact, "tower") and "always" in guarantee_text(exact, "tower")
    assert guarantee_notes(exact) == ""
    mixed = [_level(1, 50, 1.0, "exact"), _level(2, 10, 0.9)]
    text = guarantee_text(mixed, "item")
    assert "1 item: at least 50 people, always" in text and "2 items: at least 10 people, with probability ≥ 0.9" in text
    # a level cut short promises nothing
    assert guarantee_text([_level(1, 5, 0.9, complete=False)]).startswith("No level finished")
    assert "could not be protected" in guarantee_notes([_level(1, 5, 0.9, unfixable=3)])


def test_check_verdicts():
    from anonstudio.gui.kmanon_report import check_text, verdict
    from anonstudio.verifiers.km_verify import KmVerifyPoint, KmVerifyResult, clopper_pearson

    def point(ok, n, ell=2):
        lo, hi = clopper_pearson(ok, n, 0.95)
        return KmVerifyPoint(ell, 10, "sampling", n, ok, ok / n, lo, hi, 0.0)

    assert verdict(point(5000, 5000), 0.99) == "confirmed"
    assert verdict(point(5000, 5000), 1.0) == "no violation found"
    assert verdict(point(4950, 5000), 0.99) == "consistent"
    assert verdict(point(4800, 5000), 0.99) == "below target"
    levels = [_level(1, 10, 0.99), _level(2, 10, 0.99)]
    bad = KmVerifyResult((point(5000, 5000, 1), point(4800, 5000, 2)), 0.95, True)
    assert "Below the promised share for ℓ = 2" in check_text(bad, levels)
    good = KmVerifyResult((point(5000, 5000, 1), point(5000, 5000, 2)), 0.95, True)
    assert "agrees with the promise" in check_text(good, levels, "tower")
    assert "not run" in check_text(None, levels)


def test_attaching_coordinates_brings_the_map_back(bench, city, tmp_path):
    plain = TransactionData(city.indptr, city.indices, city.vocab, name="no-coords")
    bench.set_dataset(plain)
    assert not bench.map.available and bench.map.unavailable_button.isVisible()
    assert bench.map.unavailable_button.text() == "Attach item coordinates…"
    coords = tmp_path / "towers.csv"
    coords.write_text("item,x,y\n" + "".join(f"{label},{x},{y}\n" for label, (x, y) in zip(city.vocab, city.coords)))
    bench.attach_coordinates_file(coords)
    assert bench.dataset is not plain and bench.dataset.coords is not None
    assert bench.map.available and bench.map.drawn_partitions == 200
    assert bench.setup.constraint == "contiguity"
    # a file missing items is refused and leaves the dataset alone
    bench.set_dataset(plain)
    partial = tmp_path / "some.csv"
    partial.write_text("item,x,y\n" + "".join(f"{label},{x},{y}\n" for label, (x, y) in
                                                 zip(city.vocab[:10], city.coords[:10])))
    with pytest.raises(ValueError):
        bench.attach_coordinates_file(partial)
    assert bench.dataset is plain and not bench.map.available


def test_unusable_study_area_falls_back_to_the_hull(bench, tmp_path):
    hull_area = bench.cells.total_area_km2
    tiny = tmp_path / "tiny.wkt"
    tiny.write_text("POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))")  # leaves every tower outside
    bench.setup.set_boundary_path(tiny)
    assert bench.setup.boundary_path is None
    assert bench.cells.total_area_km2 == pytest.approx(hull_area)
    assert "cannot be used" in bench.guarantee_label.text()
    assert bench.map.drawn_partitions == 200
