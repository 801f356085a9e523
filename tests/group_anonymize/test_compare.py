"""The side-by-side adapter of group releases shows, cell for cell, what the published CSV holds."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from anonstudio.data.compare import check_comparison
from anonstudio.data.rows import Chip
from anonstudio.data.table import Table
from anonstudio.jobs import NullProgress
from anonstudio.methods.group_anonymize.algorithm import anonymize, run_group_anonymize
from anonstudio.methods.group_anonymize.compare import GroupComparison, comparison_of
from anonstudio.methods.group_anonymize.params import GroupAnonymizeParams
from anonstudio.methods.group_anonymize.published_csv import export_release
from tests.group_anonymize.helpers import random_table


def text(cell):
    """A cell as the CSV writes it: the chip's text, or the plain value."""
    return cell[0].text if isinstance(cell, tuple) else cell


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("scheme", ["mondrian", "anatomy"])
def test_published_cells_are_the_published_csv(tmp_path, seed, scheme):
    table = random_table(seed)
    release = anonymize(table, GroupAnonymizeParams(scheme=scheme, k=3, l=2, qi=("age", "zip", "sex", "job"),
                                               sensitive="disease"), NullProgress()).release
    comparison = GroupComparison(table, release)
    check_comparison(comparison)
    path = tmp_path / "release.csv"
    export_release(release, table, path)
    with open(path, newline="") as fh:
        lines = list(csv.reader(fh))
    assert lines[0] == ["gid", "age", "zip", "sex", "job", "disease"]
    assert comparison.published.columns == ("row", "group", "age", "zip", "sex", "job", "disease")
    for row, line in enumerate(lines[1:]):
        cells = comparison.published.cells(row)
        assert [text(c) for c in cells[1:]] == line
    assert np.array_equal(comparison.row_groups(), release.row_group)
    assert comparison.original.cells(0)[1:] == tuple(str(table.frame[c].iloc[0])
                                                     for c in ("age", "zip", "sex", "job", "disease"))


def test_chip_kinds_follow_the_cells_not_their_text(table1):
    release = anonymize(table1, GroupAnonymizeParams(scheme="mondrian", k=2, qi=("Nat", "ZIP"), sensitive="Dis"),
                        NullProgress()).release
    comparison = GroupComparison(table1, release)
    for row in range(release.n_rows):
        g = release.row_group[row]
        for j, column in enumerate(release.qi):
            chip = comparison.published.cells(row)[2 + j][0]
            held = int(release.cells[column][g].sum())
            size = len(release.domains[column])
            assert chip.kind == ("value" if held == 1 else "suppressed" if held == size else "general")


def test_anatomy_publishes_the_group_multiset_as_one_chip(table1):
    release = anonymize(table1, GroupAnonymizeParams(scheme="anatomy", k=2, l=2, qi=("Nat", "ZIP"), sensitive="Dis"),
                        NullProgress()).release
    comparison = GroupComparison(table1, release)
    cell = comparison.published.cells(0)[-1]
    assert isinstance(cell, tuple) and cell[0].kind == "general" and cell[0].text.startswith("{")
    members = release.group_rows(int(release.row_group[0]))
    assert sorted(cell[0].text[1:-1].split("|")) == sorted(table1.frame["Dis"].iloc[members].astype(str))
    assert "published exactly" in comparison.describe(0)


def test_describe_and_comparison_of_a_run():
    from anonstudio.methods.group_anonymize.spec import SPEC

    table, params = SPEC.example()
    run = run_group_anonymize(table, params, NullProgress())
    comparison = comparison_of(run)
    assert comparison.title == run.text and comparison.group_word == "group"
    g = int(run.release.row_group[5])
    size = len(run.release.group_rows(g))
    line = comparison.describe(5)
    assert line.startswith(f"Row 6 is in group {g + 1} of {run.release.n_groups}: {size} rows with ")
    assert "Published for all of them: age " in line
    assert comparison.highlight_keys(5) == ()
    assert comparison.published.search(f"group = {g + 1}").rows.tolist() == run.release.group_rows(g).tolist()


def test_rows_must_align(table1):
    release = anonymize(table1, GroupAnonymizeParams(scheme="mondrian", k=2, qi=("Nat", "ZIP"), sensitive="Dis"),
                        NullProgress()).release
    shorter = Table(table1.frame.iloc[:-1], dict(table1.roles), "short")
    with pytest.raises(ValueError, match="rows but the table has"):
        GroupComparison(shorter, release)
    assert Chip("x").kind == "item"
