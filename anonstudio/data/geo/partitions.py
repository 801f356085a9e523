"""Merged polygons of a partition of the items, and the paper's error function.

:class:`PartitionGeometry` is the exact, polygon-based view of a finished
partition (for maps, GeoJSON and checks); :class:`~.contiguity.ContiguityGeometry`
is the fast incremental view used while merging.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ...kernels import read_only
from ...kernels.generalized_support import records_per_partition
from .voronoi import VoronoiCells

__all__ = ["PartitionGeometry", "geographic_error"]


def geographic_error(coords: np.ndarray, weights: np.ndarray, labels: np.ndarray, centres: np.ndarray) -> float:
    """Paper 000's average error (metres) of a partition.

    ``sum_i f_i * dist(x_i, centres[labels[i]]) / sum_i f_i``: every occurrence
    of item ``i`` is displaced to the centre of its partition. ``labels`` must
    index the rows of ``centres``.
    """
    weights = np.asarray(weights, dtype=np.float64)
    total = weights.sum()
    if total <= 0:
        return 0.0
    d = np.hypot(*(np.asarray(coords) - np.asarray(centres)[np.asarray(labels)]).T)
    return float((weights * d).sum() / total)


@dataclass(eq=False)
class PartitionGeometry:
    """Polygons of the parts of ``labels`` (item -> any integer label).

    Attributes
    ----------
    partition_ids
        The distinct labels, ascending; part ``k`` is ``partition_ids[k]``.
    part_of_item
        int32, the index ``k`` of each item's part.
    """

    cells: VoronoiCells
    labels: np.ndarray
    partition_ids: np.ndarray = field(init=False)
    part_of_item: np.ndarray = field(init=False)
    _polygons: np.ndarray | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        labels = np.asarray(self.labels).reshape(-1)
        if len(labels) != self.cells.n_items:
            raise ValueError(f"labels must have length {self.cells.n_items}, got {len(labels)}")
        self.labels = labels
        ids, inverse = np.unique(labels, return_inverse=True)
        self.partition_ids = ids
        self.part_of_item = inverse.reshape(-1).astype(np.int32)

    @property
    def n_partitions(self) -> int:
        return len(self.partition_ids)

    def members(self, k: int) -> np.ndarray:
        """Items of part index ``k``."""
        return np.flatnonzero(self.part_of_item == k)

    @property
    def sizes(self) -> np.ndarray:
        """Items per part."""
        return np.bincount(self.part_of_item, minlength=self.n_partitions)

    @property
    def polygons(self) -> np.ndarray:
        """Union of each part's cells (object array of Polygon / MultiPolygon)."""
        if self._polygons is None:
            order = np.argsort(self.part_of_item, kind="stable")
            bounds = np.searchsorted(self.part_of_item[order], np.arange(self.n_partitions + 1))
            site = self.cells.site_of_item[order]
            out = np.empty(self.n_partitions, dtype=object)
            for k in range(self.n_partitions):
                # Co-located items share a cell: union each site once.
                sites = np.unique(site[bounds[k] : bounds[k + 1]])
                out[k] = shapely.union_all(self.cells.site_cells[sites])
            self._polygons = out
        return self._polygons

    @property
    def areas_km2(self) -> np.ndarray:
        return shapely.area(self.polygons) / 1e6

    @property
    def centroids(self) -> np.ndarray:
        """``(n_partitions, 2)`` centroid of each merged polygon (paper 000, footnote 7)."""
        return shapely.get_coordinates(shapely.centroid(self.polygons))

    @property
    def contiguous(self) -> np.ndarray:
        """True where a part's union is a single Polygon (not a MultiPolygon)."""
        return shapely.get_type_id(self.polygons) == shapely.GeometryType.POLYGON

    @property
    def connected(self) -> np.ndarray:
        """True where a part is connected in the cell adjacency graph.

        Differs from :attr:`contiguous` only where cells meet at a single
        corner point: neighbours by the paper's footnote 6, but their union is
        a MultiPolygon.
        """
        out = np.ones(self.n_partitions, dtype=bool)
        indptr, indices = self.cells.indptr, self.cells.indices
        part = self.part_of_item
        for k in range(self.n_partitions):
            items = self.members(k)
            seen = {int(items[0])}
            stack = [int(items[0])]
            while stack:
                i = stack.pop()
                for j in indices[indptr[i] : indptr[i + 1]].tolist():
                    if part[j] == k and j not in seen:
                        seen.add(j)
                        stack.append(j)
            out[k] = len(seen) == len(items)
        return out

    def centres(self, singleton_centre: str = "item") -> np.ndarray:
        """``(n_partitions, 2)`` partition centres: merged-polygon centroids, except that
        a one-item part sits at its item when ``singleton_centre="item"``
        (see :mod:`anonstudio.data.geo.contiguity`)."""
        centres = self.centroids.copy()
        if singleton_centre == "item":
            single = np.flatnonzero(self.sizes == 1)
            item = np.empty(self.n_partitions, dtype=np.int64)
            item[self.part_of_item] = np.arange(len(self.part_of_item))
            centres[single] = self.cells.coords[item[single]]
        elif singleton_centre != "cell":
            raise ValueError(f"singleton_centre must be 'item' or 'cell', got {singleton_centre!r}")
        return centres

    def error(self, weights: np.ndarray, singleton_centre: str = "item") -> float:
        """The paper's average error (metres) with centres from :meth:`centres`."""
        return geographic_error(self.cells.coords, weights, self.part_of_item, self.centres(singleton_centre))

    def outline_xy(self) -> tuple[np.ndarray, np.ndarray]:
        """All part boundaries as one x and one y array, rings separated by NaN (for line plots)."""
        rings = shapely.get_parts(shapely.boundary(self.polygons))
        rings = shapely.get_parts(rings)  # MultiLineStrings of polygons with holes
        xs, ys = [], []
        for ring in rings:
            xy = shapely.get_coordinates(ring)
            xs += [xy[:, 0], [np.nan]]
            ys += [xy[:, 1], [np.nan]]
        if not xs:
            return np.zeros(0), np.zeros(0)
        return np.concatenate(xs), np.concatenate(ys)

    def supports(self, indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
        """Records that contain at least one item of each part (CSR records).

        One pass in a kernel: the map asks for this on the GUI thread, and
        sorting (record, part) pairs took 13 s for a million people.
        """
        # A dataset's arrays (read-only int64, int32) whatever the caller holds: the kernel has one variant.
        return records_per_partition(read_only(np.asarray(indptr, dtype=np.int64)),
                                     read_only(np.asarray(indices, dtype=np.int32)),
                                     np.array(self.part_of_item, dtype=np.int64), self.n_partitions)

    def polygon(self, k: int) -> BaseGeometry:
        return self.polygons[k]
