import numpy as np
import pytest

from anonstudio.data.errors import DataFormatError
from anonstudio.data.io import load_any, load_report, load_transactions, save_transactions


def test_small_fimi_with_trailing_spaces(io_data, unchanged):
    path = io_data / "small.dat"
    with unchanged(path):
        data = load_transactions(path)
    assert data.n_records == 4
    assert data.vocab == ("1", "2", "3", "5")
    assert [data.record_labels(u) for u in range(4)] == [["1", "3", "5"], ["2", "3"], ["5"], ["1", "2", "3", "5"]]
    assert load_report(data).format == "fimi"
    assert load_report(data).warnings == []


def test_load_any_sniffs_fimi(io_data):
    data = load_any(io_data / "small.dat")
    assert data.n_records == 4


def test_non_integer_item_names_file_and_line(io_data, unchanged):
    path = io_data / "bad_item.dat"
    with unchanged(path), pytest.raises(DataFormatError) as info:
        load_transactions(path, format="fimi")
    assert str(info.value) == "bad_item.dat, line 3: 'x7' is not an integer item"
    assert info.value.line == 3


@pytest.mark.parametrize("text", ["1 1_000\n", "1 +5\n", "1 ٣\n"])
def test_int_lookalikes_are_rejected(tmp_path, text):
    path = tmp_path / "odd.dat"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"odd.dat, line 1: .* is not an integer item"):
        load_transactions(path, format="fimi")


def test_crlf_commas_comments_and_duplicates(tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_bytes(b"# comment\r\n@META\r\n4,2,2\r\n\r\n7 4 \r\n\r\n")
    data = load_transactions(path, format="fimi")
    assert [data.record_labels(u) for u in range(data.n_records)] == [["2", "4"], [], ["4", "7"], []]
    warnings = load_report(data).warnings
    assert "1 record had duplicate items (line 3; 1 repeat), deduplicated" in warnings
    assert "2 empty records" in warnings


def test_round_trip_random(tmp_path):
    rng = np.random.default_rng(7)
    for trial in range(20):
        records = [rng.choice(50, size=rng.integers(0, 8), replace=False) * 10 + 3 for _ in range(rng.integers(1, 30))]
        from anonstudio.data import TransactionData
        data = TransactionData.from_records(records)
        path = tmp_path / f"r{trial}.dat"
        save_transactions(data, path)
        back = load_transactions(path)
        assert back.vocab == tuple(v for v in data.vocab if data.item_frequencies[data.vocab.index(v)] > 0)
        assert [back.record_labels(u) for u in range(back.n_records)] == \
               [data.record_labels(u) for u in range(data.n_records)]
