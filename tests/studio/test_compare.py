"""Compare methods on one dataset (Qt-free): the Pareto front against a brute-force reference, the grids
proposed from the data, and a comparison's table."""
from __future__ import annotations

import math

import numpy as np
import pytest

from anonstudio.data.datasets import open_dataset
from anonstudio.evaluate import EvaluateOptions
from anonstudio.jobs import RecordingProgress
from anonstudio.methods.sweep import Axis
from anonstudio.studio.compare import EVAL_MEASURES, Comparison, FamilyGrid, pareto_2d, proposed_grids, run_comparison
from tests.reference.compare_reference import pareto_front_brute


@pytest.mark.parametrize("seed", range(40))
def test_the_pareto_front_is_the_brute_force_one(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    # Few distinct values, so that ties on one or both coordinates are common; some NaN and inf.
    xs = rng.integers(0, 8, n).astype(float) / 4
    ys = rng.integers(0, 8, n).astype(float) / 4
    for arr in (xs, ys):
        arr[rng.random(n) < 0.05] = math.nan
        arr[rng.random(n) < 0.03] = math.inf
    points = list(zip(xs.tolist(), ys.tolist()))
    front = pareto_2d(points)
    assert set(front) == pareto_front_brute(points)
    assert len(front) == len(set(front))
    assert [points[i][0] for i in front] == sorted(points[i][0] for i in front)


def test_the_pareto_front_by_hand():
    #        0          1          2           3          4          5 (a copy of 0)
    pts = [(0.1, 0.9), (0.2, 0.5), (0.3, 0.55), (0.5, 0.1), (0.5, 0.3), (0.1, 0.9)]
    assert pareto_2d(pts) == [0, 5, 1, 3]
    assert pareto_2d([]) == [] and pareto_2d([(math.nan, 1.0)]) == []


def test_grids_are_proposed_from_the_data_kind():
    sets = proposed_grids(open_dataset("small-city"), m=2)
    assert [g.method for g in sets] == ["kmanon", "nonreciprocal", "rho"]
    assert sets[0].axes == (Axis("k", (5, 10, 20)), Axis("m", (2, 3)))
    assert sets[2].axes == (Axis("rho", ("0.3", "0.5", "0.7")),) and sets[2].base.m == 2
    table = proposed_grids(open_dataset("adult"))
    assert [(g.method, g.axes[0].name) for g in table] == [("group-anonymize", "k"), ("group-anonymize", "l")]
    assert table[0].base.sensitive and table[0].base.qi
    rt = proposed_grids(open_dataset("small-clinic"))
    assert [g.method for g in rt] == ["rt"] and rt[0].base.items_column == "diagnoses"
    assert table[1].base.k == 5 and rt[0].base.qi
    # Every proposed cell is valid for its data (the window runs them as they are).
    from anonstudio.methods.contract import prepare

    for data, grids in ((open_dataset("adult"), table), (open_dataset("small-clinic"), rt)):
        for grid in grids:
            for cell in grid.cells():
                prepare(grid.spec, data, cell.params)
    # Six people: k values above the records are left out.
    tiny = proposed_grids(open_dataset("sports-example"))
    assert tiny[0].axes[0] == Axis("k", (5,))


def _grids(data):
    from anonstudio.methods.contract import get_method

    km = get_method("kmanon").params(sigma=1.0, trials=1, m=2)
    # sports-example holds 4 items: a quarter of them is one sensitive item (the default 0.1 draws none, refused).
    rho = get_method("rho").params(m=2, sensitive_fraction=0.25)
    return [FamilyGrid("kmanon", km, (Axis("k", (2, 3)),)), FamilyGrid("rho", rho, (Axis("rho", ("0.3", "0.5")),))]


def test_a_comparison_publishes_partials_and_keeps_finished_cells_on_cancel():
    data = open_dataset("sports-example")
    progress = RecordingProgress(cancel_after_partials=3)
    result = run_comparison(data, _grids(data), EvaluateOptions(m=2), progress)
    assert not result.complete and result.done == 3
    assert all(isinstance(p, Comparison) for p in progress.partials)
    assert [p.done for p in progress.partials] == [1, 2, 3]
    rows = result.rows(all_cells=True)
    assert [r["status"] for r in rows] == ["done", "done", "done", "not run"]
    assert all(math.isfinite(r["prosecutor_risk"]) for r in rows[:3])
    text = result.to_csv_text()
    assert text.splitlines()[0].startswith("method,settings,k,rho,status,check," + ",".join(EVAL_MEASURES))
    front = result.pareto()
    assert front and all(result.results[g].results[i].status == "done" for g, i in front)
