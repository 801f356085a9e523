"""Geography of located items (e.g. cell towers): Voronoi cells, adjacency,
partition polygons, the geographic error of paper 000 and GeoJSON export."""
from .boundary import default_boundary, default_margin, load_boundary
from .contiguity import ContiguityGeometry
from .geojson import partitions_to_geojson, write_partitions_geojson
from .partitions import PartitionGeometry, geographic_error
from .projection import LocalProjection
from .voronoi import VoronoiCells, build_voronoi

__all__ = [
    "ContiguityGeometry", "LocalProjection", "PartitionGeometry", "VoronoiCells", "build_voronoi",
    "default_boundary", "default_margin", "geographic_error", "load_boundary", "partitions_to_geojson",
    "write_partitions_geojson",
]
