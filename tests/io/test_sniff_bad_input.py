"""Broken files opened without a format: the error comes from the format the file plausibly is.

Every test here goes through sniffing (``load_any``, ``load_transactions``
and ``load_table`` without ``format=``, or ``anonstudio-cli info``).
"""
import pytest

from anonstudio.cli import main
from anonstudio.data.errors import DataFormatError
from anonstudio.data.io import load_any, load_table, load_transactions, sniff_format

ADULT_ROWS = [
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, "
    "United-States, <=50K",
    "50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, "
    "13, United-States, <=50K",
    "38, Private, 215646, HS-grad, 9, Divorced, Handlers-cleaners, Not-in-family, White, Male, 0, 0, 40, "
    "United-States, <=50K",
]


@pytest.mark.parametrize("loader", [load_any, load_transactions], ids=["load_any", "load_transactions"])
def test_ragged_long_csv_is_reported_as_ragged(io_data, loader):
    with pytest.raises(DataFormatError) as info:
        loader(io_data / "ragged.csv")
    assert str(info.value) == "ragged.csv, line 4: expected 2 fields (as on line 1) but found 3"


@pytest.mark.parametrize("loader", [load_any, load_transactions, load_table],
                         ids=["load_any", "load_transactions", "load_table"])
def test_ragged_table_is_reported_as_ragged(io_data, loader):
    with pytest.raises(DataFormatError) as info:
        loader(io_data / "ragged_table.csv")
    assert str(info.value) == "ragged_table.csv, line 3: expected 3 fields (as on line 1) but found 2"


def _adult_missing_last_field() -> str:
    return "\n".join([ADULT_ROWS[0], ADULT_ROWS[1], ADULT_ROWS[2].rsplit(",", 1)[0]]) + "\n"


@pytest.mark.parametrize("name, text, line, expected, found", [
    # An Adult-style table whose third row lost its class column, under several names.
    ("adult.data", _adult_missing_last_field(), 3, 15, 14),
    ("adult.csv", _adult_missing_last_field(), 3, 15, 14),
    ("adult.txt", _adult_missing_last_field(), 3, 15, 14),
    ("visits.tsv", "u1\tv1\t100\nu1\tv2\t101\nu2\tv1\nu3\tv3\t103\n", 3, 3, 2),
    ("people.txt", "name;age;city;job\nann;34;Oslo;cook\nbob;51;Rome;pilot\ncid;29;Lyon\n", 4, 4, 3),
])
def test_ragged_delimited_text(tmp_path, name, text, line, expected, found):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(DataFormatError) as info:
        load_any(path)
    assert str(info.value) == f"{name}, line {line}: expected {expected} fields (as on line 1) but found {found}"


def test_ragged_integer_csv_hints_at_fimi(tmp_path):
    path = tmp_path / "baskets.csv"
    path.write_text("1,2,3\n4,5\n6,7,8\n")
    with pytest.raises(DataFormatError, match=r"baskets.csv, line 2: expected 3 fields \(as on line 1\) but found 2; "
                                              r"if each line lists the items of one record, read it as fimi"):
        load_any(path)
    data = load_transactions(path, format="fimi")
    assert data.n_records == 3


def test_word_typo_in_a_basket_file_still_names_the_item(tmp_path):
    path = tmp_path / "baskets.dat"
    path.write_text("1 2 3\n4 x5\n")
    with pytest.raises(DataFormatError, match=r"baskets.dat, line 2: 'x5' is not an integer item"):
        load_any(path)


def test_good_files_still_sniff_as_before(io_data):
    assert sniff_format(io_data / "long_noheader.csv").name == "csv-long"
    assert sniff_format(io_data / "small.dat").name == "fimi"
    assert sniff_format(io_data / "adult_sample.data").name == "csv-table"


def test_cli_info_on_a_ragged_csv(io_data, capsys):
    assert main(["info", str(io_data / "ragged.csv")]) == 2
    assert capsys.readouterr().err == (
        "anonstudio-cli info: error: ragged.csv, line 4: expected 2 fields (as on line 1) but found 3\n")
