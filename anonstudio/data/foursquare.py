"""A city's location dataset from Foursquare-style check-ins and venue coordinates.

Input: ``user<TAB>venue<TAB>unix_time`` check-ins and ``venue<TAB>lat<TAB>lon``
venue coordinates (the layout of the Foursquare data used by Liu et al.,
VLDB 2017). Output: one record per user holding the distinct venues they
checked in at inside a latitude/longitude box, with venue positions projected
to metres. The venues play the part of paper 000's cell towers: tessellate
them into Voronoi cells with :func:`anonstudio.data.geo.build_voronoi`.

Such data is free for research but may not be redistributed, so anonstudio
does not bundle it; benchmarks read it from where the user keeps it. To use it
from the command line, write it out once::

    python -m anonstudio.data.foursquare Foursquare_checkins.txt Foursquare_poi_coos.txt \
        --out nyc.dat --coords-out nyc_venues.csv
    anonstudio-cli kmanon nyc.dat --coords nyc_venues.csv ...
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import DataFormatError
from .geo.projection import LocalProjection
from .io import load_transactions, save_transactions
from .io.coordinates import Coordinates, attach_coordinates, load_coordinates, project_lonlat, save_coordinates
from .io.report import load_report
from .transactions import TransactionData

__all__ = ["LatLonBox", "NYC_BOX", "LocationDataset", "build_location_dataset", "write_location_dataset"]


@dataclass(frozen=True)
class LatLonBox:
    """A latitude/longitude rectangle (degrees, bounds included)."""

    lat_min: float
    lat_max: float
    lon_min: float
    lon_max: float

    def contains(self, lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
        return (lat >= self.lat_min) & (lat <= self.lat_max) & (lon >= self.lon_min) & (lon <= self.lon_max)


#: New York City: holds 1,929 venues visited by 2,162 users of the Foursquare US data.
NYC_BOX = LatLonBox(40.49, 40.92, -74.27, -73.68)


@dataclass(frozen=True, eq=False)
class LocationDataset:
    """Records of located items plus what is needed to map them back to lat/lon.

    Attributes
    ----------
    data
        One record per user (distinct venues), ``coords`` in metres.
    coordinates
        The kept venues' positions (``xy`` metres, ``lonlat`` degrees, ``origin``).
    projection
        The projection of ``data.coords`` (for lat/lon study areas and GeoJSON).
    user_ids
        Original user id of each record.
    checkins
        Check-ins inside the box.
    """

    data: TransactionData
    coordinates: Coordinates
    projection: LocalProjection
    user_ids: tuple[str, ...]
    checkins: int


def build_location_dataset(
    checkins_path: str | Path,
    venues_path: str | Path,
    box: LatLonBox = NYC_BOX,
    *,
    name: str = "Foursquare New York City",
) -> LocationDataset:
    """Users' distinct venues inside ``box``, venues projected to metres.

    Venues outside the box are dropped from every record, then users left with
    no venue are dropped, and venues nobody visited are not items. The
    projection is centred on the bounding box of the kept venues, as
    :func:`~anonstudio.data.io.coordinates.load_coordinates` would centre it
    when the kept venues are saved as ``item,lat,lon`` and loaded again.

    Raises
    ------
    DataFormatError
        For malformed files or when no check-in falls inside the box.
    """
    venues = load_coordinates(venues_path, kind="latlon")
    visits = load_transactions(checkins_path, format="checkins")
    visited = set(visits.vocab)
    labels = np.asarray(venues.labels, dtype=object)
    kept = box.contains(venues.lonlat[:, 1], venues.lonlat[:, 0])
    kept &= np.fromiter((label in visited for label in labels), dtype=bool, count=len(labels))
    if not kept.any():
        raise DataFormatError(venues_path, "no checked-in venue lies inside the latitude/longitude box")
    lonlat = venues.lonlat[kept]
    xy, origin = project_lonlat(lonlat)
    located = Coordinates(tuple(labels[kept].tolist()), xy, lonlat, origin)
    keep_labels = set(located.labels)
    n_checkins = _checkins_in(checkins_path, keep_labels)
    data = attach_coordinates(visits, located, drop_missing=True)
    users = np.flatnonzero(data.lengths > 0)
    record_ids = load_report(visits).record_ids or [str(u) for u in range(visits.n_records)]
    data = data.subset(users)
    data = TransactionData(data.indptr, data.indices, data.vocab, coords=data.coords, name=name,
                           source=Path(checkins_path))
    return LocationDataset(data, located, LocalProjection.of(located), tuple(record_ids[u] for u in users),
                           n_checkins)


def _checkins_in(path: str | Path, venues: set[str]) -> int:
    """Check-in rows whose venue is in ``venues`` (records keep only distinct venues)."""
    count = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            fields = line.split("\t")
            if len(fields) >= 2 and fields[1].strip() in venues:
                count += 1
    return count


def write_location_dataset(ds: LocationDataset, out: str | Path, coords_out: str | Path) -> None:
    """Records to ``out`` (format from the extension, ``.dat`` = FIMI) and the venues
    to ``coords_out`` as ``item,lat,lon``; loading that file projects it to the
    same metres as ``ds.data.coords``."""
    save_transactions(ds.data, out)
    save_coordinates(ds.coordinates, coords_out)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m anonstudio.data.foursquare",
                                     description="Build a city location dataset from check-ins and venue coordinates.")
    parser.add_argument("checkins", type=Path, help="user<TAB>venue<TAB>time file")
    parser.add_argument("venues", type=Path, help="venue<TAB>lat<TAB>lon file")
    parser.add_argument("--box", type=float, nargs=4, metavar=("LAT_MIN", "LAT_MAX", "LON_MIN", "LON_MAX"),
                        help="latitude/longitude box (default: New York City)")
    parser.add_argument("--out", type=Path, required=True, help="records file (.dat: FIMI)")
    parser.add_argument("--coords-out", type=Path, required=True, help="venue coordinates CSV (item,lat,lon)")
    args = parser.parse_args(argv)
    box = LatLonBox(*args.box) if args.box else NYC_BOX
    try:
        ds = build_location_dataset(args.checkins, args.venues, box)
    except (DataFormatError, FileNotFoundError) as exc:
        print(f"error: {exc}")
        return 2
    write_location_dataset(ds, args.out, args.coords_out)
    s = ds.data.summary()
    print(f"{s.records:,} users, {s.items:,} venues, {ds.checkins:,} check-ins; record length mean "
          f"{s.mean_length:.2f}, max {s.max_length}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
