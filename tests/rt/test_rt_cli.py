"""anonstudio-cli rt, generated from the family's spec: runs, infeasible bounds, hostile inputs, Ctrl-C."""
import json
import os
import signal
from pathlib import Path

import pytest

from anonstudio.cli import main
from anonstudio.methods.contract import CHECK_FAILED, CHECK_PASSED, get_method
from anonstudio.verifiers.rt import RTCheck, check_anon_csv

DATA = Path(__file__).resolve().parents[1] / "data" / "rt"
QI = ["--qi", "age,origin,gender", "--hierarchy", f"origin={DATA / 'origin_hierarchy.csv'}",
      "--hierarchy", f"gender={DATA / 'gender_hierarchy.csv'}", "--sensitive-items", str(DATA / "sensitive.txt"),
      "--k", "2", "--m", "2", "--item-fanout", "0", "--quiet"]


def _check(**kw):
    base = dict(qi=("age", "origin", "gender"), items_column="items", k=2, m=2, sensitive=["G", "H"],
                hierarchies={"origin": DATA / "origin_hierarchy.csv", "gender": DATA / "gender_hierarchy.csv"})
    base.update(kw)
    return RTCheck(**base)


def test_a_run_writes_the_table_and_the_json(tmp_path, capsys):
    from anonstudio.data.io.rt import load_rt_csv

    out, doc_path = tmp_path / "ANON.csv", tmp_path / "OUT.json"
    code = main(["rt", str(DATA / "example.csv"), *QI, "--delta", "0.8", "--merge", "t", "--out", str(out),
                 "--json", str(doc_path)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "matches at least 2 people" in printed and "Independent check passed" in printed
    doc = json.loads(doc_path.read_text())
    assert doc["status"] == "done" and doc["feasible"] is True and doc["verification"]["passed"]
    assert doc["rum"] == pytest.approx(13 / 17) and doc["merges"] == 1  # Fig. 2d
    for key in ("tum_trace", "are", "initial_rum", "initial_tum", "max_cluster_size", "seconds", "seed"):
        assert key in doc
    data = load_rt_csv(DATA / "example.csv", items_column="items")
    v = check_anon_csv(out, data, _check(claimed_rum=doc["rum"], claimed_tum=doc["tum"]))
    assert v.passed, v.lines()
    # Clusters are numbered from 1 (Fig. 2d: John, Steve, Mary and Zoe in the first one).
    assert [line.split(",")[0] for line in out.read_text().splitlines()[1:]] == ["1", "1", "2", "2", "1", "1"]


def test_the_first_sample_prints_the_verdict_in_the_contract_words(capsys):
    sample, settings = get_method("rt").samples[0]
    flags = {"qi": "--qi", "items_column": "--items-column", "k": "--k", "m": "--m", "delta": "--delta"}
    argv = ["rt", sample]
    for name, value in settings.items():
        argv += [flags[name], ",".join(value) if isinstance(value, tuple) else str(value)]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    verdict = next(line for line in lines if line.startswith("Independent check"))
    assert verdict.startswith(f"{CHECK_PASSED}: ") and "the promise holds for all" in verdict


def test_the_informs_layout_people_and_an_items_file(tmp_path, capsys):
    out, doc_path, hier = tmp_path / "ANON.csv", tmp_path / "OUT.json", tmp_path / "items.csv"
    argv = ["rt", str(DATA / "people.csv"), "--items-file", str(DATA / "conditions.csv"),
            "--person-column", "DUPERSID", "--items-column", "ICD9CODX", "--qi", "DOBYY,SEX,RACEX",
            "--categorical", "SEX,RACEX", "--k", "2", "--m", "1", "--delta", "1", "--item-fanout", "2",
            "--out", str(out), "--json", str(doc_path), "--hierarchy-out", str(hier), "--quiet"]
    # The file names a person the people file lacks (line 10): refused, not silently dropped.
    assert main(argv) == 2 and not out.exists()
    assert "conditions.csv, line 10: person '30009011' is not in people.csv" in capsys.readouterr().err
    known = tmp_path / "conditions.csv"
    known.write_text("".join(ln for ln in (DATA / "conditions.csv").read_text().splitlines(keepends=True)
                             if '"30009011"' not in ln))
    argv[3] = str(known)
    assert main(argv) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "cluster,DOBYY,SEX,RACEX,ICD9CODX" and len(lines) == 6  # 5 people with items
    assert "001;001..1,9;001..401;*" in hier.read_text().splitlines()


def test_an_infeasible_bound_exits_3_without_a_table(tmp_path, capsys):
    out, doc_path = tmp_path / "ANON.csv", tmp_path / "OUT.json"
    code = main(["rt", str(DATA / "example.csv"), *QI, "--delta", "0.1", "--out", str(out), "--json",
                 str(doc_path), "--allow-unverified"])
    assert code == 3 and not out.exists()
    doc = json.loads(doc_path.read_text())
    assert doc["feasible"] is False and doc["status"] == "not-met" and "Cluster's Rum" in doc["reason"]
    assert doc["rum"] == pytest.approx(55 / 153)
    printed = capsys.readouterr().out
    assert "Nothing published" in printed
    assert f"{CHECK_FAILED}: nothing is published, so there is no table to check" in printed.splitlines()


def _hostile(tmp_path):
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    (tmp_path / "ragged.csv").write_text("age,origin,gender,items\n19,France,Male,A\n22,Greece\n")
    (tmp_path / "bin.csv").write_bytes(b"age,items\n\x00\x01\x02\n")
    (tmp_path / "q.json").write_text('{"workloads": [')
    (tmp_path / "copy.csv").write_bytes((DATA / "example.csv").read_bytes())
    return tmp_path


@pytest.mark.parametrize("argv, message", [
    (["nope.csv"], "no such file"),
    (["fifo.csv"], "is not a regular file"),
    (["ragged.csv"], "ragged.csv, line 3: expected 4 fields"),
    (["bin.csv"], "binary file"),
    (["copy.csv", "--qi", "age,origin,gender,planet"], "no column 'planet'"),
    (["copy.csv", "--k", "7"], "larger than the 6 people"),
    (["copy.csv", "--l", "2", "--sensitive-items", "none"], "needs a sensitive-items file"),
    (["copy.csv", "--queries", "q.json"], "q.json, line 1: not valid JSON"),
    (["copy.csv", "--item-hierarchy", str(DATA / "gender_hierarchy.csv")], "item 'A' (record 6, column 'items') is "
                                                                           "not a value"),
    (["copy.csv", "--item-hierarchy", str(DATA / "icd9_small.txt")], "'1,9' is a value (line 6) and also a group"),
    (["copy.csv", "--out", "copy.csv"], "is an input of this run"),
])
def test_hostile_inputs_get_one_line_and_exit_2(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(_hostile(tmp_path))
    before = (tmp_path / "copy.csv").read_bytes()
    args = ["rt", argv[0], *QI, *argv[1:]]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1] and len(err[-1]) < 400
    assert (tmp_path / "copy.csv").read_bytes() == before  # the input is never modified


def test_ctrl_c_keeps_the_merges_done_and_writes_a_partial_json(tmp_path, capsys, monkeypatch):

    from anonstudio.cli.progress import TqdmProgress
    from tests.reference.rt_reference import random_rt

    data, _, rows, _ = random_rt(0, 120, empty=False)
    zone = tmp_path / "zone.csv"
    zone.write_text("\n".join(";".join(r) for r in rows) + "\n")
    table = tmp_path / "people.csv"
    frame = data.table.frame.assign(items=[";".join(data.transactions.record_labels(u))
                                          for u in range(data.transactions.n_records)])
    frame.to_csv(table, index=False)
    real_set = TqdmProgress.set
    seen = []

    def interrupt_in_merges(self, fraction, status=""):
        real_set(self, fraction, status)
        if "merging" in status:
            seen.append(status)
            if len(seen) == 3:
                os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C, delivered to the installed handler

    monkeypatch.setattr(TqdmProgress, "set", interrupt_in_merges)
    doc_path, out = tmp_path / "OUT.json", tmp_path / "ANON.csv"
    code = main(["rt", str(table), "--qi", "age,zone,sex", "--hierarchy", f"zone={zone}", "--k", "3",
                 "--delta", "0.95", "--merge", "r", "--json", str(doc_path), "--out", str(out), "--quiet"])
    assert code == 130 and not out.exists()
    doc = json.loads(doc_path.read_text())
    assert doc["complete"] is False and doc["status"] == "cancelled" and doc["merges"] == 3
    assert "press Ctrl-C again to abort" in capsys.readouterr().err
