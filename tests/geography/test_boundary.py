"""Study-area polygons from WKT and GeoJSON files."""
import numpy as np
import pytest
import shapely

from anonstudio.data.errors import DataFormatError
from anonstudio.data.geo import LocalProjection, build_voronoi, load_boundary


def test_wkt_in_metres(data_dir):
    area = load_boundary(data_dir / "geography" / "square_1km.wkt")
    assert area.equals(shapely.box(0, 0, 1000, 1000))
    cells = build_voronoi(np.array([[100.0, 100.0], [900.0, 900.0]]), area)
    assert cells.total_area_km2 == pytest.approx(1.0)


def test_geojson_in_degrees_is_projected(data_dir):
    proj = LocalProjection(40.72, -73.995)
    area = load_boundary(data_dir / "geography" / "lower_manhattan.geojson", projection=proj)
    # 0.05 deg of longitude x 0.04 deg of latitude at 40.72 N: about 4.21 km x 4.45 km
    assert area.area / 1e6 == pytest.approx(4.215 * 4.448, rel=0.01)
    assert area.contains(shapely.Point(0, 0))
    with pytest.raises(DataFormatError, match="projection"):
        load_boundary(data_dir / "geography" / "lower_manhattan.geojson")


def test_projection_round_trip():
    proj = LocalProjection(40.7, -74.0)
    lat, lon = np.array([40.5, 40.9]), np.array([-74.2, -73.7])
    back = proj.to_latlon(proj.to_xy(lat, lon))
    assert back[:, 0] == pytest.approx(lat) and back[:, 1] == pytest.approx(lon)
    # one degree of latitude is about 111.2 km
    assert proj.to_xy(np.array([41.7]), np.array([-74.0]))[0, 1] == pytest.approx(111_195, rel=1e-4)


@pytest.mark.parametrize("text, reason", [
    ("POLYGON ((0 0, 1 0", "invalid WKT"),
    ("LINESTRING (0 0, 1 1)", "must be a polygon"),
    ('{"type": "Point", "coordinates": [1, 2', "invalid JSON"),
])
def test_bad_boundary_files(tmp_path, text, reason):
    path = tmp_path / ("area.json" if text.startswith("{") else "area.wkt")
    path.write_text(text)
    with pytest.raises(DataFormatError, match=reason) as info:
        load_boundary(path, units="m")
    assert path.name in str(info.value)
