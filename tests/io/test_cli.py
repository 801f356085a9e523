import json

from anonstudio.cli import main
from anonstudio.data.io import load_table, load_transactions


def test_info_on_a_file_shows_summary_quantiles_and_warnings(io_data, capsys, tmp_path):
    out_json = tmp_path / "info.json"
    assert main(["info", str(io_data / "dup.dat"), "--top", "2", "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert "records: 3" in out and "distinct items: 6" in out
    assert "record length quantiles: 0% 1, 25% 1.5, 50% 2" in out
    assert "top 2 items (records containing):" in out
    assert "warning: 2 records had duplicate items (lines 1, 3; 2 repeats), deduplicated" in out
    info = json.loads(out_json.read_text())
    assert info["records"] == 3 and info["format"] == "fimi"
    assert [t["item"] for t in info["top_items"]] == ["1", "2"]
    assert info["warnings"] == ["2 records had duplicate items (lines 1, 3; 2 repeats), deduplicated"]


def test_info_on_a_sample_name(capsys):
    assert main(["info", "chess", "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert "records: 3,196" in out and "distinct items: 75" in out
    assert "58      3,195   99.97 %" in out


def test_info_on_a_table(io_data, capsys):
    assert main(["info", str(io_data / "adult_sample.test")]) == 0
    out = capsys.readouterr().out
    assert "rows: 5" in out and "columns: 15" in out
    assert "warning: removed the trailing '.' from the values of column 'c15'" in out


def test_info_bad_file_is_one_line_exit_2(io_data, capsys):
    assert main(["info", str(io_data / "bad_item.dat")]) == 2
    err = capsys.readouterr().err
    assert err == "anonstudio-cli info: error: bad_item.dat, line 3: 'x7' is not an integer item\n"
    assert main(["info", "no-such-thing"]) == 2
    assert "no-such-thing: no such file or bundled sample" in capsys.readouterr().err


def test_convert_between_formats(io_data, tmp_path, capsys):
    out = tmp_path / "long.csv"
    assert main(["convert", str(io_data / "small.dat"), str(out)]) == 0
    assert "wrote 4 records" in capsys.readouterr().out
    assert out.read_text().splitlines()[:3] == ["record,item", "1,1", "1,3"]
    back = tmp_path / "back.txt"
    assert main(["convert", str(out), str(back), "--to", "fimi"]) == 0
    original = load_transactions(io_data / "small.dat")
    again = load_transactions(back)
    assert [again.record_labels(u) for u in range(4)] == [original.record_labels(u) for u in range(4)]


def test_convert_table_and_bad_target(io_data, tmp_path, capsys):
    out = tmp_path / "adult.parquet"
    assert main(["convert", str(io_data / "adult_sample.data"), str(out)]) == 0
    assert load_table(out).n_rows == 19
    capsys.readouterr()
    assert main(["convert", str(io_data / "adult_sample.data"), str(tmp_path / "a.dat")]) == 2
    assert "cannot tell the output format from 'a.dat' for table" in capsys.readouterr().err
    assert main(["convert", str(io_data / "small.dat"), str(tmp_path / "x.out"), "--to", "csv-table"]) == 2
    assert "--to csv-table: not a format for transactions" in capsys.readouterr().err
    assert not (tmp_path / "x.out").exists()


def test_info_shows_coordinate_extent(io_data, tmp_path):
    from anonstudio.cli.commands.info import transactions_info
    from anonstudio.data.io import load_transactions, save_transactions
    from anonstudio.data.samples import load_sample

    sample = tmp_path / "place"
    sample.mkdir()
    save_transactions(load_transactions(io_data / "checkins.tsv"), sample / "visits.tsv")
    (sample / "coords.csv").write_text("item,x,y\nv1,0,0\nv3,2500,1000\n")
    (sample / "sample.json").write_text(json.dumps({
        "name": "place", "title": "Place", "kind": "location",
        "files": {"transactions": "visits.tsv", "coords": "coords.csv"}, "records": 2, "license": "MIT"}))
    placed = load_sample("place", tmp_path)
    assert placed.coords.tolist() == [[0.0, 0.0], [2500.0, 1000.0]]
    info = transactions_info(placed, 1)
    assert info["coordinate_extent_m"] == [2500.0, 1000.0]
    assert "coordinate extent: 2.50 km x 1.00 km" in info["_lines"]
