"""Voronoi cells and adjacency against the slow half-plane reference."""
import numpy as np
import pytest
import shapely

from anonstudio.data.geo import build_voronoi, default_margin
from tests.reference import geography_reference as ref

BOX = (0.0, 0.0, 1000.0, 800.0)


def _layout(seed, n=25):
    rng = np.random.default_rng(seed)
    return rng.uniform([20, 20], [980, 780], size=(n, 2))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cells_match_halfplane_reference_in_input_order(seed):
    pts = _layout(seed)
    cells = build_voronoi(pts, shapely.box(*BOX))
    for i in range(len(pts)):
        expected = shapely.Polygon(ref.voronoi_cell(pts.tolist(), i, BOX))
        got = cells.cells[i]
        assert got.contains(shapely.Point(pts[i]))
        assert shapely.area(shapely.symmetric_difference(got, expected)) < 1e-6 * expected.area
        assert cells.item_areas_m2[i] == pytest.approx(ref.area(list(expected.exterior.coords)[:-1]), rel=1e-9)
    assert cells.total_area_km2 == pytest.approx(1000 * 800 / 1e6)


def test_grid_points_fall_in_the_cell_of_their_nearest_tower():
    pts = _layout(3, n=40)
    cells = build_voronoi(pts, shapely.box(*BOX))
    gx, gy = np.meshgrid(np.linspace(5, 995, 40), np.linspace(5, 795, 32))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    tree = shapely.STRtree(cells.cells)
    point_idx, cell_idx = tree.query(shapely.points(grid), predicate="within")
    owner = dict(zip(point_idx.tolist(), cell_idx.tolist()))
    checked = 0
    for p, xy in enumerate(grid.tolist()):
        nearest, gap = ref.nearest_site(xy, pts.tolist())
        if gap < 1e-6:
            continue  # on a cell boundary
        assert owner[p] == nearest
        checked += 1
    assert checked > 1200


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_adjacency_is_symmetric_and_matches_brute_force(seed):
    pts = _layout(seed, n=20)
    cells = build_voronoi(pts, shapely.box(*BOX))
    n = len(pts)
    got = {(i, int(j)) for i in range(n) for j in cells.neighbours(i)}
    assert all((j, i) in got for i, j in got)
    assert all(i != j for i, j in got)
    polys = [ref.voronoi_cell(pts.tolist(), i, BOX) for i in range(n)]
    expected = {(i, j) for i in range(n) for j in range(n) if i != j and ref.boundaries_touch(polys[i], polys[j], 1e-6)}
    assert got == expected
    # and the shapely predicate agrees as well
    assert got == {(i, j) for i in range(n) for j in range(n) if i != j and cells.cells[i].intersects(cells.cells[j])}
    assert cells.indptr.dtype == np.int64 and cells.indices.dtype == np.int32
    for i in range(n):
        nb = cells.neighbours(i)
        assert np.all(np.diff(nb) > 0)


def test_cells_meeting_at_a_corner_are_neighbours():
    # A regular grid: four cells meet at each interior vertex (footnote 6 of the paper).
    gx, gy = np.meshgrid([50.0, 150.0, 250.0], [50.0, 150.0])
    pts = np.column_stack([gx.ravel(), gy.ravel()])
    cells = build_voronoi(pts, shapely.box(0, 0, 300, 200))
    assert sorted(cells.neighbours(0).tolist()) == [1, 3, 4]  # right, up, diagonal
    assert sorted(cells.neighbours(4).tolist()) == [0, 1, 2, 3, 5]


def test_colocated_items_share_their_cell():
    pts = _layout(7, n=10)
    pts = np.vstack([pts, pts[3], pts[3]])  # items 10 and 11 sit on item 3
    cells = build_voronoi(pts, shapely.box(*BOX))
    assert cells.n_sites == 10
    assert cells.cells[10].equals(cells.cells[3])
    assert cells.item_areas_m2[3] == pytest.approx(cells.item_areas_m2[10])
    assert cells.item_areas_m2.sum() == pytest.approx(1000 * 800)
    assert {3, 11} <= set(cells.neighbours(10).tolist())
    assert set(cells.neighbours(3).tolist()) - {10, 11} == set(cells.neighbours(10).tolist()) - {3, 11}


def test_default_boundary_is_hull_buffered_by_median_nearest_neighbour_distance():
    pts = _layout(8, n=30)
    margin = default_margin(pts)
    d = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1)) + np.eye(len(pts)) * 1e9
    assert margin == pytest.approx(np.median(d.min(axis=1)))
    cells = build_voronoi(pts)
    hull = shapely.convex_hull(shapely.multipoints(pts))
    assert cells.boundary.contains(hull)
    assert cells.boundary.area == pytest.approx(hull.buffer(margin, quad_segs=8).area)
    assert cells.item_areas_m2.sum() == pytest.approx(cells.boundary.area, rel=1e-9)


def test_two_and_one_and_collinear_towers():
    one = build_voronoi(np.array([[5.0, 5.0]]), shapely.box(0, 0, 10, 10))
    assert one.item_areas_m2[0] == pytest.approx(100) and one.neighbours(0).size == 0
    line = build_voronoi(np.array([[1.0, 5.0], [5.0, 5.0], [9.0, 5.0]]), shapely.box(0, 0, 10, 10))
    assert line.item_areas_m2.tolist() == pytest.approx([30, 40, 30])
    assert line.neighbours(0).tolist() == [1] and line.neighbours(1).tolist() == [0, 2]


def test_points_outside_the_study_area_and_bad_coordinates_are_rejected():
    with pytest.raises(ValueError, match="outside the study area"):
        build_voronoi(np.array([[1.0, 1.0], [50.0, 50.0]]), shapely.box(0, 0, 10, 10))
    with pytest.raises(ValueError, match="finite"):
        build_voronoi(np.array([[1.0, 1.0], [np.nan, 2.0]]))
