"""``anonstudio-cli evaluate``: outputs, exit statuses, one-line errors, and an audit of an ARX-style table."""
from __future__ import annotations

import csv
import json

import numpy as np
import pandas as pd
import pytest

from anonstudio.cli import main
from anonstudio.data.datasets import open_dataset
from anonstudio.methods.contract import CHECK_FAILED, CHECK_PASSED
from tests.reference.evaluate_reference import Person, Record, fewest_candidates, risk_measures


@pytest.fixture
def tiny(tmp_path):
    """An original FIMI file, a suppressed release and the reference of both."""
    sets = [{1, 2}, {1, 2}, {1, 2, 3}, {2, 3}, {3}, {1, 2}, set(), {2, 3}]
    released = [{1, 2}, {1}, {1, 2, 3}, {2, 3}, {3}, {1, 2}, set(), {3}]
    (tmp_path / "orig.dat").write_text("".join(" ".join(map(str, sorted(s))) + "\n" for s in sets))
    (tmp_path / "rel.dat").write_text("".join(" ".join(map(str, sorted(s))) + "\n" for s in released))
    people = [Person(items=frozenset(map(str, s)), pool=frozenset(map(str, s))) for s in sets]
    records = [Record(items={str(x): 1.0 for x in s}) for s in released]
    return tmp_path, people, records


def _run(args, capsys):
    code = main(["evaluate", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_and_csv_hold_every_m_with_intervals(tiny, capsys):
    folder, people, records = tiny
    code, out, err = _run([folder / "orig.dat", "--release", folder / "rel.dat", "--m", 2, "--k", 2, "--queries", 20,
                           "--json", folder / "e.json", "--csv", folder / "e.csv", "--quiet"], capsys)
    assert code == 0, err
    doc = json.loads((folder / "e.json").read_text())
    assert doc["kind"] == "plain" and doc["original"]["people"] == 8 and doc["release"]["records"] == 8
    assert [level["m"] for level in doc["levels"]] == [1, 2]
    own = list(range(8))
    for level in doc["levels"]:
        pr, risk, _ = risk_measures(records, people, own, level["m"], 2, 0.5)
        assert level["prosecutor_risk"] == {"value": pytest.approx(pr), "low": pytest.approx(pr),
                                            "high": pytest.approx(pr), "exact": True, "interval": "exact"}
        assert level["share_at_risk"]["value"] == pytest.approx(risk)
        assert level["attribute_disclosure"] is None  # no sensitive information given
    assert doc["count_query_error"]["queries"] == 20 and doc["count_query_error"]["value"] >= 0
    assert 0 <= doc["frequency_distortion"]["value"] <= 1
    assert doc["claims"] == [] and doc["verdict"] is None and doc["complete"] is True
    assert len(doc["release"]["files"]["release"]["sha256"]) == 64
    rows = list(csv.reader((folder / "e.csv").open()))
    assert rows[0][:5] == ["m", "method", "known_sets", "samples", "prosecutor_risk"] and len(rows) == 3
    assert "prosecutor risk" in out and "count-query error" in out


def test_sampled_measures_say_so_and_carry_intervals(tiny, capsys):
    folder, people, records = tiny
    code, out, err = _run([folder / "orig.dat", "--release", folder / "rel.dat", "--m", 2, "--k", 2,
                           "--method", "sampled", "--epsilon", 0.05, "--json", folder / "e.json", "--quiet"], capsys)
    assert code == 0, err
    for level in json.loads((folder / "e.json").read_text())["levels"]:
        pr, risk, _ = risk_measures(records, people, list(range(8)), level["m"], 2, 0.5)
        p = level["prosecutor_risk"]
        assert level["method"] == "sampled" and p["exact"] is False and p["interval"] == "hoeffding"
        assert p["low"] <= pr <= p["high"] and p["high"] - p["low"] <= 0.1 + 1e-12
        assert level["share_at_risk"]["interval"] == "wilson"
        assert level["samples"] == 738  # ceil(ln(2/0.05) / (2 * 0.05^2))


def test_a_false_claim_exits_3_with_a_named_counterexample(tiny, capsys):
    folder, people, records = tiny
    fewest = fewest_candidates(records, people, list(range(8)), 2)
    code, out, err = _run([folder / "orig.dat", "--release", folder / "rel.dat", "--m", 2, "--k", 2,
                           "--claim", f"k={fewest},m=2", "--json", folder / "ok.json", "--quiet"], capsys)
    assert code == 0 and out.splitlines()[-1].startswith(CHECK_PASSED)
    code, out, err = _run([folder / "orig.dat", "--release", folder / "rel.dat", "--m", 2, "--k", 2,
                           "--claim", f"k={fewest + 1},m=2", "--json", folder / "bad.json", "--quiet"], capsys)
    assert code == 3
    assert out.splitlines()[-1].startswith(CHECK_FAILED)
    doc = json.loads((folder / "bad.json").read_text())
    example = doc["claims"][0]["counterexample"]
    assert doc["claims"][0]["status"] == "failed" and doc["verdict"].startswith(CHECK_FAILED)
    assert example["candidates"] == fewest and 1 <= example["person"] <= 8
    assert f"person {example['person']}," in out  # people are numbered from 1
    assert example["own_record"] == example["person"]


@pytest.mark.parametrize("args, message", [
    (["--claim", "k=5,m=3"], "m=3 is beyond --m 2"),
    (["--claim", "k=five"], "k must be a whole number"),
    (["--claim", "q=1"], "unknown key 'q'"),
    (["--claim", "k=2,rho=0.5"], "exactly one of k=, rho=, l="),
    (["--rho", "1.5"], "--rho must be in (0, 1]"),
    (["--seed", "-1"], "--seed must be in 0..2147483647"),
    (["--kind", "nonreciprocal"], "the header must be record,base,distance,threshold"),
    (["--kind", "table"], "a table release needs a table as the original"),
    (["--map", "missing.csv"], "missing.csv: no such file"),
])
def test_bad_arguments_and_files_exit_2_with_one_line(tiny, capsys, monkeypatch, args, message):
    folder, _, _ = tiny
    monkeypatch.chdir(folder)
    code, out, err = _run(["orig.dat", "--release", "rel.dat", "--m", 2, "--k", 2, "--json", "e.json", "--quiet",
                           *args], capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("anonstudio-cli evaluate: error: ") and message in err, err
    assert not (folder / "e.json").exists()


def test_the_json_may_not_overwrite_an_input(tiny, capsys):
    folder, _, _ = tiny
    code, _, err = _run([folder / "orig.dat", "--release", folder / "rel.dat", "--m", 1, "--k", 2,
                         "--json", folder / "rel.dat", "--quiet"], capsys)
    assert code == 2 and "rel.dat" in err
    assert (folder / "rel.dat").read_text().startswith("1 2\n")


# --------------------------------------------------------------------------------------- ARX-style table
QI = ["age", "workclass", "education", "marital-status", "race", "sex", "native-country", "income"]


def _arx_release(path, rng):
    """Adult as ARX would publish it: ages as [lo, hi[ decades and lo-hi, '*' for suppressed cells and rows."""
    adult = open_dataset("adult")
    frame = adult.frame
    out = frame.copy().astype(object)
    decade = (frame["age"] // 10 * 10).astype(int)
    spelled = np.where(rng.random(len(frame)) < 0.5, "[" + decade.astype(str) + ", " + (decade + 10).astype(str) + "[",
                       decade.astype(str) + "-" + (decade + 9).astype(str))
    out["age"] = spelled
    for column in ("workclass", "education", "marital-status", "race", "native-country", "income"):
        out[column] = "*"
    suppressed = rng.random(len(frame)) < 0.01
    for column in QI:
        out.loc[suppressed, column] = "*"
    out = out.where(pd.notna(out), "?")
    out.to_csv(path, index=False)
    return frame, decade.to_numpy(), suppressed


def test_an_arx_style_table_is_read_and_a_false_claim_exits_3(tmp_path, capsys):
    rng = np.random.default_rng(4)
    frame, decade, suppressed = _arx_release(tmp_path / "arx.csv", rng)
    # Candidates of a person: published rows of their decade and sex, and every suppressed row.
    sex = frame["sex"].to_numpy()
    key = pd.Series(list(zip(decade, sex)))
    size = key[~suppressed].value_counts()
    cands = key.map(size).fillna(0).to_numpy() + suppressed.sum()
    fewest = int(cands.min())
    code, out, err = _run(["adult", "--release", tmp_path / "arx.csv", "--m", 1, "--k", 5, "--claim",
                           f"k={fewest}", "--json", tmp_path / "ok.json", "--quiet"], capsys)
    assert code == 0, err
    doc = json.loads((tmp_path / "ok.json").read_text())
    assert doc["kind"] == "table" and doc["attacker"]["quasi_identifiers"] == QI
    level = doc["levels"][0]
    assert level["prosecutor_risk"]["value"] == pytest.approx(float(np.mean(1.0 / cands)))
    assert level["share_at_risk"]["value"] == pytest.approx(float(np.mean(cands < 5)))
    assert level["attribute_disclosure"] is not None  # occupation is the sensitive column
    code, out, err = _run(["adult", "--release", tmp_path / "arx.csv", "--m", 1, "--k", 5, "--claim",
                           f"k={fewest + 1}", "--json", tmp_path / "bad.json", "--quiet"], capsys)
    assert code == 3
    example = json.loads((tmp_path / "bad.json").read_text())["claims"][0]["counterexample"]
    u = example["person"] - 1
    assert example["candidates"] == fewest == cands[u]
    assert example["quasi_identifiers"]["age"] == str(frame["age"][u])
    assert "counterexample (k=" in out and out.splitlines()[-1].startswith(CHECK_FAILED)


class _CancelAfter:
    """A progress whose cancel flag rises once ``calls`` updates were reported (a Ctrl-C mid-run)."""

    def __init__(self, calls: int):
        self.calls = calls

    def set(self, fraction: float, status: str = "") -> None:
        self.calls -= 1

    def partial(self, result) -> None:
        pass

    def cancelled(self) -> bool:
        return self.calls <= 0


def test_a_cancelled_evaluation_keeps_what_it_finished(tiny):
    from anonstudio.data.io import load_transactions
    from anonstudio.evaluate import EvaluateOptions, SideFiles, evaluate, parse_claim

    folder, _, _ = tiny
    data = load_transactions(folder / "orig.dat")
    ev = evaluate(data, folder / "rel.dat", side=SideFiles(), progress=_CancelAfter(1),
                  options=EvaluateOptions(m=3, k=2, claims=(parse_claim("k=1,m=3"),)))
    assert not ev.complete and ev.exit_code == 130
    assert [level.m for level in ev.levels] == [1]
    assert ev.count_query_error is None
    assert ev.claims[0].status == "incomplete" and ev.verdict().startswith("Independent check incomplete")
    doc = ev.to_json()
    assert doc["complete"] is False and len(doc["levels"]) == 1
