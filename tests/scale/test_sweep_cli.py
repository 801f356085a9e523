"""``anonstudio-cli sweep``: the table, the files, and the exit status of every outcome."""
from __future__ import annotations

import csv
import json
import signal

import pytest

from anonstudio.cli import main
from anonstudio.methods.contract import run_and_verify
from anonstudio.methods.sweep import NOT_RUN
from tests.scale.scale_helpers import KMANON, city, ctrl_c_after_cells, quick

# The evaluator's columns are tested on smaller data below (they take seconds per cell on the city).
QUICK = ["--set", "sigma=0.9", "--set", "verify_samples=400", "--no-evaluate"]


def _rows(path):
    return list(csv.DictReader(open(path, encoding="utf-8")))


def test_a_sweep_writes_csv_json_and_a_table(tmp_path, capsys):
    out, doc_path = tmp_path / "sweep.csv", tmp_path / "sweep.json"
    code = main(["sweep", "kmanon", "small-city", "--grid", "k=5,10,20", "--grid", "m=1-2", "--seeds", "2",
                 *QUICK, "--out", str(out), "--json", str(doc_path), "--quiet"])
    assert code == 0
    rows = _rows(out)
    assert len(rows) == 12 and {r["status"] for r in rows} == {"done"}
    assert list(rows[0])[:4] == ["k", "m", "seed", "status"]
    # The cell k = 20, m = 2, seed 1 is the run of those parameters alone.
    alone = run_and_verify(KMANON, city(), quick(k=20, m=2, seed=1))
    row = next(r for r in rows if (r["k"], r["m"], r["seed"]) == ("20", "2", "1"))
    assert float(row["partitions"]) == alone.summary()["partitions"]
    assert float(row["error"]) == alone.summary()["error"]
    doc = json.loads(doc_path.read_text())
    assert doc["complete"] is True and doc["method"] == "kmanon" and doc["cells_done"] == 12
    assert doc["input"]["name"] == "small-city" and len(doc["input"]["sha256"]) == 64
    assert doc["base_params"]["sigma"] == 0.9 and doc["seeds"] == 2
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["k", "m", "seed", "status"] and "partitions" in lines[0]
    assert len(lines) == 13 and lines[-1].split()[:4] == ["20", "2", "2", "done"]


def test_jobs_give_the_same_file(tmp_path, monkeypatch):
    args = ["sweep", "kmanon", "small-city", "--grid", "k=5,10,20", *QUICK, "--quiet"]
    assert main(args + ["--out", str(tmp_path / "one.csv")]) == 0
    # An explicit --jobs runs here even when the environment names a cluster (one that is not there).
    monkeypatch.setenv("ANONSTUDIO_SCHEDULER", "tcp://127.0.0.1:9")
    assert main(args + ["--out", str(tmp_path / "two.csv"), "--jobs", "2"]) == 0
    assert (tmp_path / "one.csv").read_text() == (tmp_path / "two.csv").read_text()


@pytest.mark.parametrize("args, message", [
    (["kmanon", "small-city", "--grid", "kk=5"], "--grid kk: not a parameter of kmanon; valid: k, m, sigma"),
    (["kmanon", "small-city", "--grid", "k=5", "--set", "colour=red"], "--set colour: not a parameter of kmanon"),
    (["kmanon", "small-city", "--grid", "coords=a.csv"], "--grid coords: not a parameter of kmanon"),
    (["kmanonymous", "small-city", "--grid", "k=5"], "no method named 'kmanonymous'; valid: "),
    (["kmanon", "small-city", "--grid", "k=1,5"], "the cell k = 1 is not valid"),
    (["kmanon", "small-city", "--grid", "k=9000"], "the cell k = 9000 cannot run: k = 9,000 is larger than"),
    (["kmanon", "small-city", "--grid", "k=5", "--grid", "k=10"], "--grid k: given twice"),
    (["kmanon", "small-city", "--grid", "k"], "--grid 'k': write NAME=VALUE"),
    (["kmanon", "small-city", "--grid", "k=5", "--seeds", "0"], "--seeds 0: give at least 1"),
    (["kmanon", "small-city", "--grid", "k=5", "--jobs", "2", "--scheduler", "tcp://x:1"], "--jobs sets the cells"),
    (["kmanon", "no-such-file.dat", "--grid", "k=5"], "no-such-file.dat"),
    (["kmanon", "small-city", "--grid", "k=5", "--scheduler", "http://host:8786"],
     "'http://host:8786' is not a Dask scheduler address"),
])
def test_bad_input_exits_2_before_any_work(tmp_path, capsys, args, message):
    out = tmp_path / "sweep.csv"
    assert main(["sweep", *args, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()


def test_the_output_path_is_checked_before_the_data_is_read(tmp_path, capsys):
    assert main(["sweep", "kmanon", "no-such-file.dat", "--grid", "k=5", "--out",
                 str(tmp_path / "missing" / "s.csv")]) == 2
    assert "the folder" in capsys.readouterr().err
    assert main(["sweep", "kmanon", "small-city", "--grid", "k=5", "--out", str(tmp_path / "s.csv"),
                 "--json", str(tmp_path / "s.csv")]) == 2


def test_ctrl_c_writes_the_finished_cells_marked_incomplete(tmp_path, capsys, monkeypatch):
    ctrl_c_after_cells(monkeypatch, 2)
    before = signal.getsignal(signal.SIGINT)
    out, doc_path = tmp_path / "sweep.csv", tmp_path / "sweep.json"
    code = main(["sweep", "kmanon", "small-city", "--grid", "k=5,10,20,40", *QUICK, "--out", str(out),
                 "--json", str(doc_path), "--quiet"])
    assert code == 130 and signal.getsignal(signal.SIGINT) is before
    assert [r["status"] for r in _rows(out)] == ["done", "done", NOT_RUN, NOT_RUN]
    doc = json.loads(doc_path.read_text())
    assert doc["complete"] is False and doc["cells_done"] == 2
    captured = capsys.readouterr()
    assert "stopped after 2 of 4 cells" in captured.err
    assert len(captured.out.splitlines()) == 5 and NOT_RUN in captured.out


def test_a_cell_whose_guarantee_is_not_met_exits_3_and_is_named(tmp_path, capsys, monkeypatch):
    import anonstudio.verifiers.kmanon as kmanon_verifier

    real = kmanon_verifier.verify_km

    def strict_for_k10(data, labels, ks, m, **kw):
        # A planted fault: the check of the k = 10 cell demands far more people than the city has.
        return real(data, labels, [k * 1000 if k == 10 else k for k in ks], m, **kw)

    monkeypatch.setattr(kmanon_verifier, "verify_km", strict_for_k10)
    out = tmp_path / "sweep.csv"
    code = main(["sweep", "kmanon", "small-city", "--grid", "k=5,10,20", *QUICK, "--out", str(out), "--quiet"])
    assert code == 3
    assert [r["status"] for r in _rows(out)] == ["done", "not-met", "done"]
    err = capsys.readouterr().err
    assert "k = 10: not-met" in err and "not met in 1 of 3 cells" in err
