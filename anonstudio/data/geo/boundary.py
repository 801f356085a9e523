"""The study area: the region the Voronoi cells of the items are clipped to.

By default it is the convex hull of the item points buffered by a margin equal
to the median nearest-neighbour distance between distinct points: wide enough
that border cells are not cut right at their tower, narrow enough that they do
not reach far into land no tower serves. A user may instead give a polygon file
(GeoJSON or WKT).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import shapely
from scipy.spatial import cKDTree
from shapely.geometry.base import BaseGeometry

from ..errors import DataFormatError
from .projection import LocalProjection

__all__ = ["default_margin", "default_boundary", "load_boundary", "boundary_from_geojson"]


def default_margin(coords: np.ndarray) -> float:
    """Median distance from each distinct point to its nearest other point (metres).

    Falls back to 1 m when there are fewer than two distinct points.
    """
    sites = np.unique(np.asarray(coords, dtype=np.float64).reshape(-1, 2), axis=0)
    if len(sites) < 2:
        return 1.0
    dist, _ = cKDTree(sites).query(sites, k=2)
    margin = float(np.median(dist[:, 1]))
    return margin if margin > 0 else 1.0


def default_boundary(coords: np.ndarray, margin: float | None = None) -> BaseGeometry:
    """Convex hull of ``coords`` buffered by ``margin`` (default :func:`default_margin`)."""
    coords = np.asarray(coords, dtype=np.float64).reshape(-1, 2)
    if len(coords) == 0:
        raise ValueError("no item coordinates to build a study area from")
    if margin is None:
        margin = default_margin(coords)
    hull = shapely.convex_hull(shapely.multipoints(coords))
    # A hull of collinear points is a line and of one point a point; the
    # buffer turns either into a proper polygon.
    return shapely.buffer(hull, margin, quad_segs=8)


def _polygonal(geom: BaseGeometry, path: Path) -> BaseGeometry:
    if geom.is_empty or geom.geom_type not in ("Polygon", "MultiPolygon", "GeometryCollection"):
        raise DataFormatError(path, f"the study area must be a polygon, got {geom.geom_type}")
    polys = [g for g in getattr(geom, "geoms", [geom]) if g.geom_type in ("Polygon", "MultiPolygon")]
    if not polys:
        raise DataFormatError(path, "the study area file holds no polygon")
    area = shapely.union_all(polys)
    if not area.is_valid:
        area = shapely.make_valid(area)
    if area.area <= 0:
        raise DataFormatError(path, "the study area has zero area")
    return area


def boundary_from_geojson(obj: dict, path: Path | None = None) -> BaseGeometry:
    """Union of the polygons in a GeoJSON geometry, Feature or FeatureCollection."""
    where = path or Path("boundary.geojson")
    kind = obj.get("type") if isinstance(obj, dict) else None
    if kind == "FeatureCollection":
        geoms = [boundary_from_geojson(f, path) for f in obj.get("features", []) if f.get("geometry")]
        if not geoms:
            raise DataFormatError(where, "the FeatureCollection has no geometries")
        return shapely.union_all(geoms)
    if kind == "Feature":
        if not obj.get("geometry"):
            raise DataFormatError(where, "the Feature has no geometry")
        return boundary_from_geojson(obj["geometry"], path)
    try:
        return shapely.from_geojson(json.dumps(obj))
    except shapely.errors.GEOSException as exc:
        raise DataFormatError(where, f"not a GeoJSON geometry ({exc})") from None


def load_boundary(
    path: str | Path,
    *,
    units: str = "auto",
    projection: LocalProjection | None = None,
) -> BaseGeometry:
    """Read a study-area polygon from GeoJSON (``.geojson``/``.json``) or WKT.

    Parameters
    ----------
    path
        The polygon file.
    units
        ``"m"``: coordinates are metres in the same frame as the item coordinates.
        ``"lonlat"``: degrees (longitude, latitude), projected with ``projection``.
        ``"auto"``: GeoJSON is read as lon/lat (as RFC 7946 specifies), WKT as metres.
    projection
        The projection the item coordinates were made with; required for lon/lat.
    """
    from ..io.text import read_text

    path = Path(path)
    text = read_text(path)  # a regular file, capped if compressed, decoded, one line-end rule
    is_json = path.suffix.lower() in (".geojson", ".json") or text.lstrip().startswith("{")
    if is_json:
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataFormatError(path, f"invalid JSON ({exc.msg})", exc.lineno) from None
        geom = boundary_from_geojson(obj, path)
    else:
        try:
            geom = shapely.from_wkt(text.strip())
        except shapely.errors.GEOSException as exc:
            raise DataFormatError(path, f"invalid WKT ({exc})") from None
    if units == "auto":
        units = "lonlat" if is_json else "m"
    if units not in ("m", "lonlat"):
        raise ValueError(f"units must be 'auto', 'm' or 'lonlat', got {units!r}")
    if units == "lonlat":
        if projection is None:
            raise DataFormatError(path, "longitude/latitude polygons need the projection of the item coordinates")
        geom = shapely.transform(geom, lambda lonlat: projection.to_xy(lonlat[:, 1], lonlat[:, 0]))
    return _polygonal(geom, path)
