"""GeoJSON export of partition polygons (one Feature per part).

RFC 7946 GeoJSON is longitude/latitude. With a :class:`LocalProjection`
(coordinates that came from lat/lon) the polygons are written in degrees;
without one (e.g. a synthetic city) they stay in metres, and the collection
carries the foreign member ``"anonstudio:units": "m"`` saying so.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import shapely

from ..io import atomic_write
from .partitions import PartitionGeometry
from .projection import LocalProjection

__all__ = ["partitions_to_geojson", "write_partitions_geojson"]


def partitions_to_geojson(
    partitions: PartitionGeometry,
    *,
    item_labels: Sequence[str] | None = None,
    supports: np.ndarray | None = None,
    projection: LocalProjection | None = None,
) -> dict:
    """A FeatureCollection dict; properties: partition, items, size, area_km2,
    centroid (metres), contiguous and, if given, support (records touching the part)."""
    polygons = partitions.polygons
    if projection is not None:
        polygons = shapely.transform(polygons, projection.to_lonlat)
    centroids = partitions.centroids
    areas = partitions.areas_km2
    contiguous = partitions.contiguous
    sizes = partitions.sizes
    features = []
    for k in range(partitions.n_partitions):
        items = partitions.members(k)
        props = {
            "partition": int(partitions.partition_ids[k]) if np.issubdtype(partitions.partition_ids.dtype, np.integer)
            else str(partitions.partition_ids[k]),
            "items": [item_labels[i] for i in items] if item_labels is not None else items.tolist(),
            "size": int(sizes[k]),
            "area_km2": round(float(areas[k]), 6),
            "centroid_x_m": round(float(centroids[k, 0]), 3),
            "centroid_y_m": round(float(centroids[k, 1]), 3),
            "contiguous": bool(contiguous[k]),
        }
        if supports is not None:
            props["support"] = int(supports[k])
        geometry = json.loads(shapely.to_geojson(polygons[k]))
        features.append({"type": "Feature", "geometry": geometry, "properties": props})
    out: dict = {"type": "FeatureCollection", "features": features}
    if projection is None:
        out["anonstudio:units"] = "m"
    else:
        out["anonstudio:projection"] = {"kind": "equirectangular", "lat0": projection.lat0, "lon0": projection.lon0}
    return out


def write_partitions_geojson(path: str | Path, partitions: PartitionGeometry, **options) -> None:
    """Write :func:`partitions_to_geojson` to ``path`` atomically."""
    collection = partitions_to_geojson(partitions, **options)
    with atomic_write(path) as fh:
        json.dump(collection, fh, separators=(",", ":"))
        fh.write("\n")
