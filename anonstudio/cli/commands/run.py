"""``anonstudio-cli run``: rerun every step of a project file headlessly and write every output.

Each workbench step runs through the same pipeline as its own command (run,
independent check, outputs written together) into ``OUT/<method>/``: the
run's JSON (without wall-clock fields, so a rerun of the same project gives
byte-identical files), every release and report export, and audit exports
only with ``--audit``. The project's comparison sweeps go to
``OUT/sweeps/``. Timings go to ``OUT/timings.json``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

NAME = "run"
HELP = "rerun every step of a project file headlessly and write every output"
DESCRIPTION = (HELP + ". Datasets are checked against the SHA-256 the project recorded; a changed file is refused. "
               "Exit status: 0 every step done; 2 bad project, dataset or output folder; 3 a step's guarantee was "
               "not met (its release is not written); 130 cancelled by Ctrl-C (finished steps are written, the "
               "running one's JSON is marked incomplete).")

#: How bad an exit status is, to report the worst of several runs (``anonstudio-cli report`` shares it).
EXIT_SEVERITY = {0: 0, 3: 1, 130: 2}


def add_project_arguments(parser: argparse.ArgumentParser, verb: str) -> None:
    """PROJECT, --step and --relocate: what every command over a saved project takes (``verb``: run, report)."""
    parser.add_argument("project", type=Path, metavar="PROJECT", help="a project file saved by the studio (.toml)")
    parser.add_argument("--step", action="append", metavar="METHOD",
                        help=f"{verb} only this workbench's step (repeat for several; default: all)")
    parser.add_argument("--relocate", action="append", default=[], metavar="KEY=PATH",
                        help="a dataset that moved since the project was saved: its key and where it is now (its "
                             "SHA-256 must still match)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_project_arguments(parser, "run")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="folder for the outputs, created if needed (default: PROJECT-outputs beside the "
                             "project file)")
    parser.add_argument("--audit", action="store_true",
                        help="also write audit files (they de-anonymize people together with the release; keep "
                             "them private)")
    parser.add_argument("--no-sweeps", action="store_true", help="skip the project's comparison sweeps")
    parser.add_argument("--allow-unverified", action="store_true",
                        help="write releases even when the independent check did not confirm the promise")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def relocations(items: list[str], project: Any) -> dict[str, Path]:
    """``--relocate KEY=PATH`` items as dataset key -> new path; CliError for a malformed item or unknown key."""
    from ..errors import CliError

    out = {}
    for item in items:
        key, eq, path = item.partition("=")
        if not eq or not key.strip() or not path.strip():
            raise CliError(f"--relocate {item!r}: expected KEY=PATH")
        if key.strip() not in project.datasets:
            raise CliError(f"--relocate {item!r}: the project has no dataset {key.strip()!r} (datasets: "
                           f"{', '.join(project.datasets) or 'none'})")
        out[key.strip()] = Path(path.strip()).expanduser()
    return out


def project_and_steps(args: argparse.Namespace) -> tuple[Any, list]:
    """The project file and the steps ``--step`` chose (all by default); CliError for a bad file or step name."""
    from ...studio.project import Project, ProjectError
    from ..errors import CliError

    try:
        project = Project.load(args.project)
    except ProjectError as exc:
        raise CliError(str(exc)) from None
    steps = project.steps
    if args.step:
        unknown = sorted(set(args.step) - {s.method for s in steps})
        if unknown:
            raise CliError(f"--step {unknown[0]}: the project has no such step (steps: "
                           f"{', '.join(s.method for s in steps) or 'none'})")
        steps = [s for s in steps if s.method in args.step]
    return project, steps


def project_inputs(project: Any, steps: list, relocated: dict[str, Path], project_path: Path) -> list:
    """``(label, path)`` for every file a project command reads: the project, its datasets, the side files."""
    inputs = [(f"the project {project_path}", project_path)]
    for key, entry in project.datasets.items():
        if entry.file is not None:
            inputs.append((f"the dataset {key} ({entry.file})", entry.file))
    for key, path in relocated.items():
        inputs.append((f"--relocate {key}={path}", path))
    from ...methods.contract import get_method

    for kind, step in [*(("step", s) for s in steps), *(("sweep", s) for s in project.sweeps)]:
        try:
            files = get_method(step.method).input_files(step.params).items()
        except (KeyError, TypeError, ValueError, AttributeError):
            files = ()
        for name, path in files:
            inputs.append((f"{kind} {step.method}'s {name} file {path}", path))
    return inputs


def _fitting_path(folder: Path, step: Any, export: Any) -> Path:
    """The step's file for ``export``: the first of its extensions whose format can hold the step's result."""
    candidates = [folder / f"{step.method}-{export.key}{ext}" for ext in export.extensions]
    if export.fits is not None:
        for path in candidates:
            if not export.fits(path, step.params):
                return path
    return candidates[0]


def _plan(project: Any, steps: list, out: Path, audit: bool, inputs: list, sweeps: list) -> dict[str, dict[str, Path]]:
    """Every output path of every step, checked against each other and every input before any work."""
    from ...data.io.atomic import OutputPathError, check_output_path
    from ...outputs import check_distinct
    from ..errors import CliError

    plan = {}
    for step in steps:
        spec = step.spec
        folder = out / step.method
        paths = {"json": folder / f"{step.method}.json"}
        for export in spec.exports:
            if export.kind == "audit" and not audit:
                continue
            paths[export.key] = _fitting_path(folder, step, export)
        plan[step.method] = paths
    outputs = [(f"step {method}'s {key} output {path}", path) for method, paths in plan.items()
               for key, path in paths.items()]
    outputs.append((f"the timings {out / 'timings.json'}", out / "timings.json"))
    outputs += [(f"sweep {i}'s table {path}", path)
                for i, path in ((i, out / "sweeps" / f"{i}-{s.method}.csv") for i, s in enumerate(sweeps, start=1))]
    check_distinct(outputs, inputs)
    for method, paths in plan.items():
        folder = out / method
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CliError(f"{folder}: cannot create the output folder ({exc.strerror or exc})") from None
        for path in paths.values():
            try:
                check_output_path(path, inputs=tuple(p for _, p in inputs))
            except OutputPathError as exc:
                raise CliError(str(exc)) from None
    return plan


def run(args: argparse.Namespace) -> int:
    from ...data.io import write_json
    from ...limits import OVERRIDE_FLAG, check_work
    from ...methods.contract import prepare, run_and_verify, write_outputs
    from ...params import ParameterError
    from ...studio.project import DatasetChanged, DatasetMissing, ProjectError
    from ..errors import CliError
    from ..progress import TqdmProgress

    project, steps = project_and_steps(args)
    sweeps = [] if args.no_sweeps or args.step else list(project.sweeps)
    if not steps and not sweeps:
        raise CliError(f"{args.project}: the project has no workbench step to run")
    missing = [s.method for s in steps if s.dataset is None]
    if missing:
        raise CliError(f"{args.project}: step {missing[0]} names no dataset")
    from ...methods.sweep import check_grid_size

    for i, sweep in enumerate(sweeps, start=1):  # absurd work (10⁹ seeds) refused before any step or folder
        check_work("seeds", sweep.seeds, where=f"{args.project}: sweep {i} ({sweep.method}) seeds")
        try:
            check_grid_size(sweep.axes, sweep.seeds, hint=f"pass {OVERRIDE_FLAG} to run it anyway")
        except ParameterError as exc:
            raise CliError(f"{args.project}: sweep {i} ({sweep.method}): {exc}") from None
    relocated = relocations(args.relocate, project)
    out = args.out or args.project.absolute().parent / f"{args.project.stem}-outputs"
    plan = _plan(project, steps, out, args.audit, project_inputs(project, steps, relocated, args.project), sweeps)

    datasets: dict[str, Any] = {}

    def dataset(key: str) -> Any:
        if key not in datasets:
            try:
                datasets[key] = project.open_dataset(key, locate=lambda entry: relocated.get(entry.key))
            except DatasetMissing as exc:
                raise CliError(f"{exc}; pass --relocate {key}=NEW_PATH if it moved") from None
            except DatasetChanged as exc:
                raise CliError(str(exc)) from None
            except ProjectError as exc:
                raise CliError(str(exc)) from None
        return datasets[key]

    # Every dataset and every step's parameters are checked before the first run starts.
    for step in steps:
        try:
            prepare(step.spec, dataset(step.dataset), step.params)
        except ParameterError as exc:
            raise CliError(f"{args.project}: step {step.method}: {exc}") from None

    worst, timings = 0, {}
    for step in steps:
        spec = step.spec
        with TqdmProgress(step.method, disable=args.quiet) as progress:
            run_ = run_and_verify(spec, dataset(step.dataset), step.params, progress, prepared=True)
        paths = plan[step.method]
        skipped = write_outputs(run_, {k: v for k, v in paths.items() if k != "json"}, paths["json"],
                                allow_unverified=args.allow_unverified, timings=False)
        timings[step.method] = {"status": run_.status, "seconds": round(run_.seconds, 4), "started": run_.started}
        print(f"{step.method}: {run_.status}" + (f" ({run_.status_reason()})" if run_.status != "done" else "")
              + f"; outputs in {paths['json'].parent}")
        for line in skipped:
            print(f"{step.method}: {line}", file=sys.stderr)
        if EXIT_SEVERITY.get(run_.exit_code, 0) > EXIT_SEVERITY.get(worst, 0):
            worst = run_.exit_code
        if run_.status == "cancelled":
            break
    if worst != 130:
        for i, sweep in enumerate(sweeps, start=1):
            code = _run_sweep(project, sweep, i, out, dataset, args.quiet, timings)
            if EXIT_SEVERITY.get(code, 0) > EXIT_SEVERITY.get(worst, 0):
                worst = code
            if code == 130:
                break
    write_json(out / "timings.json", {"project": str(project.path), "steps": timings})
    return worst


def _run_sweep(project: Any, sweep: Any, number: int, out: Path, dataset: Any, quiet: bool,
               timings: dict) -> int:
    from ...data.io import atomic_write
    from ...methods.contract import get_method
    from ...methods.sweep import make_grid, run_sweep
    from ..errors import CliError
    from ..progress import TqdmProgress

    spec = get_method(sweep.method)
    if sweep.dataset is None:
        raise CliError(f"sweep {number} ({sweep.method}) names no dataset")
    folder = out / "sweeps"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{number}-{sweep.method}.csv"
    cells = make_grid(sweep.params, sweep.axes, sweep.seeds)
    with TqdmProgress(f"sweep {number} ({sweep.method})", disable=quiet) as progress:
        result = run_sweep(spec, dataset(sweep.dataset), cells, progress, axes=sweep.axes)
    with atomic_write(path) as fh:
        fh.write(result.to_csv_text())
    statuses = [r.status for r in result.ordered()]
    timings[f"sweep {number}"] = {"status": "done" if result.complete else "cancelled",
                                  "seconds": round(result.seconds, 4)}
    print(f"sweep {number} ({sweep.method}): {result.done} of {len(cells)} cells; table in {path}")
    if not result.complete:
        return 130
    return 3 if "not-met" in statuses else 0
