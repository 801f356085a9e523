"""Generalization ladders of global recoding."""
from __future__ import annotations

import numpy as np
import pytest

from anonstudio.data.hierarchy import Hierarchy
from anonstudio.methods.group_anonymize.cells import parse_cell
from anonstudio.methods.group_anonymize.levels import flat_levels, hierarchy_levels, interval_levels


def _nested(levels):
    for h in range(1, levels.n_levels):
        lower, upper = levels.node_of[h - 1], levels.node_of[h]
        for node in np.unique(lower):
            assert len(np.unique(upper[lower == node])) == 1


def test_age_intervals_double_per_level():
    domain = list(range(17, 91))
    levels = interval_levels("age", domain)
    age37 = domain.index(37)
    assert [levels.node_labels[h][levels.node_of[h][age37]] for h in range(levels.n_levels)] == [
        "37", "[36-37]", "[36-39]", "[32-39]", "[32-47]", "[32-63]", "[0-63]", "*"]
    _nested(levels)


@pytest.mark.parametrize("domain", [list(range(-5, 4)), [-2.5, -0.75, 0.0, 0.5, 1.25, 3.0]])
def test_intervals_across_zero_reach_a_single_node(domain):
    levels = interval_levels("x", domain)
    assert levels.node_labels[-1] == ("*",)
    _nested(levels)
    # Every label reads back (as a cell over the domain) to exactly its node's members.
    for h in range(1, levels.n_levels - 1):
        for node, label in enumerate(levels.node_labels[h]):
            assert np.array_equal(parse_cell(label, domain, True), levels.node_of[h] == node), label


def test_flat_and_hierarchy_levels():
    flat = flat_levels("sex", ["F", "M"])
    assert flat.node_labels == (("F", "M"), ("*",))
    tree = Hierarchy.from_rows([["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"], ["d", "*"]])
    levels = hierarchy_levels("x", ["a", "b", "c", "d"], {r[0]: r for r in tree.rows()})
    # Unbalanced: d reaches the root at level 1 and stays there.
    assert levels.n_levels == 3 and sorted(levels.node_labels[1]) == ["c", "d", "{a|b}"]
    assert levels.node_labels[-1] == ("*",)
    _nested(levels)
    with pytest.raises(ValueError, match="no entry for e"):
        hierarchy_levels("x", ["a", "e"], {r[0]: r for r in tree.rows()})
