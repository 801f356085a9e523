"""Inputs that used to end in an internal error (exit 1, "please report it") are one line and exit 2."""
from __future__ import annotations

import pytest

from anonstudio.cli import main

BASKETS = "".join(" ".join(str((i * 7 + j) % 13) for j in range(1 + i % 4)) + "\n" for i in range(40))


def _one_error(capsys, *words: str) -> str:
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(lines) == 1 and ": error: " in lines[0] and "internal error" not in lines[0], lines
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


@pytest.fixture
def baskets(tmp_path):
    path = tmp_path / "b.dat"
    path.write_text(BASKETS)
    return path


@pytest.mark.parametrize("rho", ["1e-300", "1/" + "7" * 20, "3" * 20 + "/" + "7" * 21, "0." + "1" * 5000, "0",
                                 "0/5"])
def test_rho_values_the_exact_arithmetic_cannot_hold(baskets, tmp_path, capsys, rho):
    code = main(["rho", str(baskets), "--setting", "fixed", "--rho", rho, "--quiet", "--json",
                 str(tmp_path / "r.json")])
    assert code == 2
    _one_error(capsys, "--rho")
    assert not (tmp_path / "r.json").exists()


def test_rho_with_a_twenty_digit_fraction_that_reduces_runs(baskets, capsys):
    assert main(["rho", str(baskets), "--setting", "fixed", "--rho", "12345678901234567890/98765432109876543210",
                 "--quiet"]) == 0


@pytest.mark.parametrize("items", ["", '""'])
def test_an_rt_items_column_empty_everywhere(tmp_path, capsys, items):
    table = tmp_path / "rt.csv"
    table.write_text("id,age,gender,items\n" + "".join(f"{i},{20 + i},{'MF'[i % 2]},{items}\n" for i in range(6)))
    assert main(["rt", str(table), "--qi", "age,gender", "--items-column", "items", "--k", "2", "--m", "1",
                 "--quiet"]) == 2
    _one_error(capsys, "items", "no item")


@pytest.mark.parametrize("content", ["[" * 10000 + "]" * 10000, "[" + "9" * 5000 + "]",
                                     '{"workloads": {"a": [{"items": [' + "9" * 5000 + "]}]}}"])
def test_an_rt_queries_file_nested_deep_or_with_a_huge_number(tmp_path, capsys, content):
    from pathlib import Path

    queries = tmp_path / "q.json"
    queries.write_text(content)
    example = Path(__file__).parents[1] / "data" / "rt" / "example.csv"
    assert main(["rt", str(example), "--qi", "age,gender", "--items-column", "items", "--k", "2", "--m", "1",
                 "--queries", str(queries), "--quiet"]) == 2
    _one_error(capsys, "q.json")


@pytest.mark.parametrize("value", ["1e308", "-1e308", "1e30", "inf"])
def test_coordinates_with_huge_numbers(baskets, tmp_path, capsys, value):
    coords = tmp_path / "coords.csv"
    coords.write_text("item,x,y\n" + "".join(f"{i},{value},{i * 10}\n" for i in range(13)))
    assert main(["kmanon", str(baskets), "--k", "2", "--m", "1", "--coords", str(coords), "--quiet"]) == 2
    _one_error(capsys, "coords.csv")
