"""The RT spec's plain-language texts and its comparison sweep (δ grid from the data, the preset)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from anonstudio.methods.contract import get_method, run_and_verify
from anonstudio.methods.rt.params import RTParams
from anonstudio.methods.rt.spec import check_text, items_word, promise_text
from anonstudio.methods.rt.sweeps import HEURISTICS, coarse_to_fine, delta_grid
from anonstudio.methods.sweep import make_grid

DATA = Path(__file__).resolve().parents[1] / "data" / "rt"


def test_the_promise_reads_like_a_sentence():
    p = RTParams(qi=("age", "sex", "race"), items_column="diagnoses", k=25, m=2)
    assert promise_text(p) == ("Anyone who knows a person's age, sex, race and any 2 of their diagnoses matches "
                               "at least 25 people.")
    # A column name that is no plural word, or an items file, gives "items".
    q = RTParams(qi=("DOBYY",), items_column="ICD9CODX", k=1000, m=1)
    assert promise_text(q) == \
        "Anyone who knows a person's DOBYY and any one of their items matches at least 1,000 people."
    assert items_word(replace(p, items_file=Path("c.csv"), person_column="id")) == "items"
    diverse = replace(p, l=2, sensitive_items=Path("s.txt"))
    assert promise_text(diverse) == (
        "Anyone who knows a person's age, sex, race and any 2 of their diagnoses matches at least 25 people "
        "(sensitive diagnoses are never assumed known), and none of the sensitive diagnoses is linked to more than "
        "1/2 of them.")


def test_describe_of_a_run_says_the_losses_and_a_short_check():
    spec = get_method("rt")
    data = spec.open_dataset(DATA / "example.csv")
    params = RTParams(qi=("age", "origin", "gender"), items_column="items", k=2, m=2, delta=0.8, merge="t",
                      item_fanout=0, sensitive_items=DATA / "sensitive.txt",
                      hierarchies=(("origin", DATA / "origin_hierarchy.csv"),
                                   ("gender", DATA / "gender_hierarchy.csv")))
    run = run_and_verify(spec, data, params)
    d = spec.describe(run)
    assert d.state == "ok" and d.promise.startswith("Anyone who knows a person's age, origin, gender and any 2")
    assert d.check == ("Independent check passed: 2 clusters of at least 2 people; every published cell and item "
                       "covers the original; the promise holds for all 6 people; Rum and Tum recomputed: equal.")
    assert d.notes == (f"2 clusters of people published together; demographics loss (Rum) {13 / 17:.3f} ≤ δ = 0.8; "
                       f"items loss (Tum) {run.result.tum:.3f}.",)
    # A planted failure is named in the check.
    run.verification.km_violations = 3
    assert check_text(run.verification).startswith("Independent check FAILED: anyone who knows")
    infeasible = run_and_verify(spec, data, replace(params, delta=0.1))
    assert spec.describe(infeasible).state == "failed"
    assert spec.describe(infeasible).promise.startswith("Nothing published: Cluster's Rum")


@pytest.mark.parametrize("bound, rum, tum, include, expected", [
    ("rum", 0.155, 1.0, None, (0.2, 0.35, 0.5, 0.65, 0.8, 0.95)),   # from Cluster's Rum up to 0.95
    ("rum", 0.155, 1.0, 0.6, (0.2, 0.35, 0.5, 0.6, 0.65, 0.8, 0.95)),  # the run's δ is added
    ("rum", 0.155, 1.0, 0.655, (0.2, 0.35, 0.5, 0.655, 0.8, 0.95)),    # ... and replaces a value within 0.01
    ("rum", 0.62, None, None, (0.65, 0.75, 0.85, 0.95)),
    ("rum", 0.97, None, None, (1.0,)),                              # only δ = 1 can be met
    ("tum", None, 0.5, None, (0.1, 0.2, 0.3, 0.4, 0.5)),            # up to the UL after Cluster
    ("rum", None, None, None, HEURISTICS.axes[0].values),            # nothing known: the preset's values
])
def test_delta_grid_follows_the_data(bound, rum, tum, include, expected):
    assert delta_grid(bound, rum, tum, include=include) == pytest.approx(expected)


def test_coarse_to_fine_spans_the_range_first():
    values = (0.2, 0.35, 0.5, 0.65, 0.8, 0.95)
    order = coarse_to_fine(values)
    assert sorted(order) == list(values) and order[:3] == (0.2, 0.95, 0.5)
    assert coarse_to_fine((1.0,)) == (1.0,)


def test_the_preset_is_a_valid_sweep_of_the_three_heuristics():
    spec = get_method("rt")
    assert HEURISTICS in spec.sweeps and HEURISTICS.group == "merge"
    base = RTParams(qi=("age",), items_column="items")
    cells = make_grid(base, HEURISTICS.axes)
    assert len(cells) == 3 * len(HEURISTICS.axes[0].values)
    assert {c.params.merge for c in cells} == {"r", "t", "rt"}
