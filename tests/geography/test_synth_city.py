"""Synthetic city: reproducible, requested record-size moments, cancel, writers, CLI, bundled sample."""
import json

import numpy as np
import pytest
import shapely

import anonstudio
from anonstudio.cli import main
from anonstudio.data.geo import build_voronoi
from anonstudio.data.io import load_transactions
from anonstudio.data.io.coordinates import load_coordinates
from anonstudio.data.synth_city import SynthCityParams, generate_city, record_size_pmf
from anonstudio.jobs import RecordingProgress

SMALL = dict(towers=150, area_km2=15.0, users=20_000, seed=3)


@pytest.fixture(scope="module")
def city():
    return generate_city(SynthCityParams(**SMALL))


def test_record_size_pmf_has_the_requested_moments():
    pmf = record_size_pmf(11.42, 17.23, 422)
    k = np.arange(1, 423)
    mean = (pmf * k).sum()
    assert pmf.sum() == pytest.approx(1.0) and (pmf >= 0).all()
    assert mean == pytest.approx(11.42, rel=1e-6)
    assert np.sqrt((pmf * k * k).sum() - mean**2) == pytest.approx(17.23, rel=1e-6)
    with pytest.raises(ValueError):
        record_size_pmf(50.0, 1.0, 20)


def test_city_shape_and_statistics(city):
    data = city.data
    assert city.complete and data.n_records == 20_000 and data.n_items == 150
    assert data.coords.shape == (150, 2)
    side = np.sqrt(15e6)
    assert (data.coords >= 0).all() and (data.coords < side).all()
    assert city.boundary.area == pytest.approx(15e6)
    s = city.record_sizes
    assert 10.5 < s.mean < 12.5 and 14.0 < s.std < 20.0 and s.min == 1 and s.max <= 150
    # records are sorted, duplicate-free tower ids
    for u in range(0, 20_000, 997):
        r = data.record(u)
        assert np.all(np.diff(r) > 0)
    # the centre is denser: towers within the central quarter of the area
    centre = (np.abs(data.coords - side / 2) < side / 4).all(axis=1).mean()
    assert centre > 0.4
    # every tower's Voronoi cell lies in the city and the cells tile it
    cells = build_voronoi(data.coords, city.boundary)
    assert cells.total_area_km2 == pytest.approx(15.0)


def test_home_tower_is_the_nearest_tower_of_typical_visits(city):
    # Size-1 records hold the home tower only: homes are denser downtown,
    # so those towers lie nearer the centre than towers do on average.
    data = city.data
    singles = data.indices[data.indptr[:-1][data.lengths == 1]]
    side = np.sqrt(15e6)
    dist = np.hypot(*(data.coords - side / 2).T)
    assert dist[singles].mean() < dist.mean()


def test_same_seed_same_city_and_chunking_does_not_matter():
    a = generate_city(SynthCityParams(**{**SMALL, "users": 3000}))
    b = generate_city(SynthCityParams(**{**SMALL, "users": 3000}))
    assert np.array_equal(a.data.indptr, b.data.indptr) and np.array_equal(a.data.indices, b.data.indices)
    assert np.array_equal(a.data.coords, b.data.coords)
    c = generate_city(SynthCityParams(**{**SMALL, "users": 3000, "seed": 4}))
    assert not np.array_equal(a.data.indices[:1000], c.data.indices[:1000])
    # A longer run starts with the same users (each user has an own stream).
    longer = generate_city(SynthCityParams(**{**SMALL, "users": 5000}))
    assert np.array_equal(longer.data.indptr[:3001], a.data.indptr)
    assert np.array_equal(longer.data.indices[: len(a.data.indices)], a.data.indices)


def test_cancel_returns_the_users_so_far():
    progress = RecordingProgress(cancel_after_sets=2)
    part = generate_city(SynthCityParams(**{**SMALL, "users": 200_000}), progress)
    assert not part.complete
    assert 0 < part.data.n_records < 200_000
    full = generate_city(SynthCityParams(**{**SMALL, "users": part.data.n_records}))
    assert np.array_equal(full.data.indices, part.data.indices)
    assert progress.fractions == sorted(progress.fractions)


def test_kernel_warm_up_runs():
    from anonstudio.kernels import geography, synth_city

    geography.warm_up()
    synth_city.warm_up()


def test_invalid_parameters_are_refused():
    from anonstudio.params import validate

    with pytest.raises(ValueError):
        validate(SynthCityParams(towers=1))
    with pytest.raises(ValueError):
        validate(SynthCityParams(p_home=0.8, p_work=0.5))
    with pytest.raises(ValueError, match="number of towers"):
        validate(SynthCityParams(towers=5))
    with pytest.raises(ValueError, match="finite"):
        validate(SynthCityParams(area_km2=float("nan")))


def test_cli_end_to_end(tmp_path, capsys):
    out, coords, stats, outline, cells = (
        tmp_path / n for n in ("city.dat", "city_coords.csv", "stats.json", "city.wkt", "cells.geojson"))
    code = main(["synth-city", "--towers", "80", "--area-km2", "8", "--users", "2000", "--seed", "5",
                 "--out", str(out), "--coords-out", str(coords), "--json", str(stats), "--boundary-out", str(outline),
                 "--cells-out", str(cells), "--quiet"])
    assert code == 0
    data = load_transactions(out)
    assert data.n_records == 2000
    xy = load_coordinates(coords)
    assert len(xy) == 80 and xy.lonlat is None
    expected = generate_city(SynthCityParams(towers=80, area_km2=8, users=2000, seed=5)).data
    assert [data.record_labels(u) for u in range(50)] == [expected.record_labels(u) for u in range(50)]
    assert np.allclose(xy.xy, expected.coords[[int(label) for label in xy.labels]])
    doc = json.loads(stats.read_text())
    assert doc["users"] == 2000 and doc["record_size"]["mean"] == pytest.approx(expected.lengths.mean())
    assert shapely.from_wkt(outline.read_text()).area == pytest.approx(8e6)
    features = json.loads(cells.read_text())["features"]
    assert len(features) == 80
    assert sum(shapely.from_geojson(json.dumps(f["geometry"])).area for f in features) == pytest.approx(8e6)
    by_tower = {f["properties"]["items"][0]: f["properties"]["support"] for f in features}
    assert by_tower == {label: int(n) for label, n in zip(expected.vocab, expected.item_frequencies)}


def test_cli_reports_bad_arguments_in_one_line(tmp_path, capsys):
    assert main(["synth-city", "--towers", "1", "--out", str(tmp_path / "x.dat")]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and err.count("\n") == 1
    assert main(["synth-city", "--users", "10", "--out", str(tmp_path / "missing" / "x.dat")]) == 2


def test_bundled_sample_is_what_its_command_generates():
    folder = anonstudio.RESOURCES / "samples" / "small-city"
    meta = json.loads((folder / "sample.json").read_text())
    assert meta["kind"] == "location" and meta["records"] == 5000
    assert sum(f.stat().st_size for f in folder.iterdir()) < 1_000_000
    data = load_transactions(folder / meta["files"]["transactions"])
    coords = load_coordinates(folder / meta["files"]["coords"])
    g = meta["generator"]
    fresh = generate_city(SynthCityParams(towers=g["towers"], area_km2=g["area_km2"], users=g["users"], seed=g["seed"]))
    assert data.n_records == fresh.data.n_records
    assert all(data.record_labels(u) == fresh.data.record_labels(u) for u in range(0, 5000, 7))
    assert np.allclose(coords.xy, fresh.data.coords[[int(label) for label in coords.labels]])
    outline = shapely.from_wkt((folder / meta["files"]["boundary"]).read_text())
    assert outline.equals(fresh.boundary)
    from anonstudio.data.samples import load_sample

    loaded = load_sample("small-city")
    assert loaded.n_records == 5000 and np.allclose(loaded.coords, fresh.data.coords)


def test_tower_lookup_raster_matches_the_nearest_tower_of_the_reference():
    """The raster the city kernel reads a visit's tower from agrees with a brute-force nearest site."""
    from anonstudio.data.synth_city import tower_raster
    from tests.reference.geography_reference import nearest_site

    rng = np.random.default_rng(4)
    side = 1000.0
    towers = rng.uniform(0, side, size=(40, 2))
    owner, pixel = tower_raster(towers, side)
    checked = 0
    for x, y in rng.uniform(0, side - 1e-6, size=(400, 2)):
        nearest, gap = nearest_site((x, y), [tuple(t) for t in towers])
        if gap < 2 * pixel:  # a raster cell may straddle a Voronoi edge: skip near-ties
            continue
        assert owner[int(y // pixel), int(x // pixel)] == nearest
        checked += 1
    assert checked > 300
