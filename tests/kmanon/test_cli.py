"""``anonstudio-cli kmanon`` end to end on the paper's Example 1 and a tiny city."""
import csv
import json

import pytest

from anonstudio.cli import main
from anonstudio.data.io import load_transactions, save_transactions
from anonstudio.data.synth_city import SynthCityParams, generate_city, write_coordinates_csv
from anonstudio.methods.contract import CHECK_PASSED
from anonstudio.verifiers.kmanon import read_partition_map, verify_km


def test_example_1_with_hierarchy(data_dir, tmp_path):
    d = data_dir / "kmanon"
    out = tmp_path / "anon.sets.csv"
    rc = main(["kmanon", str(d / "table1.sets.csv"), "--hierarchy", str(d / "table1_hierarchy.csv"),
               "--k", "2", "--m", "2", "--sigma", "1", "--map-out", str(tmp_path / "map.csv"),
               "--out", str(out), "--json", str(tmp_path / "out.json"), "--quiet"])
    assert rc == 0
    rows = list(csv.DictReader(open(tmp_path / "map.csv")))
    assert {r["item"]: r["partition"] for r in rows} == {
        "Boston": "East US", "New York": "East US", "LA": "LA", "Seattle": "Seattle"}
    anon = load_transactions(out)
    assert anon.n_records == 7
    assert [anon.record_labels(u) for u in range(anon.n_records)][-1] == ["East US", "LA", "Seattle"]
    doc = json.loads((tmp_path / "out.json").read_text())
    assert [lv["partitions"] for lv in doc["levels"]] == [4, 3]
    for key in ("samples", "violations", "merges", "error", "seconds", "gamma"):
        assert key in doc["levels"][0]
    assert [p["fraction"] for p in doc["verification"]["levels"]] == [1.0, 1.0]
    assert doc["status"] == "done" and doc["verification"]["passed"] is True
    assert doc["run"]["params"]["k"] == 2 and len(doc["run"]["input"]["sha256"]) == 64


def test_coords_contiguity_and_published_map_check(tmp_path):
    city = generate_city(SynthCityParams(towers=60, area_km2=2.0, users=600, mean_record_size=6.0,
                                         std_record_size=5.0, max_record_size=40, seed=4))
    save_transactions(city.data, tmp_path / "city.dat")
    write_coordinates_csv(tmp_path / "towers.csv", city.data)
    rc = main(["kmanon", str(tmp_path / "city.dat"), "--coords", str(tmp_path / "towers.csv"),
               "--k", "5", "--m", "2", "--sigma", "0.9", "--trials", "2", "--seed", "3",
               "--map-out", str(tmp_path / "map.csv"), "--geojson-out", str(tmp_path / "parts.geojson"),
               "--json", str(tmp_path / "out.json"), "--quiet"])
    assert rc == 0
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc["all_partitions_contiguous"] is True
    gj = json.loads((tmp_path / "parts.geojson").read_text())
    assert len(gj["features"]) == doc["levels"][-1]["partitions"]
    # the published map alone, checked independently
    data = load_transactions(tmp_path / "city.dat")
    labels = read_partition_map(tmp_path / "map.csv", data.vocab)
    check = verify_km(data, labels, 5, 2, samples=2000)
    assert min(p.fraction for p in check.points) >= 0.9


@pytest.mark.parametrize("sampler", ["independent", "mcmc"])
def test_sampler_choice_is_used_and_reported(tmp_path, sampler, capsys):
    city = generate_city(SynthCityParams(towers=40, area_km2=2.0, users=400, mean_record_size=5.0,
                                         std_record_size=3.0, max_record_size=20, seed=2))
    save_transactions(city.data, tmp_path / "city.dat")
    rc = main(["kmanon", str(tmp_path / "city.dat"), "--free", "--k", "4", "--m", "2", "--sigma", "0.9",
               "--sample-always", "--sampler", sampler, "--verify-samples", "0",
               "--json", str(tmp_path / "out.json")])
    assert rc == 0
    assert json.loads((tmp_path / "out.json").read_text())["sampler"] == sampler
    assert f"itemset sampler: {sampler}" in capsys.readouterr().out


def test_bad_arguments_exit_2(tmp_path, data_dir, capsys):
    d = data_dir / "kmanon"
    assert main(["kmanon", str(d / "table1.sets.csv"), "--free", "--k", "1", "--quiet"]) == 2
    assert main(["kmanon", str(d / "table1.sets.csv"), "--free", "--k", "2", "--geojson-out",
                 str(tmp_path / "x.geojson"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "k must be at least 2" in err and "--coords" in err


def test_a_sigma_1_run_says_what_its_independent_check_enumerated_and_what_it_sampled(capsys):
    # The anonymization enumerates every combination at σ = 1; the check enumerates ℓ = 1 (the occurring towers)
    # but samples ℓ = 2 (the city's pairs are over its enumeration budget), and its figures must say so.
    assert main(["kmanon", "small-city", "--k", "10", "--m", "2", "--sigma", "1", "--trials", "1", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Any 2 towers a stranger knows about a person match at least 10 people")
    assert "always (the anonymization checked every combination)" in lines[0]
    head, _, figures = lines[1].partition(": ")
    assert head == CHECK_PASSED
    ell1, ell2 = figures.split("; ")
    assert ell1 == "ℓ = 1: exhaustive: 200 of 200 itemsets shared by ≥ 10 people (100.00 %), σ = 1: confirmed"
    assert ell2 == ("ℓ = 2: sampled: no violation in 20,000 itemsets (so at least 99.98 % are shared by ≥ 10 people, "
                    "95 % confidence), σ = 1: no violation found")
