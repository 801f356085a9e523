"""SUPPRESSED.dat keeps the input's lines; the JSON contract; E_USED equals the given E."""
from __future__ import annotations

import json

from anonstudio.data.io import load_transactions, save_transactions
from anonstudio.methods.rho import (
    RhoParams,
    generate_sensitive,
    load_sensitive,
    run_rho,
    write_result_json,
    write_sensitive_used,
    write_suppressed,
)
from anonstudio.verifiers.rho import verify_rho
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
    res = run_rho(data, params)
    check = verify_rho(data, res.published, res.constraint.pairs(), params.rho_fraction)
    path = tmp_path / "OUT.json"
    write_result_json(path, res, check)
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
    write_sensitive_used(e_used, res)
    assert sorted(e_used.read_text().splitlines()[1:]) == sorted(
        (rho_data / "example_b_E.csv").read_text().splitlines()[1:])
    again = load_sensitive(e_used, data)
    assert [again.labels_of(u) for u in range(7)] == [res.constraint.labels_of(u) for u in range(7)]
    assert as_lists(res.published) != as_lists(data)
