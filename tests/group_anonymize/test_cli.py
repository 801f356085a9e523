"""``anonstudio-cli group-anonymize`` end to end."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from anonstudio.cli import main
from anonstudio.data.table import Role, Table
from anonstudio.methods.group_anonymize.published_csv import import_release
from anonstudio.verifiers.group_anonymize import verify_group_release
from tests.group_anonymize.helpers import ADULT_QI


@pytest.mark.parametrize("scheme", ["mondrian", "global", "anatomy"])
def test_cli_anonymizes_and_verifies(tmp_path, ga_data, capsys, scheme):
    out, summary = tmp_path / "anon.csv", tmp_path / "summary.json"
    code = main(["group-anonymize", str(ga_data / "adult_2000.csv"), "--scheme", scheme, "--k", "4", "--l", "4",
                 "--qi", ",".join(ADULT_QI), "--sensitive", "occupation", "--seed", "1", "--out", str(out),
                 "--json", str(summary)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "\nIndependent check passed: " in printed and "4-diverse: yes" in printed
    doc = json.loads(summary.read_text())
    assert doc["verification"]["ok"] and doc["rows"] == 2000 and doc["groups"] == doc["verification"]["n_groups"]
    assert doc["status"] == "done" and doc["run"]["params"]["qi"] == list(ADULT_QI)
    # The written CSV reads back against the cleartext and passes the verifier again.
    table = Table(pd.read_csv(ga_data / "adult_2000.csv"), {"occupation": Role.SENSITIVE})
    release = import_release(out, table, qi=ADULT_QI, sensitive="occupation")
    assert release.scheme == ("vertical" if scheme == "anatomy" else "horizontal")
    assert verify_group_release(table, release, k=4, l=4).ok
    # --scheme published verifies an existing file.
    assert main(["group-anonymize", str(ga_data / "adult_2000.csv"), "--scheme", "published", "--published",
                 str(out), "--k", "4", "--l", "4", "--qi", ",".join(ADULT_QI), "--sensitive", "occupation",
                 "--quiet"]) == 0


def test_cli_headerless_csv_with_columns_and_hierarchy(tmp_path, ga_data, capsys):
    frame = pd.read_csv(ga_data / "adult_2000.csv").head(300)
    raw = tmp_path / "adult.data"
    frame.to_csv(raw, header=False, index=False)
    code = main(["group-anonymize", str(raw), "--columns", ",".join(frame.columns), "--scheme", "global",
                 "--k", "5", "--qi", "age,education,sex", "--sensitive", "occupation",
                 "--hierarchy", f"education={ga_data / 'education_hierarchy.csv'}", "--max-suppression", "0.05",
                 "--json", str(tmp_path / "s.json")])
    assert code == 0
    assert "5-anonymous: yes" in capsys.readouterr().out
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["rows"] == 300 and doc["info"]["suppressed_rows"] <= 15


def test_cli_reports_published_table1(ga_data, capsys):
    code = main(["group-anonymize", str(ga_data / "table1a_original.csv"), "--scheme", "published", "--published",
                 str(ga_data / "table1b_local_recoding.csv"), "--id-column", "ID", "--k", "2", "--l", "2",
                 "--qi", "Nat,ZIP", "--sensitive", "Dis"])
    assert code == 0
    assert "8 rows in 4 groups" in capsys.readouterr().out


def test_cli_user_errors_exit_2(tmp_path, ga_data, capsys):
    base = ["group-anonymize", str(ga_data / "table1a_original.csv"), "--qi", "Nat,ZIP", "--sensitive", "Dis",
            "--quiet"]
    assert main([*base, "--k", "20"]) == 2
    assert "--k: k = 20 is larger than the 8 complete rows" in capsys.readouterr().err
    assert main([*base, "--k", "0"]) == 2
    assert "--k must be at least 1" in capsys.readouterr().err
    assert main([*base[:3], "Nat,Age", *base[4:]]) == 2
    assert "unknown column(s) Age" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text((ga_data / "table1b_local_recoding.csv").read_text().replace("2,3,Japan,5550*", "2,3,Japan,4550*"))
    assert main([*base, "--scheme", "published", "--published", str(bad), "--id-column", "ID"]) == 2
    assert "bad.csv, line 4: cleartext row 3 has ZIP" in capsys.readouterr().err
    assert main([*base, "--scheme", "global", "--hierarchy", "education"]) == 2
    assert "as COLUMN=FILE pairs" in capsys.readouterr().err
    assert main([*base, "--scheme", "anatomy", "--hierarchy", f"Nat={ga_data / 'education_hierarchy.csv'}"]) == 2
    assert "--hierarchy: Hierarchies are used by global recoding and Mondrian only" in capsys.readouterr().err
    assert main([*base, "--published", str(bad)]) == 2
    assert "only read with the scheme 'published'" in capsys.readouterr().err
    assert main(["group-anonymize", "no-such-file", "--qi", "a", "--sensitive", "b"]) == 2


def test_cli_on_the_first_sample_prints_the_contracts_verdict(capsys):
    from anonstudio.methods.contract import CHECK_PASSED
    from anonstudio.methods.group_anonymize.spec import SPEC

    sample = SPEC.samples[0][0]
    assert main(["group-anonymize", sample, "--k", "4", "--l", "2", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith(f"{CHECK_PASSED}: ") and "4-anonymous: yes" in lines[1]
    assert not any(word in line for line in lines for word in ("PASS", "FAIL", "verifier:"))


def test_a_cancelled_run_is_incomplete_not_passed():
    from anonstudio.jobs import NullProgress
    from anonstudio.methods.contract import CHECK_INCOMPLETE, run_and_verify
    from anonstudio.methods.group_anonymize.spec import SPEC

    class Cancelled(NullProgress):
        def cancelled(self):
            return True

    table, params = SPEC.example()
    run = run_and_verify(SPEC, table, params, Cancelled())
    # Mondrian keeps a valid but coarser release; nothing about it may read as passed.
    assert run.result.release is not None and not run.result.complete and run.status == "cancelled"
    lines = SPEC.report_lines(run)
    assert lines[1].startswith(f"{CHECK_INCOMPLETE}: ") and "cancelled" in lines[1]
    assert SPEC.describe(run).check == lines[1] and run.state == "incomplete"
