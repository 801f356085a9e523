"""One ``anonstudio-cli`` command per method family, generated from its :class:`MethodSpec`.

Flags come from the params field specs (name, help from the tooltip, default,
range, choices), so a default changed in the dataclass changes the CLI too;
only what is not a parameter is written here: the dataset argument, the
exports' output flags, ``--json``, ``--allow-unverified`` and ``--quiet``.

Exit status: 0 done, 2 bad input or parameters, 3 guarantee not met (the
independent check found the promise broken; no release is written unless
``--allow-unverified``), 130 cancelled (Ctrl-C: the partial result is
written, marked ``"complete": false``; a second Ctrl-C aborts and leaves the
previous outputs untouched).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..methods.contract import MethodSpec
from ..params import ParameterError, ParamSpec, coerce, specs
from .errors import CliError

__all__ = ["add_method_command", "run_method", "ignored_flags", "EXIT_HELP"]

EXIT_HELP = ("exit status: 0 done; 2 bad input or parameters; 3 guarantee not met (the independent check found "
             "the promise broken, no release written unless --allow-unverified); 130 cancelled by Ctrl-C (the "
             "partial result is written and marked incomplete).")

#: Words that unset an optional parameter on the command line.
NONE_WORDS = ("none", "auto", "off", "")


def _default_text(spec: ParamSpec) -> str:
    value = spec.default
    if value is None:
        return "not set"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value) or "empty"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _help(spec: ParamSpec) -> str:
    text = spec.tooltip.replace("%", "%%")
    if spec.kind in ("int", "float") and (spec.minimum is not None or spec.maximum is not None):
        lo = "" if spec.minimum is None else f"{spec.minimum:g}"
        hi = "" if spec.maximum is None else f"{spec.maximum:g}"
        text += f" Range {lo}..{hi}."
    if spec.kind == "levels":
        text += " One value per level, comma-separated; empty: the single value for every level."
    if spec.optional:
        text += " 'none' unsets it."
    if spec.deprecated_flags:
        text += f" (Old spelling: {', '.join(spec.deprecated_flags)}.)"
    return f"{text} (default: {_default_text(spec)})"


def _metavar(spec: ParamSpec) -> str:
    if spec.metavar:
        return spec.metavar
    return {"path": "FILE", "columns": "COL,...", "column": "COL", "levels": "V,...", "column_paths": "COL=FILE",
            "int": "N", "float": "X", "str": "TEXT"}.get(spec.kind, spec.name.upper())


def _add_param(parser: argparse.ArgumentParser, spec: ParamSpec) -> None:
    flag = spec.cli_flag
    common = dict(dest=f"param_{spec.name}", default=argparse.SUPPRESS, help=_help(spec))
    if spec.kind == "bool":
        parser.add_argument(flag, action=argparse.BooleanOptionalAction, **common)
    elif spec.kind == "choice":
        parser.add_argument(flag, metavar="{" + ",".join(str(c) for c in spec.choices) + "}", **common)
    elif spec.kind == "column_paths":
        parser.add_argument(flag, action="append", metavar=_metavar(spec), **common)
    else:
        parser.add_argument(flag, metavar=_metavar(spec), **common)


def add_method_command(sub: Any, spec: MethodSpec) -> argparse.ArgumentParser:
    """Add ``spec``'s subcommand to the subparsers ``sub``."""
    from .datasets import add_dataset_arguments

    parser = sub.add_parser(spec.name, help=spec.summary, description=f"{spec.description}",
                            epilog=EXIT_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
                            allow_abbrev=False)
    add_dataset_arguments(parser)
    group = parser.add_argument_group("parameters (every one can also be set in a project file)")
    for param_spec in specs(spec.params):
        _add_param(group, param_spec)
    outputs = parser.add_argument_group("outputs (checked before the run starts; written atomically, together)")
    for export in spec.exports:
        note = {"audit": " AUDIT FILE: together with the release it de-anonymizes everyone; keep it private.",
                "release": " Written only when the independent check confirms the promise."}.get(export.kind, "")
        outputs.add_argument(export.flag, dest=f"export_{export.key}", type=Path, metavar="FILE",
                             help=export.help + note)
    outputs.add_argument("--json", type=Path, metavar="OUT",
                         help="the run as JSON: result, independent check, status, parameters (seed included), "
                              "input name and SHA-256, anonstudio version; written even for a partial run")
    if any(e.kind == "release" for e in spec.exports):
        from .datasets import add_release_table_arguments

        add_release_table_arguments(outputs)
    if spec.guarantee:
        outputs.add_argument("--allow-unverified", action="store_true",
                             help="write the release even when the independent check did not confirm the promise")
    for flag, keywords in spec.cli_options:
        parser.add_argument(flag, dest=f"option_{flag.lstrip('-').replace('-', '_')}", **keywords)
    parser.add_argument("--quiet", action="store_true", help="no progress bar (results still go to stdout)")
    parser.set_defaults(_run=lambda args, s=spec: run_method(s, args))
    return parser


def _flag_message(spec: MethodSpec, exc: ParameterError) -> str:
    """The error worded with the CLI flag the user typed instead of the GUI label."""
    if exc.name:
        try:
            param_spec = next(p for p in specs(spec.params) if p.name == exc.name)
        except StopIteration:
            return str(exc)
        if exc.problem and exc.problem != str(exc):
            return f"{param_spec.cli_flag} {exc.problem}"
        return f"{param_spec.cli_flag}: {exc}"
    return str(exc)


def params_from_args(spec: MethodSpec, args: argparse.Namespace) -> Any:
    """The validated params object from the parsed flags (defaults from the dataclass)."""
    from ..params import from_dict

    values = {}
    for param_spec in specs(spec.params):
        dest = f"param_{param_spec.name}"
        if not hasattr(args, dest):
            continue
        raw = getattr(args, dest)
        if param_spec.optional and isinstance(raw, str) and raw.strip().lower() in NONE_WORDS:
            values[param_spec.name] = None
        else:
            values[param_spec.name] = coerce(param_spec, raw)
    return from_dict(spec.params, values)


def ignored_flags(spec: MethodSpec, args: argparse.Namespace, params: Any) -> list[str]:
    """One line per flag the user gave that the method ignores with these settings (``enabled_when``)."""
    from ..params import is_enabled, spec_of

    values = {p.name: getattr(params, p.name) for p in specs(spec.params)}
    out = []
    for param_spec in specs(spec.params):
        if hasattr(args, f"param_{param_spec.name}") and not is_enabled(param_spec, values):
            when = " and ".join(f"{spec_of(spec.params, name).cli_flag} is {' or '.join(map(str, allowed))}"
                                for name, allowed in param_spec.enabled_when.items())
            out.append(f"{param_spec.cli_flag} is ignored: it only applies when {when}")
    return out


def check_method_paths(spec: MethodSpec, args: argparse.Namespace, params: Any) -> None:
    """Refuse, before any work, outputs naming one file or naming an input (the dataset, a side file)."""
    from ..outputs import check_distinct, labelled
    from ..params import spec_of

    outputs = [labelled(e.flag, getattr(args, f"export_{e.key}", None)) for e in spec.exports]
    outputs.append(labelled("--json", args.json))
    inputs = []
    if Path(args.dataset).exists():  # else the name of a bundled sample
        inputs.append((f"the dataset {args.dataset}", Path(args.dataset)))
    for name, path in spec.input_files(params).items():
        field = name.partition("[")[0]
        try:
            flag = spec_of(spec.params, field).cli_flag
        except (KeyError, StopIteration, ValueError):
            flag = field
        inputs.append(labelled(flag, path))
    check_distinct(outputs, inputs)


def run_method(spec: MethodSpec, args: argparse.Namespace) -> int:
    """Parse, check outputs, load, run and verify, print, write: the body of every method command."""
    from ..methods.contract import check_outputs, discover_methods, prepare, run_and_verify, write_outputs
    from .datasets import dataset_options, load_dataset_argument, release_table_target, write_release_table
    from .progress import TqdmProgress

    # The parser was built from this family's spec alone; a run sees every family, as in the studio (the
    # glossary's entries of all families, a spec found by name).
    discover_methods()

    try:
        params = params_from_args(spec, args)
    except ParameterError as exc:
        raise CliError(_flag_message(spec, exc)) from None
    for line in ignored_flags(spec, args, params):
        print(f"anonstudio-cli {spec.name}: warning: {line}", file=sys.stderr)
    paths = {e.key: getattr(args, f"export_{e.key}") for e in spec.exports}
    allow = bool(getattr(args, "allow_unverified", False))
    check_method_paths(spec, args, params)
    check_outputs(spec, {**paths, "json": args.json}, None, params)
    release_table_target(args)  # a --out-table without a database: refused before loading
    data = load_dataset_argument(args.dataset, **dataset_options(args), kinds=spec.data_kinds,
                                 opener=spec.open_dataset, quiet=args.quiet)
    check_outputs(spec, {**paths, "json": args.json}, data, params)
    options = {flag.lstrip("-").replace("-", "_"): getattr(args, f"option_{flag.lstrip('-').replace('-', '_')}")
               for flag, _ in spec.cli_options}
    try:
        prepare(spec, data, params)
        spec.check_cli_options(data, params, options)
    except ParameterError as exc:
        raise CliError(_flag_message(spec, exc)) from None
    for export in spec.exports:
        if export.kind == "audit" and paths.get(export.key) is not None:
            print(f"warning: {export.flag} writes an audit file: {export.warning or export.help}", file=sys.stderr)
    with spec.run_context(options), TqdmProgress(spec.name, disable=args.quiet) as progress:
        try:
            run = run_and_verify(spec, data, params, progress, prepared=True)
        except ParameterError as exc:
            raise CliError(_flag_message(spec, exc)) from None
    for line in spec.report_lines(run, options):
        print(line)
    if run.status != "done":
        print(f"{spec.name}: {run.status}: {run.status_reason()}", file=sys.stderr)
    for line in write_outputs(run, paths, args.json, allow_unverified=allow):
        print(f"{spec.name}: {line}", file=sys.stderr)
    for line in write_release_table(run, args, allow_unverified=allow):
        print(f"{spec.name}: {line}", file=sys.stderr)
    return run.exit_code
