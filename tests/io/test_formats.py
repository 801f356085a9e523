"""Each loader on a small hand-made file, and sniffing picks the right format."""
import numpy as np
import pytest

from anonstudio.data import Table, TransactionData
from anonstudio.data.io import (
    attach_coordinates,
    load_any,
    load_coordinates,
    load_report,
    load_table,
    load_transactions,
    sniff_format,
)


def labels_of(data: TransactionData) -> list[list[str]]:
    return [data.record_labels(u) for u in range(data.n_records)]


@pytest.mark.parametrize("name, expected", [
    ("small.dat", "fimi"), ("seq_crlf.txt", "spmf-seq"), ("long_header.csv", "csv-long"),
    ("long_noheader.csv", "csv-long"), ("sets.csv", "csv-sets"), ("checkins.tsv", "checkins"),
    ("adult_sample.data", "csv-table"), ("adult_sample.test", "csv-table"), ("dup.dat", "fimi"),
])
def test_sniffing(io_data, name, expected):
    assert sniff_format(io_data / name).name == expected


def test_spmf_sequences_with_crlf(io_data, unchanged):
    with unchanged(io_data / "seq_crlf.txt"):
        data = load_transactions(io_data / "seq_crlf.txt")
    assert labels_of(data) == [["1", "2", "3"], ["4", "5"], [], ["2"]]
    # Repeats across itemsets of a sequence are normal, not a data problem.
    assert not any("duplicate" in w for w in load_report(data).warnings)


def test_csv_long_with_header_keeps_record_ids(io_data):
    data = load_transactions(io_data / "long_header.csv")
    assert labels_of(data) == [["bread", "milk"], ["beer", "milk"], ["eggs"]]
    report = load_report(data)
    assert report.record_ids == ["r1", "r2", "r3"]
    assert report.warnings == ["1 record had duplicate items (line 6; 1 repeat), deduplicated"]


def test_csv_long_without_header(io_data):
    data = load_transactions(io_data / "long_noheader.csv", format="csv-long")
    assert labels_of(data) == [["5", "7"], ["5"], ["5", "9"]]
    assert load_report(data).record_ids == ["10", "11", "12"]


def test_csv_long_columns_by_name(io_data):
    data = load_transactions(io_data / "long_header.csv", format="csv-long", record="item", item="record")
    assert labels_of(data)[0] == ["r1", "r2"]  # milk is in r1 and r2


def test_csv_sets_auto_column_and_by_name(io_data):
    data = load_transactions(io_data / "sets.csv")
    assert labels_of(data) == [["250", "401"], [], ["250", "401", "493"]]
    by_name = load_transactions(io_data / "sets.csv", format="csv-sets", column="codes")
    assert labels_of(by_name) == labels_of(data)
    ages = load_transactions(io_data / "sets.csv", format="csv-sets", column="age")
    assert labels_of(ages) == [["34"], ["51"], ["29"]]


def test_checkins_one_record_per_user(io_data):
    data = load_transactions(io_data / "checkins.tsv")
    assert labels_of(data) == [["v1", "v3"], ["v1"]]
    report = load_report(data)
    assert report.record_ids == ["u1", "u2"]
    assert report.details["checkins"] == 4
    assert report.warnings == ["1 record had duplicate items (line 4; 1 repeat), deduplicated"]


def test_adult_table(io_data, unchanged):
    with unchanged(io_data / "adult_sample.data"):
        table = load_table(io_data / "adult_sample.data")
    assert isinstance(table, Table)
    assert table.frame.shape == (19, 15)
    assert table.frame.iloc[0, 1] == "State-gov"  # ", " separators are stripped
    assert table.frame.dtypes.iloc[0] == np.int64
    assert table.frame.isna().sum().sum() > 0  # '?' became missing
    assert load_report(table).details["missing"]["c2"] >= 1


def test_adult_test_skips_banner_and_label_dots(io_data):
    table = load_any(io_data / "adult_sample.test")
    assert table.frame.shape == (5, 15)
    assert table.frame.iloc[:, -1].tolist() == ["<=50K", "<=50K", ">50K", ">50K", "<=50K"]
    assert any("trailing '.'" in w for w in load_report(table).warnings)
    assert table.frame.iloc[4, 1] != table.frame.iloc[4, 1]  # '?' -> NaN


def test_table_names_and_header_options(io_data, tmp_path):
    names = [f"col{i}" for i in range(15)]
    table = load_table(io_data / "adult_sample.data", names=names)
    assert list(table.frame.columns) == names
    path = tmp_path / "people.csv"
    path.write_text("sex,race\nMale,White\nFemale,Black\n")
    assert list(load_table(path).frame.columns) == ["sex", "race"]
    assert load_table(path, header=False).n_rows == 3


def test_table_names_from_uci_names_file(io_data, tmp_path):
    data = tmp_path / "adult.data"
    data.write_bytes((io_data / "adult_sample.data").read_bytes())
    (tmp_path / "adult.names").write_text("| comment\n>50K, <=50K.\n\n" + "\n".join(
        f"{n}: continuous." for n in ["age", "workclass", "fnlwgt", "education", "education-num",
                                       "marital-status", "occupation", "relationship", "race", "sex",
                                       "capital-gain", "capital-loss", "hours-per-week", "native-country"]))
    table = load_table(data)
    assert table.frame.columns[0] == "age" and table.frame.columns[-1] == "class"


def test_coordinates_latlon_projection(io_data):
    coords = load_coordinates(io_data / "coords_latlon.tsv")
    assert coords.labels == ("v1", "v3", "v9")
    assert coords.lonlat[0].tolist() == [-73.9922, 40.7489]
    # Centre of the bounding box is the origin; 0.01 deg of latitude is ~1112 m.
    lon0, lat0 = coords.origin
    assert lat0 == pytest.approx((40.7489 + 40.7) / 2)
    assert coords.xy[0, 1] - coords.xy[2, 1] == pytest.approx(0.0489 * 111_195, rel=1e-3)
    dx = coords.xy[2, 0] - coords.xy[0, 0]
    assert dx == pytest.approx(0.0922 * 111_195 * np.cos(np.radians(lat0)), rel=1e-6)


def test_coordinates_xy_header(io_data):
    coords = load_coordinates(io_data / "coords_xy.csv")
    assert coords.lonlat is None
    assert coords.xy.tolist() == [[0.0, 0.0], [100.5, -20.0]]


def test_attach_coordinates(io_data):
    data = load_transactions(io_data / "checkins.tsv")
    coords = load_coordinates(io_data / "coords_latlon.tsv")
    placed = attach_coordinates(data, coords)
    assert placed.coords.shape == (2, 2)
    assert placed.coords[placed.vocab.index("v3")].tolist() == coords.xy[1].tolist()
    partial = load_coordinates(io_data / "coords_latlon.tsv")
    partial = type(partial)(partial.labels[:1], partial.xy[:1], partial.lonlat[:1], partial.origin)
    with pytest.raises(ValueError, match="1 items have no coordinates"):
        attach_coordinates(data, partial)
    dropped = attach_coordinates(data, partial, drop_missing=True)
    assert dropped.vocab == ("v1",)
    assert [dropped.record_labels(u) for u in range(2)] == [["v1"], ["v1"]]
    assert "1 items without coordinates removed (1 occurrences)" in load_report(dropped).warnings


def test_csv_long_named_columns_and_dropped_codes(tmp_path):
    path = tmp_path / "conditions.csv"
    path.write_text("DUID,DUPERSID,ICD9CODX,year\n1,p1,401,2005\n1,p1,-9,2005\n2,p2,-1,2005\n3,p3,250,2005\n"
                    "3,p3,401,2005\n")
    data = load_transactions(path, format="csv-long", record="DUPERSID", item="ICD9CODX", drop_items=("-1", "-9"))
    assert labels_of(data) == [["401"], [], ["250", "401"]]
    report = load_report(data)
    assert report.record_ids == ["p1", "p2", "p3"]
    assert "2 rows with items '-1', '-9' skipped" in report.warnings
    assert "1 empty record" in report.warnings


def test_dialog_filters_list_every_format():
    from anonstudio.data.io import dialog_filters, formats
    filters = dialog_filters("transactions")
    assert "FIMI / SPMF itemsets (*.dat *.txt *.fimi)" in filters
    # fimi, spmf-seq, csv-long, checkins, csv-sets, parquet, sheet-long, sheet-sets
    assert len(filters) == len(formats("transactions")) == 8


def test_gzip_files_are_read_transparently(io_data, tmp_path):
    import gzip
    path = tmp_path / "small.dat.gz"
    path.write_bytes(gzip.compress((io_data / "small.dat").read_bytes()))
    data = load_transactions(path)
    assert labels_of(data) == labels_of(load_transactions(io_data / "small.dat"))
    assert load_report(data).format == "fimi"
    broken = tmp_path / "broken.dat.gz"
    broken.write_bytes(gzip.compress(b"1 2\n" * 1000)[:30])
    from anonstudio.data.errors import DataFormatError
    with pytest.raises(DataFormatError, match="broken.dat.gz: is a damaged gzip file"):
        load_transactions(broken, format="fimi")


def test_parquet_list_column_and_long_form(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    lists = tmp_path / "lists.parquet"
    pq.write_table(pa.table({"user": ["a", "b", "c"],
                             "codes": pa.array([[401, 250, 401], None, [7]], type=pa.list_(pa.int64()))}), lists)
    data = load_transactions(lists)
    assert labels_of(data) == [["250", "401"], [], ["7"]]
    assert "1 record had duplicate items (row 1; 1 repeat), deduplicated" in load_report(data).warnings
    long = tmp_path / "long.parquet"
    pq.write_table(pa.table({"record": ["r2", "r1", "r2", "r1"], "item": ["x", "y", "z", None]}), long)
    assert sniff_format(long).name == "parquet"
    data = load_transactions(long)
    assert labels_of(data) == [["x", "z"], ["y"]]
    assert load_report(data).record_ids == ["r2", "r1"]
    table_file = tmp_path / "people.parquet"
    pq.write_table(pa.table({"age": [30, 41], "sex": ["F", "M"], "zip": ["123", "456"]}), table_file)
    assert isinstance(load_any(table_file), Table)
