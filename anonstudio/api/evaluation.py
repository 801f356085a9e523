"""``an.evaluate``: the independent evaluator from Python, with the keywords of ``anonstudio-cli evaluate``.

The keywords are the CLI command's options, read from its own parser (``--item-hierarchy`` is
``item_hierarchy=``; ``--claim`` and ``--hierarchy``, repeatable there, take a list here), with its
defaults, choices and required options; the values go through the command's own
``evaluation_inputs`` and :func:`anonstudio.evaluate.evaluate`, and the files through its writers.
"""
from __future__ import annotations

import argparse
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..params import ParameterError

__all__ = ["evaluate", "EvaluationRun"]

#: Options of the CLI command that are not keywords here: the original's reading options (an.open takes them),
#: the output files (EvaluationRun.save writes them) and the terminal's.
_NOT_KEYWORDS = {"help", "original", "format", "encoding", "sep", "header", "columns", "roles", "json", "csv", "quiet"}

_ACTIONS: list[argparse.Action] | None = None


def _actions() -> list[argparse.Action]:
    """The evaluate command's options that are keywords of :func:`evaluate`, in the command's order."""
    global _ACTIONS
    if _ACTIONS is None:
        from ..cli.commands.evaluate import add_arguments

        parser = argparse.ArgumentParser(prog="evaluate", add_help=False)
        add_arguments(parser)
        _ACTIONS = [a for a in parser._actions if a.dest not in _NOT_KEYWORDS]
    return _ACTIONS


def _signature() -> Any:
    import inspect

    parameters = [inspect.Parameter("original", inspect.Parameter.POSITIONAL_ONLY)]
    for action in sorted(_actions(), key=lambda a: not a.required):  # required keywords first, for reading
        default = inspect.Parameter.empty if action.required else action.default
        if isinstance(default, list):
            default = ()
        parameters.append(inspect.Parameter(action.dest, inspect.Parameter.KEYWORD_ONLY, default=default))
    parameters.append(inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=True))
    return inspect.Signature(parameters, return_annotation="EvaluationRun")


def _convert(action: argparse.Action, value: Any) -> Any:
    """``value`` as the CLI would hold it after parsing (text goes through the option's own type)."""
    if value is None:
        return None
    if isinstance(action, argparse._AppendAction):
        if isinstance(value, Mapping):
            value = [f"{k}={v}" for k, v in value.items()]
        elif isinstance(value, (str, Path)) or (isinstance(value, tuple) and len(value) == 2
                                                  and action.dest == "hierarchy" and isinstance(value[0], str)):
            value = [value]
        return [_one(action, v) for v in value]
    return _one(action, value)


def _one(action: argparse.Action, value: Any) -> Any:
    if isinstance(value, tuple) and action.dest == "hierarchy":
        value = f"{value[0]}={value[1]}"
    if isinstance(value, Path) and action.type is not Path:
        value = str(value)
    if action.type is not None and isinstance(value, str):
        try:
            value = action.type(value)
        except (TypeError, ValueError, argparse.ArgumentTypeError) as exc:
            raise ParameterError(f"{action.dest}: cannot read {value!r} ({exc})", name=action.dest) from None
    elif action.type is Path and value is not None:
        value = Path(value)
    if action.type in (int, float) and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise ParameterError(f"{action.dest} must be a number (got {value!r})", name=action.dest)
    if action.type is int and isinstance(value, float):
        if not value.is_integer():
            raise ParameterError(f"{action.dest} must be a whole number (got {value!r})", name=action.dest)
        value = int(value)
    if action.choices is not None and value not in action.choices:
        raise ParameterError(f"{action.dest} must be one of {', '.join(map(str, action.choices))} (got {value!r})",
                             name=action.dest)
    return value


def _keyword_words(exc: ParameterError) -> ParameterError:
    """The CLI's message with its flags written as this function's keywords (``--min-support`` -> ``min_support``)."""
    flags = {a.option_strings[0]: a.dest for a in _actions() if a.option_strings}
    text = re.sub(r"--[a-z][a-z-]*", lambda m: flags.get(m.group(0), m.group(0)), str(exc))
    return ParameterError(text, name=exc.name, problem=text)


def evaluate(*args: Any, **kwargs: Any) -> EvaluationRun:
    """Measure a release against its original on one scale of risk and utility, and audit claims.

    The keywords are ``anonstudio-cli evaluate``'s options (see ``anonstudio-cli evaluate --help``);
    ``original`` is loaded data or anything :func:`anonstudio.open` takes, ``release`` the release's
    file. Returns an :class:`EvaluationRun` (``.check`` is the audit's verdict when claims were
    given). ParameterError names the keyword at fault.
    """
    from ..cli.commands.evaluate import evaluation_inputs
    from ..evaluate import evaluate as run_evaluation
    from .data import as_dataset
    from .progress import BarProgress

    bound = _signature().bind(*args, **kwargs)
    given = dict(bound.arguments)
    original = given.pop("original")
    progress = given.pop("progress", True)
    values = {}
    for action in _actions():
        value = given[action.dest] if action.dest in given else action.default
        values[action.dest] = _convert(action, value) if action.dest in given else value
    values["claim"] = list(values.get("claim") or [])
    values["hierarchy"] = list(values.get("hierarchy") or [])
    namespace = argparse.Namespace(**values)
    try:
        options, side = evaluation_inputs(namespace)
    except ParameterError as exc:
        raise _keyword_words(exc) from None
    for path in [namespace.release, *side.files().values()]:
        if not Path(path).is_file():
            raise FileNotFoundError(f"{path}: no such file")
    data = as_dataset(original)
    with BarProgress("evaluate", disable=not progress) as bar:
        try:
            ev = run_evaluation(data, namespace.release, kind=None if namespace.kind == "auto" else namespace.kind,
                                side=side, options=options, progress=bar,
                                original_name=getattr(data, "name", None))
        except ParameterError as exc:
            raise _keyword_words(exc) from None
    return EvaluationRun(ev)


class EvaluationRun:
    """What :func:`evaluate` returns: the evaluation, its verdict and its files.

    Attributes
    ----------
    evaluation
        The :class:`anonstudio.evaluate.Evaluation` (levels, utility, claims).
    check
        The audit's verdict (``Independent check passed`` / ``FAILED`` / ``incomplete``), "" without claims.
    """

    method = "evaluate"

    def __init__(self, evaluation: Any):
        self.evaluation = evaluation

    @property
    def check(self) -> str:
        return self.evaluation.verdict() or ""

    @property
    def complete(self) -> bool:
        return bool(self.evaluation.complete)

    @property
    def status(self) -> str:
        if self.evaluation.failed:
            return "not-met"
        return "done" if self.complete else "cancelled"

    @property
    def release(self) -> None:
        """None: an evaluation publishes nothing (it reads a release)."""
        return None

    def summary(self) -> dict[str, float]:
        """The measures per m (``prosecutor_risk_m2``...) and the utility measures, then ``seconds``."""
        ev = self.evaluation
        out: dict[str, float] = {}
        for level in ev.levels:
            out[f"prosecutor_risk_m{level.m}"] = level.prosecutor_risk.value
            out[f"share_at_risk_m{level.m}"] = level.share_at_risk.value
            if level.attribute_disclosure is not None:
                out[f"attribute_disclosure_m{level.m}"] = level.attribute_disclosure.value
        for key in ("count_query_error", "frequency_distortion"):
            value = (getattr(ev, key) or {}).get("value")
            if value is not None:
                out[key] = value
        out["seconds"] = round(ev.seconds, 4)
        return out

    def lines(self) -> list[str]:
        """What ``anonstudio-cli evaluate`` prints."""
        return self.evaluation.lines()

    def to_json(self, timings: bool = True) -> dict:
        """The evaluation as the CLI's ``--json`` writes it (``timings=False``: without wall-clock fields)."""
        from ..data.io.jsonfile import strict_json

        return strict_json(self.evaluation.to_json(timings))

    def save(self, *, json: str | Path | None = None, csv: str | Path | None = None, timings: bool = True) -> None:
        """Write the CLI's ``--json`` and ``--csv`` files (atomically, with its writers)."""
        from ..cli.commands.evaluate import write_evaluation
        from ..data.io import check_output_path

        ev = self.evaluation
        inputs = (Path(ev.release_path), *ev.side.files().values())
        paths = [Path(p) for p in (json, csv) if p is not None]
        for path in paths:
            check_output_path(path, inputs=inputs)
        if len(paths) == 2 and paths[0].resolve() == paths[1].resolve():
            raise ValueError("csv and json name the same file")
        write_evaluation(ev, paths[0] if json is not None else None, Path(csv) if csv is not None else None,
                         timings=timings)

    def __repr__(self) -> str:
        return f"<evaluation of {Path(self.evaluation.release_path).name}: {self.check or self.status}>"

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def _repr_html_(self) -> str:
        import html

        from .html import measures_table

        parts = ['<div style="font-family:sans-serif;max-width:60em">',
                 f"<div><b>Evaluation of {html.escape(Path(self.evaluation.release_path).name)} against "
                 f"{html.escape(self.evaluation.original_name)}</b> ({html.escape(self.status)})</div>"]
        if self.check:
            colour = {"done": "#1b7f3b", "not-met": "#b3261e"}.get(self.status, "#9a6700")
            parts.append(f'<div style="color:{colour};font-weight:bold">{html.escape(self.check)}</div>')
        parts.append(measures_table(self.summary(), "evaluate", limit=20))
        parts.append("</div>")
        return "".join(parts)


evaluate.__signature__ = _signature()  # type: ignore[attr-defined]
