"""The report as HTML: one self-contained page (inline CSS, images as ``data:`` URIs), or its parts for the PDF.

:func:`html_parts` gives the style sheet, the cover and one block per run;
:func:`render_html` joins them into the page a browser shows and prints
(``@page`` margin boxes carry the flavour on every printed page). With
``qt=True`` the parts are the variant Qt's rich text draws, which
:mod:`anonstudio.gui.report_render` lays out on the PDF's pages.
"""
from __future__ import annotations

import base64
import html
import os
import re
import struct
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ... import __version__
from ...formatting import measure
from ...methods.contract import CHECK_PASSED, MethodRun, is_timing_key
from ...methods.contract import verdict as contract_verdict
from .model import INTERNAL_LABEL, Figure, Report, RunReport
from .wording import command_text, input_rows, measure_meaning, own_meanings, parameter_rows, verdict

__all__ = ["html_parts", "render_html", "reference_html", "data_uri", "png_size", "HTML_FIGURE_BOX"]


_ALLOWED_TAGS = re.compile(r"&lt;(/?)(i|b|em|strong|sup|sub|br)\s*/?&gt;", re.IGNORECASE)


def reference_html(text: str) -> str:
    """A spec's paper reference (plain text with ``<i>``, ``<sup>``...) with every other markup escaped."""
    return _ALLOWED_TAGS.sub(lambda m: f"<{m.group(1)}{m.group(2).lower()}>", html.escape(text, quote=False))


def data_uri(figure: Figure) -> str:
    return "data:image/png;base64," + base64.b64encode(figure.png).decode("ascii")


_CSS = """
body { font-family: "DejaVu Sans", "Segoe UI", Helvetica, Arial, sans-serif; font-size: 10pt; color: #111;
       background: #fff; margin: 0 auto; max-width: 60em; padding: 0 1.2em 2em 1.2em; line-height: 1.35; }
h1 { font-size: 17pt; margin: 0.4em 0 0.2em 0; }
h2 { font-size: 14pt; margin: 0.2em 0 0.3em 0; border-bottom: 2px solid #333; }
h3 { font-size: 11pt; margin: 0.9em 0 0.25em 0; color: #222; }
table { border-collapse: collapse; margin: 0.2em 0 0.4em 0; }
th, td { border: 1px solid #bbb; padding: 2px 6px; text-align: left; vertical-align: top; }
table.layout, td.layout { border: none; padding: 0 0.6em 0 0; }
th { background: #eee; font-weight: bold; }
td.num { text-align: right; white-space: nowrap; }
tr.section td { background: #f4f4f4; font-style: italic; }
tr.unused td { color: #777; }
.hash, code, pre { font-family: "DejaVu Sans Mono", Consolas, "Courier New", monospace; font-size: 8.5pt; }
.hash { word-break: break-all; }
pre { background: #f6f6f6; border: 1px solid #ccc; padding: 4px 6px; white-space: pre-wrap;
      word-break: break-all; margin: 0.2em 0; }
.banner { font-weight: bold; padding: 4px 8px; margin: 0.4em 0; border: 2px solid #555; }
.banner.internal { background: #b00020; color: #fff; border-color: #b00020; font-size: 12pt; }
.banner.external { background: #eef3f8; color: #123; }
.verdict { font-weight: bold; padding: 4px 8px; border: 2px solid; margin: 0.3em 0; }
.verdict.ok { color: #0b5d1e; border-color: #0b5d1e; background: #e8f5ec; }
.verdict.info { color: #123a6b; border-color: #123a6b; background: #eaf1fa; }
.verdict.warning { color: #7a4b00; border-color: #b36b00; background: #fff4e0; }
.verdict.failed, .verdict.incomplete { color: #fff; border-color: #b00020; background: #b00020; }
.word { font-size: 12pt; }
.muted { color: #555; }
.red { color: #b00020; font-weight: bold; }
figure { display: inline-block; margin: 0.3em 0.6em 0.6em 0; vertical-align: top; max-width: 100%; }
figure img { max-width: 100%; height: auto; border: 1px solid #ccc; }
figcaption { font-size: 8.5pt; color: #333; }
.run { margin-top: 1.2em; }
.banner.small { font-size: 9pt; padding: 2px 6px; }
@media print {
  body { max-width: none; padding: 0; }
  .run { page-break-before: always; break-before: page; }
  table, figure, pre, .verdict { page-break-inside: avoid; break-inside: avoid; }
  h2, h3 { page-break-after: avoid; break-after: avoid; }
  a { color: inherit; text-decoration: none; }
}
"""


#: The subset of :data:`_CSS` Qt's rich text understands (for the PDF).
_QT_CSS = """
h1 { font-size: 16pt; } h2 { font-size: 12.5pt; margin-bottom: 2px; }
h3 { font-size: 10pt; margin-top: 6px; margin-bottom: 1px; }
table { border-collapse: collapse; margin-bottom: 2px; }
th { background-color: #eeeeee; font-weight: bold; border: 1px solid #bbbbbb; padding: 1px; }
td { border: 1px solid #bbbbbb; padding: 1px; vertical-align: top; }
table.layout { border-style: none; }
td.layout { border-style: none; padding-right: 8px; }
td.num { text-align: right; }
tr.section td { background-color: #f4f4f4; }
tr.unused td { color: #777777; }
.hash, code, pre { font-family: "DejaVu Sans Mono", monospace; font-size: 7.5pt; }
pre { background-color: #f6f6f6; white-space: pre-wrap; }
.muted { color: #555555; }
.red { color: #b00020; font-weight: bold; }
p { margin-top: 1px; margin-bottom: 3px; }
ul { margin-top: 1px; margin-bottom: 3px; }
"""


def _page_css(report: Report) -> str:
    """Printed pages: the flavour label in the top margin of every page, page numbers at the bottom."""
    colour = "#b00020" if report.internal else "#333333"
    label = report.banner.replace("\\", "\\\\").replace('"', '\\"')
    return ("@page { margin: 16mm 12mm 14mm 12mm;\n"
            f'  @top-center {{ content: "{label}"; color: {colour}; font-weight: bold; font-size: 10pt;\n'
            '    font-family: "DejaVu Sans", "Segoe UI", Helvetica, Arial, sans-serif; }\n'
            '  @bottom-right { content: "page " counter(page) " of " counter(pages); font-size: 8pt; }\n}\n')


def _e(text: Any) -> str:
    return html.escape(str(text))


def _row(cells: Sequence[str], classes: Sequence[str] = ()) -> str:
    tds = []
    for i, cell in enumerate(cells):
        cls = classes[i] if i < len(classes) else ""
        tds.append(f'<td class="{cls}">{cell}</td>' if cls else f"<td>{cell}</td>")
    return "<tr>" + "".join(tds) + "</tr>"


def _table(head: Sequence[str] | None, rows: Iterable[Sequence[str]], classes: Sequence[str] = ()) -> str:
    """An HTML table; ``rows`` hold HTML already escaped; ``classes`` per column (``num``...)."""
    out = ["<table>"]
    if head:
        out.append("<tr>" + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr>")
    out.extend(_row(r, classes) for r in rows)
    out.append("</table>")
    return "".join(out)


def _measures_table(summary: dict, family: str, own: dict) -> str:
    """Measure, value and meaning; consecutive measures sharing a meaning (m = 1, 2, 3...) share one cell."""
    rows = []
    for key, value in summary.items():
        if is_timing_key(key):
            continue  # wall-clock time is stated once, beside the start time
        name, meaning = measure_meaning(key, family, own)
        text = _e(meaning) if meaning else '<span class="muted">(no glossary entry)</span>'
        if name and name.lower() != key.lower():
            text = f"<b>{_e(name)}</b>: {text}"
        rows.append([f"<code>{_e(key)}</code>", _e(measure(value)), text])
    if not rows:
        return '<p class="muted">No measures.</p>'
    out = ["<table><tr><th>Measure</th><th>Value</th><th>Meaning</th></tr>"]
    i = 0
    while i < len(rows):
        span = 1
        while i + span < len(rows) and rows[i + span][2] == rows[i][2]:
            span += 1
        for j in range(span):
            key, value, text = rows[i + j]
            meaning = (f'<td rowspan="{span}">{text}</td>' if span > 1 else f"<td>{text}</td>") if j == 0 else ""
            out.append(f'<tr><td>{key}</td><td class="num">{value}</td>{meaning}</tr>')
        i += span
    out.append("</table>")
    return "".join(out)


def _parameters_table(run: MethodRun) -> str:
    """Every parameter as label and value, two to a row, under its section's name."""
    groups: list[tuple[str, list[str]]] = []
    for section, label, value, used in parameter_rows(run):
        if not groups or groups[-1][0] != section:
            groups.append((section, []))
        note = "" if used else ' <span class="muted">(not used with these settings)</span>'
        cls = "" if used else ' class="unused"'
        groups[-1][1].append(f"<td{cls}>{_e(label)}</td><td{cls}>{_e(value)}{note}</td>")
    out = ["<table><tr><th>Parameter</th><th>Value</th><th>Parameter</th><th>Value</th></tr>"]
    for section, cells in groups:
        if section:
            out.append(f'<tr class="section"><td colspan="4"><i>{_e(section)}</i></td></tr>')
        for i in range(0, len(cells), 2):
            pair = cells[i:i + 2]
            filler = "" if len(pair) == 2 else '<td colspan="2"></td>'
            out.append("<tr>" + "".join(pair) + filler + "</tr>")
    out.append("</table>")
    return "".join(out)


def _side_by_side(left: str, right: str) -> str:
    """Two blocks next to each other (a layout table: Qt's rich text has no flex or float)."""
    return (f'<table class="layout" width="100%"><tr><td class="layout" width="50%">{left}</td>'
            f'<td class="layout" width="50%">{right}</td></tr></table>')


def _run_html(report: Report, index: int, entry: RunReport, image_src: Callable[[int, int, Figure], str],
              qt: bool, layout: tuple[float, int] | None) -> str:
    run = entry.run
    spec = run.spec
    word, state, sentence = verdict(run)
    d = spec.describe(run)
    own = own_meanings(run)
    out = [f'<div class="run" id="run-{index + 1}">']
    if not qt:  # the PDF paints the label on every page itself
        kind = "internal" if report.internal else "external"
        out.append(f'<div class="banner small {kind}">{_e(report.banner)}</div>')
    out.append(f"<h2>{index + 1}. {_e(spec.title)} on {_e(run.dataset.name)}</h2>")
    out.append(_verdict_block(word, state, sentence, qt))
    when = f"Run started {_e(run.started) or 'at an unknown time'}, took {run.seconds:,.1f} s"
    if run.cached:
        when += ("; read back from the result cache (computed earlier with the same anonstudio version, dataset "
                 "and parameters)")
    out.append(f'<p class="muted">{when}.</p>')

    rows = [(_e(k), f'<span class="hash">{_e(v)}</span>' if k == "SHA-256" else _e(v)) for k, v in input_rows(run)]
    left = "<h3>Input</h3>" + _table(None, rows)
    right = (f"<h3>Method</h3><p><b>{_e(spec.title)}</b> (<code>anonstudio-cli {_e(spec.name)}</code>): "
             f"{_e(spec.summary)}.</p>")
    if spec.reference:
        right += f"<p>Reference: {reference_html(spec.reference)}</p>"
    out.append(_side_by_side(left, right))

    out.append("<h3>Parameters</h3>")
    out.append(_parameters_table(run))

    out.append("<h3>Guarantee</h3>")
    if spec.guarantee:
        lead = {"not-met": '<span class="red">Intended promise, not met:</span> ',
                "cancelled": '<span class="red">So far (incomplete, not a guarantee):</span> ',
                "unverified": "Promise (not independently checked): "}.get(run.status, "Promise: ")
        out.append(f"<p>{lead}{_e(d.promise)}</p>")
    else:
        out.append(f"<p>This method measures; it makes no privacy promise. Finding: {_e(d.promise)}</p>")
    for note in d.notes:
        out.append(f'<p class="muted">{_e(note)}</p>')

    out.append("<h3>Independent check</h3>")
    out.append(_check_html(run, own))

    out.append("<h3>Utility and risk measures</h3>")
    summary = run.result.summary() if run.result is not None else {}
    if not run.complete and summary:
        out.append('<p class="red">Partial values: the run did not finish.</p>')
    out.append(_measures_table(summary, spec.name, own))

    out.append("<h3>Figures</h3>")
    if entry.figures:
        out.append(_figures_html(index, entry.figures, image_src, layout if qt else None))
    else:
        out.append(f'<p class="muted">{_e(entry.figures_note or "No figures.")}</p>')

    out.append("<h3>Output files</h3>")
    rows = []
    for o in entry.outputs:
        if o.sha256:
            value = f'<span class="hash">{_e(o.sha256)}</span>'
        else:  # a release held back, or a file that failed, is an alarm; a file this run cannot have is not
            value = f'<span class="{"red" if o.withheld else "muted"}">{_e(o.note)}</span>'
        rows.append((f"{_e(o.label)}<br><code>{_e(o.name)}</code>", _e(o.kind), value))
    out.append(_table(("File (as anonstudio-cli run names it)", "Kind", "SHA-256"), rows))
    if entry.withheld:
        out.append(f'<p class="muted">Left out of this external report (audit files can de-anonymize people): '
                   f'{_e(", ".join(entry.withheld))}.</p>')

    out.append("<h3>Reproduce</h3>")
    line, note = command_text(run)
    if line is not None:
        out.append(f"<p>This command repeats the run exactly (same seed, same result):</p><pre>{_e(line)}</pre>")
    else:
        out.append(f'<p class="red">{_e(note)}</p>')

    previews = [o for o in entry.outputs if o.preview]
    if previews:
        out.append(f'<h3 class="red">Preview of released and audit data ({_e(INTERNAL_LABEL)})</h3>')
        for o in previews:
            out.append(f"<p><b>{_e(o.label)}</b> (<code>{_e(o.name)}</code>), first {len(o.preview)} lines:</p>")
            out.append("<pre>" + _e("\n".join(o.preview)) + "</pre>")
    out.append("</div>")
    return "\n".join(out)


def _check_html(run: MethodRun, own: dict) -> str:
    """The independent check's verdict, its lines and its figures; red unless it passed."""
    v = run.verification
    if v is None:
        if not run.spec.guarantee:
            return '<p class="muted">Nothing to check: this method publishes no release.</p>'
        if run.status == "cancelled":
            return '<p class="red">Not run: the run stopped before its check.</p>'
        return '<p class="red">Not run: the promise is unchecked.</p>'
    # The contract's verdict line, the same words as the CLI and the studio; red unless it passed.
    word, _, _figures = contract_verdict(run).partition(": ")
    head = f"<b>{_e(word)}</b>" if word == CHECK_PASSED else f'<b class="red">{_e(word)}</b>'
    if v.passed and v.complete and not run.complete:
        head += '<span class="red">: the check passed on a partial result, which is not a guarantee</span>'
    out = [f"<p>{head} (separate code that shares nothing with the method).</p>"]
    lines = v.lines()
    if lines:
        out.append("<ul>" + "".join(f"<li>{_e(line)}</li>" for line in lines) + "</ul>")
    out.append(_measures_table(v.summary(), run.spec.name, own))
    return "".join(out)


def _verdict_block(word: str, state: str, sentence: str, qt: bool) -> str:
    if qt:  # Qt's rich text draws borders and backgrounds on table cells, not on divs
        colours = {"ok": ("#0b5d1e", "#e8f5ec"), "info": ("#123a6b", "#eaf1fa"), "warning": ("#7a4b00", "#fff4e0"),
                   "failed": ("#ffffff", "#b00020"), "incomplete": ("#ffffff", "#b00020")}[state]
        return (f'<table width="100%" cellpadding="4"><tr><td style="background-color:{colours[1]};'
                f'color:{colours[0]}; border: 2px solid {colours[0]};"><b>{_e(word)}</b> — {_e(sentence)}</td></tr>'
                "</table>")
    return f'<div class="verdict {state}"><span class="word">{_e(word)}</span> — {_e(sentence)}</div>'


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG from its header ((0, 0) when it is not a PNG)."""
    if len(data) < 24 or data[:8] != b"\x89PNG\r\n\x1a\n":
        return 0, 0
    return struct.unpack(">II", data[16:24])


def _fit(figure: Figure, width: float, height: float) -> tuple[int, int]:
    """The figure's size scaled to fit a ``width`` x ``height`` box, keeping its shape."""
    w, h = png_size(figure.png)
    if w <= 0 or h <= 0:
        return int(width), int(height)
    scale = min(width / w, height / h)
    return max(1, int(w * scale)), max(1, int(h * scale))


#: The box a figure is fitted into in the HTML page (CSS pixels).
HTML_FIGURE_BOX = (440, 380)


def _figures_html(index: int, figures: list[Figure], image_src: Callable[[int, int, Figure], str],
                  layout: tuple[float, int] | None) -> str:
    if layout is not None:  # a grid of fixed-size images: Qt's rich text has no inline-block or max-width
        width, per_row = layout
        box = (width - 12 * per_row) / per_row
        cells = []
        for j, fig in enumerate(figures):
            w, h = _fit(fig, box, box * 0.85)
            cells.append(f'<td width="{100 // per_row}%"><img src="{_e(image_src(index, j, fig))}" '
                         f'width="{w}" height="{h}"><br><small><b>{_e(fig.title)}</b>'
                         f'{": " + _e(fig.caption) if fig.caption else ""}</small></td>')
        rows = ["<tr>" + "".join(cells[i:i + per_row]) + "</tr>" for i in range(0, len(cells), per_row)]
        return '<table cellpadding="2" width="100%">' + "".join(rows) + "</table>"
    out = []
    for j, fig in enumerate(figures):
        w, h = _fit(fig, *HTML_FIGURE_BOX)
        out.append(f'<figure><img class="fig" src="{_e(image_src(index, j, fig))}" width="{w}" height="{h}" '
                   f'alt="{_e(fig.title)}"><figcaption style="max-width: {w}px"><b>{_e(fig.title)}</b>'
                   f"{': ' + _e(fig.caption) if fig.caption else ''}</figcaption></figure>")
    return "".join(out)


def _cover_html(report: Report, qt: bool) -> str:
    kind = "internal" if report.internal else "external"
    title = "anonstudio report" + (" (INTERNAL)" if report.internal else "")
    # The PDF paints the flavour at the top of every page itself.
    out = [] if qt else [f'<div class="banner {kind}">{_e(report.banner)}</div>']
    out.append(f"<h1>{_e(title)}</h1>")
    out.append(f"<p>Generated {_e(report.generated)} by anonstudio {_e(__version__)}.")
    if report.project:
        out.append(f' Project <code>{_e(report.project)}</code> (SHA-256 <span class="hash">'
                   f"{_e(report.project_sha256)}</span>); <code>anonstudio-cli run</code> on it reruns every step.")
    out.append("</p>")
    if report.internal:
        out.append('<p class="red">This internal report previews released records and audit files that can '
                   "de-anonymize people. Do not share it outside the team that holds the original data.</p>")
    else:
        out.append("<p>This external report holds no released records and no audit file: it may be shared with "
                   "auditors.</p>")
    out.append("<p>Each section below is one run: its input, method, parameters, promise, the verdict of an "
               "independent check written separately from the method, its measures with their meanings, its plots, "
               "the SHA-256 of its output files and the command that repeats it. A release is certified only where "
               "the verdict reads Independent check passed.</p>")
    rows = []
    for i, entry in enumerate(report.runs):
        word, state, _ = verdict(entry.run)
        cls = "red" if state in ("failed", "incomplete") else ""
        name = f"{i + 1}. {_e(entry.run.spec.title)}"
        link = name if qt else f'<a href="#run-{i + 1}">{name}</a>'
        rows.append((link, _e(entry.run.dataset.name), f'<span class="{cls}"><b>{_e(word)}</b></span>' if cls else
                     f"<b>{_e(word)}</b>"))
    out.append("<h3>Runs</h3>")
    out.append(_table(("Method", "Dataset", "Status"), rows) if rows else '<p class="muted">No runs.</p>')
    for note in report.notes:
        out.append(f'<p class="red">{_e(note)}</p>')
    out.append("<h3>Versions</h3>")
    out.append(_table(("Software", "Version"), [(_e(a), _e(b)) for a, b in report.versions]))
    return "\n".join(out)


def html_parts(report: Report, image_src: Callable[[int, int, Figure], str] | None = None, *, qt: bool = False,
               figure_layout: tuple[float, int] = (700.0, 2)) -> tuple[str, str, list[str]]:
    """``(style sheet, cover HTML, one HTML block per run)``: what the HTML file and the PDF pages are made of.

    ``image_src(run index, figure index, figure)`` gives each image's ``src``
    (default: a ``data:`` URI). ``qt=True`` writes the variant Qt's rich text
    draws (tables instead of boxes, no per-section banner: the PDF paints it
    on every page), with the figures in a grid of ``figure_layout`` = (text
    width in pixels, figures per row).
    """
    image_src = image_src or (lambda i, j, fig: data_uri(fig))
    css = _QT_CSS if qt else _CSS + _page_css(report)
    cover = _cover_html(report, qt)
    runs = [_run_html(report, i, e, image_src, qt, figure_layout) for i, e in enumerate(report.runs)]
    if not report.internal:  # what travels names files relative to the project, never where they are here
        swap = _local_paths(report)
        cover, runs = _relative(cover, swap), [_relative(r, swap) for r in runs]
    return css, cover, runs


def _local_paths(report: Report) -> dict[str, str]:
    """Every absolute path the report names (project, datasets, side files) -> the name an outside reader gets.

    Relative to the project's folder when there is a project (``data/city.dat``, ``../shared/h.csv``),
    else the file name alone.
    """
    base = os.path.dirname(report.project) if report.project else None
    paths = set()
    if report.project:
        paths.add(str(report.project))
    for entry in report.runs:
        run = entry.run
        if getattr(run.dataset, "path", None):
            paths.add(str(run.dataset.path))
        try:
            paths.update(str(p) for p in run.spec.input_files(run.params).values())
        except (AttributeError, TypeError, ValueError):
            pass
    swap = {}
    for path in paths:
        if not os.path.isabs(path):
            continue
        shown = os.path.relpath(path, base) if base else os.path.basename(path)
        swap[path] = shown
        folder = os.path.dirname(path)
        if base and folder != base:
            swap.setdefault(folder, os.path.relpath(folder, base))
    return swap


def _relative(text: str, swap: dict[str, str]) -> str:
    # Longest first, so a file's path is replaced before its folder's; raw and HTML-escaped spellings.
    for path in sorted(swap, key=len, reverse=True):
        text = text.replace(_e(path), _e(swap[path])).replace(path, swap[path])
    return text


def render_html(report: Report) -> str:
    """The report as one self-contained HTML page: inline CSS, images as ``data:`` URIs, no external reference."""
    css, cover, runs = html_parts(report)
    title = "anonstudio report — " + report.label
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta name=\"generator\" content=\"anonstudio {_e(__version__)}\">\n"
            f"<title>{_e(title)}</title>\n<style>{css}</style>\n</head>\n<body>\n"
            + cover + "\n" + "\n".join(runs) + "\n</body>\n</html>\n")
