"""Location dataset from check-ins + venue coordinates, filtered to a city box."""
import numpy as np
import pytest

from anonstudio.data.errors import DataFormatError
from anonstudio.data.foursquare import NYC_BOX, LatLonBox, build_location_dataset
from anonstudio.data.geo import build_voronoi
from anonstudio.data.io.coordinates import load_coordinates, save_coordinates
from tests.reference import geography_reference as ref


@pytest.fixture
def files(data_dir):
    folder = data_dir / "geography"
    return folder / "fsq_checkins.txt", folder / "fsq_venues.txt"


def test_records_keep_only_venues_inside_the_box(files):
    ds = build_location_dataset(*files)
    data = ds.data
    # user 2 only visited Monterrey (79) and upstate (7): dropped; venue 7 is outside the box
    assert ds.user_ids == ("0", "1", "3", "4")
    assert [sorted(data.record_labels(u)) for u in range(data.n_records)] == [["0", "20"], ["20"], ["5"], ["6"]]
    assert sorted(data.vocab) == ["0", "20", "5", "6"]
    assert ds.checkins == 6  # check-ins at venues 0, 20, 5, 6 (user 0 checked in at 0 twice)
    assert data.coords.shape == (4, 2)


def test_coordinates_are_projected_consistently(files, tmp_path):
    ds = build_location_dataset(*files)
    index = {label: i for i, label in enumerate(ds.data.vocab)}
    a, b = ds.data.coords[index["0"]], ds.data.coords[index["20"]]
    # Empire State area to SoHo: about 3.4 km (haversine)
    assert np.hypot(*(a - b)) == pytest.approx(3_390, rel=0.01)
    # saving the kept venues as lat/lon and loading them gives the same metres
    save_coordinates(ds.coordinates, tmp_path / "venues.csv")
    again = load_coordinates(tmp_path / "venues.csv")
    for label, xy in zip(again.labels, again.xy):
        assert ds.data.coords[index[label]] == pytest.approx(xy, abs=1e-6)
    lat, lon = ds.projection.to_latlon(ds.data.coords).T
    assert NYC_BOX.contains(lat, lon).all()


def test_venues_tessellate_into_cells(files):
    ds = build_location_dataset(*files)
    cells = build_voronoi(ds.data.coords)
    grid = cells.boundary.representative_point()
    owner = [i for i in range(cells.n_items) if cells.cells[i].contains(grid)]
    assert owner == [ref.nearest_site((grid.x, grid.y), ds.data.coords.tolist())[0]]


def test_written_files_load_back_to_the_same_dataset(files, tmp_path):
    from anonstudio.data.foursquare import main
    from anonstudio.data.io import attach_coordinates, load_transactions

    out, coords = tmp_path / "nyc.dat", tmp_path / "nyc_venues.csv"
    assert main([str(files[0]), str(files[1]), "--out", str(out), "--coords-out", str(coords)]) == 0
    ds = build_location_dataset(*files)
    again = attach_coordinates(load_transactions(out), load_coordinates(coords))
    assert again.n_records == ds.data.n_records
    for u in range(again.n_records):
        assert sorted(again.record_labels(u)) == sorted(ds.data.record_labels(u))
    index = {label: i for i, label in enumerate(ds.data.vocab)}
    for label, xy in zip(again.vocab, again.coords):
        assert xy == pytest.approx(ds.data.coords[index[label]], abs=1e-6)


def test_empty_box_is_an_error(files):
    with pytest.raises(DataFormatError, match="inside"):
        build_location_dataset(*files, box=LatLonBox(0, 1, 0, 1))


def test_malformed_venue_file(tmp_path, files):
    bad = tmp_path / "venues.txt"
    bad.write_text("0\t40.7\tnorth\n")
    with pytest.raises(DataFormatError) as info:
        build_location_dataset(files[0], bad)
    assert "venues.txt" in str(info.value)
