"""The audit family: the evaluator's figures through the contract, a false claim's counterexample, a cancel's partial
result, and the linkage attack replayed on a release (candidates are the evaluator's)."""
from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pytest

from anonstudio.cli import main
from anonstudio.data.datasets import open_dataset
from anonstudio.evaluate import EvaluateOptions, SideFiles, candidates_of, evaluate, parse_claim, read_release
from anonstudio.jobs import NullProgress
from anonstudio.methods.audit.params import AuditParams
from anonstudio.methods.contract import CHECK_FAILED, CHECK_INCOMPLETE, get_method, run_and_verify, verdict
from anonstudio.methods.uniqueness.linkage_attack import attack_release, linkage_attack
from anonstudio.params import ParameterError, validate

SETS = [{1, 2, 3}, {1, 2}, {1, 2, 3}, {2, 3}, {3, 4}, {1, 2, 4}, {4}, {2, 3, 4}, {1, 3}, {1, 2, 3, 4}]
#: A suppressed release: item 4 removed from everyone, so {.., 4} no longer singles anyone out.
RELEASED = [s - {4} for s in SETS]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "orig.dat").write_text("".join(" ".join(map(str, sorted(s))) + "\n" for s in SETS))
    (tmp_path / "rel.dat").write_text("".join(" ".join(map(str, sorted(s))) + "\n" for s in RELEASED))
    return tmp_path, open_dataset(tmp_path / "orig.dat")


SPEC = get_method("audit")


def test_an_audit_of_a_release_file_gives_the_evaluators_figures(files):
    folder, data = files
    params = AuditParams(release=folder / "rel.dat", m=2, k=3, queries=30)
    run = run_and_verify(SPEC, data, params)
    assert run.status == "done" and run.verification is None and verdict(run) == ""
    direct = evaluate(data, folder / "rel.dat", options=EvaluateOptions(m=2, k=3, queries=30))
    summary = run.summary()
    for level in direct.levels:
        assert summary[f"prosecutor_risk_m{level.m}"] == pytest.approx(level.prosecutor_risk.value)
        assert summary[f"share_at_risk_m{level.m}"] == pytest.approx(level.share_at_risk.value)
    assert summary["count_query_error"] == pytest.approx(direct.count_query_error["value"])
    doc = run.to_json()
    json.dumps(doc)
    assert doc["release"]["files"]["release"]["path"] == "rel.dat", "a run's JSON names files, not folders"


def test_the_original_is_its_own_release_when_no_file_is_named(files):
    _, data = files
    run = run_and_verify(SPEC, data, AuditParams(m=1, k=2, queries=10))
    # Every distinct single item held by one person singles them out: item 4 alone is held by 5 people, so nobody
    # at m = 1 is alone; the prosecutor risk is the mean over people of their mean 1/|candidates|.
    expected = np.mean([np.mean([1 / sum(x in t for t in SETS) for x in s]) for s in SETS])
    assert run.result.release_name.startswith("the original")
    assert run.summary()["prosecutor_risk_m1"] == pytest.approx(expected)


def test_a_false_claim_fails_with_a_counterexample_the_evaluator_confirms(files):
    folder, data = files
    params = AuditParams(release=folder / "rel.dat", m=2, k=2, queries=10, claim_k=5, claim_m=2)
    run = run_and_verify(SPEC, data, params)
    assert run.status == "not-met" and run.exit_code == 3
    assert verdict(run).startswith(CHECK_FAILED + ": ")
    example = run.result.counterexample
    person = example["person"]  # numbered from 1
    assert 1 <= person <= len(SETS)
    people, published = read_release(data, folder / "rel.dat", None, SideFiles())
    labels = people.atoms.item_labels
    known = sorted(labels.index(x) for x in example["known_items"])
    cands = candidates_of(people, published, person - 1, known)
    assert len(cands) == example["candidates"] < 5
    assert person - 1 in cands.tolist(), "the person's own record is a candidate"


def test_claim_rules_are_checked_once():
    with pytest.raises(ParameterError, match="claimed m"):
        validate(AuditParams(m=2, claim_k=5, claim_m=3))
    with pytest.raises(ParameterError, match="needs a claimed k"):
        validate(AuditParams(m=2, claim_m=1))
    assert AuditParams(claim_k=5, claim_m=2).claim_text == "k=5,m=2"
    assert parse_claim(AuditParams(claim_k=4).claim_text).k == 4


class _StopAfterFirstM(NullProgress):
    """Cancels once the first m is counted (the evaluator checks between m values and chunks)."""

    def __init__(self):
        self.seen_second = False

    def set(self, fraction, status=""):
        if "m=2:" in status:
            self.seen_second = True

    def cancelled(self):
        return self.seen_second


def test_a_cancel_keeps_the_m_values_finished(files):
    folder, data = files
    params = AuditParams(release=folder / "rel.dat", m=3, k=2, queries=10, claim_k=2)
    run = run_and_verify(SPEC, data, params, _StopAfterFirstM())
    assert run.status == "cancelled" and not run.result.complete
    ms = [level.m for level in run.result.levels]
    assert ms and ms[0] == 1 and 3 not in ms, ms
    assert "prosecutor_risk_m1" in run.summary()
    # No verdict claims more than was checked: the stopped claim reads incomplete.
    assert verdict(run) == "" and any(n.startswith(CHECK_INCOMPLETE + ": stopped") for n in SPEC.notes(run))


def test_the_attack_on_a_release_gives_the_evaluators_candidates(files):
    folder, data = files
    trace = linkage_attack(data, 9, order="rarest")  # record 10 holds every item
    after = attack_release(data, trace, folder / "rel.dat")
    people, published = read_release(data, folder / "rel.dat", None, SideFiles())
    labels = people.atoms.item_labels
    known = []
    for step, count, own in zip(trace.steps, after.matches, after.own):
        known.append(labels.index(step.label))
        cands = candidates_of(people, published, 9, sorted(known))
        assert count == len(cands) and own == (9 in cands.tolist())
    # Before: the original's matches; on the original as its own release the evaluator counts the same.
    same = attack_release(data, trace, folder / "orig.dat")
    assert list(same.matches) == [s.matches for s in trace.steps]
    assert trace.singled_out and not after.singled_out
    # Item 4, the rarest, is suppressed everywhere: no published record holds it, the victim's included.
    assert trace.steps[0].label == "4" and after.matches[0] == 0 and not after.own[0]


def test_the_cli_prints_both_attacks_side_by_side(files, capsys):
    folder, data = files
    code = main(["attack", str(folder / "orig.dat"), "--record", "10", "--order", "rarest", "--release",
                 str(folder / "rel.dat"), "--json", str(folder / "a.json")])
    out = capsys.readouterr().out
    assert code == 0
    trace = linkage_attack(data, 9, order="rarest")
    after = attack_release(data, trace, folder / "rel.dat")
    rows = [re.match(r"\s*\d+\. '.*?'\s+([\d,]+)\s+([\d,]+)", line) for line in out.splitlines()]
    rows = [row.groups() for row in rows if row]
    assert rows == [(f"{step.matches:,}", f"{count:,}") for step, count in zip(trace.steps, after.matches)]
    assert "own record not among them" in out and "the attack finds no one" in out
    doc = json.loads((folder / "a.json").read_text())
    assert doc["matches"] == [s.matches for s in trace.steps] and doc["release"]["matches"] == list(after.matches)


def test_side_files_without_a_release_are_refused(files, capsys):
    folder, _ = files
    code = main(["attack", str(folder / "orig.dat"), "--record", "1", "--map", str(folder / "rel.dat")])
    assert code == 2 and "--release" in capsys.readouterr().err


def test_the_spec_runs_a_measurement_without_a_claim():
    data, params = SPEC.example()
    run = run_and_verify(SPEC, data, dataclasses.replace(params, claim_k=1))
    assert run.status == "done" and run.verification is not None and run.verification.passed
