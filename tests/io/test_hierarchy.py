import itertools

import numpy as np
import pytest

from anonstudio.data.errors import DataFormatError
from anonstudio.data.hierarchy import (
    Hierarchy,
    HierarchyError,
    frequency_balanced_taxonomy,
    interval_hierarchy,
    masking_hierarchy,
)
from anonstudio.data.io.hierarchies import load_hierarchy, save_hierarchy


def random_tree(rng, min_nodes: int, max_nodes: int) -> Hierarchy:
    """A random rooted tree: node k > 0 hangs below a random earlier node."""
    n = int(rng.integers(min_nodes, max_nodes))
    parent = [-1] + [int(rng.integers(0, k)) for k in range(1, n)]
    return Hierarchy(tuple(f"n{k}" for k in range(n)), np.asarray(parent))


def brute_leaf_count(h: Hierarchy, node: int) -> int:
    return sum(1 for leaf in h.leaves if leaf == node or node in h.ancestors(int(leaf)))


def test_arx_csv(io_data, unchanged):
    path = io_data / "age_hierarchy.csv"
    with unchanged(path):
        h = load_hierarchy(path)
    assert h.leaf_labels == ["34", "37", "45", "62"]
    assert h.labels[h.root] == "*" and h.height == 3
    assert h.path_to_root(h.leaf("45")) == ["45", "[40-50)", "[20-60)", "*"]
    assert h.leaf_count(h.find("[20-60)")) == 3
    assert [h.labels[v] for v in h.level_cut(1)] == ["[30-40)", "[30-40)", "[40-50)", "[60-70)"]
    assert [h.labels[v] for v in h.level_cut(9)] == ["*"] * 4
    assert [h.labels[v] for v in h.cut_nodes_at_depth(1)] == ["[20-60)", "[60-100)"]


def test_icd9_format_is_unbalanced(io_data):
    h = load_hierarchy(io_data / "icd9_excerpt.txt")
    assert h.path_to_root(h.leaf("001")) == ["001", "1,9", "1,139", "*"]
    assert h.path_to_root(h.leaf("042")) == ["042", "1,139", "*"]
    assert h.path_to_root(h.leaf("293")) == ["293", "290,294", "290,299", "290,319", "*"]
    assert h.leaf_count(h.find("1,139")) == 6  # 001-005 and 042 are in the excerpt
    # A cut at depth 2 keeps 042 itself (it is shallower) and groups the rest.
    cut = h.cut_nodes_at_depth(2)
    assert h.is_cut(cut)
    assert "042" in [h.labels[v] for v in cut]


def test_conflicting_parents_name_the_line(io_data):
    with pytest.raises(DataFormatError, match=r"conflict_hierarchy.csv, line 4: value 'b' appears in two rows"):
        load_hierarchy(io_data / "conflict_hierarchy.csv")


def test_label_with_two_parents_rejected():
    with pytest.raises(HierarchyError, match="two different parents"):
        Hierarchy.from_rows([["a", "x", "top"], ["b", "x", "other"], ["c", "y", "top"], ["d", "x", "top"]])


def test_several_tops_get_a_root():
    h = Hierarchy.from_rows([["a", "A"], ["b", "B"]])
    assert h.labels[h.root] == "*" and h.n_leaves == 2


def test_save_load_round_trip(tmp_path, io_data):
    for source in ("age_hierarchy.csv", "icd9_excerpt.txt"):
        h = load_hierarchy(io_data / source)
        save_hierarchy(h, tmp_path / "h.csv")
        back = load_hierarchy(tmp_path / "h.csv")
        assert back.rows() == h.rows()


def test_interval_and_masking_builders():
    h = interval_hierarchy([1, 7, 12, 25, 39], [5, 10, 20])
    assert h.path_to_root(h.leaf("25")) == ["25", "[25, 30)", "[20, 30)", "[20, 40)", "*"]
    with pytest.raises(ValueError, match="not a multiple"):
        interval_hierarchy([1, 2], [5, 7])
    m = masking_hierarchy(["45501", "45502", "12345"])
    assert m.path_to_root(m.leaf("45501")) == ["45501", "4550*", "455**", "45***", "4****", "*****"]
    assert m.leaf_count(m.find("4550*")) == 2


def test_frequency_balanced_taxonomy_is_balanced():
    rng = np.random.default_rng(3)
    for fanout in (2, 3, 5):
        items = [f"i{k}" for k in range(40)]
        freqs = rng.integers(1, 100, size=40)
        t = frequency_balanced_taxonomy(items, freqs, fanout)
        assert sorted(t.leaf_labels) == sorted(items)
        for node in range(t.n_nodes):
            assert len(t.children(node)) <= fanout
        # Siblings at the first level: totals differ by at most the largest single frequency.
        parents = {t.parent_of(t.leaf(i)) for i in items}
        totals = [sum(freqs[items.index(t.labels[v])] for v in t.children(p)) for p in parents]
        assert max(totals) - min(totals) <= freqs.max()


def test_spans_and_cuts_match_brute_force():
    rng = np.random.default_rng(11)
    for _ in range(30):
        h = random_tree(rng, 2, 25)
        n = h.n_nodes
        for v in range(n):
            assert h.leaf_count(v) == brute_leaf_count(h, v)
            for w in range(n):
                assert h.is_ancestor(v, w) == (v == w or v in h.ancestors(w))
        nodes = list(range(n))
        for size in (1, 2):
            for combo in itertools.combinations(nodes, size):
                brute = all(sum(1 for c in combo if c == leaf or c in h.ancestors(int(leaf))) == 1 for leaf in h.leaves)
                assert h.is_cut(combo) == brute
        for d in range(h.height + 1):
            assert h.is_cut(h.cut_nodes_at_depth(d))


def test_ancestor_table_matches_depth_cuts():
    rng = np.random.default_rng(4)
    for _ in range(20):
        h = random_tree(rng, 1, 30)
        n = h.n_nodes
        table = h.ancestor_table()
        for d in range(h.height + 1):
            assert table[h.leaves, d].tolist() == h.depth_cut(d).tolist()
        for v in range(n):
            chain = [v, *h.ancestors(v)][::-1]  # root first
            assert table[v, : len(chain)].tolist() == chain
