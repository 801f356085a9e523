"""Every discovered method family keeps the contract: a new family gets these tests for free.

Each family's ``SPEC.example()`` gives a tiny dataset and quick params; on it
the pipeline must finish with its promise checked, write strict JSON that
reproduces the run, return a partial result when cancelled, and give the same
JSON for the same seed. Its CLI command must show the dataclass defaults.
"""
from __future__ import annotations

import dataclasses
import json
import re

import pytest

from anonstudio.jobs import RecordingProgress
from anonstudio.methods.contract import MethodRun, NoRelease, discover_methods, run_and_verify
from anonstudio.params import from_dict, specs, to_dict
from anonstudio.studio.command_line import param_arguments

SPECS = discover_methods()
NAMES = sorted(SPECS)

#: Keys whose values are wall-clock measurements, not results.
TIMING = re.compile(r"seconds|_per_second|started|elapsed")


def _strip_timing(doc):
    if isinstance(doc, dict):
        return {k: _strip_timing(v) for k, v in doc.items() if not TIMING.search(k)}
    if isinstance(doc, list):
        return [_strip_timing(v) for v in doc]
    return doc


@pytest.fixture(scope="module", params=NAMES)
def finished(request) -> tuple:
    spec = SPECS[request.param]
    data, params = spec.example()
    return spec, data, params, run_and_verify(spec, data, params)


def test_the_core_families_are_discovered():
    assert {"uniqueness", "kmanon", "group-anonymize", "threat"} <= set(SPECS)
    for spec in SPECS.values():
        assert spec.title and spec.summary and spec.reference and spec.data_kinds
        assert re.fullmatch(r"[a-z][a-z0-9-]*", spec.name)


def test_a_run_finishes_with_its_promise_checked(finished):
    spec, data, params, run = finished
    assert isinstance(run, MethodRun) and run.complete and run.status == "done"
    if spec.guarantee:
        assert run.verification is not None and run.verification.passed and run.verification.lines()
    summary = run.summary()
    assert summary and all(isinstance(v, (int, float)) for v in summary.values())
    description = spec.describe(run)
    assert description.promise and description.state == "ok"
    assert spec.report_lines(run)


def test_a_release_is_written_for_the_evaluator_and_read_back(finished, tmp_path):
    """A family declaring a ``release_kind`` writes a release the independent evaluator reads (Compare methods and
    ``sweep --method A --method B`` measure it); a measurement family declares none and refuses."""
    from anonstudio.evaluate import KINDS, read_release

    spec, data, _params, run = finished
    if not spec.release_kind:
        with pytest.raises(NoRelease):
            spec.write_for_evaluation(run, tmp_path)
        return
    assert spec.release_kind in KINDS
    release, side = spec.write_for_evaluation(run, tmp_path)
    assert release.is_file() and release.parent == tmp_path
    people, published = read_release(data, release, spec.release_kind, side)
    assert people is not None and published is not None


def test_json_is_strict_and_reproduces_the_run(finished):
    spec, data, params, run = finished
    text = json.dumps(run.to_json(), allow_nan=False)
    doc = json.loads(text)
    assert doc["complete"] is True and doc["status"] == "done"
    meta = doc["run"]
    assert meta["method"] == spec.name and meta["anonstudio"]
    assert meta["input"]["name"] == data.name
    assert from_dict(spec.params, meta["params"]) == params
    assert "seed" not in to_dict(params) or meta["params"]["seed"] == params.seed


def test_cancel_returns_a_partial_result_marked_incomplete(finished):
    spec, data, params, _ = finished
    progress = RecordingProgress()
    progress.cancel()
    run = run_and_verify(spec, data, params, progress)
    assert not run.complete and run.status == "cancelled" and run.exit_code == 130
    json.dumps(run.to_json(), allow_nan=False)
    assert run.verification is None
    assert not run.guarantee_met


def test_same_seed_same_json(finished):
    spec, data, params, run = finished
    again = run_and_verify(spec, data, params)
    assert _strip_timing(again.to_json()) == _strip_timing(run.to_json())


@pytest.mark.parametrize("name", NAMES)
def test_cli_help_shows_the_dataclass_defaults(name, capsys):
    from anonstudio.cli import main

    spec = SPECS[name]
    with pytest.raises(SystemExit):
        main([name, "--help"])
    text = " ".join(capsys.readouterr().out.split()).replace("- ", "-")  # argparse wraps at hyphens
    for param_spec in specs(spec.params):
        assert param_spec.cli_flag in text
        from anonstudio.cli.method_command import _default_text

        assert f"(default: {_default_text(param_spec)})" in text, param_spec.name
    for export in spec.exports:
        assert export.flag in text


@pytest.mark.parametrize("name", NAMES)
def test_cli_takes_no_abbreviated_flags(name, capsys):
    """A shortened flag is an error, not a guess: '--max-m' once meant '--max-memory' without a word."""
    from anonstudio.cli import main

    spec = SPECS[name]
    flag = max((p.cli_flag for p in specs(spec.params) if p.kind != "bool"), key=len)
    with pytest.raises(SystemExit) as exc:
        main([name, "dataset", flag[:-1], "1"])
    assert exc.value.code == 2 and "unrecognized arguments" in capsys.readouterr().err


#: Families whose example settings take minutes on the 5,000-person small city (ρ with m = 3, personalized+:
#: about 2 CPU-minutes): the same command on the 6-person worked example checks the same thing in a second.
SMALL_SAMPLE = {"rho": "sports-example"}


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_cli_runs_on_a_bundled_sample_and_its_json_reproduces_the_run(name, tmp_path):
    from anonstudio.cli import main

    spec = SPECS[name]
    _, params = spec.example()
    sample, settings = spec.samples[0]
    fields = {f.name for f in dataclasses.fields(params)}
    params = dataclasses.replace(params, **{k: v for k, v in settings.items() if k in fields})
    out = tmp_path / "run.json"
    assert main([name, sample, *param_arguments(spec, params), "--json", str(out), "--quiet"]) == 0
    doc = json.loads(out.read_text())
    assert doc["status"] == "done" and doc["run"]["input"]["name"] == sample
    assert from_dict(spec.params, doc["run"]["params"]) == params
