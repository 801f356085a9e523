"""Hostile input files, by class: every loader refuses them in one line or reads exactly what they say."""
from __future__ import annotations

import gzip

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from anonstudio.data.datasets import open_dataset
from anonstudio.data.errors import DataFormatError, LoadCancelled
from anonstudio.data.hierarchy import Hierarchy, HierarchyError
from anonstudio.data.io import load_coordinates, load_file, load_hierarchy, load_table, load_transactions
from anonstudio.data.io import text as text_module
from anonstudio.jobs import RecordingProgress

NOT_FILES = ["folder", "pipe", "zero_link", "broken_link", "nowhere.dat"]


def one_line_error(exc: BaseException, name: str) -> None:
    message = str(exc)
    assert "\n" not in message and name in message, message


@pytest.mark.parametrize("name", NOT_FILES + ["/dev/zero", "/dev/null"])
@pytest.mark.parametrize("loader", [open_dataset, load_transactions, load_table, load_hierarchy, load_coordinates])
def test_only_regular_files_are_read(corpus, name, loader):
    path = name if name.startswith("/") else corpus / name
    with pytest.raises(DataFormatError) as info:
        loader(path)  # a pipe would block here, /dev/zero would never end
    one_line_error(info.value, str(path).rsplit("/", 1)[-1])


def _boundary(path):
    from anonstudio.data.geo.boundary import load_boundary

    return load_boundary(path)


def _domains(path):
    from anonstudio.methods.group_anonymize.published_csv import load_domain_file

    return load_domain_file(path)


@pytest.mark.parametrize("name", NOT_FILES + ["binary.bin", "damaged.dat.gz", "empty.dat"])
@pytest.mark.parametrize("loader", [_boundary, _domains])
def test_parameter_files_are_read_by_the_same_rules(corpus, name, loader):
    with pytest.raises(DataFormatError) as info:
        loader(corpus / name)
    one_line_error(info.value, name)


@pytest.mark.parametrize("name", ["empty.dat", "binary.bin", "damaged.dat.gz", "fake.parquet"])
def test_broken_files_give_one_line(corpus, name):
    with pytest.raises(DataFormatError) as info:
        load_file(corpus / name)
    one_line_error(info.value, name)


def test_compressed_input_is_capped(tmp_path, monkeypatch):
    monkeypatch.setattr(text_module, "COMPRESSED_CAP_MIN", 1 << 20)
    path = tmp_path / "bomb.dat.gz"
    with gzip.open(path, "wb") as fh:
        fh.write(b"1 2 3\n" * 1_000_000)  # 6 MB from about 30 KB
    with pytest.raises(DataFormatError, match=r"bomb.dat.gz: decompresses to more than 1 MiB.*compression bomb"):
        load_transactions(path)
    small = tmp_path / "fine.dat.gz"
    small.write_bytes(gzip.compress(b"1 2\n3\n"))
    assert load_transactions(small).n_records == 2


@pytest.mark.parametrize("char", ["\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_only_newlines_end_lines(tmp_path, char):
    fimi = tmp_path / "a.dat"
    fimi.write_text(f"1 2{char}3\n4 5\n6\n", encoding="utf-8")
    assert load_transactions(fimi).n_records == 3
    long = tmp_path / "a.csv"
    long.write_text(f"record,item\nu1,x{char}y\nu1,b\nu2,c\n", encoding="utf-8")
    data = load_transactions(long, format="csv-long")
    assert data.n_records == 2 and f"x{char}y" in data.vocab
    table = tmp_path / "t.csv"
    table.write_text(f"age,sex,job\n30,M,x{char}y\n40,F,b\n50,M,c\n", encoding="utf-8")
    t = load_table(table)
    assert t.n_rows == 3 and t.frame["job"][0] == f"x{char}y"


def test_line_numbers_follow_the_file(tmp_path):
    path = tmp_path / "a.dat"
    path.write_text("1 2\x0c3\n4\u20285\n6 x\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"a.dat, line 3: 'x' is not an integer item"):
        load_transactions(path)


def test_quoted_line_breaks_stay_in_their_field(tmp_path):
    sets = tmp_path / "s.csv"
    sets.write_text('id,items\n1,"a;b\nc"\n2,d;e\n3,f\n')
    data = load_transactions(sets, format="csv-sets")
    assert data.n_records == 3 and "b\nc" in data.vocab
    table = tmp_path / "t.csv"
    table.write_text('age,sex,job\n30,M,"caf\ne"\n40,F,x\n50,M,y\n')
    t = load_file(table)
    assert t.n_rows == 3 and t.frame["job"][0] == "caf\ne"


def test_spmf_sequence_without_terminator_is_an_error(corpus, tmp_path):
    with pytest.raises(DataFormatError, match=r"line 2: a sequence must end with -2"):
        load_file(corpus / "spmf_missing.dat")
    fimi = tmp_path / "n.dat"
    fimi.write_text("1 -1 2 -1\n3 -1\n")
    with pytest.raises(DataFormatError, match=r"n.dat, line 1: '-1' is not an item.*spmf-seq"):
        load_transactions(fimi)
    two = tmp_path / "two.seq"
    two.write_text("1 -1 -2 2 -1 -2\n")
    with pytest.raises(DataFormatError, match=r"line 1: -2 ends a sequence"):
        load_transactions(two, format="spmf-seq")


@pytest.mark.parametrize("rows", [[["a", "b"], ["b", "a"]], [["a", "b", "c"], ["c", "a"]], [["a", "b", "a"]]])
def test_hierarchy_cycles_are_refused(rows):
    with pytest.raises(HierarchyError, match="cycle"):
        Hierarchy.from_rows(rows)


def test_repeated_label_in_place_is_no_cycle():
    tree = Hierarchy.from_rows([["Male", "Male", "*"], ["Female", "Female", "*"]])
    assert sorted(tree.leaf_labels) == ["Female", "Male"]


def test_hierarchy_file_cycle_names_the_line(corpus):
    with pytest.raises(DataFormatError, match=r"cycle.csv, line 2: the hierarchy has a cycle"):
        load_hierarchy(corpus / "cycle.csv")


def test_a_table_is_not_read_as_transactions(corpus, tmp_path):
    with pytest.raises(DataFormatError, match="looks like a table"):
        load_transactions(corpus / "table.csv", format="csv-long")
    tabs = tmp_path / "t.tsv"
    tabs.write_text((corpus / "table.csv").read_text().replace(",", "\t"))
    with pytest.raises(DataFormatError, match="looks like a table"):
        load_transactions(tabs, format="checkins")
    numbers = tmp_path / "n.csv"
    numbers.write_text("age,income\n39,50000\n50,60000\n39,40000\n50,50000\n")
    assert type(load_file(numbers)).__name__ == "Table"
    # Named columns still work as long form.
    data = load_transactions(corpus / "table.csv", format="csv-long", record="city", item="sex")
    assert data.n_records == 2


def test_parquet_items_beyond_int64_and_nested_columns(tmp_path):
    big = tmp_path / "big.parquet"
    pq.write_table(pa.table({"items": pa.array([[1, 2], [2**64 - 1]], type=pa.list_(pa.uint64()))}), big)
    with pytest.raises(DataFormatError, match="beyond the 64-bit range"):
        load_file(big)
    nested = tmp_path / "nested.parquet"
    pq.write_table(pa.table({"items": pa.array([[[1, 2]], [[3]]])}), nested)
    with pytest.raises(DataFormatError, match="nested lists"):
        load_file(nested)
    table = tmp_path / "t.parquet"
    pq.write_table(pa.table({"age": [30, 40], "info": pa.array([{"a": 1}, {"a": 2}])}), table)
    with pytest.raises(DataFormatError, match="'info' holds nested values"):
        load_file(table)
    fine = tmp_path / "ok.parquet"
    pq.write_table(pa.table({"items": pa.array([[5, 1], [2**40]], type=pa.list_(pa.uint64()))}), fine)
    data = load_file(fine)
    assert data.n_records == 2 and str(2**40) in data.vocab


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32"])
def test_utf16_is_decoded_before_the_binary_check(tmp_path, encoding):
    path = tmp_path / "u.csv"
    path.write_bytes("record,item\nu1,é\nu1,b\nu2,c\n".encode(encoding))
    data = load_file(path, encoding=encoding)
    assert data.n_records == 2 and "é" in data.vocab
    if encoding != "utf-16-le":  # a byte-order mark names the encoding by itself
        assert load_file(path).n_records == 2
    else:
        with pytest.raises(DataFormatError, match="binary file.*utf-16-le"):
            load_file(path)


def test_records_longer_than_the_csv_field_limit(tmp_path):
    sets = tmp_path / "s.csv"
    sets.write_text("items\n" + ";".join(f"i{j}" for j in range(40_000)) + "\nx;y\n")
    assert load_transactions(sets, format="csv-sets").lengths.tolist() == [40_000, 2]
    long = tmp_path / "l.csv"
    long.write_text('record,item\nu1,"' + "x" * 300_000 + '"\nu2,b\n')
    assert load_transactions(long, format="csv-long").n_records == 2


def test_chunked_loading_agrees_with_one_chunk(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    lines = []
    for _user in range(3000):
        items = rng.integers(0, 60, size=int(rng.integers(0, 12)))
        lines.append(" ".join(map(str, items)))
    lines[100] = "# a comment"
    lines[2000] = "5 5 5 7"
    path = tmp_path / "c.dat"
    path.write_text("\n".join(lines) + "\n")
    whole = load_transactions(path)
    monkeypatch.setattr(text_module, "CHUNK_BYTES", 97)
    pieces = load_transactions(path)
    assert whole.vocab == pieces.vocab
    assert np.array_equal(whole.indptr, pieces.indptr) and np.array_equal(whole.indices, pieces.indices)
    long = tmp_path / "c.csv"
    long.write_text("record,item\n" + "".join(f"u{u % 97},{(u * 13) % 41}\n" for u in range(3000)))
    monkeypatch.setattr(text_module, "CHUNK_BYTES", 1 << 23)
    a = load_transactions(long)
    monkeypatch.setattr(text_module, "CHUNK_BYTES", 61)
    b = load_transactions(long)
    assert a.vocab == b.vocab and np.array_equal(a.indices, b.indices) and np.array_equal(a.indptr, b.indptr)


@pytest.mark.parametrize("fmt, content", [
    ("fimi", "".join(f"{i} {i + 1}\n" for i in range(2000))),
    ("csv-long", "record,item\n" + "".join(f"u{i},{i % 7}\n" for i in range(2000))),
    ("csv-sets", "items\n" + "".join(f"a;b{i % 9}\n" for i in range(2000))),
    ("spmf-seq", "".join(f"{i} -1 {i + 2} -1 -2\n" for i in range(2000))),
    ("csv-table", "a,b,c\n" + "".join(f"{i},x{i % 3},{i * 2}\n" for i in range(2000))),
])
def test_a_cancelled_load_raises_and_returns_nothing(tmp_path, monkeypatch, fmt, content):
    monkeypatch.setattr(text_module, "CHUNK_BYTES", 512)
    path = tmp_path / "data.txt"
    path.write_text(content)
    progress = RecordingProgress(cancel_after_sets=2)
    with pytest.raises(LoadCancelled, match="data.txt: loading was cancelled"):
        load_file(path, fmt, progress=progress)
    assert 0 < progress.fractions[-1] < 1
    assert load_file(path, fmt, progress=RecordingProgress()) is not None


def test_cancelled_parquet_load(tmp_path):
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"items": pa.array([[i, i + 1] for i in range(1000)])}), path, row_group_size=100)
    with pytest.raises(LoadCancelled):
        load_file(path, progress=RecordingProgress(cancel_after_sets=2))


@pytest.mark.parametrize("sep", [";;", "", "::"])
def test_a_separator_of_other_than_one_character_is_named_by_the_readers(tmp_path, sep):
    """The CLI checks --sep; a project file or a library call reached the csv module's TypeError."""
    import anonstudio as an
    from anonstudio.data.errors import DataFormatError
    from anonstudio.data.io import load_table

    path = tmp_path / "t.csv"
    path.write_text("age,sex\n30,M\n40,F\n")
    for load in (lambda: load_table(path, sep=sep), lambda: an.open(path, sep=sep)):
        with pytest.raises(DataFormatError, match="t.csv: the separator must be one character"):
            load()
