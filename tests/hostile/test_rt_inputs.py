"""RT side files that cannot mean what the user thinks: exit 2 naming the file, the line and the reason."""
from __future__ import annotations

import pytest

from anonstudio.cli import main
from anonstudio.data.errors import DataFormatError
from anonstudio.data.io import load_hierarchy

from .test_internal_errors import _one_error

ITEMS = [f"i{j}" for j in range(12)]
HIERARCHY = "".join(f"{item};g{j % 3};*\n" for j, item in enumerate(ITEMS))


@pytest.fixture
def rt(tmp_path):
    """A people table with an items column, the same people without it, and their items file."""
    rows = [(f"p{p}", 20 + p % 40, "MF"[p % 2], [ITEMS[(p * j) % 12] for j in (1, 2, 3)]) for p in range(60)]
    (tmp_path / "rt.csv").write_text("pid,age,sex,items\n" + "".join(
        f"{pid},{age},{sex},{';'.join(dict.fromkeys(items))}\n" for pid, age, sex, items in rows))
    (tmp_path / "people.csv").write_text("pid,age,sex\n" + "".join(f"{p},{a},{s}\n" for p, a, s, _ in rows))
    (tmp_path / "items.csv").write_text("pid,item\n" + "".join(f"{p},{i}\n" for p, _, _, items in rows
                                                               for i in dict.fromkeys(items)))
    (tmp_path / "ih.csv").write_text(HIERARCHY)
    return tmp_path


def _rt(d, *args: str) -> int:
    return main(["rt", str(d / "rt.csv"), "--qi", "age,sex", "--k", "3", "--quiet", "--out", str(d / "o.csv"),
                 *args])


def _joined(d, items: str, *args: str) -> int:
    path = d / "long.csv"
    path.write_text(items)
    return main(["rt", str(d / "people.csv"), "--items-file", str(path), "--person-column", "pid",
                 "--items-column", "item", "--qi", "age,sex", "--k", "3", "--quiet", "--out", str(d / "o.csv"), *args])


def test_the_clean_files_run(rt):
    assert _rt(rt, "--item-hierarchy", str(rt / "ih.csv")) == 0
    assert _joined(rt, (rt / "items.csv").read_text(), "--item-hierarchy", str(rt / "ih.csv")) == 0


@pytest.mark.parametrize("extra, words", [
    # g1 is a group (line 2) and the value of the added row: a published 'g1' would mean either.
    ("g1;i2;*\n", ["h.csv, line 2", "'g1' is a value (line 13) and also a group of other values"]),
    # i2 (a value, line 3) is also the group of the new value i13.
    ("i13;i2;g2;*\n", ["h.csv, line 3", "'i2' is listed as a value and as a generalization"]),
    ("i3;g1;*\n", ["h.csv, line 13", "'i3' appears in two rows with different ancestors"]),
])
def test_an_item_hierarchy_whose_value_is_also_a_group(rt, capsys, extra, words):
    (rt / "h.csv").write_text(HIERARCHY + extra)
    assert _rt(rt, "--item-hierarchy", str(rt / "h.csv")) == 2
    _one_error(capsys, *words)
    assert not (rt / "o.csv").exists()


@pytest.mark.parametrize("content, words", [
    ("M;M;*\nF;F;*\n", ["sex.csv, line 1", "value 'M' is its own generalization", "drop the repeated 'M'"]),
    ("F;*\nM;M\n", ["sex.csv, line 2", "value 'M' is its own generalization"]),
    ("F;M;*\nM;people;*\n", ["sex.csv, line 1", "'M' is a value (line 2) and also a group of other values (line 1)"]),
    # M has no group above it: a second root '*' is added above the row's '*'.
    ("F;x;*\nM\n", ["sex.csv, line 1", "the group '*' appears on two levels", "'value;*'"]),
])
def test_a_column_hierarchy_that_maps_a_value_to_itself(rt, capsys, content, words):
    (rt / "sex.csv").write_text(content)
    assert _rt(rt, "--hierarchy", f"sex={rt / 'sex.csv'}") == 2
    _one_error(capsys, *words)


def test_a_repeated_label_is_refused_only_where_nodes_are_printed_by_label(tmp_path):
    # Other families (full-domain levels) read the ARX form that repeats a value on a level; only a
    # release that prints nodes by label needs every label to name one node.
    path = tmp_path / "sex.csv"
    path.write_text("M;M;*\nF;F;*\n")
    assert sorted(load_hierarchy(path).leaf_labels) == ["F", "M"]
    with pytest.raises(DataFormatError, match=r"sex.csv, line 1: value 'M' is its own generalization"):
        load_hierarchy(path, distinct_labels=True)


def test_an_items_file_naming_an_unknown_person(rt, capsys):
    items = (rt / "items.csv").read_text() + "ghost,i1\np1,i2\n"
    assert _joined(rt, items) == 2
    _one_error(capsys, f"long.csv, line {len(items.splitlines()) - 1}", "person 'ghost' is not in people.csv",
               "remove those rows")


def test_an_items_file_naming_an_item_the_hierarchy_lacks(rt, capsys):
    items = (rt / "items.csv").read_text() + "p1,zzz\n"
    assert _joined(rt, items, "--item-hierarchy", str(rt / "ih.csv")) == 2
    _one_error(capsys, f"long.csv, line {len(items.splitlines())}", "item 'zzz' is not a value", "ih.csv")


def test_an_items_column_naming_an_item_the_hierarchy_lacks(rt, capsys):
    text = (rt / "rt.csv").read_text().replace("p7,27,F,", "p7,27,F,zzz;")
    (rt / "rt.csv").write_text(text)
    assert _rt(rt, "--item-hierarchy", str(rt / "ih.csv")) == 2
    _one_error(capsys, "rt.csv", "item 'zzz' (record 8, column 'items') is not a value", "ih.csv")


def test_an_items_file_row_holding_several_items(rt, capsys):
    assert _joined(rt, "pid,item\np1,i1\np2,i2;i3\n") == 2
    _one_error(capsys, "long.csv, line 3", "item 'i2;i3' holds ';'", "one item per row")


@pytest.mark.parametrize("sep, shown", [(",", "','"), ("|", "'|'")])
def test_an_items_column_joined_with_the_wrong_separator(rt, capsys, sep, shown):
    lines = (rt / "rt.csv").read_text().splitlines()
    rows = [ln.split(",", 3) for ln in lines[1:]]
    (rt / "rt.csv").write_text(lines[0] + "\n" + "".join(
        f'{p},{a},{s},"{items.replace(";", sep)}"\n' for p, a, s, items in rows))
    assert _rt(rt) == 2
    line = _one_error(capsys, "rt.csv", f"holds its items separated by {shown}", "separated by ';'",
                      "record 2", "write them as 'i1;i2;i3'")
    assert "items" in line


def test_items_whose_labels_hold_a_comma_are_not_taken_for_a_separator_mistake(rt):
    lines = (rt / "rt.csv").read_text().splitlines()
    rows = [ln.split(",", 3) for ln in lines[1:]]
    # One person in three has the single item "1,9" (an ICD-9 range label); the others ';'-joined items.
    (rt / "rt.csv").write_text(lines[0] + "\n" + "".join(
        f'{p},{a},{s},"{"1,9" if n % 3 == 0 else items}"\n' for n, (p, a, s, items) in enumerate(rows)))
    assert _rt(rt) == 0
