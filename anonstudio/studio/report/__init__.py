"""Reports an auditor can sign: one self-contained HTML file (and the content of the PDF certificate) per set of runs.

For each run a report states what was done and what was checked, never more:

* the input (name, kind, size, SHA-256, and every input file the parameters name);
* the method, its paper reference and every parameter by its label;
* the promise in plain words and the independent check's verdict, shown as
  the contract's words (Independent check passed / FAILED / incomplete), red when the run is not ``done``;
* the utility and risk measures, each with its one-line meaning from the
  glossary (:mod:`anonstudio.glossary`);
* the figures the caller rendered (the studio's own plots, see
  :mod:`anonstudio.gui.report_render`), embedded as ``data:`` URIs;
* the SHA-256 of every output file as ``anonstudio-cli run`` writes it, and the
  exact command line that repeats the run;
* the versions of anonstudio and its key libraries, and the date.

Two flavours. An **external** report (the default) never contains released
records or audit files (an export of kind ``"audit"``: a nonreciprocal graph or
assignment, the threat per-row posteriors); it names the audit files it leaves
out. An **internal** report (explicit opt-in) adds a short preview of each
release and audit file and says "INTERNAL — contains re-identifying data" at
the top of every printed page.

Qt-free, in three layers: :mod:`.model` builds the report from the runs (outputs
written and hashed, previews), :mod:`.wording` says it in plain language (verdicts,
measure meanings, parameter and input rows), :mod:`.html` renders the page. The CLI
builds the model here; the GUI layer renders the figures and the PDF from the same
HTML parts (:func:`html_parts`).
"""
from __future__ import annotations

from .html import HTML_FIGURE_BOX, data_uri, html_parts, png_size, reference_html, render_html
from .model import (
    EXTERNAL_LABEL,
    EXTERNAL_NOTE,
    INTERNAL_LABEL,
    KEY_LIBRARIES,
    NO_RELEASE,
    NOT_AVAILABLE,
    PREVIEW_LINES,
    PREVIEW_WIDTH,
    Figure,
    OutputFile,
    Report,
    RunReport,
    build_report,
    output_files,
    versions,
)
from .wording import command_text, input_rows, measure_meaning, measure_term, own_meanings, parameter_rows, verdict

__all__ = [
    "Figure",
    "OutputFile",
    "RunReport",
    "Report",
    "build_report",
    "output_files",
    "render_html",
    "html_parts",
    "verdict",
    "measure_meaning",
    "measure_term",
    "own_meanings",
    "parameter_rows",
    "input_rows",
    "command_text",
    "reference_html",
    "data_uri",
    "png_size",
    "versions",
    "INTERNAL_LABEL",
    "EXTERNAL_LABEL",
    "EXTERNAL_NOTE",
    "KEY_LIBRARIES",
    "PREVIEW_LINES",
    "PREVIEW_WIDTH",
    "NO_RELEASE",
    "NOT_AVAILABLE",
    "HTML_FIGURE_BOX",
]
