"""``anonstudio-cli rho`` end to end: outputs, hostile inputs (exit 2, one line), Ctrl-C (exit 130, partial JSON)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from anonstudio.cli import main
from anonstudio.methods.contract import CHECK_FAILED, CHECK_INCOMPLETE, CHECK_PASSED, without_timings
from anonstudio.outputs import shared_path


def _run(capsys, *argv):
    code = main(["rho", *map(str, argv), "--quiet"])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_writes_release_e_used_and_json(rho_data, tmp_path, capsys):
    out, e_used, doc, rules = (tmp_path / n for n in ("SUPPRESSED.dat", "E_USED.csv", "OUT.json", "rules.csv"))
    code, stdout, err = _run(capsys, rho_data / "example_b.dat", "--sensitive", rho_data / "example_b_E.csv",
                             "--rho", "0.5", "--out", out, "--sensitive-out", e_used, "--json", doc,
                             "--rules-out", rules)
    assert code == 0, err
    assert "Independent check passed" in stdout and "audit file" in err
    assert out.read_text().splitlines() == ["1", "2 9", "2 9", "2", "3 9", "9", "3"] or \
        out.read_text().splitlines() == ["1", "2 9", "2 9", "2", "9", "3 9", "3"]
    assert sorted(e_used.read_text().splitlines()) == sorted((rho_data / "example_b_E.csv").read_text().splitlines())
    run = json.loads(doc.read_text())
    assert run["status"] == "done" and run["verification"]["passed"] is True
    assert run["setting"] == "file" and run["suppressed_items"] == 2 and run["iterations"] == 2
    # The run's JSON travels: the file relative to the current folder (or its name), never its absolute path.
    assert run["run"]["params"]["sensitive"] == shared_path(rho_data / "example_b_E.csv")
    assert run["run"]["input_files"]["sensitive"]["sha256"]
    lines = rules.read_text().splitlines()
    assert lines[0].startswith("antecedent,consequent") and len(lines) == 3


def test_cli_sampled_run_records_sampler_and_sample_size(tmp_path, capsys):
    doc = tmp_path / "OUT.json"
    code, stdout, err = _run(capsys, "small-city", "--setting", "personalized+", "--sensitive-fraction", "0.05",
                             "--m", "2", "--epsilon", "0.1", "--delta", "0.1", "--sampler", "pair",
                             "--verify-samples", "2000", "--exhaustive-limit", "0", "--json", doc)
    assert code == 0, err
    run = json.loads(doc.read_text())
    assert run["sampler"] == "pair" and run["samples_per_level"] == 116 and run["epsilon"] == 0.1
    assert run["verification"]["passed"] and not run["verification"]["exhaustive"]
    assert "except for at most 0.1" in stdout


def test_the_first_sample_prints_the_verdict_line(capsys):
    """The spec's first bundled sample, as the contract tests run it: one verdict line in the contract's words."""
    code, stdout, err = _run(capsys, "sports-example", "--rho", "0.5", "--m", "2", "--setting", "fixed",
                             "--sensitive-fraction", "0.5")
    assert code == 0, err
    verdicts = [line for line in stdout.splitlines() if line.startswith((CHECK_PASSED, CHECK_FAILED,
                                                                         CHECK_INCOMPLETE))]
    assert len(verdicts) == 1 and verdicts[0].startswith(CHECK_PASSED + ": records: all 6 published records")


def test_a_sensitive_file_of_the_previous_release_still_works_with_a_notice(rho_data, tmp_path, capsys):
    """Header record,item and records from 0 (what E_USED.csv was): the same run, and one deprecation line."""
    old = tmp_path / "old_E.csv"
    old.write_text("record,item\n0,9\n1,1\n6,9\n")
    docs = []
    for name, path in (("new", rho_data / "example_b_E.csv"), ("old", old)):
        doc = tmp_path / f"{name}.json"
        code, stdout, err = _run(capsys, rho_data / "example_b.dat", "--sensitive", path, "--json", doc)
        assert code == 0, err
        notices = [line for line in stdout.splitlines() if "numbers records from 0" in line]
        assert len(notices) == (1 if name == "old" else 0)
        docs.append(json.loads(doc.read_text()))
    assert notices[0].startswith("Deprecated: old_E.csv numbers records from 0") and "person,item" in notices[0]
    new, former = docs
    assert without_timings(former["passes"]) == without_timings(new["passes"])
    assert former["suppressed_items"] == new["suppressed_items"] == 2


@pytest.mark.parametrize("args, message", [
    (["--rho", "1"], "--rho must be above 0 and below 1"),
    (["--rho", "half"], "--rho must be a decimal such as 0.5"),
    (["--epsilon", "0.05"], "ε and δ go together"),
    (["--epsilon", "0.05", "--delta", "0.05"], "needs m"),
    (["--m", "0"], "--m must be at least 1"),
    (["--setting", "everything"], "--setting must be one of"),
    (["--sensitive-fraction", "1.5"], "--sensitive-fraction must be at most 1"),
    (["--sensitive", "missing.csv"], "does not exist"),
    (["--sensitive", "BAD"], "bad_E.csv, line 3: person 8 does not exist (the data has 7 records, numbered 1 to 7)"),
    (["--sensitive", "OLD"], "old_E.csv, line 3: record 7 does not exist (the data has 7 records, numbered 0 to 6)"),
    (["--sensitive", "BAD2"], "three.csv, line 1: expected two fields"),
])
def test_cli_hostile_parameters_exit_2_with_one_line(rho_data, tmp_path, capsys, monkeypatch, args, message):
    (tmp_path / "bad_E.csv").write_text("person,item\n1,9\n8,1\n")
    (tmp_path / "old_E.csv").write_text("record,item\n0,9\n7,1\n")
    (tmp_path / "three.csv").write_text("0,9,1\n")
    monkeypatch.chdir(tmp_path)
    files = {"BAD": "bad_E.csv", "OLD": "old_E.csv", "BAD2": "three.csv"}
    args = [files.get(a, a) for a in args]
    out = tmp_path / "S.dat"
    code, stdout, err = _run(capsys, rho_data / "example_b.dat", *args, "--out", out)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize("content, message", [
    (b"1 2\n\x00\x01", "line 2: looks like a binary file"),
    (b"", "the file is empty"),
    (b"1 2\n3 x\n", "line 2: 'x' is not an integer item"),
])
def test_cli_hostile_datasets_exit_2(tmp_path, capsys, content, message):
    path = tmp_path / "in.dat"
    path.write_bytes(content)
    code, _, err = _run(capsys, path)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_cli_refuses_to_overwrite_its_inputs_and_too_big_exact_runs(rho_data, tmp_path, capsys):
    src = tmp_path / "in.dat"
    src.write_bytes((rho_data / "example_b.dat").read_bytes())
    before = src.read_bytes()
    code, _, err = _run(capsys, src, "--out", src)
    assert code == 2 and "is an input of this run" in err and src.read_bytes() == before
    long = tmp_path / "long.dat"
    long.write_text(" ".join(str(i) for i in range(40)) + "\n1 2\n")
    code, _, err = _run(capsys, long, "--max-adversaries", "1000")
    assert code == 2 and "set a smaller m" in err


@pytest.mark.slow
def test_ctrl_c_writes_the_partial_json_and_no_release(tmp_path):
    out, doc = tmp_path / "S.dat", tmp_path / "OUT.json"
    cmd = [sys.executable, "-m", "anonstudio.cli", "rho", "bms-webview-1", "--setting", "personalized+", "--m", "5",
           "--epsilon", "0.01", "--delta", "0.01", "--out", str(out), "--json", str(doc)]
    env = {**os.environ, "COLUMNS": "200"}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    seen = b""
    deadline = time.monotonic() + 240
    os.set_blocking(proc.stderr.fileno(), False)
    while b"pass 2" not in seen and time.monotonic() < deadline and proc.poll() is None:
        chunk = proc.stderr.read(4096)
        if chunk:
            seen += chunk
        else:
            time.sleep(0.05)
    assert b"pass 2" in seen, seen[-500:]
    proc.send_signal(signal.SIGINT)
    code = proc.wait(timeout=120)
    assert code == 130
    run = json.loads(doc.read_text())
    assert run["status"] == "cancelled" and run["complete"] is False and run["verification"] is None
    assert run["passes"][-1]["complete"] is False and run["suppressed_items"] > 0
    assert not out.exists()


def test_the_spec_imports_no_algorithm_kernel_or_verifier():
    """``anonstudio-cli --help`` builds every command from the specs: ours must not load the heavy modules."""
    import subprocess
    import sys

    code = ("import sys, anonstudio.methods.rho.spec\n"
            "print(sorted(m for m in sys.modules if m.startswith(('anonstudio.kernels.rho', "
            "'anonstudio.verifiers', 'anonstudio.methods.rho.algorithm', 'efficient_apriori'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
