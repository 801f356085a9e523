"""The report's figures and its PDF certificate, rendered with Qt (offscreen).

Figures are the studio's own plots: a run's workbench is built offscreen (never
shown on screen), given the run's dataset, parameters and result through
:meth:`~anonstudio.gui.method_workbench.MethodWorkbench.show_run`, and every
:class:`~anonstudio.gui.plots.ExportablePlot` that holds data is exported as
PNG, tab by tab in the studio's order. So a report shows exactly what the
studio shows.

The certificate is the report's HTML parts (:func:`anonstudio.studio.report.html_parts`)
drawn by :class:`QTextDocument` onto a :class:`QPdfWriter`, one part per page
where it fits: the cover, then each run on a page of its own (set a little
smaller when that keeps it on one page, continued on further pages when it
would otherwise become too small to read). Every page carries the report's
flavour at the top ("INTERNAL — contains re-identifying data" on a red band
for an internal report) and the page number at the bottom. The SHA-256 of
every output file is in each run's part.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QBuffer,
    QIODevice,
    QMarginsF,
    QRectF,
    QSize,
    QSizeF,
    Qt,
    QtMsgType,
    QUrl,
    qInstallMessageHandler,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QTextDocument,
    QTextOption,
)
from PySide6.QtWidgets import QApplication, QTabWidget, QWidget

from .. import __version__
from ..data.io.atomic import atomic_write
from ..jobs import NullProgress, Progress, SubProgress
from ..methods.contract import MethodRun
from ..studio.report import Figure, Report, build_report, html_parts, render_html

__all__ = ["ensure_app", "workbench_class", "run_figures", "render_figures", "pdf_bytes", "write_pdf", "write_report",
           "PdfPage", "FIGURE_SIZE"]

#: Size of the offscreen workbench the figures are grabbed from (the centre of a large studio window).
FIGURE_SIZE = QSize(1100, 720)
#: Text width of a PDF page's content at full size, in document pixels (about 9-point text on A4).
PAGE_WIDTH = 700.0
#: (text width, figures per row) tried in turn to keep a run on one page; past the last, the run flows on.
FITS = ((PAGE_WIDTH, 2), (800.0, 3))
MARGIN_MM = 12.0
HEADER_MM = 9.0
FOOTER_MM = 7.0
RESOLUTION = 300
#: Body text size of the certificate at full size (points).
TEXT_POINTS = 8.5


#: What the offscreen platform says about every window it cannot manage; harmless, and noise on a terminal.
OFFSCREEN_NOISE = ("This plugin does not support propagateSizeHints", "This plugin does not support raise")


def _quiet_offscreen(kind: QtMsgType, context: Any, message: str) -> None:
    if not message.startswith(OFFSCREEN_NOISE):
        sys.stderr.write(message + "\n")


def ensure_app() -> QApplication:
    """The running QApplication, or a new one; offscreen when there is no display (Linux without X11/Wayland).

    A QApplication made here (the CLI's) prints Qt's messages on stderr, without the offscreen platform's
    notices about window sizes.
    """
    app = QApplication.instance()
    if app is None:
        if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        qInstallMessageHandler(_quiet_offscreen)
        app = QApplication(["anonstudio-report"])
    return app


# ------------------------------------------------------------------ figures
def workbench_class(method: str) -> type | None:
    """The workbench class that draws runs of ``method`` (a spec name), or None."""
    from .method_workbench import MethodWorkbench
    from .workbenches import discover_workbenches

    classes, _problems = discover_workbenches()
    for cls in classes:
        if issubclass(cls, MethodWorkbench) and cls.SPEC == method:
            return cls
    return None


def _settle(app: QApplication, rounds: int = 8) -> None:
    """Let layouts, deferred resizes and repaints happen (the widget is offscreen, so this is quick)."""
    for _ in range(rounds):
        app.processEvents()


def _plots_in_order(widget: QWidget, path: tuple[str, ...], app: QApplication) -> Iterator[tuple[Any, tuple]]:
    """Every ExportablePlot below ``widget``, in the studio's tab order, each yielded while its tab is current."""
    from .plots import ExportablePlot
    from .tab_titles import full_tab_title

    if isinstance(widget, ExportablePlot):
        yield widget, path
        return
    if isinstance(widget, QTabWidget):
        for i in range(widget.count()):
            widget.setCurrentIndex(i)
            _settle(app)
            yield from _plots_in_order(widget.widget(i), path + (full_tab_title(widget, i),), app)
        widget.setCurrentIndex(0)
        return
    # Top to bottom, then left to right, as they sit on screen (the tab is current and laid out).
    children = widget.findChildren(QWidget, options=Qt.FindDirectChildrenOnly)
    for child in sorted(children, key=lambda c: (c.y(), c.x())):
        yield from _plots_in_order(child, path, app)


def run_figures(run: MethodRun, size: QSize = FIGURE_SIZE) -> tuple[list[Figure], str]:
    """The plots the studio draws for ``run``, as figures, and a note when there are none.

    Must be called on the GUI thread (it builds widgets).
    """
    from .workers import JobRunner

    if run.result is None:
        return [], "No figures: the run stopped before it had a result."
    cls = workbench_class(run.spec.name)
    if cls is None:
        return [], f"No figures: this anonstudio has no workbench that draws {run.spec.title} runs."
    app = ensure_app()
    runner = JobRunner(max_threads=2)
    runner.kernels_ready.set()  # nothing is computed here: the run is finished
    bench = cls(runner)
    try:
        bench.setAttribute(Qt.WA_DontShowOnScreen, True)
        bench.resize(size)
        bench.set_dataset(run.data)
        if bench.dataset is None:
            return [], f"No figures: the {cls.TITLE} workbench does not draw this kind of dataset."
        if bench.param_panel is not None:
            bench.param_panel.set_params(run.params)
        bench.show()
        try:
            bench.show_run(run)
            _settle(app)
            figures = []
            for plot, tabs in _plots_in_order(bench, (), app):
                if not plot.isVisibleTo(bench) or not plot.has_data():
                    continue
                where = "studio tab: " + " › ".join((cls.TITLE,) + tabs)
                caption = "; ".join([line for line in plot.caption.splitlines() if line.strip()] + [where])
                figures.append(Figure(plot.title, caption, plot.png_bytes()))
        except Exception as exc:  # noqa: BLE001 - a workbench that cannot draw a run must not cost the report
            return [], f"No figures: the {cls.TITLE} workbench could not draw this run ({type(exc).__name__}: {exc})."
        return figures, "" if figures else f"The {cls.TITLE} workbench draws no plot for this run."
    finally:
        bench.hide()
        bench.deleteLater()
        runner.shutdown(5000)
        _settle(app, 2)


def render_figures(runs: Sequence[MethodRun], progress: Progress | None = None,
                   size: QSize = FIGURE_SIZE) -> tuple[list[list[Figure] | None], list[str]]:
    """:func:`run_figures` of every run (GUI thread); after a cancel the rest get None and a note."""
    progress = progress or NullProgress()
    figures: list[list[Figure] | None] = []
    notes: list[str] = []
    for i, run in enumerate(runs):
        if progress.cancelled():
            figures.append(None)
            notes.append("Figures were not rendered: the report was cancelled.")
            continue
        progress.set(i / max(len(runs), 1), f"plots of {run.spec.title}")
        figs, note = run_figures(run, size)
        figures.append(figs)
        notes.append(note)
    progress.set(1.0, "plots rendered")
    return figures, notes


# --------------------------------------------------------------------- PDF
@dataclass
class PdfPage:
    """One page of the certificate: which part it shows (cover or a run) and the part's page number."""

    part: str
    index: int
    of: int


@dataclass
class _Part:
    title: str
    doc: QTextDocument
    width: float
    page_height: float
    pages: int


def _document(html: str, css: str, figures: dict[str, Figure], width: float) -> QTextDocument:
    doc = QTextDocument()
    doc.setDocumentMargin(0)
    # A command line or a hash longer than the page breaks where it must instead of running off the page.
    option = QTextOption(doc.defaultTextOption())
    option.setWrapMode(QTextOption.WrapAtWordBoundaryOrAnywhere)
    doc.setDefaultTextOption(option)
    font = QFont(QApplication.font())
    font.setPointSizeF(TEXT_POINTS)
    doc.setDefaultFont(font)
    doc.setDefaultStyleSheet(css)
    for name, figure in figures.items():
        doc.addResource(QTextDocument.ImageResource, QUrl(name), QImage.fromData(figure.png))
    doc.setHtml(html)
    doc.setTextWidth(width)
    return doc


def _lay_out(title: str, make_html: Callable[[float, int], str], css: str, figures: dict[str, Figure],
             aspect: float) -> _Part:
    """One part on one page if one of :data:`FITS` holds it, else on as many full-size pages as it needs."""
    for width, per_row in FITS:
        doc = _document(make_html(width, per_row), css, figures, width)
        if doc.size().height() <= width * aspect:
            return _Part(title, doc, width, width * aspect, 1)
    width, per_row = FITS[0]
    doc = _document(make_html(width, per_row), css, figures, width)
    doc.setPageSize(QSizeF(width, width * aspect))
    return _Part(title, doc, width, width * aspect, doc.pageCount())


def _mm(writer: QPdfWriter, mm: float) -> float:
    return mm / 25.4 * writer.resolution()


def pdf_bytes(report: Report, progress: Progress | None = None) -> tuple[bytes, list[PdfPage]]:
    """The certificate as PDF bytes, and what each page shows. GUI thread (QTextDocument lays out fonts)."""
    progress = progress or NullProgress()
    ensure_app()
    buffer = QBuffer()
    buffer.open(QIODevice.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setResolution(RESOLUTION)
    writer.setPageSize(QPageSize(QPageSize.A4))
    writer.setPageMargins(QMarginsF(MARGIN_MM, MARGIN_MM, MARGIN_MM, MARGIN_MM), QPageLayout.Millimeter)
    writer.setTitle(f"anonstudio report — {report.label}")
    writer.setCreator(f"anonstudio {__version__}")
    area_w, area_h = float(writer.width()), float(writer.height())
    header, footer = _mm(writer, HEADER_MM), _mm(writer, FOOTER_MM)
    aspect = (area_h - header - footer) / area_w

    names = {}
    for i, entry in enumerate(report.runs):
        for j, fig in enumerate(entry.figures):
            names[f"figure-{i + 1}-{j + 1}.png"] = fig
    source = lambda i, j, fig: f"figure-{i + 1}-{j + 1}.png"  # noqa: E731 (one line, used twice)

    def part_html(index: int | None) -> Callable[[float, int], str]:
        def make(width: float, per_row: int) -> str:
            _css, cover, runs = html_parts(report, source, qt=True, figure_layout=(width, per_row))
            return cover if index is None else runs[index]
        return make

    css = html_parts(report, source, qt=True)[0]
    parts = [_lay_out("Cover", part_html(None), css, names, aspect)]
    for i, entry in enumerate(report.runs):
        if progress.cancelled():
            break
        progress.set(0.8 * (i + 1) / (len(report.runs) + 1), f"laying out {entry.run.spec.title}")
        parts.append(_lay_out(f"Run {i + 1}: {entry.run.spec.title}", part_html(i), css, names, aspect))
    total = sum(p.pages for p in parts)
    plan: list[PdfPage] = []
    painter = QPainter(writer)
    try:
        for part in parts:
            scale = area_w / part.width
            for page in range(part.pages):
                if plan:
                    writer.newPage()
                plan.append(PdfPage(part.title, page + 1, part.pages))
                _paint_margins(painter, report, area_w, area_h, header, footer, len(plan), total, part, page)
                painter.save()
                painter.translate(0, header)
                painter.scale(scale, scale)
                painter.translate(0, -page * part.page_height)
                part.doc.drawContents(painter, QRectF(0, page * part.page_height, part.width, part.page_height))
                painter.restore()
    finally:
        painter.end()
    buffer.close()
    progress.set(1.0, "certificate ready")
    return bytes(buffer.data()), plan


def _paint_margins(painter: QPainter, report: Report, width: float, height: float, header: float, footer: float,
                   number: int, total: int, part: _Part, page: int) -> None:
    """The flavour band at the top of the page and the page line at the bottom."""
    font = QFont(QApplication.font())
    font.setPointSizeF(9.0)
    font.setBold(True)
    painter.save()
    painter.setFont(font)
    band = QRectF(0, 0, width, header * 0.75)
    if report.internal:
        painter.fillRect(band, QColor("#b00020"))
        painter.setPen(QColor("#ffffff"))
    else:
        painter.setPen(QColor("#333333"))
    painter.drawText(band, Qt.AlignCenter, report.banner)
    font.setBold(False)
    font.setPointSizeF(7.5)
    painter.setFont(font)
    painter.setPen(QColor("#444444"))
    line = QRectF(0, height - footer * 0.8, width, footer * 0.8)
    continued = f" (continued, {page + 1} of {part.pages})" if part.pages > 1 and page else ""
    right = f"page {number} of {total}"
    metrics = painter.fontMetrics()
    room = int(width - metrics.horizontalAdvance(right) - metrics.horizontalAdvance("    "))
    # The part's title is shortened (…) rather than run into the page number.
    left = metrics.elidedText(f"anonstudio {__version__} · {report.generated} · {part.title}", Qt.ElideRight,
                              room - metrics.horizontalAdvance(continued)) + continued
    painter.drawText(line, Qt.AlignLeft | Qt.AlignVCenter, left)
    painter.drawText(line, Qt.AlignRight | Qt.AlignVCenter, right)
    painter.restore()


def write_pdf(report: Report, path: str | Path, progress: Progress | None = None) -> list[PdfPage] | None:
    """Write the certificate to ``path`` atomically; what each page shows, or None after a cancel (nothing written)."""
    progress = progress or NullProgress()
    data, plan = pdf_bytes(report, progress)
    if progress.cancelled():
        return None
    with atomic_write(path, "wb", encoding=None) as fh:
        fh.write(data)
    return plan


def write_report(runs: Sequence[MethodRun], figures: Sequence[Sequence[Figure] | None], figure_notes: Sequence[str],
                 *, html: Path | None, pdf: Path | None, internal: bool = False, project: Path | None = None,
                 notes: Sequence[str] = (), progress: Progress | None = None) -> list[str] | None:
    """Build the report and write the HTML file and/or the PDF certificate; a line per file written.

    Both files are made in memory first and written (atomically) only when
    both are ready, so a cancel (None is returned) writes nothing. May run on
    a worker thread: the figures are already rendered.
    """
    progress = progress or NullProgress()
    report = build_report(runs, figures, internal=internal, figures_notes=figure_notes, project=project,
                          notes=notes, progress=SubProgress(progress, 0.0, 0.5 if pdf is not None else 0.9))
    if progress.cancelled():
        return None
    text = render_html(report) if html is not None else None
    data = plan = None
    if pdf is not None:
        data, plan = pdf_bytes(report, SubProgress(progress, 0.5, 0.95, "certificate: "))
        if progress.cancelled():
            return None
    lines = []
    if text is not None:
        with atomic_write(html) as fh:
            fh.write(text)
        lines.append(f"report ({'internal' if internal else 'external'}) written to {html}")
    if data is not None:
        with atomic_write(pdf, "wb", encoding=None) as fh:
            fh.write(data)
        lines.append(f"certificate written to {pdf} ({len(plan)} pages)")
    progress.set(1.0, "report written")
    return lines
