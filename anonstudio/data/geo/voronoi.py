"""Voronoi cells of item points (e.g. cell towers), clipped to a study area.

Items at the same coordinates ("co-located", e.g. several antennas on one
mast) form one *site*. They share the site's cell: each item is credited an
equal share of its area, all share its centroid and its neighbours, and they
are neighbours of one another (their cells share every boundary point).

A non-convex study area (a coastline, a river) can cut a cell into pieces; such
a cell is a MultiPolygon, and any partition containing it is reported as not
contiguous by :attr:`PartitionGeometry.contiguous` although it is connected in
the adjacency graph (:attr:`PartitionGeometry.connected`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .adjacency import cell_adjacency, expand_site_adjacency
from .boundary import default_boundary

__all__ = ["VoronoiCells", "build_voronoi", "default_tolerance"]


def default_tolerance(boundary: BaseGeometry) -> float:
    """Distance below which two cell boundaries count as touching (metres).

    One part in 10^9 of the study area's extent: far below any real gap, far
    above the rounding of GEOS's clipped vertices.
    """
    xmin, ymin, xmax, ymax = boundary.bounds
    return max(1e-9 * float(np.hypot(xmax - xmin, ymax - ymin)), 1e-9)


@dataclass(frozen=True, eq=False)
class VoronoiCells:
    """Voronoi cells of ``n_items`` points and their adjacency.

    Attributes
    ----------
    coords
        ``(n_items, 2)`` item positions in metres.
    boundary
        The study area the cells are clipped to.
    site_of_item
        int32, the distinct point (site) of each item.
    site_cells
        Object array of shapely polygons, one per site.
    site_multiplicity
        int32, number of items at each site.
    indptr, indices
        Item adjacency as CSR (int64 / int32, sorted, symmetric, no self loops);
        neighbours of item ``i`` are ``indices[indptr[i]:indptr[i + 1]]``.
    tolerance
        Boundary distance (metres) under which two cells count as touching.
    """

    coords: np.ndarray
    boundary: BaseGeometry
    site_of_item: np.ndarray
    site_cells: np.ndarray
    site_multiplicity: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    tolerance: float
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def n_items(self) -> int:
        return len(self.site_of_item)

    @property
    def n_sites(self) -> int:
        return len(self.site_cells)

    @property
    def cells(self) -> np.ndarray:
        """Object array with the (shared) cell polygon of every item."""
        return self.site_cells[self.site_of_item]

    @property
    def item_areas_m2(self) -> np.ndarray:
        """Area credited to each item (its cell area over the site's multiplicity)."""
        if "areas" not in self._cache:
            site_area = shapely.area(self.site_cells)
            self._cache["areas"] = site_area[self.site_of_item] / self.site_multiplicity[self.site_of_item]
        return self._cache["areas"]

    @property
    def cell_centroids(self) -> np.ndarray:
        """``(n_items, 2)`` centroid of each item's cell (metres)."""
        if "centroids" not in self._cache:
            site_xy = shapely.get_coordinates(shapely.centroid(self.site_cells))
            self._cache["centroids"] = site_xy[self.site_of_item]
        return self._cache["centroids"]

    @property
    def total_area_km2(self) -> float:
        return float(shapely.area(self.site_cells).sum() / 1e6)

    def neighbours(self, item: int) -> np.ndarray:
        """Items whose cells touch the cell of ``item``."""
        return self.indices[self.indptr[item] : self.indptr[item + 1]]


def build_voronoi(
    coords: np.ndarray,
    boundary: BaseGeometry | None = None,
    *,
    margin: float | None = None,
    tolerance: float | None = None,
) -> VoronoiCells:
    """Voronoi cells of the item points clipped to the study area.

    Parameters
    ----------
    coords
        ``(n_items, 2)`` positions in metres.
    boundary
        Study-area polygon in the same metres; default
        :func:`~anonstudio.data.geo.boundary.default_boundary` with ``margin``.
    tolerance
        Cells whose boundaries come closer than this (metres) are neighbours;
        default :func:`default_tolerance`.

    Raises
    ------
    ValueError
        If a coordinate is not finite or a point lies outside the study area.
    """
    coords = np.ascontiguousarray(coords, dtype=np.float64).reshape(-1, 2)
    if len(coords) == 0:
        raise ValueError("no items to build Voronoi cells for")
    if not np.isfinite(coords).all():
        bad = int(np.flatnonzero(~np.isfinite(coords).all(axis=1))[0])
        raise ValueError(f"item {bad} has no finite coordinates")
    if boundary is None:
        boundary = default_boundary(coords, margin)
    sites, site_of_item = np.unique(coords, axis=0, return_inverse=True)
    site_of_item = site_of_item.reshape(-1).astype(np.int32)
    site_points = shapely.points(sites)
    outside = ~shapely.covers(boundary, site_points)
    if outside.any():
        first = int(np.flatnonzero(outside[site_of_item])[0])
        raise ValueError(
            f"{int(outside[site_of_item].sum())} item(s) lie outside the study area (first: item {first} "
            f"at {coords[first, 0]:.1f}, {coords[first, 1]:.1f})"
        )
    cells = _site_cells(sites, site_points, boundary)
    areas = shapely.area(cells)
    if (areas <= 0).any():
        first = int(np.flatnonzero(areas <= 0)[0])
        raise ValueError(f"the cell of the point {sites[first, 0]:.1f}, {sites[first, 1]:.1f} has no area inside the "
                         "study area")
    if tolerance is None:
        tolerance = default_tolerance(boundary)
    site_indptr, site_indices = cell_adjacency(cells, tolerance)
    multiplicity = np.bincount(site_of_item, minlength=len(sites)).astype(np.int32)
    indptr, indices = expand_site_adjacency(site_indptr, site_indices, site_of_item)
    return VoronoiCells(coords, boundary, site_of_item, cells, multiplicity, indptr, indices, float(tolerance))


def _site_cells(sites: np.ndarray, site_points: np.ndarray, boundary: BaseGeometry) -> np.ndarray:
    """One clipped cell per distinct site, in site order."""
    if len(sites) == 1:
        return np.array([boundary], dtype=object)
    diagram = shapely.voronoi_polygons(shapely.multipoints(sites), extend_to=boundary)
    raw = np.asarray(shapely.get_parts(diagram))
    # GEOS does not return the cells in input order: match each cell to the
    # site strictly inside it (a site is interior to its own Voronoi cell).
    tree = shapely.STRtree(site_points)
    cell_idx, site_idx = tree.query(raw, predicate="contains_properly")
    if len(site_idx) != len(sites) or len(np.unique(site_idx)) != len(sites):
        raise RuntimeError("could not match every Voronoi cell to exactly one point")
    ordered = np.empty(len(sites), dtype=object)
    ordered[site_idx] = raw[cell_idx]
    return shapely.intersection(ordered, boundary)
