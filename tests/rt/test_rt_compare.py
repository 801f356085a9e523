"""The RT release row by row (the side-by-side view's adapter) and its clusters, on the paper's Fig. 2d."""
from __future__ import annotations

from pathlib import Path

import pytest

from anonstudio.data.compare import check_comparison
from anonstudio.data.rows import CHIP_KINDS
from anonstudio.methods.contract import get_method, run_and_verify
from anonstudio.methods.rt.compare import RTComparison, comparison_of
from anonstudio.methods.rt.export import anon_rows
from anonstudio.methods.rt.params import RTParams

DATA = Path(__file__).resolve().parents[1] / "data" / "rt"
EXAMPLE = dict(qi=("age", "origin", "gender"), items_column="items", k=2, m=2, item_fanout=0,
               sensitive_items=DATA / "sensitive.txt",
               hierarchies=(("origin", DATA / "origin_hierarchy.csv"), ("gender", DATA / "gender_hierarchy.csv")))


@pytest.fixture(scope="module")
def fig2d():
    spec = get_method("rt")
    data = spec.open_dataset(DATA / "example.csv")
    return run_and_verify(spec, data, RTParams(**EXAMPLE, delta=0.8, merge="t")).result


def test_the_published_side_says_what_anon_csv_holds(fig2d):
    comparison = comparison_of(fig2d)
    check_comparison(comparison)
    published = comparison.published
    assert published.columns == ("row", "cluster", "age", "origin", "gender", "items")
    header, rows = anon_rows(fig2d)
    for u, row in enumerate(rows):
        cells = published.cells(u)
        assert cells[0] == str(u + 1) and cells[1] == row[0]  # rows and clusters counted from 1, as in ANON.csv
        assert [chips[0].text for chips in cells[2:5]] == row[1:4]
        assert ";".join(chip.text for chip in cells[5]) == row[4]
        assert all(chip.kind in CHIP_KINDS for chips in cells[2:] for chip in chips)
    assert [row[0] for row in rows] == ["1", "1", "2", "2", "1", "1"]  # Fig. 2d: C1 = John, Steve, Mary, Zoe
    # John (row 1): every demographic generalized; G is sensitive and published as it is.
    john = published.cells(0)
    assert [chips[0].kind for chips in john[2:5]] == ["general", "general", "general"]
    kinds = {chip.text: chip.kind for chip in john[5]}
    assert kinds["G"] == "sensitive" and "partition" in kinds.values()
    assert comparison.original.cells(0)[1:4] == ("19", "France", "Male")
    original_items = comparison.original.cells(0)[4]
    assert [(c.text, c.kind) for c in original_items] == [("B", "item"), ("E", "item"), ("F", "item"),
                                                          ("G", "sensitive")]


def test_keys_tie_each_published_item_to_the_original_items_it_stands_for(fig2d):
    comparison = RTComparison(fig2d)
    for row in range(fig2d.problem.n):
        keys = set(comparison.highlight_keys(row))
        original = {c.key for c in comparison.original.cells(row)[4] if c.kind != "sensitive"}
        assert original == keys and -1 not in keys
    # Different clusters never share a key (each cluster generalizes its items on its own).
    by_cluster = {}
    for row in range(fig2d.problem.n):
        by_cluster.setdefault(int(fig2d.assignment[row]), set()).update(comparison.highlight_keys(row))
    a, b = by_cluster.values()
    assert not a & b


def test_groups_description_and_cluster_view(fig2d):
    comparison = RTComparison(fig2d)
    assert comparison.row_groups().tolist() == fig2d.assignment.tolist() == [0, 0, 1, 1, 0, 0]
    assert comparison.describe(0).startswith("Row 1 is published in cluster 1 with 3 other people: age [19-70]")
    assert comparison.describe(2).startswith("Row 3 is published in cluster 2 with 1 other person: ")
    cluster = comparison.cluster(0)
    assert cluster.size == 4 and cluster.rows.tolist() == [0, 1, 4, 5] and cluster.number == 1
    assert cluster.ncp == pytest.approx(1.0)
    assert cluster.cells[0] == ("age", "[19-70]", "19, 22, 55, 70")
    assert {it.label: it.people for it in cluster.items if it.kind == "sensitive"} == {"G": 2, "H": 2}
    published = [it for it in cluster.items if it.kind != "sensitive"]
    # Every non-sensitive item of the cluster is under exactly one published item.
    under = sorted(i for it in published for i in it.items)
    assert under == sorted({"A", "B", "D", "E", "F"})
    assert cluster.ul == pytest.approx(fig2d.tres[0].ul_sum / 4)
    assert "6 people in 2 clusters of 2–4" in comparison.title


def test_a_search_for_a_row_number_counts_from_1(fig2d):
    comparison = RTComparison(fig2d)
    for rows in (comparison.original, comparison.published):
        assert rows.search("#1").rows.tolist() == [0] and rows.search("#6").rows.tolist() == [5]
        assert rows.search("#0").rows.tolist() == [] and rows.search("#7").text == "no row 7"
        assert rows.column_tips[0].startswith("Row number, counted from 1")


def test_an_infeasible_result_has_no_comparison():
    spec = get_method("rt")
    data = spec.open_dataset(DATA / "example.csv")
    result = run_and_verify(spec, data, RTParams(**EXAMPLE, delta=0.1)).result
    with pytest.raises(ValueError, match="nothing is published"):
        RTComparison(result)
