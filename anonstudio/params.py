"""Qt-free parameter specifications shared by the GUI panels and the CLI.

A method declares its parameters as a frozen dataclass whose fields are made
with :func:`param`. The metadata carries the label, the valid range and a
plain-language tooltip; the GUI builds its spin boxes and combo boxes from it
(``anonstudio.gui.param_panel``) and :func:`validate` checks values from any
source (CLI flags, project files) against the same ranges.

Examples
--------
>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class P:
...     k: int = param(5, label="k", minimum=2, maximum=1000,
...                    tooltip="Every itemset must be shared by at least k people.")
>>> validate(P(k=1))
Traceback (most recent call last):
...
anonstudio.params.ParameterError: k must be at least 2 (got 1)
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Sequence

__all__ = ["ParamSpec", "ParameterError", "param", "specs", "validate", "replace_validated"]


class ParameterError(ValueError):
    """A parameter value outside its declared range or choices.

    Attributes
    ----------
    name
        The dataclass field at fault (``None`` when the error is not about one
        field), so a front end can name its own control or flag for it.
    problem
        The message without the parameter's label, e.g. ``"must be at least 2 (got 1)"``.
    """

    def __init__(self, message: str, name: str | None = None, problem: str | None = None):
        super().__init__(message)
        self.name = name
        self.problem = problem if problem is not None else message


@dataclass(frozen=True)
class ParamSpec:
    """How one parameter is shown and checked."""

    name: str
    label: str
    tooltip: str
    default: Any
    kind: type
    minimum: float | None = None
    maximum: float | None = None
    step: float | None = None
    decimals: int | None = None
    choices: tuple[Any, ...] | None = None
    choice_labels: tuple[str, ...] | None = None
    optional: bool = False
    advanced: bool = False
    log_scale: bool = False


def param(
    default: Any,
    *,
    label: str,
    tooltip: str,
    minimum: float | None = None,
    maximum: float | None = None,
    step: float | None = None,
    decimals: int | None = None,
    choices: Sequence[Any] | None = None,
    choice_labels: Sequence[str] | None = None,
    optional: bool = False,
    advanced: bool = False,
    log_scale: bool = False,
) -> Any:
    """A dataclass field with the metadata the GUI and :func:`validate` need.

    ``optional=True`` allows ``None`` (shown as an unchecked box / "auto").
    """
    meta = dict(
        label=label,
        tooltip=tooltip,
        minimum=minimum,
        maximum=maximum,
        step=step,
        decimals=decimals,
        choices=tuple(choices) if choices is not None else None,
        choice_labels=tuple(choice_labels) if choice_labels is not None else None,
        optional=optional,
        advanced=advanced,
        log_scale=log_scale,
    )
    return dataclasses.field(default=default, metadata={"anonstudio": meta})


def _field_kind(field: dataclasses.Field, default: Any) -> type:
    if isinstance(default, bool):
        return bool
    if isinstance(default, int):
        return int
    if isinstance(default, float):
        return float
    if isinstance(default, str):
        return str
    annotation = str(field.type)
    for name, kind in (("bool", bool), ("int", int), ("float", float), ("str", str)):
        if annotation.startswith(name):
            return kind
    return object


def specs(params_cls_or_obj: Any) -> list[ParamSpec]:
    """The :class:`ParamSpec` of every declared field, in declaration order."""
    out = []
    for f in dataclasses.fields(params_cls_or_obj):
        meta = f.metadata.get("anonstudio")
        if meta is None:
            continue
        default = f.default if f.default is not dataclasses.MISSING else None
        out.append(ParamSpec(name=f.name, default=default, kind=_field_kind(f, default), **meta))
    return out


def validate(params: Any) -> Any:
    """Check every declared field of ``params``; return it unchanged or raise.

    Raises
    ------
    ParameterError
        Naming the parameter, the bound it breaks and the value given.
    """
    for spec in specs(params):
        problem = _problem(spec, getattr(params, spec.name))
        if problem is not None:
            raise ParameterError(f"{spec.label} {problem}", name=spec.name, problem=problem)
    return params


def _problem(spec: ParamSpec, value: Any) -> str | None:
    """What is wrong with ``value`` for ``spec`` (a phrase to follow its label), or None."""
    if value is None:
        return None if spec.optional else "must be set"
    if spec.choices is not None:
        if value not in spec.choices:
            return f"must be one of {', '.join(map(str, spec.choices))} (got {value!r})"
        return None
    if spec.kind in (int, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"must be a number (got {value!r})"
        if spec.kind is int and int(value) != value:
            return f"must be a whole number (got {value!r})"
        if spec.minimum is not None and value < spec.minimum:
            return f"must be at least {spec.minimum:g} (got {value:g})"
        if spec.maximum is not None and value > spec.maximum:
            return f"must be at most {spec.maximum:g} (got {value:g})"
    return None


def replace_validated(params: Any, **changes: Any) -> Any:
    """``dataclasses.replace`` followed by :func:`validate`."""
    return validate(dataclasses.replace(params, **changes))
