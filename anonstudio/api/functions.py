"""One function per method family, built from its :class:`~anonstudio.methods.contract.MethodSpec`.

``an.kmanon(data, k=5, m=2)`` takes the family's parameters as keyword arguments named as the
params dataclass fields (the CLI flag without ``--``, ``-`` as ``_``), with the dataclass's defaults
and :func:`anonstudio.params.validate` as the only validation, exactly like the CLI flags and the
studio's panel. Signature and docstring come from the same field specs, so ``help(an.kmanon)`` and
tab completion show every parameter. A call runs the CLI's pipeline: prepare (parameters, data
kind, the family's data checks), then :func:`~anonstudio.methods.contract.run_and_verify`.
"""
from __future__ import annotations

import dataclasses
import inspect
import textwrap
import warnings
from collections.abc import Callable
from typing import Any

from ..params import ParameterError

__all__ = ["family_function", "keyword_error", "RUN_KEYWORDS"]

#: Keywords every family function takes besides its parameters.
RUN_KEYWORDS = ("progress",)


def keyword_error(exc: ParameterError) -> ParameterError:
    """``exc`` worded with the keyword argument at fault instead of the studio's label (``k must be ...``)."""
    if not exc.name:
        return exc
    text = str(exc)
    if exc.problem and exc.problem != text:
        message = f"{exc.name} {exc.problem}"  # "k must be at least 2 (got 1)" instead of the studio's label
    elif text.startswith((f"{exc.name} ", f"{exc.name}=")):
        message = text  # already names it ("k = 50 is larger than the 6 records ...")
    else:
        message = f"{exc.name}: {text}"
    return ParameterError(message, name=exc.name, problem=exc.problem)


def _option_name(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def _annotations(params_cls: type) -> dict[str, Any]:
    return {f.name: f.type for f in dataclasses.fields(params_cls)}


def _signature(spec: Any) -> inspect.Signature:
    from ..params import specs

    types = _annotations(spec.params)
    parameters = [inspect.Parameter("data", inspect.Parameter.POSITIONAL_ONLY, annotation="Any")]
    for p in specs(spec.params):
        parameters.append(inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=p.default,
                                            annotation=types.get(p.name, inspect.Parameter.empty)))
    for flag, keywords in spec.cli_options:
        parameters.append(inspect.Parameter(_option_name(flag), inspect.Parameter.KEYWORD_ONLY,
                                            default=keywords.get("default")))
    parameters.append(inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=True,
                                        annotation="bool"))
    return inspect.Signature(parameters, return_annotation="Run")


def _default_text(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, tuple) and not value:
        return "()"
    return repr(value)


def _bound(value: float | None) -> str:
    """A range bound as it reads best: whole numbers in full (1,000,000), others as %g."""
    if value is None:
        return ""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def _docstring(spec: Any) -> str:
    from ..params import specs

    def para(text: str, indent: str = "    ") -> str:
        return textwrap.fill(" ".join(text.split()), width=100, initial_indent=indent, subsequent_indent=indent)

    call = spec.name.replace("-", "_")
    lines = [f"{spec.title}: {spec.summary}.", "", textwrap.fill(" ".join(spec.description.split()), width=100), "",
             "Parameters", "----------",
             "data",
             para("The dataset: loaded data (an.open, an.sample), a path or a bundled sample's name (read as "
                  f"`anonstudio-cli {spec.name}` reads its DATASET), a pandas DataFrame or a list of item sets.")]
    for p in specs(spec.params):
        kind = p.kind if p.kind != "choice" else "{" + ", ".join(repr(c) for c in p.choices) + "}"
        lines.append(f"{p.name} : {kind}, default {_default_text(p.default)}")
        text = f"{p.label}. {p.tooltip}"
        if p.kind in ("int", "float") and (p.minimum is not None or p.maximum is not None):
            text += f" Range {_bound(p.minimum)}..{_bound(p.maximum)}."
        if p.optional:
            text += f" None: {p.none_means or 'not set'}."
        lines.append(para(text))
    for flag, keywords in spec.cli_options:
        lines.append(f"{_option_name(flag)} : optional, default {_default_text(keywords.get('default'))}")
        lines.append(para(str(keywords.get("help", "")).replace("%%", "%")))
    lines += ["progress : bool, default True",
              para("Show a progress bar (tqdm's notebook bar in Jupyter). An interrupt (Ctrl-C, the notebook's "
                   "stop button) stops the run at its next step and returns it, partial and marked incomplete."),
              "", "Returns", "-------", "Run",
              para("`.check` (the verdict), `.summary()`, `.release`, `.to_json()`, `.save(...)`; outputs: "
                   + ", ".join(f"{e.flag.lstrip('-').replace('-', '_')}= ({e.label})" for e in spec.exports)
                   + (", " if spec.exports else "") + "json="),
              "", "Raises", "------", "ParameterError",
              para("A value outside its range or choices, or a combination the method refuses; `.name` is the "
                   "keyword at fault."),
              "", "Examples", "--------",
              ">>> import anonstudio as an",
              f">>> run = an.{call}(an.sample({spec.samples[0][0]!r}), ...)" if spec.samples else
              f">>> run = an.{call}(data, ...)",
              ">>> run.check"]
    return "\n".join(lines)


def family_function(spec: Any) -> Callable[..., Any]:
    """The library function of ``spec``'s family (named as its CLI command, ``_`` for ``-``)."""
    signature = _signature(spec)
    option_names = [_option_name(flag) for flag, _ in spec.cli_options]

    def run_family(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)  # TypeError for a keyword the family does not take
        given = dict(bound.arguments)
        data = given.pop("data")
        progress = given.pop("progress", True)
        options = {name: given.pop(name, None) for name in option_names}
        return run_method(spec, data, given, options, progress=progress)

    name = spec.name.replace("-", "_")
    run_family.__name__ = run_family.__qualname__ = name
    run_family.__module__ = "anonstudio"
    run_family.__doc__ = _docstring(spec)
    run_family.__signature__ = signature  # type: ignore[attr-defined]
    return run_family


def ignored_keywords(spec: Any, values: dict[str, Any], params: Any) -> list[str]:
    """One line per keyword given that the method ignores with these settings (``enabled_when``), as the CLI warns
    for such a flag."""
    from ..params import is_enabled, specs

    current = {p.name: getattr(params, p.name) for p in specs(spec.params)}
    out = []
    for p in specs(spec.params):
        if p.name in values and not is_enabled(p, current):
            when = " and ".join(f"{name} is {' or '.join(map(repr, allowed))}"
                                for name, allowed in p.enabled_when.items())
            out.append(f"{spec.name.replace('-', '_')}: {p.name} is ignored: it only applies when {when}")
    return out


def run_method(spec: Any, data: Any, values: dict[str, Any], options: dict[str, Any], *,
               progress: bool = True) -> Any:
    """Validate, load, run and verify ``spec`` as the CLI's method command does; a :class:`~.run.Run`."""
    from ..methods.contract import MethodRun, dataset_ref, prepare, run_and_verify
    from ..params import from_dict
    from .data import as_dataset
    from .progress import BarProgress
    from .run import Run

    try:
        params = from_dict(spec.params, values)
    except ParameterError as exc:
        raise keyword_error(exc) from None
    for line in ignored_keywords(spec, values, params):
        warnings.warn(line, UserWarning, stacklevel=3)  # at the caller of an.<family>
    data = as_dataset(data, spec.open_dataset)
    try:
        prepare(spec, data, params)
        spec.check_cli_options(data, params, options)
    except ParameterError as exc:
        raise keyword_error(exc) from None
    with spec.run_context(options), BarProgress(spec.name, disable=not progress) as bar:
        try:
            method_run = run_and_verify(spec, data, params, bar, prepared=True)
        except ParameterError as exc:
            raise keyword_error(exc) from None
        except KeyboardInterrupt:
            # A second interrupt, or one that came while no handler of ours was installed: the run stops here
            # with nothing to show but its recipe, marked incomplete like any cancelled run.
            method_run = MethodRun(spec, params, data, dataset_ref(data), cancelled=True)
    return Run(method_run, options)
