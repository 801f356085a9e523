"""Latitude/longitude to local metres and back (equirectangular about an origin).

The forward projection is the one item coordinates get when loaded
(:func:`anonstudio.data.io.coordinates.project_lonlat`), so study-area polygons
and partition maps line up with the items. Over a city (tens of kilometres) the local equirectangular projection

    x = R * cos(lat0) * (lon - lon0),    y = R * (lat - lat0)     (angles in radians)

distorts distances by well under 1 % (the error grows with the north-south
extent through cos(lat) and stays below 0.1 % across New York City), which is
far below the hundreds of metres that partition errors measure. R is the mean
Earth radius (IUGG, 6,371,008.8 m).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..io.coordinates import EARTH_RADIUS_M, Coordinates, project_lonlat

__all__ = ["EARTH_RADIUS_M", "LocalProjection"]


@dataclass(frozen=True)
class LocalProjection:
    """Equirectangular projection about ``(lat0, lon0)``; metres east/north of it."""

    lat0: float
    lon0: float

    @classmethod
    def centred_on(cls, lat: np.ndarray, lon: np.ndarray) -> LocalProjection:
        """Origin at the centre of the bounding box of the given points."""
        lat = np.asarray(lat, dtype=np.float64)
        lon = np.asarray(lon, dtype=np.float64)
        if lat.size == 0:
            raise ValueError("cannot centre a projection on no points")
        return cls(float((lat.min() + lat.max()) / 2), float((lon.min() + lon.max()) / 2))

    @classmethod
    def of(cls, coords: Coordinates) -> LocalProjection | None:
        """The projection loaded coordinates were made with (None for plain metres)."""
        if coords.origin is None:
            return None
        lon0, lat0 = coords.origin
        return cls(float(lat0), float(lon0))

    @property
    def _kx(self) -> float:
        return EARTH_RADIUS_M * np.cos(np.radians(self.lat0)) * np.pi / 180.0

    @property
    def _ky(self) -> float:
        return EARTH_RADIUS_M * np.pi / 180.0

    def to_xy(self, lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
        """``(n, 2)`` metres (x east, y north) of the given degrees."""
        lonlat = np.column_stack([np.asarray(lon, dtype=np.float64).reshape(-1),
                                  np.asarray(lat, dtype=np.float64).reshape(-1)])
        return project_lonlat(lonlat, (self.lon0, self.lat0))[0]

    def to_latlon(self, xy: np.ndarray) -> np.ndarray:
        """``(n, 2)`` degrees (lat, lon) of the given metres."""
        xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        return np.column_stack([xy[:, 1] / self._ky + self.lat0, xy[:, 0] / self._kx + self.lon0])

    def to_lonlat(self, xy: np.ndarray) -> np.ndarray:
        """``(n, 2)`` degrees in GeoJSON order (lon, lat)."""
        return self.to_latlon(xy)[:, ::-1].copy()
