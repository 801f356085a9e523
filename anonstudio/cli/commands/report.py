"""``anonstudio-cli report``: an HTML report, and optionally a PDF certificate, of every step of a project.

Each workbench step's run is read from the result cache when the studio or an
earlier command computed it with the same anonstudio version, dataset and
parameters, and computed (and cached) otherwise. The figures are the studio's
own plots, drawn offscreen by Qt (no window opens), which is why this is the
one command module allowed to import the GUI layer (see ``pyproject.toml``).
Every output path is checked before any work; both files are written
atomically.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

NAME = "report"
HELP = "write an HTML report (and a PDF certificate) of every step of a project"
DESCRIPTION = (HELP + ": per run the input and its SHA-256, the method, every parameter, the promise, the independent "
               "check's verdict, the measures with their meanings, the studio's plots, the SHA-256 of every output "
               "file and the command that repeats it. An external report (the default) holds no released records "
               "and no audit file; --internal adds previews of both and says so on every page. Exit status: 0 every "
               "step done; 2 bad project, dataset or output path (nothing written); 3 a step's guarantee was not "
               "met (the report is written and says so); 130 cancelled by Ctrl-C (the report covers the steps that "
               "ran and names the others).")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from .run import add_project_arguments

    add_project_arguments(parser, "report")
    parser.add_argument("--html", type=Path, metavar="FILE", help="write the report as one self-contained HTML file")
    parser.add_argument("--pdf", type=Path, metavar="FILE", help="write the certificate as PDF")
    parser.add_argument("--internal", action="store_true",
                        help="internal report: adds previews of the released records and of the audit files (they "
                             "re-identify people; the report says so on every page). Default: external")
    parser.add_argument("--recompute", action="store_true",
                        help="recompute every step instead of reading finished runs from the result cache")
    parser.add_argument("--no-figures", action="store_true",
                        help="leave the plots out of the HTML report (faster; with --pdf the certificate has none "
                             "either)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def _outputs(args: argparse.Namespace, inputs: tuple[Path, ...]) -> None:
    """Check the report's output paths before any work (CliError naming the problem)."""
    from ...data.io.atomic import OutputPathError, check_output_path, resolve_output
    from ..errors import CliError

    if args.html is None and args.pdf is None:
        raise CliError("give --html FILE, --pdf FILE or both")
    if args.html is not None and args.pdf is not None and (
            resolve_output(args.html).absolute() == resolve_output(args.pdf).absolute()):
        raise CliError(f"--html and --pdf name the same file ({args.pdf}); give two files")
    for path in (args.html, args.pdf):
        if path is None:
            continue
        try:
            check_output_path(path, inputs=inputs)
        except OutputPathError as exc:
            raise CliError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    from ...methods.contract import prepare, run_and_verify
    from ...params import ParameterError
    from ...studio.cache import ResultCache
    from ...studio.project import DatasetChanged, DatasetMissing, ProjectError
    from ..errors import CliError
    from ..progress import TqdmProgress
    from .run import EXIT_SEVERITY, project_and_steps, project_inputs, relocations

    project, steps = project_and_steps(args)
    if not steps:
        raise CliError(f"{args.project}: the project has no workbench step to report")
    unset = [s.method for s in steps if s.dataset is None]
    if unset:
        raise CliError(f"{args.project}: step {unset[0]} names no dataset")
    relocated = relocations(args.relocate, project)
    from ...outputs import check_distinct, labelled

    labelled_inputs = project_inputs(project, steps, relocated, args.project)
    check_distinct([labelled("--html", args.html), labelled("--pdf", args.pdf)], labelled_inputs)
    _outputs(args, tuple(path for _, path in labelled_inputs))
    render = _renderer(args)

    opened: dict[str, Any] = {}
    for step in steps:  # every dataset opened and every step's parameters checked before the first run
        if step.dataset not in opened:
            try:
                opened[step.dataset] = project.open_dataset(step.dataset,
                                                            locate=lambda entry: relocated.get(entry.key))
            except DatasetMissing as exc:
                raise CliError(f"{exc}; pass --relocate {step.dataset}=NEW_PATH if it moved") from None
            except (DatasetChanged, ProjectError) as exc:
                raise CliError(str(exc)) from None
        try:
            prepare(step.spec, opened[step.dataset], step.params)
        except ParameterError as exc:
            raise CliError(f"{args.project}: step {step.method}: {exc}") from None

    cache = ResultCache()
    runs, notes, worst = [], [], 0
    for i, step in enumerate(steps):
        data = opened[step.dataset]
        found = None if args.recompute else cache.get(step.spec, step.params, data)
        if found is not None:
            run_ = found
        else:
            with TqdmProgress(step.method, disable=args.quiet) as progress:
                run_ = run_and_verify(step.spec, data, step.params, progress, prepared=True)
            cache.put(run_)
        runs.append(run_)
        print(f"{step.method}: {run_.status}" + (f" ({run_.status_reason()})" if run_.status != "done" else "")
              + ("; read from the result cache" if found is not None else ""))
        if EXIT_SEVERITY.get(run_.exit_code, 0) > EXIT_SEVERITY.get(worst, 0):
            worst = run_.exit_code
        if run_.status == "cancelled":
            rest = [s.method for s in steps[i + 1:]]
            if rest:
                notes.append(f"Not run (cancelled before they started): {', '.join(rest)}.")
            break
    written = render(runs, project.path, notes)
    if written is None:
        print("report: cancelled while the report was being made; nothing was written", file=sys.stderr)
        return 130
    for line in written:
        print(line)
    return worst


def _renderer(args: argparse.Namespace):
    """The function that writes the report files; Qt is loaded (offscreen) only when plots or a PDF need it."""
    from ...data.io import atomic_write
    from ...jobs import SubProgress
    from ...studio.report import build_report, render_html
    from ..errors import CliError
    from ..progress import TqdmProgress

    gui = None
    if args.pdf is not None or not args.no_figures:
        # The CLI never opens a window: Qt draws offscreen unless the user chose a platform.
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        try:
            from ...gui import report_render as gui
        except ImportError as exc:
            if args.pdf is not None:
                raise CliError(f"--pdf needs Qt (PySide6), which cannot be loaded here: {exc}") from None
            print(f"note: the report has no plots: Qt (PySide6) cannot be loaded here ({exc})", file=sys.stderr)

    def render(runs: list, project: Path | None, notes: list[str]) -> list[str] | None:
        """Write the files; the lines saying what was written, or None after a Ctrl-C (nothing written)."""
        figures: list = [None] * len(runs)
        figure_notes = ["Plots left out of this report (--no-figures)." if args.no_figures else
                        "Plots need Qt, which could not be loaded."] * len(runs)
        with TqdmProgress("report", disable=args.quiet) as progress:
            if gui is None:  # HTML only, without plots
                report = build_report(runs, figures, internal=args.internal, figures_notes=figure_notes,
                                      project=project, notes=notes, progress=progress)
                if progress.cancelled():
                    return None
                with atomic_write(args.html) as fh:
                    fh.write(render_html(report))
                return [f"report ({'internal' if args.internal else 'external'}) written to {args.html}"]
            gui.ensure_app()
            if not args.no_figures:
                figures, figure_notes = gui.render_figures(runs, SubProgress(progress, 0.0, 0.5, "plots: "))
            return gui.write_report(runs, figures, figure_notes, html=args.html, pdf=args.pdf,
                                    internal=args.internal, project=project, notes=notes,
                                    progress=SubProgress(progress, 0.5, 1.0))

    return render
