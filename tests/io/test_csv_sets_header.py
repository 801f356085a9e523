"""Set-column CSVs: whether the first row is a header, and the header= override."""
import pytest

from anonstudio.data.io import load_report, load_transactions


def records(data):
    return [data.record_labels(u) for u in range(data.n_records)]


def write(tmp_path, text, name="baskets.sets.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("sniffed", [True, False])
def test_first_row_holding_a_set_is_data(tmp_path, sniffed):
    path = write(tmp_path, "a;b;c\nd;e\n", "baskets.csv")
    data = load_transactions(path) if sniffed else load_transactions(path, format="csv-sets")
    assert records(data) == [["a", "b", "c"], ["d", "e"]]
    assert load_report(data).warnings == []


def test_first_row_item_seen_in_other_records_is_data(tmp_path):
    data = load_transactions(write(tmp_path, "a\nb;a\nc;d\n"))
    assert records(data) == [["a"], ["a", "b"], ["c", "d"]]


def test_first_row_with_numbers_where_other_rows_have_numbers_is_data(tmp_path):
    data = load_transactions(write(tmp_path, "7,x\n8,y;z\n9,w;y\n"))
    assert records(data) == [["x"], ["y", "z"], ["w", "y"]]


def test_named_columns_are_a_header(io_data, tmp_path):
    data = load_transactions(io_data / "sets.csv")
    assert load_report(data).details["set_column"] == "codes"
    assert data.n_records == 3 and load_report(data).warnings == ["1 empty record"]
    data = load_transactions(write(tmp_path, "items\na;b\nc\n"))
    assert records(data) == [["a", "b"], ["c"]]


def test_an_unknown_lone_name_is_taken_as_header_with_a_warning(tmp_path):
    data = load_transactions(write(tmp_path, "purchases\na;b\nc;d\n"))
    assert records(data) == [["a", "b"], ["c", "d"]]
    assert load_report(data).warnings == [
        "first row 'purchases' read as column names; pass header=False if it is a record"]


def test_header_option_overrides_the_guess(tmp_path):
    path = write(tmp_path, "a;b;c\nd;e\n")
    assert records(load_transactions(path, format="csv-sets", header=True)) == [["d", "e"]]
    path = write(tmp_path, "items\na;b\n")
    assert records(load_transactions(path, format="csv-sets", header=False)) == [["items"], ["a", "b"]]
