"""Item numbers beyond int64 are kept as labels (item ids are positions in the vocabulary)."""
from anonstudio.cli import main
from anonstudio.data.io import load_any, load_transactions, save_transactions

HUGE = "99999999999999999999999"


def test_fimi_item_beyond_int64_is_a_label(tmp_path):
    path = tmp_path / "huge.dat"
    path.write_text(f"1 2 {HUGE}\n2 007\n")
    data = load_any(path)
    assert data.vocab == ("1", "2", "7", HUGE)  # numeric order, canonical decimals as for small items
    assert [data.record_labels(u) for u in range(2)] == [["1", "2", HUGE], ["2", "7"]]


def test_big_labels_survive_every_writer(tmp_path):
    path = tmp_path / "huge.dat"
    path.write_text(f"1 2 {HUGE}\n-{HUGE} 3\n")
    data = load_transactions(path)
    for name in ("a.dat", "a.csv", "a.sets.csv", "a.parquet", "a.seq", "a.tsv"):
        save_transactions(data, tmp_path / name)
        again = load_transactions(tmp_path / name)
        assert sorted(again.vocab) == sorted(data.vocab), name
        assert [again.record_labels(u) for u in range(2)] == [data.record_labels(u) for u in range(2)], name


def test_spmf_item_beyond_int64(tmp_path):
    path = tmp_path / "s.seq"
    path.write_text(f"1 -1 {HUGE} -1 -2\n")
    assert load_transactions(path).vocab == ("1", HUGE)


def test_cli_info_on_a_huge_item(tmp_path, capsys):
    path = tmp_path / "huge.dat"
    path.write_text(f"1 2 {HUGE}\n")
    assert main(["info", str(path)]) == 0
    assert "distinct items: 3" in capsys.readouterr().out


def test_a_typo_after_a_huge_item_is_still_named(tmp_path):
    import pytest

    from anonstudio.data.errors import DataFormatError
    path = tmp_path / "huge.dat"
    path.write_text(f"1 {HUGE}\n2 x3\n")
    with pytest.raises(DataFormatError, match=r"huge.dat, line 2: 'x3' is not an integer item"):
        load_transactions(path)
