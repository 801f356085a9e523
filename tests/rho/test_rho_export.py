"""SUPPRESSED.dat keeps the input's lines; the run's JSON; E_USED equals the given E; the rules CSV numbers from 1."""
from __future__ import annotations

import csv
import json

from anonstudio.data.io import load_transactions, save_transactions
from anonstudio.methods.contract import run_and_verify, write_outputs
from anonstudio.methods.rho.algorithm import run_rho
from anonstudio.methods.rho.export import write_rules, write_suppressed
from anonstudio.methods.rho.params import RhoParams
from anonstudio.methods.rho.sensitive import generate_sensitive, load_sensitive, write_sensitive
from anonstudio.methods.rho.spec import SPEC
from tests.rho.rho_helpers import as_lists


def test_suppressed_keeps_lines_order_comments_and_empty_records(rho_data, tmp_path):
    src = rho_data / "with_empty.dat"
    data = load_transactions(src)
    e = generate_sensitive(data, "fixed", 0.5, 1)
    res = run_rho(data, RhoParams(rho="0.3", seed=4), constraint=e)
    assert res.suppressed_items > 0
    out = tmp_path / "SUPPRESSED.dat"
    write_suppressed(out, res)
    original = src.read_text().split("\n")
    written = out.read_text().split("\n")
    assert len(written) == len(original)
    assert written[0] == original[0] == "# baskets with empty records"
    for a, b in zip(original, written):
        ta, tb = a.split(), b.split()
        assert [t for t in ta if t in tb] == tb          # same token order, only removals
        assert (a == "") == (b == "") or not tb
    back = load_transactions(out)
    assert back.n_records == data.n_records == 8
    assert [back.record_labels(u) for u in range(8)] == [res.published.record_labels(u) for u in range(8)]


def test_other_formats_are_written_in_their_own_format(rho_data, tmp_path):
    data = load_transactions(rho_data / "example_b.dat")
    long_path = tmp_path / "b.csv"
    save_transactions(data, long_path, "csv-long")
    long = load_transactions(long_path)
    res = run_rho(long, RhoParams(rho="0.5", setting="fixed", sensitive_fraction=0.25, seed=1))
    out = tmp_path / "SUPPRESSED.csv"
    write_suppressed(out, res)
    back = load_transactions(out, "csv-long")
    assert sorted(map(tuple, (back.record_labels(u) for u in range(back.n_records)))) == sorted(
        tuple(res.published.record_labels(u)) for u in range(res.published.n_records) if res.published.lengths[u])


def test_json_contract_and_e_used_equals_input(rho_data, tmp_path):
    data = load_transactions(rho_data / "example_b.dat")
    params = RhoParams(rho="0.5", sensitive=rho_data / "example_b_E.csv", seed=3)
    run = run_and_verify(SPEC, data, params)
    res = run.result
    path = tmp_path / "OUT.json"
    write_outputs(run, {}, path)
    doc = json.loads(path.read_text())
    for key in ("rho", "m", "epsilon", "delta", "sampler", "setting", "sensitive_fraction", "seed",
                "samples_per_level", "suppressed_items", "util_info", "util_dist", "util_mining", "minsup", "minconf",
                "rules_original", "rules_published", "rules_common", "iterations", "seconds", "verification"):
        assert key in doc, key
    assert doc["rho"] == 0.5 and doc["rho_exact"] == "1/2" and doc["setting"] == "file"
    assert doc["minsup"] == 0.0005 and doc["minconf"] == 0.3
    assert doc["suppressed_items"] == 2 and doc["iterations"] == 2
    assert doc["verification"]["passed"] is True
    assert len(doc["passes"]) == 2 and doc["passes"][-1]["levels"][0]["rules"] == 0
    e_used = tmp_path / "E_USED.csv"
    write_sensitive(e_used, res.constraint)
    assert sorted(e_used.read_text().splitlines()[1:]) == sorted(
        (rho_data / "example_b_E.csv").read_text().splitlines()[1:])
    again = load_sensitive(e_used, data)
    assert [again.labels_of(u) for u in range(7)] == [res.constraint.labels_of(u) for u in range(7)]
    assert as_lists(res.published) != as_lists(data)


def test_rules_csv_numbers_people_and_records_from_1(rho_data, tmp_path):
    data = load_transactions(rho_data / "example_b.dat")
    res = run_rho(data, RhoParams(rho="0.5", sensitive=rho_data / "example_b_E.csv", seed=1))
    path = tmp_path / "RULES.csv"
    write_rules(path, res)
    rows = list(csv.DictReader(path.read_text().splitlines()))
    # the note's example B: a → s threatened person 1 (record index 0) and was fixed by taking s out of record 1
    a = next(r for r in rows if r["antecedent"] == "1")
    assert (a["consequent"], a["people"], a["people_listed"]) == ("9", "1", "1")
    assert a["suppressed"] == "pass 1: 9 from records 1"
    c = next(r for r in rows if r["antecedent"] == "3")
    assert c["people_listed"] == "7" and c["suppressed"] in ("pass 1: 3 from records 5", "pass 1: 3 from records 6")

