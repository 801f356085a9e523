"""The HTML report: parses as a browser reads it, self-contained, every section per run, external vs internal."""
from __future__ import annotations

import base64
import copy
import os
import re

import pytest

from anonstudio import __version__
from anonstudio.methods.contract import write_outputs
from anonstudio.params import specs
from anonstudio.studio.command_line import run_command_line
from anonstudio.studio.report import (
    INTERNAL_LABEL,
    KEY_LIBRARIES,
    NO_RELEASE,
    PREVIEW_WIDTH,
    build_report,
    measure_meaning,
    own_meanings,
    render_html,
)
from tests.report.report_helpers import METHODS, not_met, parse, section, text_of

pytestmark = pytest.mark.gui

SECTIONS = ("Input", "Method", "Parameters", "Guarantee", "Independent check", "Utility and risk measures",
            "Figures", "Output files", "Reproduce")
#: Attributes through which a page can load something.
LOADING = ("src", "href", "action", "data", "poster", "srcset", "background", "formaction", "cite", "manifest")


@pytest.fixture(scope="module")
def pages(reports):
    """``{internal: (html text, parsed tree)}``."""
    out = {}
    for internal, report in reports.items():
        text = render_html(report)
        out[internal] = (text, parse(text))
    return out


@pytest.mark.parametrize("internal", [False, True])
def test_the_page_parses_and_loads_nothing_from_outside(pages, internal):
    text, tree = pages[internal]
    images = list(tree.iter("img"))
    assert images, "the example runs have plots"
    for img in images:
        src = img.get("src")
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1]).startswith(b"\x89PNG\r\n\x1a\n")
    for element in tree.iter():
        assert element.tag not in ("link", "script", "iframe", "object", "embed", "base", "frame", "video",
                                   "audio", "source")
        for name in LOADING:
            value = element.get(name)
            if value is not None:
                assert value.startswith(("data:", "#")), (element.tag, name, value[:80])
    styles = " ".join(text_of(s) for s in tree.iter("style")) + " ".join(
        e.get("style", "") for e in tree.iter())
    assert "url(" not in styles and "@import" not in styles
    # Every in-page link leads somewhere on the page.
    ids = {e.get("id") for e in tree.iter() if e.get("id")}
    for a in tree.iter("a"):
        assert a.get("href")[1:] in ids


def test_every_section_is_there_for_every_family(pages, project_runs, reports):
    text, tree = pages[False]
    report = reports[False]
    for i, entry in enumerate(report.runs):
        run = entry.run
        part = section(tree, i)
        headings = [text_of(h).strip() for h in part.iter("h3")]
        assert headings[:len(SECTIONS)] == list(SECTIONS), run.spec.name
        words = " ".join(text_of(part).split())
        assert run.spec.title in words
        # The external report names the file relative to the project (the absolute path is local detail).
        base = os.path.dirname(report.project) if report.project else None
        shown = os.path.relpath(run.dataset.path, base) if base else os.path.basename(run.dataset.path)
        assert run.dataset.sha256 in words and shown in words and run.dataset.path not in words
        assert f"{run.dataset.size:,} bytes" in words
        for param_spec in specs(run.params):
            assert param_spec.label in words, (run.spec.name, param_spec.label)
        reference = " ".join(re.sub(r"<[^>]+>", "", run.spec.reference).split())
        assert reference in words
        assert " ".join(run_command_line(run).replace(run.dataset.path, shown).split()) in words
        hashes = [o.sha256 for o in entry.outputs if o.sha256]
        assert hashes and all(h in words for h in hashes)
        promise = " ".join(run.spec.describe(run).promise.split())
        assert promise in words
        if run.verification is not None:
            assert "Independent check passed" in words
            for line in run.verification.lines():
                assert " ".join(line.split()) in words
    cover = " ".join(text_of(tree).split())
    assert f"anonstudio {__version__}" in cover
    versions = dict(report.versions)
    for library in KEY_LIBRARIES:
        assert library in versions and versions[library] in cover
    assert report.generated in cover
    # The external cover names the project file alone; its absolute path is local detail.
    assert project_runs.path.name in cover and str(project_runs.path) not in cover


def test_the_plots_are_the_workbenches_plots(pages, reports, figures):
    _text, tree = pages[False]
    figs, notes = figures
    for i, entry in enumerate(reports[False].runs):
        name = entry.run.spec.name
        part = section(tree, i)
        images = list(part.iter("img"))
        assert len(images) == len(figs[name] or [])
        if images:
            titles = [text_of(f.find("figcaption/b")) for f in part.iter("figure")]
            assert titles == [f.title for f in figs[name]]
        else:
            assert notes[name] and notes[name] in text_of(part)
    # Families with a workbench have their plots; the others say why they have none.
    assert figs["uniqueness"] and figs["kmanon"] and figs["threat"]


def test_every_measure_has_its_meaning(pages, reports):
    _text, tree = pages[False]
    missing = []
    for i, entry in enumerate(reports[False].runs):
        name = entry.run.spec.name
        for table in section(tree, i).iter("table"):
            rows = table.findall("tbody/tr") or table.findall("tr")
            if not rows or [text_of(c) for c in rows[0]] != ["Measure", "Value", "Meaning"]:
                continue
            for row in rows[1:]:
                key = text_of(row[0]).strip()
                meaning = measure_meaning(key, name, own_meanings(entry.run))[1]
                if not meaning:
                    missing.append((name, key))
                if meaning and len(row) == 3:  # the first row of a group holds the shared meaning
                    assert meaning in text_of(row[2])
    assert not missing, missing


def _release_lines(run, tmp_path, export, count=3):
    """A few record lines of an export of ``run`` as the studio writes it (header left out; lines too short to be
    told apart from other text, such as an item map's "0,1", are not used)."""
    key = export.key
    path = tmp_path / f"{run.spec.name}-{key}{export.extensions[0]}"
    assert write_outputs(run, {key: path}) == []
    lines = path.read_text("utf-8").splitlines()[1:8]
    return [line.strip() for line in lines if len(line.strip()) >= 10][:count]


def test_the_external_report_has_no_released_records_and_no_audit_file(pages, project_runs, tmp_path):
    external = " ".join(text_of(pages[False][1]).split())
    internal = " ".join(text_of(pages[True][1]).split())
    assert INTERNAL_LABEL not in external
    checked = 0
    for name in METHODS:
        run = project_runs.runs[name]
        for export in run.spec.exports:
            if export.kind not in ("release", "audit") or not export.offered(run):
                continue
            for line in _release_lines(run, tmp_path, export):
                line = " ".join(line[:PREVIEW_WIDTH].split())  # a preview cuts long lines
                assert line not in external, (name, export.key, line)
                assert line in internal, (name, export.key, line)
                checked += 1
            if export.kind == "audit":
                assert export.label in external  # named as left out, nothing more
    assert checked >= 10


def test_the_internal_report_says_so_on_every_page(pages, reports):
    text, tree = pages[True]
    assert INTERNAL_LABEL in text_of(tree.find("head/title")) or "INTERNAL" in text_of(tree.find("head/title"))
    # The label heads the cover and every run section, and sits in every printed page's top margin.
    banners = [e for e in tree.iter("div") if "banner" in (e.get("class") or "")]
    assert len(banners) == 1 + len(reports[True].runs)
    assert all(text_of(b).strip() == INTERNAL_LABEL for b in banners)
    css = text_of(tree.find("head/style"))
    assert re.search(r"@top-center\s*{\s*content:\s*\"" + re.escape(INTERNAL_LABEL), css)
    external_text, external_tree = pages[False]
    external_banners = [text_of(e) for e in external_tree.iter("div") if "banner" in (e.get("class") or "")]
    assert external_banners and all(b.startswith("External report") for b in external_banners)


def test_a_run_whose_check_failed_is_shown_as_not_met(project_runs):
    run = not_met(project_runs.runs["group-anonymize"])
    report = build_report([run, project_runs.runs["kmanon"]])
    tree = parse(render_html(report))
    part = " ".join(text_of(section(tree, 0)).split())
    assert "Independent check FAILED" in part and "Do not publish this release" in part
    assert "Independent check passed" not in part
    assert "Independent check FAILED" in part and "planted fault" in part
    assert NO_RELEASE in part  # the release is not hashed: it would not be written
    release = next(o for o in report.runs[0].outputs if o.key == "release")
    assert release.sha256 is None
    cover_rows = [" ".join(text_of(r).split()) for r in tree.iter("tr")]
    assert any("Independent check FAILED" in r and run.spec.title in r for r in cover_rows)
    assert "Independent check passed" in " ".join(text_of(section(tree, 1)).split())


def test_a_stopped_run_is_shown_as_incomplete(project_runs):
    run = copy.copy(project_runs.runs["kmanon"])
    run.cancelled = True
    part = " ".join(text_of(section(parse(render_html(build_report([run]))), 0)).split())
    assert "Independent check incomplete" in part and "Nothing in this section is a guarantee" in part
    assert "Independent check passed" not in part  # a check of a partial result is no pass
    assert NO_RELEASE in part


def test_data_built_in_memory_is_said_plainly():
    from anonstudio.methods.contract import get_method, run_and_verify

    spec = get_method("uniqueness")
    data, params = spec.example()
    report = build_report([run_and_verify(spec, data, params)])
    part = " ".join(text_of(section(parse(render_html(report)), 0)).split())
    assert "built in memory, not read from a file" in part
    assert "No command line" in part
    assert "Plots" not in part or "No figures were rendered" in part


def test_parameters_read_as_the_panel_shows_them(project_runs):
    run = project_runs.runs["uniqueness"]
    part = " ".join(text_of(section(parse(render_html(build_report([run]))), 0)).split())
    measure = next(s for s in specs(run.params) if s.name == "measure")
    assert measure.choice_label(run.params.measure) in part  # the choice's label, not its code
