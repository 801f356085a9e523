"""The import preview: the first records exactly as a full load reads them, and one-line errors."""
from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest

from anonstudio.data.datasets import ReadOptions, applicable_options, load_with_options, open_dataset
from anonstudio.data.io import get_format, load_any, load_report
from anonstudio.data.io.text import _whole_lines, read_bytes, reading_head
from anonstudio.data.preview import describe_encoding, error_line, preview_file
from anonstudio.data.table import Role, Table

PEOPLE = "".join(f"{20 + i % 50}, {'F' if i % 3 else 'M'}, city{i % 7}, job{i % 5}\n" for i in range(400))


@pytest.fixture
def people(tmp_path):
    path = tmp_path / "people.csv"
    path.write_text(PEOPLE)
    return path


def test_preview_reads_a_headerless_table_like_the_full_load(people):
    preview = preview_file(people)
    assert preview.ok and not preview.truncated
    assert (preview.format, preview.kind, preview.separator, preview.header) == ("csv-table", "table", ",", False)
    assert preview.encoding == "UTF-8 (plain ASCII)"
    full = load_any(people)
    pd.testing.assert_frame_equal(preview.data.frame, full.frame)
    assert preview.extent() == "all 400 rows"
    assert dict(preview.facts())["Separator"] == "comma (,)"
    assert preview.text[0] == PEOPLE.splitlines()[0]


def test_a_long_file_previews_its_first_whole_rows(people):
    preview = preview_file(people, max_bytes=1000)
    assert preview.ok and preview.truncated
    full = load_any(people).frame
    n = preview.count
    assert 0 < n < 400
    # The head ends at a line end: every row shown is a whole row of the file.
    pd.testing.assert_frame_equal(preview.data.frame, full.iloc[:n].reset_index(drop=True))
    assert preview.extent().startswith(f"the first {n} rows (")
    # Reading the head changed nothing for later, ordinary reads.
    assert len(read_bytes(people)) == people.stat().st_size


def test_head_reads_stay_in_their_thread(people):
    sizes = []
    with reading_head(100):
        worker = threading.Thread(target=lambda: sizes.append(len(read_bytes(people))))
        worker.start()
        worker.join()
        sizes.append(len(read_bytes(people)))
    assert sizes[0] == people.stat().st_size and sizes[1] <= 100


def test_whole_lines_never_cut_inside_quotes():
    raw = b'a,b\n1,"two\nlines"\n3,"four\nmore'
    assert _whole_lines(raw) == b'a,b\n1,"two\nlines"\n'
    assert _whole_lines(b'x,"y""z"\nw') == b'x,"y""z"\n'
    assert _whole_lines(b"no line end") == b"no line end"


def test_header_and_names_overrides(people):
    with_header = preview_file(people, ReadOptions(header=True))
    assert with_header.header is True and with_header.count == 399
    assert list(with_header.data.frame.columns)[1] == "M"
    named = preview_file(people, ReadOptions(names=("age", "sex", "city", "job")))
    assert list(named.data.frame.columns) == ["age", "sex", "city", "job"] and named.count == 400
    wrong = preview_file(people, ReadOptions(names=("age", "sex")))
    assert wrong.error == "people.csv: 2 column names given but rows have 4 fields"
    assert not wrong.ok and wrong.data is None


def test_separator_override(tmp_path):
    path = tmp_path / "semi.csv"
    path.write_text("name;age;town\nann;31;Pisa\nbob;45;Lucca\ncid;28;Pisa\n")
    guessed = preview_file(path)
    assert guessed.separator == ";" and list(guessed.data.frame.columns) == ["name", "age", "town"]
    forced = preview_file(path, ReadOptions(format="csv-table", sep=","))
    # One field per row: a wrong separator is visible as one wide column.
    assert forced.ok and forced.data.frame.shape[1] == 1


def test_latin1_file_gives_one_line_then_reads_with_the_encoding(tmp_path):
    path = tmp_path / "towns.csv"
    path.write_bytes("name,town\nann,Zürich\nbob,Genève\n".encode("latin-1"))
    preview = preview_file(path)
    assert preview.encoding.startswith("not UTF-8 (byte 0xfc)")
    assert preview.error.startswith("towns.csv, line 2: not UTF-8 text (byte 0xfc)")
    assert "\n" not in preview.error and "Traceback" not in preview.error
    fixed = preview_file(path, ReadOptions(encoding="latin-1"))
    assert fixed.ok and fixed.data.frame["town"].tolist() == ["Zürich", "Genève"]
    assert fixed.encoding == "Latin-1 (ISO-8859-1) (chosen)"


def test_a_wrong_format_is_one_line_naming_file_and_line(people):
    preview = preview_file(people, ReadOptions(format="fimi"))
    assert preview.error.startswith("people.csv, line 1: ") and "not an integer item" in preview.error
    assert preview.sniffed == "csv-table" and preview.format == "fimi"
    assert ("Guessed format", "csv-table") in preview.facts()


def test_other_failures_are_one_line_too(tmp_path):
    assert preview_file(tmp_path / "none.csv").error == "none.csv: no such file"
    assert preview_file(tmp_path).error.endswith("is a folder, not a file")
    empty = tmp_path / "empty.dat"
    empty.write_text("")
    assert preview_file(empty).error == "empty.dat: the file is empty"
    bad = tmp_path / "x.csv"
    bad.write_text("a,b\n1,2\n")
    unknown = preview_file(bad, ReadOptions(encoding="no-such-codec"))
    assert unknown.error == "x.csv: unknown encoding 'no-such-codec'"
    assert error_line(bad, ValueError("first\nsecond")) == "x.csv: first"


def test_transactions_preview_matches_the_load(data_dir):
    path = data_dir / "gui" / "tiny.dat"
    preview = preview_file(path)
    full = load_any(path)
    assert preview.ok and preview.kind == "transactions" and preview.separator is None and preview.header is None
    np.testing.assert_array_equal(preview.data.indptr, full.indptr)
    np.testing.assert_array_equal(preview.data.indices, full.indices)


def test_long_form_preview_reports_separator_and_header(tmp_path):
    path = tmp_path / "visits.csv"
    path.write_text("user,item\nu1,a\nu1,b\nu2,a\n")
    preview = preview_file(path)
    assert (preview.format, preview.separator, preview.header) == ("csv-long", ",", True)
    assert load_report(preview.data).record_ids == ["u1", "u2"]


def test_parquet_preview_reads_the_first_rows(tmp_path):
    from anonstudio.data.io import save_table

    frame = pd.DataFrame({"age": np.arange(5000) % 90, "job": [f"job{i % 13}" for i in range(5000)]})
    path = tmp_path / "people.parquet"
    save_table(Table(frame, {"job": Role.SENSITIVE}, "people"), path)
    preview = preview_file(path, max_bytes=2000)
    assert preview.ok and preview.truncated and preview.format == "parquet-table"
    assert 0 < preview.count < 5000
    pd.testing.assert_frame_equal(preview.data.frame, frame.iloc[:preview.count])
    assert preview.data.roles == {"job": Role.SENSITIVE}
    assert preview.encoding.startswith("binary")
    whole = preview_file(path)
    assert whole.ok and not whole.truncated and whole.count == 5000


def test_load_with_options_and_open_dataset_agree(people):
    options = ReadOptions(names=("age", "sex", "city", "job"), header=False)
    table = load_with_options(people, options)
    assert list(table.frame.columns) == ["age", "sex", "city", "job"]
    same = open_dataset(people, columns="age, sex, city, job")
    pd.testing.assert_frame_equal(table.frame, same.frame)
    with pytest.raises(ValueError, match="column names apply to a CSV table"):
        open_dataset(people, format="csv-long", columns="a,b")


def test_options_apply_only_where_the_format_takes_them():
    assert applicable_options(get_format("csv-table")) == {"encoding", "sep", "header", "names"}
    assert applicable_options(get_format("fimi")) == {"encoding"}
    assert applicable_options(get_format("parquet")) == set()
    options = ReadOptions(encoding="latin-1", sep=";", header=True, names=("a",))
    assert options.loader_options(get_format("fimi")) == {"encoding": "latin-1"}
    assert options.loader_options(get_format("csv-long")) == {"encoding": "latin-1", "sep": ";", "header": True}


def test_describe_encoding():
    assert describe_encoding(b"\xef\xbb\xbfa,b", None) == "UTF-8 (with a byte-order mark)"
    assert describe_encoding("é".encode(), None) == "UTF-8"
    assert describe_encoding(b"\xff\xfea\x00", None).startswith("UTF-16")
    assert describe_encoding(b"abc", "cp1252") == "Windows-1252 (Western Europe) (chosen)"
