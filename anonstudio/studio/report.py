"""Reports an auditor can sign: one self-contained HTML file (and the content of the PDF certificate) per set of runs.

For each run a report states what was done and what was checked, never more:

* the input (name, kind, size, SHA-256, and every input file the parameters name);
* the method, its paper reference and every parameter by its label;
* the promise in plain words and the independent check's verdict, shown as
  NOT MET or INCOMPLETE in red when the run is not ``done``;
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

Qt-free: the CLI builds the model here; the GUI layer renders the figures and
the PDF from the same HTML parts (:func:`html_parts`).
"""
from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import html
import importlib.metadata
import math
import platform
import re
import struct
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from .. import __version__, glossary
from ..data.kinds import kind_words
from ..jobs import NullProgress, Progress, SubProgress
from ..methods.contract import MethodRun, is_timing_key, write_outputs
from ..params import ParamSpec, is_enabled, specs
from .command_line import NotReproducible, run_command_line

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
    "versions",
    "INTERNAL_LABEL",
    "EXTERNAL_LABEL",
    "KEY_LIBRARIES",
]

INTERNAL_LABEL = "INTERNAL — contains re-identifying data"
EXTERNAL_LABEL = "External"
EXTERNAL_NOTE = "no released records, no audit files"
#: Libraries whose versions a report names (distribution names; PySide6 may be installed as PySide6-Essentials).
KEY_LIBRARIES = ("numpy", "numba", "pandas", "scipy", "PySide6", "pyqtgraph")
#: Lines of each release or audit file an internal report previews.
PREVIEW_LINES = 8
#: Characters kept of one previewed line.
PREVIEW_WIDTH = 160
NO_RELEASE = "no release: guarantee not met"
NOT_AVAILABLE = "not available for this run"


# ------------------------------------------------------------------- model
@dataclass(frozen=True)
class Figure:
    """One plot of a run, as the caller rendered it."""

    title: str
    caption: str
    png: bytes


@dataclass(frozen=True)
class OutputFile:
    """One file a run writes, as ``anonstudio-cli run`` names it, with its SHA-256 (None: not written, see ``note``)."""

    key: str
    label: str
    kind: str
    name: str
    sha256: str | None = None
    size: int | None = None
    note: str = ""
    preview: tuple[str, ...] = ()

    @property
    def withheld(self) -> bool:
        """Not written although the run should have one: a release whose guarantee is not met, a failed write."""
        return self.sha256 is None and not self.note.startswith(NOT_AVAILABLE)


@dataclass
class RunReport:
    """One run and what the report shows beside it."""

    run: MethodRun
    figures: list[Figure] = field(default_factory=list)
    #: Why there are no figures ("" when there are some, or when nobody tried).
    figures_note: str = ""
    outputs: list[OutputFile] = field(default_factory=list)
    #: Labels of audit exports an external report leaves out.
    withheld: list[str] = field(default_factory=list)


@dataclass
class Report:
    """What one report file holds: its runs, flavour, date, versions and (optionally) the project it came from."""

    runs: list[RunReport]
    internal: bool = False
    generated: str = ""
    versions: list[tuple[str, str]] = field(default_factory=list)
    project: str | None = None
    project_sha256: str | None = None
    #: Lines about steps that have no section (not run after a cancel...).
    notes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return INTERNAL_LABEL if self.internal else EXTERNAL_LABEL

    @property
    def banner(self) -> str:
        """The flavour line at the top of every page."""
        return INTERNAL_LABEL if self.internal else f"{EXTERNAL_LABEL} report — {EXTERNAL_NOTE}"


def versions() -> list[tuple[str, str]]:
    """anonstudio, Python, the platform and :data:`KEY_LIBRARIES` with their installed versions."""
    out = [("anonstudio", __version__), ("Python", platform.python_version()), ("Platform", platform.platform())]
    for name in KEY_LIBRARIES:
        found = "not installed"
        for dist in (name, f"{name}-Essentials"):
            try:
                found = importlib.metadata.version(dist)
                break
            except importlib.metadata.PackageNotFoundError:
                continue
        out.append((name, found))
    return out


def build_report(runs: Sequence[MethodRun], figures: Sequence[Sequence[Figure] | None] | None = None, *,
                 internal: bool = False, figures_notes: Sequence[str] | None = None, project: Path | None = None,
                 notes: Sequence[str] = (), generated: _dt.datetime | None = None,
                 progress: Progress | None = None) -> Report:
    """The report of ``runs``: every output written to a temporary folder and hashed, previews when ``internal``.

    Parameters
    ----------
    runs
        Finished (or stopped) runs, in the order the report shows them.
    figures
        Per run, its figures (None: not rendered, e.g. a text-only report).
    figures_notes
        Per run, why it has no figures ("" for none).
    project
        The project file the runs come from (its path and SHA-256 go on the cover).
    progress
        Fraction done over the runs' outputs; a cancel stops between files and raises nothing: the
        remaining runs are left out and a note says so.
    """
    progress = progress or NullProgress()
    figures = list(figures) if figures is not None else [None] * len(runs)
    figures_notes = list(figures_notes) if figures_notes is not None else [""] * len(runs)
    when = generated or _dt.datetime.now().astimezone()
    report = Report([], internal=internal, generated=when.replace(microsecond=0).isoformat(), versions=versions(),
                    notes=list(notes))
    if project is not None:
        report.project = str(Path(project).absolute())
        report.project_sha256 = _sha256_file(Path(project))
    for i, run in enumerate(runs):
        if progress.cancelled():
            report.notes.append(f"{len(runs) - i} run(s) left out: the report was cancelled while it was made.")
            break
        sub = SubProgress(progress, i / max(len(runs), 1), (i + 1) / max(len(runs), 1))
        outputs, withheld = output_files(run, internal=internal, progress=sub)
        figs = figures[i]
        note = figures_notes[i] or ("" if figs else "No figures were rendered for this report.")
        report.runs.append(RunReport(run, list(figs or []), note, outputs, withheld))
    progress.set(1.0, "report ready")
    return report


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def output_files(run: MethodRun, *, internal: bool = False,
                 progress: Progress | None = None) -> tuple[list[OutputFile], list[str]]:
    """Every output of ``run`` written as ``anonstudio-cli run`` writes it (to a temporary folder) and hashed.

    Release files follow the same rule as everywhere: written only when the
    guarantee is met ("no release: guarantee not met" otherwise). Audit files
    are written only for an ``internal`` report; an external one returns their
    labels as the second value. The run's JSON is hashed without wall-clock
    fields, so the hash matches the file ``anonstudio-cli run`` writes.
    """
    progress = progress or NullProgress()
    spec = run.spec
    out: list[OutputFile] = []
    withheld: list[str] = []
    exports = [e for e in spec.exports if internal or e.kind != "audit"]
    withheld = [e.label for e in spec.exports if not internal and e.kind == "audit"]
    with tempfile.TemporaryDirectory(prefix="anonstudio-report-") as tmp:
        folder = Path(tmp)
        for i, export in enumerate(exports):
            if progress.cancelled():
                break
            progress.set(i / (len(exports) + 1), f"{spec.name}: {export.label.lower()}")
            name = f"{spec.name}-{export.key}{export.extensions[0]}"
            entry = dict(key=export.key, label=export.label, kind=export.kind, name=name)
            if not export.offered(run):
                out.append(OutputFile(**entry, note=NOT_AVAILABLE))
                continue
            if export.kind == "release" and not run.guarantee_met:
                why = {"cancelled": " (the run did not finish)", "unverified": " (not independently checked)"}
                out.append(OutputFile(**entry, note=NO_RELEASE + why.get(run.status, "")))
                continue
            path = folder / name
            try:
                skipped = write_outputs(run, {export.key: path}, allow_unverified=False)
            except (OSError, ValueError) as exc:  # an export that cannot be written is reported, not fatal
                out.append(OutputFile(**entry, note=f"could not be written: {exc}"))
                continue
            if skipped or not path.is_file():
                out.append(OutputFile(**entry, note=skipped[0] if skipped else "not written"))
                continue
            preview = _preview(path) if internal and export.kind in ("release", "audit") else ()
            out.append(OutputFile(**entry, sha256=_sha256_file(path), size=path.stat().st_size, preview=preview))
        json_path = folder / f"{spec.name}.json"
        write_outputs(run, {}, json_path, timings=False)
        out.append(OutputFile("json", "Run record (JSON)", "record", json_path.name, _sha256_file(json_path),
                              json_path.stat().st_size))
    progress.set(1.0, f"{spec.name}: outputs hashed")
    return out, withheld


def _preview(path: Path) -> tuple[str, ...]:
    """The first :data:`PREVIEW_LINES` lines of a text file (one line saying so for a binary file)."""
    with open(path, "rb") as fh:
        head = fh.read(64 * 1024)
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return (f"(binary file, {path.stat().st_size:,} bytes: not previewed)",)
    lines = text.splitlines()[:PREVIEW_LINES]
    return tuple(line if len(line) <= PREVIEW_WIDTH else line[:PREVIEW_WIDTH] + "…" for line in lines)


# --------------------------------------------------------------- wording
def verdict(run: MethodRun) -> tuple[str, str, str]:
    """``(word, state, sentence)``: the run's status as a report states it; never more than was checked.

    ``state`` is a CSS class: ``ok``, ``info``, ``failed``, ``incomplete`` or ``warning``.
    """
    status = run.status
    reason = run.status_reason()
    if status == "not-met":  # the reason reads "the independent check found the promise broken (...)"
        return ("NOT MET", "failed", f"{reason[:1].upper()}{reason[1:]}. Do not publish this release.")
    if status == "cancelled":
        return ("INCOMPLETE", "incomplete", f"Stopped early: {reason}. Nothing in this section is a guarantee.")
    if status == "unverified":
        return ("UNVERIFIED", "warning", "Complete, but the independent check was skipped: the promise is "
                                         "unchecked.")
    if run.spec.guarantee:
        return ("GUARANTEE MET", "ok", "Complete, and the independent check confirmed the promise.")
    return ("MEASURED", "info", "Complete. This method measures; it makes no privacy promise.")


_LEVEL_SUFFIX = re.compile(r"_(?:m|l|level)\d+$")


def _candidates(key: str) -> list[str]:
    out = [key]
    for variant in (_LEVEL_SUFFIX.sub("", key), key.removesuffix("_check"), key.removesuffix("s")):
        if variant and variant not in out:
            out.append(variant)
    return out


def measure_term(key: str, family: str) -> glossary.Term | None:
    """The glossary entry explaining the summary measure ``key`` of ``family`` (a spec name), or None.

    A key is looked up as it is, without a per-size suffix (``uniqueness_m2``,
    ``k_anonymous_share_l1``), without ``_check`` and without a plural ``s``;
    it matches an entry's key, name or ASCII spelling. Entries of the run's
    own family win over general ones; another family's entry never applies
    (``merges`` means different things in two families).
    """
    terms = list(glossary.TERMS.values())
    for candidate in _candidates(key):
        low = candidate.lower()
        found = [t for t in terms if low in (t.key.lower(), t.name.lower(), t.ascii.lower())
                 and t.family in (family, "")]
        if found:
            return min(found, key=lambda t: t.family != family)
    return None


def measure_meaning(key: str, family: str, own: dict | None = None) -> tuple[str, str]:
    """``(name, meaning)`` of a summary measure: the glossary's, else the run's own (``own``); ``("", "")`` if none.

    ``own`` is the ``measure_meanings`` mapping a result's JSON may carry (the
    threat family names its measures' meanings there); the glossary comes first.
    """
    term = measure_term(key, family)
    if term is not None:
        return term.name, term.meaning
    if own and isinstance(own.get(key), str):
        return "", own[key]
    return "", ""


def own_meanings(run: MethodRun) -> dict:
    """The ``measure_meanings`` a run's result names in its JSON ({} when it names none)."""
    if run.result is None:
        return {}
    meanings = run.result.to_json().get("measure_meanings")
    return dict(meanings) if isinstance(meanings, dict) else {}


def format_value(value: Any) -> str:
    """A measure for a table: whole numbers with separators, others to 6 significant digits, n/a for none."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if not math.isfinite(value):
            return "n/a"
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        return f"{value:.6g}"
    return str(value)


def _param_value(spec: ParamSpec, value: Any, inputs: dict[str, dict], labels: dict[str, str]) -> str:
    """A parameter's value as the studio's panel shows it (choice labels, yes/no, files with their SHA-256).

    ``labels`` maps field names to labels (a per-level vector left empty names the scalar it repeats).
    """
    if value is None:
        return spec.none_means or "not set"
    kind = spec.kind
    if kind in ("column", "columns", "column_paths") and not value:  # empty: the panel's "none" text
        return spec.none_means or "none"
    if kind == "bool":
        return "yes" if value else "no"
    if kind == "choice":
        return spec.choice_label(value)
    if kind == "path":
        sha = (inputs.get(spec.name) or {}).get("sha256")
        return f"{value} (SHA-256 {sha})" if sha else str(value)
    if kind == "columns":
        return ", ".join(map(str, value)) or "none"
    if kind == "levels":
        if not value and spec.per_level:
            scalar = spec.per_level[1]
            return f"the same {labels.get(scalar, scalar)} for every level"
        return ", ".join(format_value(v) for v in value)
    if kind == "column_paths":
        parts = []
        for column, path in value:
            sha = (inputs.get(f"{spec.name}[{column}]") or {}).get("sha256")
            parts.append(f"{column}: {path}" + (f" (SHA-256 {sha})" if sha else ""))
        return "; ".join(parts) or "none"
    return format_value(value)


def parameter_rows(run: MethodRun) -> list[tuple[str, str, str, bool]]:
    """``(section, label, value, used)`` for every parameter, grouped as the studio's panel groups them.

    Sections in order of first appearance, advanced ones after the others
    (their section reads "… (advanced)").
    """
    params = run.params
    fields = specs(params)
    values = {s.name: getattr(params, s.name) for s in fields}
    groups: dict[tuple[bool, str], list[ParamSpec]] = {}
    for s in fields:
        groups.setdefault((s.advanced, s.section), []).append(s)
    labels = {s.name: s.label for s in fields}
    rows = []
    for (advanced, section), members in sorted(groups.items(), key=lambda kv: kv[0][0]):  # stable: keeps order
        title = f"{section or 'Other settings'} (advanced)" if advanced else section
        rows += [(title, s.label, _param_value(s, values[s.name], run.inputs, labels), is_enabled(s, values))
                 for s in members]
    return rows


def _size_text(size: int | None) -> str:
    if size is None:
        return "unknown"
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if size >= scale:
            return f"{size:,} bytes ({size / scale:.1f} {unit})"
    return f"{size:,} bytes"


def input_rows(run: MethodRun) -> list[tuple[str, str]]:
    """The input as ``(label, value)`` rows: name, kind, records, file, size, SHA-256."""
    ref = run.dataset
    rows = [("Dataset", ref.name), ("Kind", kind_words(ref.kind))]
    data = run.data
    for attr, word in (("n_records", "Records"), ("n_rows", "Rows")):
        count = getattr(data, attr, None)
        if isinstance(count, int):
            rows.append((word, f"{count:,}"))
            break
    if ref.path is None:
        rows.append(("File", "built in memory, not read from a file: no file size and no SHA-256 to check it "
                             "against"))
    else:
        rows += [("File", ref.path), ("Size", _size_text(ref.size)), ("SHA-256", ref.sha256 or "unknown")]
    return rows


def command_text(run: MethodRun) -> tuple[str | None, str]:
    """``(command line, note)``: the command that repeats the run, or None and why there is none."""
    try:
        return run_command_line(run), ""
    except NotReproducible as exc:
        return None, f"No command line: {exc}."


# -------------------------------------------------------------------- html
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
        rows.append([f"<code>{_e(key)}</code>", _e(format_value(value)), text])
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
        lead = {"not-met": '<span class="red">Intended promise, NOT MET:</span> ',
                "cancelled": '<span class="red">So far (INCOMPLETE, not a guarantee):</span> ',
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
    if v.passed and v.complete and not run.complete:
        head = '<b class="red">Verdict on the partial result: passed, but the run did not finish: not a guarantee</b>'
    elif v.passed and v.complete:
        head = "<b>Verdict: PASSED</b>"
    elif not v.complete:
        head = '<b class="red">Verdict: INCOMPLETE, stopped before it finished</b>'
    else:
        head = '<b class="red">Verdict: FAILED, the promise is NOT MET</b>'
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
               "the verdict reads GUARANTEE MET.</p>")
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
    return css, _cover_html(report, qt), [_run_html(report, i, e, image_src, qt, figure_layout)
                                          for i, e in enumerate(report.runs)]


def render_html(report: Report) -> str:
    """The report as one self-contained HTML page: inline CSS, images as ``data:`` URIs, no external reference."""
    css, cover, runs = html_parts(report)
    title = "anonstudio report — " + report.label
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta name=\"generator\" content=\"anonstudio {_e(__version__)}\">\n"
            f"<title>{_e(title)}</title>\n<style>{css}</style>\n</head>\n<body>\n"
            + cover + "\n" + "\n".join(runs) + "\n</body>\n</html>\n")
