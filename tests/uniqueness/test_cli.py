"""``anonstudio-cli uniqueness`` and ``attack``."""
from __future__ import annotations

import json

from anonstudio.cli import main

KEYS = ("m", "uniqueness", "ci_low", "ci_high", "method", "samples", "seconds")


def test_uniqueness_json_and_table(data_dir, tmp_path, capsys):
    out = tmp_path / "u.json"
    code = main(["uniqueness", str(data_dir / "uniqueness" / "baskets.dat"), "--m", "2-4", "--method", "exact",
                 "--json", str(out), "--quiet"])
    assert code == 0
    doc = json.loads(out.read_text())
    assert all(len(doc[k]) == 3 for k in KEYS)
    assert doc["m"] == [2, 3, 4] and doc["method"] == ["exact"] * 3
    assert doc["uniqueness"][1] == doc["ci_low"][1] == doc["ci_high"][1] > 0
    stdout = capsys.readouterr().out
    assert "uniqueness" in stdout and len(stdout.strip().splitlines()) == 5


def test_uniqueness_mcmc_and_person(data_dir, tmp_path):
    out = tmp_path / "p.json"
    path = str(data_dir / "uniqueness" / "baskets.dat")
    assert main(["uniqueness", path, "--m", "3", "--method", "mcmc", "--epsilon", "0.05", "--delta", "0.05",
                 "--seed", "1", "--json", str(out), "--quiet"]) == 0
    doc = json.loads(out.read_text())
    assert doc["method"] == ["mcmc"] * 3 and all(738 <= s <= 8 * 738 for s in doc["samples"])
    assert all(lo <= u <= hi for lo, u, hi in zip(doc["ci_low"], doc["uniqueness"], doc["ci_high"]))
    assert main(["uniqueness", path, "--m", "2", "--person", "--json", str(out), "--quiet"]) == 0
    assert json.loads(out.read_text())["kind"] == "person"


def test_uniqueness_user_errors(data_dir, tmp_path, capsys):
    path = str(data_dir / "uniqueness" / "baskets.dat")
    assert main(["uniqueness", path, "--m", "3-1"]) == 2
    assert main(["uniqueness", str(tmp_path / "missing.dat")]) == 2
    assert main(["uniqueness", path, "--epsilon", "0", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 3


def test_attack_prints_trace(data_dir, tmp_path, capsys):
    out = tmp_path / "a.json"
    path = str(data_dir / "uniqueness" / "baskets.dat")
    assert main(["attack", path, "--random", "--min-items", "6", "--order", "rarest", "--seed", "2",
                 "--json", str(out)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("target: record") and "reveal" in lines[1]
    doc = json.loads(out.read_text())
    assert len(doc["matches"]) == len(lines) - 2
    assert doc["singled_out"] == (doc["matches"][-1] == 1)
    assert main(["attack", path, "--person", "99999"]) == 2
