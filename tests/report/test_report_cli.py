"""``anonstudio-cli report``: files written, the result cache used, output paths checked first, exit codes."""
from __future__ import annotations

import hashlib

import pytest

from anonstudio.cli import main
from anonstudio.studio.report import INTERNAL_LABEL
from tests.report.report_helpers import PlantedCheck, make_project, parse, text_of

STEPS = ["group-anonymize", "uniqueness"]


@pytest.fixture
def cache_folder(tmp_path, monkeypatch):
    from anonstudio.studio.cache import CACHE_ENV

    folder = tmp_path / "cache"
    monkeypatch.setenv(CACHE_ENV, str(folder))
    return folder


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "project", STEPS)


def _words(path) -> str:
    return " ".join(text_of(parse(path.read_text("utf-8"))).split())


@pytest.mark.gui
@pytest.mark.slow
def test_writes_the_report_and_the_certificate_then_reads_runs_from_the_cache(qapp, project, cache_folder, tmp_path,
                                                                            capsys):
    html, pdf = tmp_path / "report.html", tmp_path / "cert.pdf"
    assert main(["report", str(project), "--html", str(html), "--pdf", str(pdf), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "group-anonymize: done\n" in out and "uniqueness: done\n" in out
    assert f"certificate written to {pdf}" in out
    assert pdf.read_bytes().startswith(b"%PDF-")
    words = _words(html)
    assert "External report" in words and INTERNAL_LABEL not in words
    assert len(list(parse(html.read_text("utf-8")).iter("img"))) >= 2  # the Risk workbench's plots
    again = tmp_path / "again.html"
    assert main(["report", str(project), "--html", str(again), "--no-figures", "--internal", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.count("read from the result cache") == len(STEPS)
    words = _words(again)
    assert INTERNAL_LABEL in words and "read back from the result cache" in words
    assert "Plots left out of this report (--no-figures)." in words


def test_the_hashes_are_those_of_the_files_anonstudio_cli_run_writes(project, cache_folder, tmp_path, capsys):
    out = tmp_path / "outputs"
    assert main(["run", str(project), "--out", str(out), "--quiet"]) == 0
    html = tmp_path / "report.html"
    assert main(["report", str(project), "--html", str(html), "--no-figures", "--quiet"]) == 0
    words = _words(html)
    files = [p for p in out.rglob("*") if p.is_file() and p.name != "timings.json"]
    assert {p.parent.name for p in files} == set(STEPS)
    for path in files:
        assert path.name in words
        assert hashlib.sha256(path.read_bytes()).hexdigest() in words, path.name


@pytest.mark.parametrize("case", ["no file", "missing folder", "same file", "the dataset", "a folder"])
def test_output_paths_are_checked_before_any_work(project, cache_folder, tmp_path, capsys, case):
    html = tmp_path / "report.html"
    args = {
        "no file": [],
        "missing folder": ["--html", str(tmp_path / "nowhere" / "report.html")],
        "same file": ["--html", str(html), "--pdf", str(html)],
        "the dataset": ["--html", str(project.parent / "uniqueness.sets.csv")],
        "a folder": ["--html", str(html), "--pdf", str(tmp_path)],
    }[case]
    before = (project.parent / "uniqueness.sets.csv").read_bytes()
    assert main(["report", str(project), *args, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("anonstudio-cli report: error: ") and err.count("\n") == 1
    expected = {"no file": "--html", "missing folder": "does not exist", "same file": "same file",
                "the dataset": "input", "a folder": "is a folder"}[case]
    assert expected in err
    assert not html.exists()
    assert not cache_folder.exists() or not any(cache_folder.iterdir())  # nothing was computed
    assert (project.parent / "uniqueness.sets.csv").read_bytes() == before


def test_a_bad_project_is_one_line_and_exit_2(tmp_path, cache_folder, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("this is [not a project", "utf-8")
    assert main(["report", str(bad), "--html", str(tmp_path / "r.html")]) == 2
    assert "not a valid project file" in capsys.readouterr().err


def test_a_guarantee_not_met_exits_3_and_the_report_says_so(project, cache_folder, tmp_path, monkeypatch, capsys):
    from anonstudio.methods.contract import get_method

    spec = get_method("group-anonymize")
    monkeypatch.setattr(type(spec), "verify", lambda self, *args, **kwargs: PlantedCheck())
    html = tmp_path / "report.html"
    assert main(["report", str(project), "--html", str(html), "--no-figures", "--quiet"]) == 3
    assert "group-anonymize: not-met" in capsys.readouterr().out
    words = _words(html)
    assert "Independent check FAILED" in words and "no release: guarantee not met" in words and "planted fault" in words


def test_ctrl_c_during_a_step_exits_130_and_reports_what_ran(project, cache_folder, tmp_path, monkeypatch, capsys):
    from anonstudio.jobs import RecordingProgress
    from anonstudio.methods import contract

    real = contract.run_and_verify

    def interrupted(spec, data, params, progress=None, **kwargs):
        # As if Ctrl-C was pressed at once: the step stops at its first check and keeps what it has.
        return real(spec, data, params, RecordingProgress(cancel_after_sets=0), **kwargs)

    monkeypatch.setattr(contract, "run_and_verify", interrupted)
    html = tmp_path / "report.html"
    assert main(["report", str(project), "--html", str(html), "--no-figures", "--quiet"]) == 130
    assert "group-anonymize: cancelled" in capsys.readouterr().out
    words = _words(html)
    assert "Independent check incomplete" in words and "Not run (cancelled before they started): uniqueness." in words
    assert not cache_folder.exists() or not any(cache_folder.iterdir())  # a stopped run is never cached
