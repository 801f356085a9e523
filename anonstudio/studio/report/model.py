"""The report model: what one report file holds, built from finished runs without Qt.

:func:`build_report` takes the runs (and the figures the caller rendered), writes
every output of each run to a temporary folder exactly as ``anonstudio-cli run``
writes it and hashes it (:func:`output_files`), and keeps a short preview of the
release and audit files for an internal report. :func:`versions` names the
software the report was made with.
"""
from __future__ import annotations

import datetime as _dt
import importlib.metadata
import platform
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ... import __version__
from ...formatting import integer
from ...jobs import Cancelled, NullProgress, Progress, SubProgress
from ...methods.contract import MethodRun, file_sha256, write_outputs

__all__ = [
    "Figure", "OutputFile", "RunReport", "Report", "build_report", "output_files", "versions",
    "INTERNAL_LABEL", "EXTERNAL_LABEL", "EXTERNAL_NOTE", "KEY_LIBRARIES", "PREVIEW_LINES", "PREVIEW_WIDTH",
    "NO_RELEASE", "NOT_AVAILABLE",
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
        report.project_sha256 = file_sha256(Path(project))
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
                # Writing and hashing a large release takes seconds: both poll the cancel flag per chunk.
                skipped = write_outputs(run, {export.key: path}, allow_unverified=False,
                                        cancelled=progress.cancelled)
                sha = file_sha256(path, progress.cancelled) if not skipped and path.is_file() else None
            except Cancelled:
                break
            except (OSError, ValueError) as exc:  # an export that cannot be written is reported, not fatal
                out.append(OutputFile(**entry, note=f"could not be written: {exc}"))
                continue
            if sha is None:
                out.append(OutputFile(**entry, note=skipped[0] if skipped else "not written"))
                continue
            preview = _preview(path) if internal and export.kind in ("release", "audit") else ()
            out.append(OutputFile(**entry, sha256=sha, size=path.stat().st_size, preview=preview))
        if not progress.cancelled():
            json_path = folder / f"{spec.name}.json"
            write_outputs(run, {}, json_path, timings=False)
            out.append(OutputFile("json", "Run record (JSON)", "record", json_path.name, file_sha256(json_path),
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
        return (f"(binary file, {integer(path.stat().st_size)} bytes: not previewed)",)
    lines = text.splitlines()[:PREVIEW_LINES]
    return tuple(line if len(line) <= PREVIEW_WIDTH else line[:PREVIEW_WIDTH] + "…" for line in lines)
