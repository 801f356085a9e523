"""Merged centroids, merge costs, contiguity and the paper's error."""
import json

import numpy as np
import pytest
import shapely

from anonstudio.data.geo import (
    ContiguityGeometry,
    LocalProjection,
    PartitionGeometry,
    build_voronoi,
    write_partitions_geojson,
)
from tests.reference import geography_reference as ref


def _row_of_squares(weights):
    """Towers at the centres of unit squares side by side: cell i is [i, i+1] x [0, 1]."""
    pts = np.array([[i + 0.5, 0.5] for i in range(len(weights))])
    return build_voronoi(pts, shapely.box(0, 0, len(weights), 1)), np.asarray(weights, dtype=float)


def test_worked_example_three_squares():
    # By hand: singletons sit on their cell centroids (error 0). Merging squares
    # 0 and 1 moves the centre to x = 1, half a metre from both towers, so the
    # error becomes 0.5 * (w0 + w1) / (w0 + w1 + w2) = 0.5 * 4 / 10 = 0.2 m.
    cells, w = _row_of_squares([1, 3, 6])
    geo = ContiguityGeometry(cells, w)
    assert geo.error == pytest.approx(0.0)
    assert geo.merge_cost(0, 1) == pytest.approx(0.2)
    # squares 1 and 2: 0.5 * 9 / 10
    assert geo.merge_cost(1, 2) == pytest.approx(0.45)
    keep = geo.merge(0, 1)
    assert geo.error == pytest.approx(0.2)
    assert geo.centroid(keep) == pytest.approx((1.0, 0.5))
    assert geo.area_km2(keep) == pytest.approx(2e-6)
    assert geo.neighbours(keep) == [2]
    # all three: centre x = 1.5 -> distances 1, 0, 1 -> (1 + 6) / 10
    assert geo.merge_cost(keep, 2) == pytest.approx(0.7 - 0.2)
    with pytest.raises(ValueError, match="not neighbours"):
        ContiguityGeometry(cells, w).merge(0, 2)


def test_paper_example_merges_boston_with_new_york():
    # Example 1 of paper 000: Boston is closer to New York than LA to Seattle,
    # so merging Boston+New York costs less error than LA+Seattle.
    lat = np.array([47.61, 34.05, 40.71, 42.36])  # Seattle, LA, New York, Boston
    lon = np.array([-122.33, -118.24, -74.01, -71.06])
    xy = LocalProjection.centred_on(lat, lon).to_xy(lat, lon)
    geo = ContiguityGeometry(build_voronoi(xy), np.ones(4))
    assert 3 in geo.neighbours(2) and 0 in geo.neighbours(1)
    assert geo.merge_cost(2, 3) < geo.merge_cost(0, 1)


@pytest.mark.parametrize("seed, singleton_centre", [(0, "item"), (1, "item"), (2, "cell")])
def test_incremental_state_matches_polygon_unions(seed, singleton_centre):
    rng = np.random.default_rng(seed)
    pts = rng.uniform(0, 2000, size=(60, 2))
    cells = build_voronoi(pts)
    w = rng.integers(0, 50, size=60).astype(float)
    geo = ContiguityGeometry(cells, w, singleton_centre=singleton_centre)
    while geo.n_partitions > 30:
        a = int(rng.choice(geo.partitions()))
        nb = geo.neighbours(a)
        costs = geo.merge_costs(a, nb)
        b = nb[int(np.argmin(costs))]
        before = geo.error
        keep = geo.merge(a, b)
        assert geo.error - before == pytest.approx(costs.min(), abs=1e-9)
        union = shapely.union_all(cells.cells[geo.members(keep)])
        assert union.geom_type == "Polygon"  # merging neighbours keeps parts contiguous
        assert geo.centroid(keep) == pytest.approx(shapely.get_coordinates(union.centroid)[0], rel=1e-9)
        assert geo.area_km2(keep) == pytest.approx(union.area / 1e6, rel=1e-9)
    labels = geo.labels()
    parts = PartitionGeometry(cells, labels)
    assert parts.contiguous.all() and parts.connected.all()
    assert (parts.sizes == 1).any()  # some items were never merged
    centres = {}
    for k, p in enumerate(parts.partition_ids.tolist()):
        items = parts.members(k)
        single = len(items) == 1 and singleton_centre == "item"
        centres[p] = pts[items[0]] if single else shapely.get_coordinates(parts.polygons[k].centroid)[0]
        assert geo.centroid(p) == pytest.approx(tuple(centres[p]), rel=1e-9)
    expected = ref.error(pts.tolist(), w.tolist(), labels.tolist(), centres)
    assert geo.error == pytest.approx(expected, rel=1e-9)
    assert parts.error(w, singleton_centre) == pytest.approx(expected, rel=1e-9)
    assert geo.recompute_error_sum() == pytest.approx(geo.error_sum, rel=1e-12)
    # neighbour sets agree with a recomputation from item adjacency
    for p in geo.partitions().tolist():
        items = geo.members(p)
        touching = {int(labels[j]) for i in items for j in cells.neighbours(i)} - {p}
        assert set(geo.neighbours(p)) == touching
    # rebuilding from the labels gives the same state
    again = ContiguityGeometry(cells, w, labels=labels, singleton_centre=singleton_centre)
    assert again.n_partitions == geo.n_partitions and again.error == pytest.approx(geo.error)


def test_unmerged_items_have_no_error_unless_centred_on_their_cell():
    rng = np.random.default_rng(9)
    pts = rng.uniform(0, 1000, size=(20, 2))
    cells = build_voronoi(pts)
    w = rng.integers(1, 9, size=20).astype(float)
    assert ContiguityGeometry(cells, w).error == 0.0
    literal = ContiguityGeometry(cells, w, singleton_centre="cell").error
    expected = ref.error(pts.tolist(), w.tolist(), list(range(20)), dict(enumerate(cells.cell_centroids.tolist())))
    assert literal == pytest.approx(expected) and literal > 0
    assert PartitionGeometry(cells, np.arange(20)).error(w, "cell") == pytest.approx(expected)


def test_merge_can_keep_either_id_and_outline_has_every_ring():
    cells, w = _row_of_squares([1, 1, 1])
    geo = ContiguityGeometry(cells, w)
    assert geo.merge(0, 1, keep=1) == 1 and geo.members(1).tolist() == [0, 1]
    with pytest.raises(ValueError, match="keep"):
        geo.merge(1, 2, keep=0)
    x, y = PartitionGeometry(cells, geo.labels()).outline_xy()
    assert np.isnan(x).sum() == 2 and np.nanmax(x) == 3.0


def test_non_contiguous_partition_is_detected():
    cells, w = _row_of_squares([1, 1, 1, 1])
    parts = PartitionGeometry(cells, np.array([0, 1, 0, 1]))
    assert parts.contiguous.tolist() == [False, False]
    assert parts.connected.tolist() == [False, False]
    assert PartitionGeometry(cells, np.array([5, 5, 7, 7])).contiguous.tolist() == [True, True]
    with pytest.raises(ValueError, match="not connected"):
        ContiguityGeometry(cells, w, labels=np.array([0, 1, 0, 1]))


def test_geojson_is_valid_and_written_atomically(tmp_path, monkeypatch):
    cells, w = _row_of_squares([1, 2, 3, 4])
    parts = PartitionGeometry(cells, np.array([0, 0, 1, 1]))
    indptr = np.array([0, 2, 3, 5, 7])  # records {a, c}, {b}, {c, d}, {a, b}
    indices = np.array([0, 2, 1, 2, 3, 0, 1])
    out = tmp_path / "parts.geojson"
    write_partitions_geojson(out, parts, item_labels=["a", "b", "c", "d"], supports=parts.supports(indptr, indices))
    doc = json.loads(out.read_text())
    assert doc["type"] == "FeatureCollection" and doc["anonstudio:units"] == "m"
    props = [f["properties"] for f in doc["features"]]
    assert props[0]["items"] == ["a", "b"] and props[1]["items"] == ["c", "d"]
    assert [p["support"] for p in props] == [3, 2]
    assert [p["size"] for p in props] == [2, 2]
    geoms = [shapely.from_geojson(json.dumps(f["geometry"])) for f in doc["features"]]
    assert geoms[0].equals(shapely.box(0, 0, 2, 1)) and all(g.is_valid for g in geoms)
    assert props[0]["centroid_x_m"] == 1.0 and props[0]["area_km2"] == pytest.approx(2e-6)

    import anonstudio.data.geo.geojson as mod

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(mod.json, "dump", boom)
    with pytest.raises(RuntimeError):
        write_partitions_geojson(out, parts)
    assert json.loads(out.read_text()) == doc  # old file untouched
    assert [p.name for p in tmp_path.iterdir()] == ["parts.geojson"]  # no temp file left


def test_geojson_in_degrees_with_a_projection():
    proj = LocalProjection(40.7, -74.0)
    lat = np.array([40.70, 40.71, 40.72])
    lon = np.array([-74.00, -73.99, -74.01])
    cells = build_voronoi(proj.to_xy(lat, lon))
    from anonstudio.data.geo import partitions_to_geojson

    doc = partitions_to_geojson(PartitionGeometry(cells, np.zeros(3, int)), projection=proj)
    ring = np.array(doc["features"][0]["geometry"]["coordinates"][0])
    assert np.all((ring[:, 0] > -74.1) & (ring[:, 0] < -73.9) & (ring[:, 1] > 40.6) & (ring[:, 1] < 40.8))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_partition_supports_count_records_touching_each_partition(seed):
    rng = np.random.default_rng(seed)
    cells, _ = _row_of_squares([1] * 8)
    labels = rng.integers(0, 4, size=8)
    parts = PartitionGeometry(cells, labels)
    records = [sorted(rng.choice(8, size=rng.integers(1, 6), replace=False).tolist()) for _ in range(60)]
    indptr = np.cumsum([0] + [len(r) for r in records])
    indices = np.array([i for r in records for i in r], dtype=np.int32)
    expected = [sum(1 for r in records if any(parts.part_of_item[i] == k for i in r))
                for k in range(parts.n_partitions)]
    assert parts.supports(indptr, indices).tolist() == expected
