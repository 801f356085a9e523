"""Hierarchy.from_rows and its cycle check against the slow references, on many random small row sets.

The rows are drawn from a few labels so that every kind of bad file turns up often: cycles (``a;b`` with
``b;a``), a label with two parents, a value that is also a group, repeated and conflicting rows, empty fields.
"""
import random

import pytest

from anonstudio.data.hierarchy import Hierarchy, HierarchyError, _refuse_cycles
from tests.reference.hierarchy_reference import from_rows_reference, has_cycle_reference

LABELS = ["a", "b", "c", "d", "e", "f", "*", "g", ""]
KINDS = ("has a cycle", "two different parents", "as a value and as a generalization", "has an empty value",
         "in two rows with different ancestors")


def _random_rows(rng: random.Random) -> list[list[str]]:
    rows = []
    for _ in range(rng.randint(1, 8)):
        if rows and rng.random() < 0.15:
            rows.append(list(rng.choice(rows)))  # a repeated row
            continue
        length = rng.randint(1, 5)
        row = [rng.choice(LABELS[:-1]) + str(rng.randint(0, 2)) for _ in range(length)]
        if rng.random() < 0.5:
            row[-1] = "*"
        if rng.random() < 0.05:
            row[rng.randrange(length)] = ""
        if rng.random() < 0.1:
            row.append("")
        rows.append(row)
    return rows


def _outcome(build, rows):
    try:
        return build(rows)
    except HierarchyError as exc:
        return ("error", exc.reason, exc.row)


def _built(rows):
    tree = Hierarchy.from_rows(rows)
    # rows() gives back each leaf's walk to the root (it builds them from the parents' paths).
    assert tree.rows() == [tree.path_to_root(int(v)) for v in tree.leaves]
    return list(tree.labels), tree.parent.tolist()


@pytest.mark.parametrize("seed", range(4))
def test_from_rows_matches_the_reference(seed):
    rng = random.Random(seed)
    kinds = set()
    for _ in range(1500):
        rows = _random_rows(rng)
        expected = _outcome(from_rows_reference, rows)
        assert _outcome(_built, rows) == expected, rows
        kinds.add(next((k for k in KINDS if k in expected[1]), expected[1]) if expected[0] == "error" else "tree")
    # The draws reach the good trees and every error, not only some of them.
    assert {"tree", *KINDS} <= kinds, kinds


def test_cycle_check_matches_the_reference():
    rng = random.Random(7)
    found = 0
    for _ in range(3000):
        rows = [row for row in _random_rows(rng) if "" not in row]
        try:
            _refuse_cycles(rows)
            cycle = False
        except HierarchyError as exc:
            cycle = True
            assert exc.reason.startswith("the hierarchy has a cycle: "), exc.reason
        assert cycle == has_cycle_reference(rows), rows
        found += cycle
    assert 100 < found < 2900  # both answers are tested


def test_deep_and_wide_tree_builds_like_the_reference():
    # A larger tree (about 20,000 leaves under 4 levels of groups) keeps the order of nodes and parents.
    rows = [[f"v{i}", f"g{i // 5}", f"h{i // 50}", f"k{i // 1000}", "*"] for i in range(20000)]
    tree = Hierarchy.from_rows(rows)
    labels, parent = from_rows_reference(rows)
    assert list(tree.labels) == labels and tree.parent.tolist() == parent


def test_reading_a_tree_gives_the_collector_back_as_it_was(tmp_path):
    import gc

    from anonstudio.data.errors import DataFormatError
    from anonstudio.data.io.hierarchies import load_hierarchy

    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.write_text("a;g;*\nb;g;*\n")
    bad.write_text("a;b;*\nb;a;*\n")
    assert gc.isenabled()
    assert load_hierarchy(good).n_leaves == 2 and gc.isenabled()
    with pytest.raises(DataFormatError, match="cycle"):
        load_hierarchy(bad)
    assert gc.isenabled()  # also after an error
    gc.disable()
    try:
        load_hierarchy(good)
        assert not gc.isenabled()  # a caller's pause is not ended by the reader
    finally:
        gc.enable()
