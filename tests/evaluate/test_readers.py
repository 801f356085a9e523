"""The evaluator's own readers: layouts, cells, side files, and one-line errors for files it cannot trust."""
from __future__ import annotations

import pandas as pd
import pytest

from anonstudio.data.errors import DataFormatError
from anonstudio.data.table import Role, Table
from anonstudio.data.transactions import TransactionData
from anonstudio.evaluate import SideFiles, read_release, sniff_kind
from anonstudio.evaluate.cells import CellError, domain_of
from anonstudio.params import ParameterError


@pytest.fixture
def original():
    return TransactionData.from_records([["1", "2"], ["2", "3"], ["1", "2", "3"], []], vocab=("1", "2", "3"))


def _write(path, text):
    path.write_text(text)
    return path


def _items(published, j, people):
    a = published.a_atoms[published.a_indptr[j]:published.a_indptr[j + 1]]
    return sorted(people.atoms.item_labels[x] for x in a)


def test_fimi_lines_keep_blank_records_and_skip_metadata(tmp_path, original):
    path = _write(tmp_path / "r.dat", "@CONVERTED\n1 2\n2\n\n# a comment\n\n")
    people, published = read_release(original, path, None, SideFiles())
    assert published.kind == "plain" and published.n_records == 4
    assert [_items(published, j, people) for j in range(4)] == [["1", "2"], ["2"], [], []]


def test_csv_sets_layout_with_header(tmp_path, original):
    path = _write(tmp_path / "r.csv", "record,items\n1,1;2\n2,\n3,3\n4,007\n")
    with pytest.raises(DataFormatError, match=r"r\.csv, line 5: '007' is not an item of the original"):
        read_release(original, path, None, SideFiles())
    path = _write(tmp_path / "r.csv", "record,items\n1,1;2\n2,\n3,3\n4,03\n")  # integer labels match as numbers
    people, published = read_release(original, path, None, SideFiles())
    assert [_items(published, j, people) for j in range(4)] == [["1", "2"], [], ["3"], ["3"]]


def test_item_labels_with_blanks_are_split_on_semicolons_only(tmp_path):
    original = TransactionData.from_records([["1 Jogging", "2 Swimming"], ["2 Swimming"]])
    path = _write(tmp_path / "r.dat", "1 Jogging;2 Swimming\n2 Swimming\n")
    people, published = read_release(original, path, None, SideFiles())
    assert [_items(published, j, people) for j in range(2)] == [["1 Jogging", "2 Swimming"], ["2 Swimming"]]
    _write(path, "1 Jogging\n2 Swimming\n")  # one item per line, no ';' anywhere
    people, published = read_release(original, path, None, SideFiles())
    assert [_items(published, j, people) for j in range(2)] == [["1 Jogging"], ["2 Swimming"]]


def test_a_release_must_keep_one_record_per_person(tmp_path, original):
    path = _write(tmp_path / "r.dat", "1\n2\n")
    with pytest.raises(DataFormatError, match="the release has 2 records but the original has 4 people"):
        read_release(original, path, "plain", SideFiles())
    path = _write(tmp_path / "r.dat", "1\n2\n3\n\n1\n")
    with pytest.raises(DataFormatError, match=r"line 5: the release has 5 records"):
        read_release(original, path, "plain", SideFiles())


def test_a_table_release_of_an_original_read_as_set_valued_data_says_what_to_do(tmp_path, original):
    path = _write(tmp_path / "rt.csv", "cluster,age,diagnoses\n1,[1-9],250;401\n")
    with pytest.raises(DataFormatError, match=r"rt\.csv, line 1: the release is a table .* \(--format csv-table\)"):
        sniff_kind(original, path, SideFiles())


def test_generalized_with_a_map_braces_and_a_hierarchy(tmp_path, original):
    _write(tmp_path / "map.csv", "item,partition\n1,A\n2,A\n3,3\n")
    path = _write(tmp_path / "r.dat", "A\nA 3\nA 3\n\n")
    assert sniff_kind(original, path, SideFiles(map=tmp_path / "map.csv")) == "generalized"
    people, published = read_release(original, path, None, SideFiles(map=tmp_path / "map.csv"))
    assert _items(published, 1, people) == ["1", "2", "3"]
    assert published.a_prob[published.a_indptr[0]:published.a_indptr[1]].tolist() == [0.5, 0.5]
    braces = _write(tmp_path / "b.dat", "{1|2}\n2 {2|3}\n*\n\n")
    with pytest.raises(DataFormatError, match=r"b\.dat, line 3: '\*' is not an item of the original"):
        read_release(original, braces, None, SideFiles())
    _write(tmp_path / "h.csv", "1;low;*\n2;low;*\n3;high;*\n")
    people, published = read_release(original, braces, None, SideFiles(item_hierarchy=tmp_path / "h.csv"))
    # record 2: "2" as such and {2|3}: 2 is published (1), 3 with 1/2
    lo, hi = published.a_indptr[1], published.a_indptr[2]
    assert dict(zip(published.a_atoms[lo:hi].tolist(), published.a_prob[lo:hi].tolist())) == {1: 1.0, 2: 0.5}
    assert _items(published, 2, people) == ["1", "2", "3"]


def test_map_errors_name_the_line(tmp_path, original):
    _write(tmp_path / "map.csv", "item,partition\n1,A\n9,B\n")
    path = _write(tmp_path / "r.dat", "A\nA\nA\n\n")
    with pytest.raises(DataFormatError, match=r"map\.csv, line 3: item '9' is not an item of the original"):
        read_release(original, path, None, SideFiles(map=tmp_path / "map.csv"))
    _write(tmp_path / "map.csv", "item,partition\n1,A\n1,B\n")
    with pytest.raises(DataFormatError, match=r"line 3: item '1' is mapped twice \(first on line 2\)"):
        read_release(original, path, None, SideFiles(map=tmp_path / "map.csv"))
    _write(tmp_path / "map.csv", "item,partition\n1,A\n")
    bad = _write(tmp_path / "r2.dat", "A\nZ\nA\n\n")
    with pytest.raises(DataFormatError, match=r"r2\.dat, line 2: 'Z' is neither"):
        read_release(original, bad, None, SideFiles(map=tmp_path / "map.csv"))


def test_nonreciprocal_rows_are_matched_by_record_and_checked(tmp_path, original):
    good = "record,base,distance,threshold,label\n2,2;3,,0,\n1,1;2,3,1,\n3,1;2,3,1,\n4,,1;2;3,2,\n"
    path = _write(tmp_path / "p.csv", good)
    assert sniff_kind(original, path, SideFiles()) == "nonreciprocal"
    people, published = read_release(original, path, None, SideFiles())
    assert published.worlds and published.budget.tolist() == [1, 0, 1, 2]
    assert _items(published, 1, people) == ["2", "3"]
    for text, message in [
        ("record,base,distance\n1,1,2\n", "the header must be record,base,distance,threshold"),
        (good.replace("\n4,,", "\n2,,"), "line 5: record 2 appears twice"),
        (good.replace("\n4,,", "\n0,,"), "line 5: record '0' is not a record of the original"),
        (good.replace(",0,\n", ",x,\n"), "line 2: threshold 'x' is not a whole number"),
        (good.replace("2;3,,0", "2;9,,0"), "line 2: item '9' is not an item of the original"),
        ("\n".join(good.splitlines()[:-1]) + "\n", "1 person of the original has no published row"),
    ]:
        _write(path, text)
        with pytest.raises(DataFormatError, match=message):
            read_release(original, path, "nonreciprocal", SideFiles())


def test_sensitive_items_files(tmp_path, original):
    path = _write(tmp_path / "r.dat", "1 2\n2 3\n1 2 3\n\n")
    _write(tmp_path / "E.csv", "person,item\n*,1\n3,3\n2,unknown\n")
    people, _ = read_release(original, path, None, SideFiles(sensitive=tmp_path / "E.csv"))
    held = [people.sens_atoms[people.sens_indptr[u]:people.sens_indptr[u + 1]].tolist() for u in range(4)]
    assert held == [[0], [], [0, 2], []]  # E_u ∩ D_u: item 1 for everyone who has it, item 3 for person 3
    people, _ = read_release(original, path, None, SideFiles(sensitive=tmp_path / "E.csv", known="non-sensitive"))
    assert [people.pool(u).tolist() for u in range(4)] == [[1], [1, 2], [1], []]
    _write(tmp_path / "list.txt", "# sensitive\n3\n")
    people, _ = read_release(original, path, None, SideFiles(sensitive=tmp_path / "list.txt"))
    assert people.sens_atoms.tolist() == [2, 2]
    # ρ's previous form (header record,item, records from 0) means the same people to ρ and to the audit.
    _write(tmp_path / "E0.csv", "record,item\n*,1\n2,3\n")
    people, published = read_release(original, path, None, SideFiles(sensitive=tmp_path / "E0.csv"))
    held = [people.sens_atoms[people.sens_indptr[u]:people.sens_indptr[u + 1]].tolist() for u in range(4)]
    assert held == [[0], [], [0, 2], []]
    assert any("numbers records from 0" in note for note in published.notes)
    _write(tmp_path / "E1.csv", "person,item\n0,1\n")
    with pytest.raises(DataFormatError, match=r"E1\.csv, line 2: record 0 does not exist .*numbered 1 to 4"):
        read_release(original, path, None, SideFiles(sensitive=tmp_path / "E1.csv"))
    _write(tmp_path / "E9.csv", "person,item\n9,1\n")
    with pytest.raises(DataFormatError, match="record 9 does not exist"):
        read_release(original, path, None, SideFiles(sensitive=tmp_path / "E9.csv"))
    with pytest.raises(ParameterError, match="needs the sensitive items"):
        read_release(original, path, None, SideFiles(known="non-sensitive"))


# --------------------------------------------------------------------------------------------- tables
@pytest.fixture
def table():
    frame = pd.DataFrame({"age": [21, 25, 33, 38], "sex": pd.array(["F", "M", "F", "M"], dtype="string"),
                          "zip": pd.array(["021", "022", "031", None], dtype="string"),
                          "disease": pd.array(["Flu", "Flu", "HIV", "Cold"], dtype="string")})
    return Table(frame, {"disease": Role.SENSITIVE})


def test_cells_read_as_arx_and_anonstudio_write_them():
    ages = domain_of("age", [21, 25, 33, 38, 40], True)
    cases = {"25": [25], "25.0": [25], "*": [21, 25, 33, 38, 40], "[21-33]": [21, 25, 33], "21-33": [21, 25, 33],
             "[20, 33[": [21, 25], "[20, 33]": [21, 25, 33], "]21, 38]": [25, 33, 38], "(21, 38)": [25, 33],
             "<25": [21], ">=38": [38, 40], "{21|40|99}": [21, 40], "3*": [33, 38]}
    for text, want in cases.items():
        mask, _ = ages.read(text)
        assert [int(t) for t, hit in zip(ages.texts, mask) if hit] == want, text
    for bad in ("[40-21]", "[50-60]", "abc", "{}", "{99}", "9*"):
        with pytest.raises(CellError):
            ages.read(bad)
    sexes = domain_of("sex", ["F", "M"], False, {"person": ["F", "M"]})
    assert sexes.read("person")[0].tolist() == [True, True]
    mask, shares = domain_of("d", ["Flu", "HIV"], False).read("{Flu|Flu|HIV|Flu}")
    assert mask.tolist() == [True, True] and shares.tolist() == [0.75, 0.25]
    with pytest.raises(CellError, match="range"):
        sexes.read("[1-2]")


def test_table_release_classes_and_missing_values(tmp_path, table):
    path = _write(tmp_path / "t.csv", "age,sex,zip,disease\n[20-29],*,02*,Flu\n[20-29],*,02*,Flu\n"
                                      "[30-39],*,*,HIV\n[30-39],*,*,Cold\n")
    assert sniff_kind(table, path, SideFiles()) == "table"
    people, published = read_release(table, path, None, SideFiles())
    assert published.n_classes == 2 and published.class_size.tolist() == [2, 2]
    assert people.atoms.qi == ("age", "sex", "zip")
    assert people.atoms.qi_domains[2].texts == ["021", "022", "031", "?"]  # a missing value reads "?"
    bad = _write(tmp_path / "bad.csv", "age,sex,zip,disease\n[20-29],*,02*,Flu\n[20-29],*,02*,Flu\n"
                                       "[30-39],X,*,HIV\n[30-39],*,*,Cold\n")
    with pytest.raises(DataFormatError, match=r"bad\.csv, line 4: column 'sex': 'X' is not a value"):
        read_release(table, bad, None, SideFiles())
    short = _write(tmp_path / "short.csv", "age,sex,zip,disease\n[20-29],*,02*,Flu\n")
    with pytest.raises(DataFormatError, match="the release has 1 rows but the original has 4 people"):
        read_release(table, short, None, SideFiles())
    # Anonymizers leave out rows with a missing value: the release then follows the complete rows.
    complete = _write(tmp_path / "c.csv", "age,sex,zip,disease\n[20-29],*,02*,Flu\n[20-29],*,02*,Flu\n"
                                          "33,F,031,HIV\n")
    people, published = read_release(table, complete, None, SideFiles())
    assert published.own.tolist() == [0, 1, 2, -1]


def test_table_rows_matched_by_an_identifier_column(tmp_path, table):
    frame = table.frame.assign(pid=["a", "b", "c", "d"])
    t = Table(frame, {"disease": Role.SENSITIVE, "pid": Role.IDENTIFIER})
    path = _write(tmp_path / "t.csv", "pid,age,sex,disease\nc,[30-39],F,HIV\na,[20-29],F,Flu\n"
                                      "d,[30-39],M,Cold\nb,[20-29],M,Flu\n")
    people, published = read_release(t, path, None, SideFiles())
    assert published.own.tolist() == [1, 3, 0, 2]
    _write(path, "pid,age,sex,disease\nc,[30-39],F,HIV\nx,[20-29],F,Flu\nd,[30-39],M,Cold\nb,[20-29],M,Flu\n")
    with pytest.raises(DataFormatError, match="line 3: pid 'x' names no row of the original"):
        read_release(t, path, None, SideFiles())


def test_anatomy_multisets_and_a_hierarchy_column(tmp_path, table):
    _write(tmp_path / "zip.csv", "021;02x;*\n022;02x;*\n031;03x;*\n")
    path = _write(tmp_path / "a.csv", "gid,age,sex,zip,disease\n1,21,F,02x,{Flu|HIV}\n1,33,F,03x,{Flu|HIV}\n"
                                      "2,25,M,02x,{Flu|Cold}\n2,38,M,*,{Flu|Cold}\n")
    with pytest.raises(DataFormatError, match=r"line 2: column 'zip': '02x' is not"):
        read_release(table, path, None, SideFiles())
    people, published = read_release(table, path, None, SideFiles(hierarchies={"zip": tmp_path / "zip.csv"}))
    j = 0
    atoms = published.a_atoms[published.a_indptr[j]:published.a_indptr[j + 1]]
    labels = [people.atoms.label(a) for a in atoms]
    assert labels == ["disease = Flu", "disease = HIV"]
    assert published.a_prob[published.a_indptr[j]:published.a_indptr[j + 1]].tolist() == [0.5, 0.5]


def test_an_rt_table_is_sniffed_from_the_items_column(tmp_path):
    frame = pd.DataFrame({"age": [30, 31, 40], "codes": pd.array(["a;b", "b", "a;c"], dtype="string")})
    t = Table(frame, {})
    path = _write(tmp_path / "rt.csv", "cluster,age,codes\n1,[30-31],{a|b};b\n1,[30-31],b\n2,40,a;c\n")
    assert sniff_kind(t, path, SideFiles()) == "rt"
    people, published = read_release(t, path, None, SideFiles())
    assert people.atoms.item_labels == ("a", "b", "c") and people.atoms.qi == ("age",)
    lo, hi = published.a_indptr[0], published.a_indptr[1]
    assert dict(zip(published.a_atoms[lo:hi].tolist(), published.a_prob[lo:hi].tolist())) == {0: 0.5, 1: 1.0}
    with pytest.raises(DataFormatError, match="a nonreciprocal release belongs to set-valued data"):
        sniff_kind(t, _write(tmp_path / "nr.csv", "record,base,distance,threshold\n"), SideFiles())
    with pytest.raises(DataFormatError, match="needs set-valued data as the original"):
        read_release(t, path, "plain", SideFiles())


def test_unreadable_files_get_one_line_errors(tmp_path, original):
    binary = tmp_path / "r.dat"
    binary.write_bytes(b"1 2\n\x00\x01\x02\n")
    with pytest.raises(DataFormatError, match=r"r\.dat"):
        read_release(original, binary, None, SideFiles())
    with pytest.raises((DataFormatError, FileNotFoundError)):
        read_release(original, tmp_path / "missing.dat", None, SideFiles())
