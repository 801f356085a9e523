"""Runs whose promise would be empty, or whose input cannot mean what the user thinks, are exit 2 with the reason."""
from __future__ import annotations

from pathlib import Path

import pytest

from anonstudio.cli import main

from .test_internal_errors import BASKETS, _one_error

CITY = Path(__file__).parents[2] / "resources" / "samples" / "small-city"


@pytest.fixture
def baskets(tmp_path):
    path = tmp_path / "b.dat"
    path.write_text(BASKETS)
    return path


@pytest.mark.parametrize("content, words", [
    ("person,item\n1,990\n2,991\n", ["none of its 2 items occurs in the data"]),
    ("person,item\n", ["names no sensitive item"]),
    ("", ["names no sensitive item"]),
])
def test_a_sensitive_items_file_that_names_nothing_in_the_data(baskets, tmp_path, capsys, content, words):
    sensitive = tmp_path / "e.csv"
    sensitive.write_text(content)
    assert main(["rho", str(baskets), "--sensitive", str(sensitive), "--quiet", "--json",
                 str(tmp_path / "r.json")]) == 2
    _one_error(capsys, "e.csv", *words)
    assert not (tmp_path / "r.json").exists()


def test_a_sensitive_items_file_with_some_absent_items_warns(baskets, tmp_path, capsys):
    sensitive = tmp_path / "e.csv"
    sensitive.write_text("person,item\n1,0\n2,990\n")
    assert main(["rho", str(baskets), "--sensitive", str(sensitive), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "1 sensitive items of the file do not occur in the data ('990')" in out


@pytest.mark.parametrize("setting", ["fixed", "personalized"])
def test_a_sensitive_fraction_that_draws_nothing(baskets, capsys, setting):
    assert main(["rho", str(baskets), "--setting", setting, "--sensitive-fraction", "0", "--quiet"]) == 2
    _one_error(capsys, "--sensitive-fraction", "draws no sensitive item")


@pytest.mark.parametrize("constraint", ["free", "hierarchy"])
def test_kmanon_with_coordinates_and_a_merge_rule_that_ignores_them(capsys, constraint):
    assert main(["kmanon", "small-city", "--k", "5", "--m", "1", "--constraint", constraint, "--coords",
                 str(CITY / "city_coords.csv"), "--quiet"]) == 2
    _one_error(capsys, "--coords")


def test_a_value_that_does_not_apply_is_still_checked(baskets, capsys):
    # The noise only applies to the personalized settings; a value no setting accepts is still an error.
    assert main(["rho", str(baskets), "--setting", "fixed", "--noise", "-5", "--quiet"]) == 2
    _one_error(capsys, "--noise")


@pytest.mark.parametrize("content, words", [("a,b,c\n", ["only a header line"]), ("record,item\n", ["no data rows"]),
                                            ("# only a comment\n", ["no data rows"])])
def test_info_on_a_file_that_is_no_dataset(tmp_path, capsys, content, words):
    path = tmp_path / "f.csv"
    path.write_text(content)
    assert main(["info", str(path)]) == 2
    _one_error(capsys, "f.csv", *words)


@pytest.mark.parametrize("content", ["person,item\n", "", "person,item\n1,990\n", "990\n991\n"])
def test_the_evaluator_refuses_a_sensitive_file_that_names_nothing_in_the_data(baskets, tmp_path, capsys, content):
    """As ρ does: attribute disclosure over no sensitive item is vacuous (it printed a 'safe' figure)."""
    sensitive = tmp_path / "e.csv"
    sensitive.write_text(content)
    assert main(["evaluate", str(baskets), "--release", str(baskets), "--k", "2", "--m", "1", "--json",
                 str(tmp_path / "e.json"), "--sensitive", str(sensitive), "--quiet"]) == 2
    _one_error(capsys, "e.csv", "names no sensitive item the original holds")
    assert not (tmp_path / "e.json").exists()
