"""Hostile input: every error names the file, the 1-based line and the reason; inputs stay untouched."""
import pytest

from anonstudio.data.errors import DataFormatError
from anonstudio.data.io import MissingFileError, load_any, load_report, load_table, load_transactions


@pytest.mark.parametrize("name, loader, message", [
    ("bad_item.dat", load_transactions, "bad_item.dat, line 3: 'x7' is not an integer item"),
    ("nul.dat", load_transactions, "nul.dat, line 2: looks like a binary file (contains NUL bytes), not text"),
    ("latin1.dat", lambda p: load_transactions(p, format="fimi"),
     "latin1.dat, line 2: not UTF-8 text (byte 0xe9); save it as UTF-8, e.g. with anonstudio-cli convert "
     "--encoding latin-1 IN OUT"),
    ("empty.dat", load_transactions, "empty.dat: the file is empty"),
    ("empty.dat", lambda p: load_transactions(p, format="fimi"), "empty.dat: the file is empty"),
    ("ragged.csv", lambda p: load_transactions(p, format="csv-long"),
     "ragged.csv, line 4: expected 2 fields (as on line 1) but found 3"),
    ("ragged_table.csv", load_table, "ragged_table.csv, line 3: expected 3 fields (as on line 1) but found 2"),
    ("no_such_file.dat", load_transactions, "no_such_file.dat: no such file"),
    ("no_such_file.csv", load_table, "no_such_file.csv: no such file"),
])
def test_error_names_file_line_and_reason(io_data, name, loader, message):
    path = io_data / name
    before = path.read_bytes() if path.exists() else None
    with pytest.raises(DataFormatError) as info:
        loader(path)
    assert str(info.value) == message
    if before is not None:
        assert path.read_bytes() == before


def test_missing_file_is_also_file_not_found(io_data):
    with pytest.raises(FileNotFoundError):
        load_any(io_data / "nothing-here.dat")
    assert issubclass(MissingFileError, DataFormatError)


def test_folder_is_not_a_file(io_data):
    with pytest.raises(DataFormatError, match="is a folder"):
        load_transactions(io_data)


def test_latin1_only_with_the_option(io_data, tmp_path):
    path = tmp_path / "words.csv"
    path.write_bytes("record,item\n1,caf\xe9\n1,th\xe9\n".encode("latin-1"))
    with pytest.raises(DataFormatError, match=r"words.csv, line 2: not UTF-8"):
        load_transactions(path, format="csv-long")
    data = load_transactions(path, format="csv-long", latin1_fallback=True)
    assert data.vocab == ("café", "thé")
    data = load_transactions(path, format="csv-long", encoding="cp1252")
    assert data.vocab == ("café", "thé")
    with pytest.raises(DataFormatError, match="unknown encoding 'klingon'"):
        load_transactions(path, format="csv-long", encoding="klingon")


def test_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes("\ufeffrecord,item\n1,a\n".encode("utf-8"))
    data = load_transactions(path)
    assert data.vocab == ("a",)


def test_duplicates_are_reported_and_removed(io_data):
    data = load_transactions(io_data / "dup.dat")
    assert [data.record_labels(u) for u in range(3)] == [["1", "2", "3"], ["4", "5"], ["6"]]
    report = load_report(data)
    assert report.warnings == ["2 records had duplicate items (lines 1, 3; 2 repeats), deduplicated"]
    assert report.details["records_with_duplicates"].tolist() == [0, 2]


def test_duplicate_warning_names_the_first_few_lines(tmp_path):
    path = tmp_path / "many.dat"
    path.write_text("1 2\n" + "".join(f"{i} {i}\n" for i in range(3, 8)) + "9 9 9\n")
    warnings = load_report(load_transactions(path)).warnings
    assert warnings == ["6 records had duplicate items (e.g. lines 2, 3, 4; 7 repeats), deduplicated"]
    path = tmp_path / "pairs.csv"
    path.write_text("record,item\nb,x\na,y\nb,z\nb,x\na,y\n")
    warnings = load_report(load_transactions(path)).warnings
    assert warnings == ["2 records had duplicate items (lines 5, 6; 2 repeats), deduplicated"]


def test_bad_line_deep_in_a_big_file_returns_nothing(tmp_path):
    lines = ["1 2 3"] * 5000 + ["4 five 6"] + ["7 8"] * 10
    path = tmp_path / "big.dat"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataFormatError, match=r"big.dat, line 5001: 'five' is not an integer item"):
        load_transactions(path)


def test_sequence_without_terminator(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text("1 -1 -2\n2 3 -1\n")
    with pytest.raises(DataFormatError, match=r"s.txt, line 2: a sequence must end with -2"):
        load_transactions(path, format="spmf-seq")


def test_coordinates_errors(tmp_path):
    from anonstudio.data.io import load_coordinates
    path = tmp_path / "c.tsv"
    path.write_text("a\t40.1\t-73.2\nb\tnorth\t-73.0\n")
    with pytest.raises(DataFormatError, match=r"c.tsv, line 2: 'north' is not a number"):
        load_coordinates(path)
    path.write_text("a\t40.1\t-73.2\na\t40.2\t-73.0\n")
    with pytest.raises(DataFormatError, match=r"c.tsv, line 2: item 'a' has coordinates twice \(also line 1\)"):
        load_coordinates(path)
    path.write_text("a\t95\t-73.2\n")
    with pytest.raises(DataFormatError, match=r"line 1: latitude must be within"):
        load_coordinates(path, kind="latlon")


def test_unreadable_parquet(tmp_path):
    path = tmp_path / "x.parquet"
    path.write_bytes(b"PAR1 this is not really parquet")
    with pytest.raises(DataFormatError, match="x.parquet: not a readable Parquet file"):
        load_transactions(path, format="parquet")


def test_unknown_option_is_named(io_data):
    with pytest.raises(ValueError, match="format 'fimi' has no option 'column'; options: encoding, latin1_fallback"):
        load_transactions(io_data / "small.dat", column="items")
