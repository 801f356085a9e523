"""RT-data loaders, the balanced item hierarchy, and their errors."""
from pathlib import Path

import numpy as np
import pytest

from anonstudio.data.errors import DataFormatError
from anonstudio.data.io import load_hierarchy, load_table, load_transactions
from anonstudio.data.io.report import load_report
from anonstudio.data.io.rt import load_item_list, load_rt_csv, load_rt_long, load_rt_pair
from anonstudio.data.item_hierarchy import balanced_hierarchy

DATA = Path(__file__).resolve().parents[1] / "data" / "rt"


def _sets(data):
    t = data.transactions
    return [t.record_labels(u) for u in range(t.n_records)]


def test_csv_with_a_set_column():
    data = load_rt_csv(DATA / "example.csv", items_column="items")
    frame = data.table.frame
    assert list(frame.columns) == ["id", "name", "age", "origin", "gender"]
    assert frame["age"].dtype.kind == "i" and frame["origin"].tolist()[0] == "France"
    assert _sets(data)[0] == ["B", "E", "F", "G"]
    assert data.transactions.name == "items"


def test_long_join_as_the_informs_files():
    data = load_rt_long(DATA / "people.csv", DATA / "conditions.csv", person="DUPERSID", item="ICD9CODX",
                        unknown_people="skip")
    report = load_report(data)
    frame = data.table.frame
    # 30001012 has only -9 and is left out; 30009011 is not in the people file.
    assert frame["DUPERSID"].tolist() == ["30001011", "30002011", "30003011", "30004011", "30004012"]
    assert _sets(data) == [["001", "401"], ["001", "250"], ["V70"], ["401"], ["1,9"]]
    assert frame["EDUCYEAR"].dtype.kind == "i"  # negative codes stay numbers
    assert frame["income"].tolist()[0] == 20000
    text = " ".join(report.warnings)
    assert "2 item rows without an item code" in text and "1 people without items" in text
    assert "not in people.csv" in text and "duplicate" in text
    assert report.record_ids[0] == "30001011"


def test_long_join_refuses_an_item_row_of_an_unknown_person_by_default():
    with pytest.raises(DataFormatError, match=r"conditions.csv, line \d+: person '30009011' is not in people.csv"):
        load_rt_long(DATA / "people.csv", DATA / "conditions.csv", person="DUPERSID", item="ICD9CODX")


def test_long_join_keeps_people_without_items_when_asked():
    data = load_rt_long(DATA / "people.csv", DATA / "conditions.csv", person="DUPERSID", item="ICD9CODX",
                        keep_empty=True, unknown_people="skip")
    assert data.table.n_rows == 6 and _sets(data)[1] == []


def test_codes_with_leading_zeros_stay_text(tmp_path):
    path = tmp_path / "zip.csv"
    path.write_text("zip,age,items\n01234,30,a;b\n12345,40,b\n", encoding="utf-8")
    frame = load_rt_csv(path, items_column="items").table.frame
    assert frame["zip"].tolist() == ["01234", "12345"] and frame["age"].dtype.kind == "i"


def test_adult_style_table_with_a_set_column():
    data = load_rt_csv(DATA / "adult_sets.data", items_column=4,
                       names=["age", "workclass", "education", "sex", "items"])
    frame = data.table.frame
    assert frame["age"].tolist() == [39, 50, 38, 53]
    assert frame["sex"].isna().tolist() == [False, False, True, False]
    assert _sets(data) == [["A", "B"], ["B"], ["A", "C"], []]


def test_table_and_transactions_paired(tmp_path):
    table = load_table(DATA / "example.csv")
    sets = tmp_path / "s.sets.csv"
    sets.write_text("items\n" + "\n".join(";".join(s) for s in _sets(load_rt_csv(DATA / "example.csv",
                                                                                items_column="items"))) + "\n")
    trans = load_transactions(sets, format="csv-sets")
    data = load_rt_pair(table, trans, items_column="basket")
    assert data.transactions.name == "basket" and data.table.n_rows == 6
    with pytest.raises(DataFormatError, match="must match row by row"):
        load_rt_pair(table, trans.subset(np.arange(3)))


@pytest.mark.parametrize("content, kwargs, message", [
    ("a,b,items\n1,2,x;y\n3,4\n", {"items_column": "items"}, r"bad\.csv, line 3: expected 3 fields"),
    ("a,b,items\n1,2,x;y\n", {"items_column": "basket"}, r"bad\.csv: no column named 'basket'"),
    ("a,a,items\n1,2,x\n", {"items_column": "items"}, r"bad\.csv, line 1: column name 'a' occurs twice"),
    ("a,items\n1,x|y\n", {"items_column": "items"}, r"bad\.csv, line 2: item 'x\|y' contains"),
    ("", {"items_column": "items"}, r"bad\.csv: the file is empty"),
])
def test_bad_csv_gets_one_line_naming_file_line_and_reason(tmp_path, content, kwargs, message):
    path = tmp_path / "bad.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataFormatError, match=message) as info:
        load_rt_csv(path, **kwargs)
    assert "\n" not in str(info.value)
    assert path.read_text(encoding="utf-8") == content  # never modified


def test_bad_long_files(tmp_path):
    people = tmp_path / "people.csv"
    people.write_text("id,age\np1,30\np1,40\n", encoding="utf-8")
    items = tmp_path / "items.csv"
    items.write_text("id,item\np1,a\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"people\.csv, line 3: person id 'p1' occurs twice"):
        load_rt_long(people, items, person="id")
    people.write_text("id,age\np1,30\np2,40\n", encoding="utf-8")
    items.write_text("id,item,extra\np1,a,1\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"items\.csv: the file has 3 columns; name the item column"):
        load_rt_long(people, items, person="id")
    items.write_text("id,item\np9,a\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"items\.csv, line 2: person 'p9' is not in people\.csv"):
        load_rt_long(people, items, person="id")
    with pytest.raises(DataFormatError, match=r"items\.csv: no person has an item"):
        load_rt_long(people, items, person="id", unknown_people="skip")
    with pytest.raises(DataFormatError, match=r"nope\.csv: no such file"):
        load_rt_long(tmp_path / "nope.csv", items, person="id")


def test_item_list_file(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text("# sensitive\nG\n\n\"H\"\n", encoding="utf-8")
    assert load_item_list(path) == [("G", 2), ("H", 4)]


def test_the_arx_hierarchy_form_and_commas_in_labels():
    h = load_hierarchy(DATA / "icd9_small.txt")
    assert h.path_to_root(h.leaf("001")) == ["001", "1,9", "1,139", "*"]
    assert h.path_to_root(h.leaf("1,9")) == ["1,9", "1,9x", "1,139", "*"]


def test_balanced_hierarchy_fanout_5_over_599_codes():
    codes = [f"{i:03d}" for i in range(1, 600)]
    h = balanced_hierarchy(codes, 5)
    sizes = []
    level = [h.leaf(c) for c in codes]
    while len(level) > 1:
        level = list(dict.fromkeys(h.parent_of(v) for v in level))
        sizes.append(len(level))
    assert sizes == [120, 24, 5, 1]
    assert h.labels[h.parent_of(h.leaf("001"))] == "001..005"
    assert all(1 < len(h.children(v)) <= 5 for v in range(h.n_nodes) if not h.is_leaf(v))
    assert h.labels[h.root] == "*"


def test_balanced_hierarchy_in_frequency_order_and_no_single_child_nodes():
    h = balanced_hierarchy(["a", "b", "c", "d", "e"], 2, order="frequency", frequencies=[5, 1, 4, 1, 3])
    # sorted by frequency: a c e b d -> (a c) (e b) d -> ((a c) (e b)) d -> *
    assert h.parent_of(h.leaf("a")) == h.parent_of(h.leaf("c"))
    assert h.parent_of(h.leaf("e")) == h.parent_of(h.leaf("b"))
    assert all(len(h.children(v)) >= 2 for v in range(h.n_nodes) if not h.is_leaf(v))
    assert len(set(h.labels)) == h.n_nodes
    with pytest.raises(ValueError, match="fan-out"):
        balanced_hierarchy(["a"], 1)
