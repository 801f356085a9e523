"""The ``anonstudio-cli`` command that repeats a run: every parameter as a flag, the dataset as it was read.

A command line is built from the method's spec (its CLI flags are generated
from the same params fields, so the two cannot drift apart) and the dataset's
:class:`~anonstudio.data.datasets.DatasetOrigin`: a bundled sample by name,
or the file with the options it was read with (format, encoding, separator,
header, column names), the columns read as numbers and, for a table, the
column roles set in the studio.
"""
from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..data.datasets import DatasetOrigin, origin_of
from ..data.table import Table
from ..methods.contract import MethodRun, MethodSpec
from ..params import ParamSpec, specs

__all__ = ["command_line", "param_arguments", "run_command_line", "dataset_arguments", "NotReproducible", "PROGRAM"]

PROGRAM = "anonstudio-cli"


class NotReproducible(ValueError):
    """The run's dataset cannot be named on a command line (it was built in memory)."""


def dataset_arguments(data: Any, origin: DatasetOrigin | None = None) -> list[str]:
    """The DATASET argument and its reading flags for ``data`` (``origin`` defaults to the one it was loaded with).

    Raises
    ------
    NotReproducible
        When ``data`` was generated or edited in memory and never read from a file.
    """
    origin = origin or origin_of(data)
    if origin is None:
        name = getattr(data, "name", "the dataset")
        raise NotReproducible(f"{name} was built in memory, not read from a file or a bundled sample; save it "
                              "to a file and open that file to get a command line")
    if origin.sample is not None:
        args = [origin.sample]
        sample_roles = None
    elif origin.url is not None:  # stored without its password: PGPASSWORD or .pgpass give it
        args = [origin.url]
        for flag, value in (("--table", origin.table), ("--query", origin.query),
                            ("--items-query", origin.items_query)):
            if value is not None:
                args += [flag, value]
        sample_roles = {}
    else:
        args = [str(Path(origin.path).resolve())]
        options = origin.options
        if options.format:
            args += ["--format", options.format]
        if options.encoding:
            args += ["--encoding", options.encoding]
        if options.sheet is not None:
            args += ["--sheet", options.sheet]
        if options.sep is not None:
            args += ["--sep", "tab" if options.sep == "\t" else options.sep]
        if options.names:
            args += ["--columns", ",".join(options.names)]
            if options.header:
                args += ["--header"]  # the names replace a header row
        elif options.header is not None:
            args += ["--header" if options.header else "--no-header"]
        sample_roles = {}
    if origin.options.numeric:  # columns read as numbers, whatever the source
        args += ["--numeric", ",".join(origin.options.numeric)]
    if isinstance(data, Table):
        roles = {str(c): r.value for c, r in data.roles.items()}
        if sample_roles is None:
            from ..data.samples import get_sample

            described = get_sample(origin.sample).meta.get("roles", {})
            sample_roles = {str(c): str(r) for c, r in described.items() if c in data.frame.columns}
        if roles != sample_roles:
            args += ["--roles", ",".join(f"{c}={r}" for c, r in sorted(roles.items())) or "none"]
    return args


def _flag_tokens(spec: ParamSpec, value: Any) -> list[str]:
    flag = spec.cli_flag
    if value is None:
        return [flag, "none"]
    if spec.kind == "bool":
        return [flag if value else "--no-" + flag[2:]]
    if spec.kind == "column_paths":
        tokens = []
        for column, path in value:
            tokens += [flag, f"{column}={Path(path).resolve()}"]
        return tokens
    if spec.kind in ("columns", "levels"):
        return [flag, ",".join(_text(v) for v in value)]
    if spec.kind == "path":
        return [flag, str(Path(value).resolve())]
    return [flag, _text(value)]


def _text(value: Any) -> str:
    if isinstance(value, float):
        return repr(value)  # round-trips exactly, unlike :g
    return str(value)


def command_line(spec: MethodSpec, params: Any, dataset_args: Sequence[str], *, all_params: bool = False) -> str:
    """The shell command running ``spec`` with ``params`` on the dataset ``dataset_args`` name.

    Parameters left at their defaults are omitted unless ``all_params``; the
    seed is always written, so the line repeats the run on its own.
    """
    tokens = [PROGRAM, spec.name, *dataset_args, *param_arguments(spec, params, all_params=all_params)]
    return " ".join(shlex.quote(t) for t in tokens)


def param_arguments(spec: MethodSpec, params: Any, *, all_params: bool = False) -> list[str]:
    """The CLI arguments that set ``params``: those off their defaults (all with ``all_params``), and the seed."""
    defaults = spec.params()
    tokens: list[str] = []
    for param_spec in specs(spec.params):
        value = getattr(params, param_spec.name)
        if not all_params and param_spec.name != "seed" and value == getattr(defaults, param_spec.name):
            continue
        tokens += _flag_tokens(param_spec, value)
    return tokens


def run_command_line(run: MethodRun, *, all_params: bool = False) -> str:
    """The command line that repeats ``run`` (raises :class:`NotReproducible` for in-memory data)."""
    return command_line(run.spec, run.params, dataset_arguments(run.data), all_params=all_params)
