"""The independent verifier catches planted faults in an otherwise valid ANON.csv."""
import csv
from pathlib import Path

import pytest

from anonstudio.methods.rt.algorithm import run_rt
from anonstudio.methods.rt.export import write_anon_csv
from anonstudio.methods.rt.params import RTParams
from anonstudio.verifiers.rt import RTCheck, check_anon_csv, read_anon_csv
from tests.reference.rt_reference import random_rt

DATA = Path(__file__).resolve().parents[1] / "data" / "rt"


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rt-verify")
    data, _, rows, _ = random_rt(0, 60, empty=False)
    zone = tmp / "zone.csv"
    zone.write_text("\n".join(";".join(r) for r in rows) + "\n", encoding="utf-8")
    params = RTParams(qi=("age", "zone", "sex"), hierarchies=(("zone", zone),), k=4, m=2, item_fanout=2, delta=0.7)
    result = run_rt(data, params)
    assert result.feasible
    anon = tmp / "ANON.csv"
    write_anon_csv(anon, result)
    check = RTCheck(qi=params.qi, items_column="items", k=4, m=2, hierarchies={"zone": zone},
                    item_hierarchy=result.problem.item_hierarchy, claimed_rum=result.rum, claimed_tum=result.tum)
    return data, anon, check, tmp


def _rewrite(src, dst, edit):
    header, rows = read_anon_csv(src)
    edit(header, rows)
    with open(dst, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return dst


def test_the_untouched_table_passes(published):
    data, anon, check, _ = published
    v = check_anon_csv(anon, data, check)
    assert v.passed and v.violations == 0, v.lines() + v.examples
    assert v.rum_matches and v.tum_matches
    assert all(line.startswith(("ok", "recomputed")) for line in v.lines())


def test_a_cluster_of_k_minus_one(published):
    data, anon, check, tmp = published
    header, rows = read_anon_csv(anon)
    first = rows[0][0]
    members = [r for r, row in enumerate(rows) if row[0] == first]

    def edit(header, rows):
        # Move members out of cluster 0 into a new cluster (same cells) until it has k - 1 people.
        for r in members[check.k - 1:]:
            rows[r][0] = "999"

    v = check_anon_csv(_rewrite(anon, tmp / "small.csv", edit), data, check)
    assert not v.passed and v.small_clusters >= 1 and v.min_cluster_size == check.k - 1


def test_an_uncovered_item(published):
    data, anon, check, tmp = published
    header, rows = read_anon_csv(anon)
    r = next(r for r, row in enumerate(rows) if ";" in row[-1])

    def edit(header, rows):
        rows[r][-1] = rows[r][-1].split(";", 1)[1]  # drop the first published item

    v = check_anon_csv(_rewrite(anon, tmp / "uncovered.csv", edit), data, check)
    assert not v.passed and v.item_problems >= 1 and r + 1 in v.violating_rows


def test_an_m_itemset_below_k(published):
    data, anon, check, tmp = published
    vocab = data.transactions.vocab

    def edit(header, rows):
        # Publish one person's items exactly: a pair of plain items nobody else shows.
        for r, row in enumerate(rows):
            items = [vocab[i] for i in data.transactions.record(r)]
            if len(items) >= 2:
                row[-1] = ";".join(items)
                return

    v = check_anon_csv(_rewrite(anon, tmp / "km.csv", edit), data, check)
    assert not v.passed and v.km_violations >= 1 and v.item_problems == 0


def test_a_range_missing_the_original_value(published):
    data, anon, check, tmp = published
    ages = data.table.frame["age"].tolist()

    def edit(header, rows):
        for r, row in enumerate(rows):
            row[1] = f"[{ages[r] + 1}-{ages[r] + 5}]" if r == 0 else row[1]

    v = check_anon_csv(_rewrite(anon, tmp / "range.csv", edit), data, check)
    assert not v.passed and v.uncovered_cells == 1 and 1 in v.violating_rows  # row 1: counted from 1


def test_an_invented_item_and_a_wrong_measure(published):
    data, anon, check, tmp = published

    def edit(header, rows):
        rows[0][-1] += ";nonsense"

    v = check_anon_csv(_rewrite(anon, tmp / "invented.csv", edit), data, check)
    assert v.item_problems == 1
    from dataclasses import replace

    wrong = check_anon_csv(anon, data, replace(check, claimed_rum=check.claimed_rum + 0.01))
    assert not wrong.passed and wrong.rum_matches is False


def test_rows_out_of_shape(published):
    data, anon, check, tmp = published

    def edit(header, rows):
        del rows[-1]

    v = check_anon_csv(_rewrite(anon, tmp / "short.csv", edit), data, check)
    assert not v.passed and "rows for" in v.shape_problems[0]
