"""The PDF certificate: its pages, the flavour on every page, every output's SHA-256, readable text."""
from __future__ import annotations

import io

import pytest

from anonstudio.studio.report import EXTERNAL_LABEL, INTERNAL_LABEL, build_report

pypdf = pytest.importorskip("pypdf")

pytestmark = pytest.mark.gui


def _pages_text(data: bytes) -> list[str]:
    """Each page's text, white space runs read as one space (the extraction gives tabs between painted words)."""
    reader = pypdf.PdfReader(io.BytesIO(data))
    return [" ".join((page.extract_text() or "").split()) for page in reader.pages]


def _squeezed(text: str) -> str:
    """Text without white space: a hash the layout broke over two lines reads whole again."""
    return "".join(text.split())


@pytest.fixture(scope="module")
def certificates(reports):
    from anonstudio.gui.report_render import pdf_bytes

    return {internal: pdf_bytes(report) for internal, report in reports.items()}


@pytest.mark.parametrize("internal", [False, True])
def test_pages_follow_the_plan_and_carry_every_hash(certificates, reports, internal):
    data, plan = certificates[internal]
    assert data.startswith(b"%PDF-")
    texts = _pages_text(data)
    assert len(texts) == len(plan)
    report = reports[internal]
    # The cover, then each run from a new page of its own, in order.
    assert plan[0].part == "Cover" and plan[0].of == 1
    starts = [i for i, page in enumerate(plan) if page.index == 1]
    assert len(starts) == 1 + len(report.runs)
    label = INTERNAL_LABEL if internal else EXTERNAL_LABEL
    for number, text in enumerate(texts, start=1):
        assert label in text, number
        assert f"page {number} of {len(texts)}" in text
    for i, entry in enumerate(report.runs):
        first = starts[i + 1]
        pages = "".join(texts[first:first + plan[first].of])
        assert _squeezed(entry.run.spec.title) in _squeezed(texts[first])
        squeezed = _squeezed(pages)
        hashes = [o.sha256 for o in entry.outputs if o.sha256]
        assert hashes and all(h in squeezed for h in hashes), entry.run.spec.name
        assert entry.run.dataset.sha256 in squeezed
        for o in entry.outputs:
            if o.sha256 is None:
                assert _squeezed(o.note)[:40] in squeezed


def test_a_short_run_fits_on_one_page(project_runs, qapp):
    """Cover plus one page: a run whose content fits is not spread over two."""
    from anonstudio.gui.report_render import pdf_bytes

    data, plan = pdf_bytes(build_report([project_runs.runs["uniqueness"]]))
    assert len(_pages_text(data)) == 2 == len(plan)


def test_a_cancelled_certificate_is_not_written(project_runs, qapp, tmp_path):
    from anonstudio.gui.report_render import write_pdf
    from anonstudio.jobs import RecordingProgress

    report = build_report([project_runs.runs["uniqueness"], project_runs.runs["kmanon"]])
    path = tmp_path / "cert.pdf"
    assert write_pdf(report, path, RecordingProgress(cancel_after_sets=1)) is None
    assert not path.exists()
    assert write_pdf(report, path) is not None and path.read_bytes().startswith(b"%PDF-")


def test_a_not_met_run_reads_not_met_in_the_certificate(project_runs, qapp):
    from anonstudio.gui.report_render import pdf_bytes
    from tests.report.report_helpers import not_met

    data, plan = pdf_bytes(build_report([not_met(project_runs.runs["nonreciprocal"])]))
    texts = _pages_text(data)
    cover, run_pages = texts[0], " ".join(texts[1:])
    assert "Independent check FAILED" in cover
    assert "Independent check FAILED" in run_pages and "no release: guarantee not met" in run_pages
    assert "Independent check passed" not in run_pages
