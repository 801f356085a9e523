"""Fixtures of the report tests: every family's run on a saved project's files, its plots, its two reports."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("html5lib")

from anonstudio.methods.contract import run_and_verify
from anonstudio.studio.project import Project
from tests.report.report_helpers import METHODS, make_project


@dataclass
class ProjectRuns:
    """A saved project with one step per family, and each step's finished run (on the project's own datasets)."""

    path: Path
    runs: dict


@pytest.fixture(scope="session")
def project_runs(tmp_path_factory) -> ProjectRuns:
    path = make_project(tmp_path_factory.mktemp("report-project"))
    project = Project.load(path)
    runs = {}
    for step in project.steps:
        runs[step.method] = run_and_verify(step.spec, project.open_dataset(step.dataset), step.params)
    return ProjectRuns(path, runs)


@pytest.fixture(scope="session")
def report_settings(tmp_path_factory):
    """Offscreen workbenches write no settings of the user's."""
    from anonstudio.gui.settings import SETTINGS_ENV

    old = os.environ.get(SETTINGS_ENV)
    os.environ[SETTINGS_ENV] = str(tmp_path_factory.mktemp("settings"))
    yield
    if old is None:
        os.environ.pop(SETTINGS_ENV, None)
    else:
        os.environ[SETTINGS_ENV] = old


@pytest.fixture(scope="session")
def figures(qapp, project_runs, report_settings):
    """``(figures, notes)`` per method: the studio's plots of each run, drawn offscreen once."""
    from anonstudio.gui.report_render import render_figures

    runs = [project_runs.runs[m] for m in METHODS]
    figs, notes = render_figures(runs)
    return dict(zip(METHODS, figs)), dict(zip(METHODS, notes))


@pytest.fixture(scope="session")
def reports(project_runs, figures):
    """The external and the internal report of every family's run, with plots."""
    from anonstudio.studio.report import build_report

    runs = [project_runs.runs[m] for m in METHODS]
    figs, notes = figures
    out = {}
    for internal in (False, True):
        out[internal] = build_report(runs, [figs[m] for m in METHODS], internal=internal,
                                     figures_notes=[notes[m] for m in METHODS], project=project_runs.path)
    return out
