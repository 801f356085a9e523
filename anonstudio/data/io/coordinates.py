"""Item coordinates: ``item,lat,lon`` (or ``item,x,y`` in metres), comma or tab separated.

Geographic coordinates are projected to metres with a local equirectangular
projection around the centre of the data's bounding box
(``lat0``, ``lon0``)::

    x = R * (lon - lon0) * cos(lat0)      (radians)
    y = R * (lat - lat0)

with R = 6,371,008.8 m (mean Earth radius). Distances are accurate to well
under 1 % within a city (tens of km); across a continent east-west distances
far from ``lat0`` are off by the ratio of the cosines, so use a proper
projection for such data. Longitude/latitude are kept alongside.

Which columns hold what: a header row naming ``lat``/``latitude`` and
``lon``/``lng``/``longitude`` (any order) or ``x``, ``y``; without a header,
``item, lat, lon`` is assumed when the values fit (|lat| <= 90, |lon| <= 180),
else ``item, x, y``. ``kind=`` forces ``"latlon"``, ``"lonlat"`` or ``"xy"``.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import DataFormatError
from ..transactions import TransactionData
from .atomic import atomic_write
from .delimited import is_number, looks_like_header, read_rows
from .report import LoadReport, attach_report

__all__ = ["Coordinates", "load_coordinates", "save_coordinates", "attach_coordinates", "project_lonlat",
           "EARTH_RADIUS_M"]

EARTH_RADIUS_M = 6_371_008.8

_LAT = ("lat", "latitude")
_LON = ("lon", "lng", "long", "longitude")


@dataclass(frozen=True, eq=False)
class Coordinates:
    """Positions of labelled items.

    Parameters
    ----------
    labels
        Item labels, one per row.
    xy
        ``(n, 2)`` float64 positions in metres.
    lonlat
        ``(n, 2)`` longitude, latitude in degrees, if the file was geographic.
    origin
        ``(lon0, lat0)`` of the projection, if geographic.
    """

    labels: tuple[str, ...]
    xy: np.ndarray
    lonlat: np.ndarray | None = None
    origin: tuple[float, float] | None = None

    def __len__(self) -> int:
        return len(self.labels)

    def index(self) -> dict[str, int]:
        return {label: i for i, label in enumerate(self.labels)}


def project_lonlat(lonlat: np.ndarray, origin: tuple[float, float] | None = None
                   ) -> tuple[np.ndarray, tuple[float, float]]:
    """Local equirectangular projection to metres (see module docstring)."""
    lonlat = np.asarray(lonlat, dtype=np.float64)
    if origin is None:
        lo, hi = lonlat.min(axis=0), lonlat.max(axis=0)
        origin = (float((lo[0] + hi[0]) / 2), float((lo[1] + hi[1]) / 2))
    lon0, lat0 = origin
    rad = np.pi / 180.0
    x = EARTH_RADIUS_M * (lonlat[:, 0] - lon0) * rad * np.cos(lat0 * rad)
    y = EARTH_RADIUS_M * (lonlat[:, 1] - lat0) * rad
    return np.column_stack([x, y]), origin


def _column_roles(names: list[str] | None, values: np.ndarray, kind: str, path: Path) -> str:
    if kind != "auto":
        return kind
    if names is not None:
        lower = [n.strip().lower() for n in names[1:3]]
        if lower[0] in _LAT and lower[1] in _LON:
            return "latlon"
        if lower[0] in _LON and lower[1] in _LAT:
            return "lonlat"
        if lower == ["x", "y"]:
            return "xy"
        raise DataFormatError(path, f"cannot tell what columns {names[1]!r}, {names[2]!r} hold; pass kind=...")
    if len(values) and np.all(np.abs(values[:, 0]) <= 90) and np.all(np.abs(values[:, 1]) <= 180):
        return "latlon"
    return "xy"


def load_coordinates(path: str | Path, *, kind: str = "auto", header: bool | str = "auto",
                     sep: str | None = None, encoding: str | None = None) -> Coordinates:
    """Read item coordinates (see module docstring); a DataFormatError names bad lines."""
    path = Path(path)
    if kind not in ("auto", "latlon", "lonlat", "xy"):
        raise ValueError(f"kind must be auto, latlon, lonlat or xy, not {kind!r}")
    rows = read_rows(path, sep=sep, candidates=("\t", ",", ";"), encoding=encoding, min_fields=3)
    if header == "auto":
        header = looks_like_header(rows.rows, ("item", "id", "venue", "x", "y") + _LAT + _LON)
    names = [h.strip() for h in rows.rows[0]] if header else None
    body, lines = (rows.rows[1:], rows.lines[1:]) if header else (rows.rows, rows.lines)
    if not body:
        raise DataFormatError(path, "no coordinate rows")
    for row, line in zip(body, lines):
        for field in row[1:3]:
            if not is_number(field):
                raise DataFormatError(path, f"{field.strip()[:40]!r} is not a number", line)
    values = np.array([(float(r[1]), float(r[2])) for r in body], dtype=np.float64)
    if not np.all(np.isfinite(values)):
        bad = int(np.argmax(~np.isfinite(values).all(axis=1)))
        raise DataFormatError(path, "coordinate is not finite", lines[bad])
    labels = tuple(r[0].strip() for r in body)
    seen: dict[str, int] = {}
    for label, line in zip(labels, lines):
        if label in seen:
            raise DataFormatError(path, f"item {label!r} has coordinates twice (also line {seen[label]})", line)
        seen[label] = line
    roles = _column_roles(names, values, kind, path)
    if roles == "xy":
        return Coordinates(labels, values)
    lonlat = values[:, ::-1].copy() if roles == "latlon" else values
    if np.any(np.abs(lonlat[:, 1]) > 90) or np.any(np.abs(lonlat[:, 0]) > 180):
        bad = int(np.argmax((np.abs(lonlat[:, 1]) > 90) | (np.abs(lonlat[:, 0]) > 180)))
        raise DataFormatError(path, "latitude must be within ±90 and longitude within ±180", lines[bad])
    xy, origin = project_lonlat(lonlat)
    return Coordinates(labels, xy, lonlat, origin)


def save_coordinates(coords: Coordinates, path: str | Path) -> None:
    """Write ``item,lat,lon`` when geographic, else ``item,x,y`` (with a header)."""
    with atomic_write(path) as fh:
        writer = csv.writer(fh, lineterminator="\n")
        if coords.lonlat is not None:
            writer.writerow(["item", "lat", "lon"])
            writer.writerows((label, repr(float(lat)), repr(float(lon)))
                             for label, (lon, lat) in zip(coords.labels, coords.lonlat))
        else:
            writer.writerow(["item", "x", "y"])
            writer.writerows((label, repr(float(x)), repr(float(y))) for label, (x, y) in zip(coords.labels, coords.xy))


def attach_coordinates(data: TransactionData, coords: Coordinates, *, drop_missing: bool = False) -> TransactionData:
    """A copy of ``data`` whose items carry positions in metres.

    Items without coordinates raise ValueError, unless ``drop_missing=True``:
    then they are removed from every record (records may become empty) and
    the count is reported in ``load_report(result)``.
    """
    index = coords.index()
    pos = np.fromiter((index.get(label, -1) for label in data.vocab), dtype=np.int64, count=data.n_items)
    missing = np.flatnonzero(pos < 0)
    report = LoadReport(path=data.source, format="coordinates")
    if len(missing) and not drop_missing:
        examples = ", ".join(repr(data.vocab[i]) for i in missing[:5])
        raise ValueError(f"{len(missing):,} items have no coordinates (e.g. {examples}); "
                         "pass drop_missing=True to remove them")
    if len(missing):
        keep_item = pos >= 0
        new_id = np.cumsum(keep_item) - 1
        keep_occ = keep_item[data.indices]
        record_of = np.repeat(np.arange(data.n_records), data.lengths)[keep_occ]
        indptr = np.zeros(data.n_records + 1, dtype=np.int64)
        np.cumsum(np.bincount(record_of, minlength=data.n_records), out=indptr[1:])
        indices = new_id[data.indices[keep_occ]]
        vocab = tuple(v for v, k in zip(data.vocab, keep_item) if k)
        dropped = int((~keep_occ).sum())
        report.warn(f"{len(missing):,} items without coordinates removed ({dropped:,} occurrences)")
        data = TransactionData(indptr, indices, vocab, name=data.name, source=data.source)
        pos = pos[keep_item]
    result = data.with_coords(coords.xy[pos])
    attach_report(result, report)
    return result
