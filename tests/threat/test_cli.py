"""``anonstudio-cli threat`` end to end on the paper's Table I."""
import csv
import json

import pytest

from anonstudio.cli import main

DATA = "tests/data/threat/"
BASE = ["threat", "--original", DATA + "example1_original.csv", "--sensitive", "disease", "--id-column", "id",
        "--iterations", "30000", "--burn-in", "1000", "--thinning", "1", "--seed", "3", "--quiet"]


def test_horizontal_release_json_rows_and_victim(tmp_path, capsys):
    out, rows, dist = tmp_path / "out.json", tmp_path / "rows.csv", tmp_path / "dist.json"
    code = main(BASE[:-1] + ["--anonymized", DATA + "example1_anonymized.csv", "--domains",
                             DATA + "example1_domains.csv", "--json", str(out), "--rows-out", str(rows),
                             "--distributions-out", str(dist), "--victim-row", "1"])
    assert code == 0
    doc = json.loads(out.read_text())
    assert doc["complete"] is True and "rows" not in doc  # per-row posteriors only in the audit files
    assert doc["sensitive_values"] == ["Diabetes", "Flu", "HIV", "Heart", "Stomach"]
    assert set(doc["measures"]) >= {"GT_A", "GT_L", "GT_RW", "RGT_A", "RF", "ABS_A", "ABS_RW", "max_Ti"}
    doc = json.loads(dist.read_text())
    assert len(doc["rows"]) == 8 and [row["row"] for row in doc["rows"]] == list(range(1, 9))
    first = doc["rows"][0]
    heart = doc["sensitive_values"].index("Heart")
    assert first["s"] == "Heart"
    assert first["p_A"][heart] == pytest.approx(0.58, abs=0.02)
    assert first["p_RW"][heart] == pytest.approx(0.5, abs=1e-9)
    assert first["p_L"][heart] == pytest.approx(0.343, abs=0.02)
    printed = capsys.readouterr().out
    assert "victim: row 1," in printed and "GT_A" in printed
    assert printed.splitlines()[1].startswith("Independent check passed: ")
    with open(rows) as fh:
        lines = list(csv.DictReader(fh))
    assert [line["row"] for line in lines] == [str(i) for i in range(1, 9)]  # rows numbered from 1
    assert float(lines[0]["p_A(s)"]) == pytest.approx(first["p_A"][heart], abs=1e-5)
    assert float(lines[0]["p_RW(s)"]) == pytest.approx(0.5, abs=1e-9)
    assert lines[0]["group"] == lines[1]["group"]  # the victim and row 1 share a 2-anonymous group


def test_anatomy_release(tmp_path):
    out, dist = tmp_path / "out.json", tmp_path / "dist.json"
    assert main(BASE + ["--anonymized", DATA + "example1_anatomy.csv", "--json", str(out), "--distributions-out",
                        str(dist)]) == 0
    doc = json.loads(out.read_text())
    assert doc["scheme"] == "vertical"
    diagnostics = doc["diagnostics"]
    doc = json.loads(dist.read_text())
    heart = doc["sensitive_values"].index("Heart")
    flu = doc["sensitive_values"].index("Flu")
    # Lines were permuted within groups; --id-column restores the cleartext order.
    assert doc["rows"][0]["s"] == "Heart"
    assert doc["rows"][0]["p_RW"][heart] == pytest.approx(0.5) and doc["rows"][0]["p_RW"][flu] == pytest.approx(0.5)
    assert diagnostics["acceptance"][0] > 0


def test_bad_input_is_one_line_error(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("id,gid,nationality,zip,disease\n1,1,Japan,45501,Heart\n")
    code = main(BASE + ["--anonymized", str(bad)])
    assert code == 2
    assert "error" in capsys.readouterr().err


def test_burn_in_must_be_below_iterations(capsys):
    code = main(["threat", "--original", DATA + "example1_original.csv", "--anonymized",
                 DATA + "example1_anonymized.csv", "--sensitive", "disease", "--domains", DATA + "example1_domains.csv",
                 "--id-column", "id", "--iterations", "100", "--burn-in", "100", "--quiet"])
    assert code == 2
    assert "Burn-in" in capsys.readouterr().err


def test_incomplete_cleartext_rows_are_dropped(tmp_path, capsys):
    # Rows with a missing value are dropped before the published lines are aligned, as group-anonymize does;
    # the old --drop-incomplete flag still works and says it is always on.
    args = ["threat", DATA + "example1_original_missing.csv", "--scheme", "published", "--published",
            DATA + "example1_anonymized_noid.csv", "--sensitive", "disease", "--domains", DATA + "example1_domains.csv",
            "--iterations", "3000", "--burn-in", "500", "--quiet"]
    out = tmp_path / "out.json"
    assert main(args + ["--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["release"]["rows"] == 8 and doc["release"]["dropped_incomplete_rows"] == 1
    assert main(args + ["--drop-incomplete"]) == 0
    assert "--drop-incomplete is always on" in capsys.readouterr().err


def test_original_may_be_a_bundled_sample_name(monkeypatch, tmp_path, capsys):
    # Run where no file called "adult" exists; the sample must be found by name.
    monkeypatch.chdir(tmp_path)
    code = main(["threat", "--original", "adult", "--anonymized", "missing.csv", "--sensitive", "occupation"])
    assert code == 2
    err = capsys.readouterr().err
    assert "missing.csv" in err and "adult: no such file" not in err


def test_the_old_zero_based_victim_flag_still_works_with_a_notice(capsys):
    args = ["threat", DATA + "example1_original.csv", "--scheme", "published", "--published",
            DATA + "example1_anonymized.csv", "--domains", DATA + "example1_domains.csv", "--sensitive", "disease",
            "--id-column", "id", "--iterations", "400", "--burn-in", "100", "--quiet"]
    assert main(args + ["--victim", "2"]) == 0
    captured = capsys.readouterr()
    assert "victim: row 3," in captured.out  # ROW 2 from 0 is row 3 from 1
    assert "--victim ROW (rows from 0) is now --victim-row N" in captured.err
    assert main(args + ["--victim-row", "9"]) == 2
    assert "--victim-row 9 is outside the 8 rows analysed (1..8)" in capsys.readouterr().err


def test_cli_on_the_first_sample_prints_the_contracts_verdict(capsys):
    from anonstudio.methods.contract import CHECK_PASSED
    from anonstudio.methods.threat.spec import SPEC

    sample, quick = SPEC.samples[0]
    flags = [token for key, value in quick.items() for token in (f"--{key.replace('_', '-')}", str(value))]
    assert main(["threat", sample, *flags, "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith(f"{CHECK_PASSED}: ") and lines[2].startswith("Release: ")
    assert not any(word in line for line in lines for word in ("PASS", "FAIL"))
