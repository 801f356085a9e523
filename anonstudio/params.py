"""Qt-free parameter specifications shared by the GUI panels, the CLI and project files.

A method declares its parameters as a frozen dataclass whose fields are made
with :func:`param`. The metadata carries the label, the valid range and a
plain-language tooltip; the GUI builds its form from it, the CLI its flags, and
:func:`validate` checks values from any source against the same ranges. A
params object is the whole recipe of a run: :func:`to_dict` plus the dataset
reference reproduces it, and :func:`from_dict` reads it back.

Kinds of field (``kind=``, inferred from the default when not given):

``bool``, ``int``, ``float``, ``str``
    Scalars. Numbers reject NaN and infinities; integers reject fractions.
``choice``
    One of ``choices`` (``choice_labels`` are shown, ``choice_tooltips``
    explain each one).
``path``
    An input file (:class:`pathlib.Path`); ``must_exist`` checks it is a
    regular file. ``file_filter`` is the open-dialog filter.
``column`` / ``columns``
    A column name / a tuple of column names of the loaded table.
``levels``
    A tuple of per-level numbers (``element`` is ``int`` or ``float``; the
    range applies to every element). Empty means "the scalar for all levels".
``column_paths``
    A tuple of ``(column, Path)`` pairs, e.g. a hierarchy file per column.

Cross-field rules live in an optional ``check(self)`` method of the dataclass
that raises :class:`ParameterError` with ``name=`` the field at fault;
:func:`validate` runs it after the ranges. There is no other validation path.

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
import decimal
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "ParamSpec",
    "ParameterError",
    "param",
    "seed_param",
    "reuse_param",
    "specs",
    "spec_of",
    "validate",
    "problem_of",
    "coerce",
    "to_dict",
    "from_dict",
    "is_enabled",
    "SEED_MAX",
    "KINDS",
]

#: Every seeded method accepts seeds in [0, SEED_MAX] (fits a 32-bit spin box).
SEED_MAX = 2**31 - 1

KINDS = ("bool", "int", "float", "str", "choice", "path", "column", "columns", "levels", "column_paths")


class ParameterError(ValueError):
    """A parameter value outside its declared range or choices, or a bad combination.

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
    """How one parameter is shown, parsed and checked (see the module docstring for ``kind``)."""

    name: str
    label: str
    tooltip: str
    default: Any
    kind: str
    minimum: float | None = None
    maximum: float | None = None
    step: float | None = None
    decimals: int | None = None
    choices: tuple[Any, ...] | None = None
    choice_labels: tuple[str, ...] | None = None
    choice_tooltips: tuple[str, ...] | None = None
    optional: bool = False
    advanced: bool = False
    log_scale: bool = False
    section: str = ""
    enabled_when: Mapping[str, tuple] | None = None
    element: str | None = None
    must_exist: bool = True
    file_filter: str = "All files (*)"
    flag: str | None = None
    deprecated_flags: tuple[str, ...] = ()
    metavar: str | None = None
    per_level: tuple[str, str] | None = None
    none_means: str = ""

    @property
    def cli_flag(self) -> str:
        """The command-line flag, e.g. ``--max-suppression`` for ``max_suppression``."""
        return self.flag or "--" + self.name.replace("_", "-")

    def choice_label(self, value: Any) -> str:
        if self.choices is None or self.choice_labels is None or value not in self.choices:
            return str(value)
        return self.choice_labels[self.choices.index(value)]


def param(
    default: Any,
    *,
    label: str,
    tooltip: str,
    kind: str | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    step: float | None = None,
    decimals: int | None = None,
    choices: Sequence[Any] | None = None,
    choice_labels: Sequence[str] | None = None,
    choice_tooltips: Sequence[str] | None = None,
    optional: bool = False,
    advanced: bool = False,
    log_scale: bool = False,
    section: str = "",
    enabled_when: Mapping[str, Sequence[Any]] | None = None,
    element: type | str | None = None,
    must_exist: bool = True,
    file_filter: str = "All files (*)",
    flag: str | None = None,
    deprecated_flags: Sequence[str] = (),
    metavar: str | None = None,
    per_level: tuple[str, str] | None = None,
    none_means: str = "",
) -> Any:
    """A dataclass field with the metadata the GUI, the CLI and :func:`validate` need.

    ``optional=True`` allows ``None`` ("not set", "automatic" or "no file").
    ``enabled_when={"scheme": ("csv",)}`` enables the field only while the
    named fields hold one of the listed values; a disabled field is ignored by
    the method and greyed out in the GUI. ``flag`` overrides the CLI flag,
    ``deprecated_flags`` are old spellings that still work with a notice.
    ``per_level=("m", "k")`` (levels only) names the field giving the number
    of levels and the scalar that applies to every level when the tuple is empty.
    ``none_means`` says in plain words what an unset optional field does
    ("no ℓ-diversity requirement"); the GUI shows it beside the unticked box.
    """
    if isinstance(element, type):
        element = element.__name__
    meta = dict(
        label=label,
        tooltip=tooltip,
        kind=kind,
        minimum=minimum,
        maximum=maximum,
        step=step,
        decimals=decimals,
        choices=tuple(choices) if choices is not None else None,
        choice_labels=tuple(choice_labels) if choice_labels is not None else None,
        choice_tooltips=tuple(choice_tooltips) if choice_tooltips is not None else None,
        optional=optional,
        advanced=advanced,
        log_scale=log_scale,
        section=section,
        enabled_when={k: tuple(v) for k, v in enabled_when.items()} if enabled_when else None,
        element=element,
        must_exist=must_exist,
        file_filter=file_filter,
        flag=flag,
        deprecated_flags=tuple(deprecated_flags),
        metavar=metavar,
        per_level=tuple(per_level) if per_level else None,
        none_means=none_means,
    )
    return dataclasses.field(default=default, metadata={"anonstudio": meta})


def seed_param(default: int = 1, *, tooltip: str = "Same seed, same result: a run can be repeated exactly.",
               advanced: bool = False, label: str = "Seed") -> Any:
    """The seed field every stochastic method uses: one range, one default rule."""
    return param(default, label=label, minimum=0, maximum=SEED_MAX, advanced=advanced, tooltip=tooltip)


def reuse_param(source: type, name: str, default: Any = dataclasses.MISSING, note: str = "", **changes: Any) -> Any:
    """A copy of ``source``'s declared field ``name`` for another params class.

    Labels, ranges and tooltips stay those of ``source`` (so a composite
    recipe follows its parts as they evolve); ``default`` and ``changes``
    override, ``note`` is appended to the tooltip.
    """
    original = source.__dataclass_fields__[name]
    meta = dict(original.metadata["anonstudio"])
    meta.update(changes)
    if note:
        meta["tooltip"] = f"{meta['tooltip']} {note}"
    return dataclasses.field(default=original.default if default is dataclasses.MISSING else default,
                             metadata={"anonstudio": meta})


def _infer_kind(field: dataclasses.Field, meta: dict) -> str:
    if meta.get("kind"):
        return meta["kind"]
    if meta.get("choices") is not None:
        return "choice"
    default = field.default
    for kind, types in (("bool", bool), ("int", int), ("float", float), ("str", str), ("path", Path)):
        if isinstance(default, types):
            return kind
    annotation = str(field.type).replace("typing.", "")
    for name in ("bool", "int", "float", "str"):
        if annotation.startswith(name):
            return name
    if "Path" in annotation:
        return "path"
    raise TypeError(f"cannot tell the kind of parameter {field.name!r}; pass kind=")


def specs(params_cls_or_obj: Any) -> list[ParamSpec]:
    """The :class:`ParamSpec` of every declared field, in declaration order."""
    cls = params_cls_or_obj if isinstance(params_cls_or_obj, type) else type(params_cls_or_obj)
    cached = cls.__dict__.get("_anonstudio_specs")
    if cached is not None:
        return list(cached)
    out = []
    for f in dataclasses.fields(cls):
        meta = f.metadata.get("anonstudio")
        if meta is None:
            continue
        default = f.default if f.default is not dataclasses.MISSING else None
        out.append(ParamSpec(name=f.name, default=default, **{**meta, "kind": _infer_kind(f, meta)}))
    cls._anonstudio_specs = tuple(out)
    return out


def spec_of(params_cls_or_obj: Any, name: str) -> ParamSpec:
    """The spec of one field (KeyError if the class declares no such parameter)."""
    for spec in specs(params_cls_or_obj):
        if spec.name == name:
            return spec
    raise KeyError(name)


def is_enabled(spec: ParamSpec, values: Mapping[str, Any]) -> bool:
    """Whether ``spec``'s ``enabled_when`` rule holds for these field values."""
    if not spec.enabled_when:
        return True
    return all(values.get(name) in allowed for name, allowed in spec.enabled_when.items())


def validate(params: Any) -> Any:
    """Check every declared field, then the class's ``check()``; return ``params`` or raise.

    Raises
    ------
    ParameterError
        Naming the parameter, the bound it breaks and the value given.
    """
    values = {spec.name: getattr(params, spec.name) for spec in specs(params)}
    for spec in specs(params):
        # A field the other settings switch off is still checked when its value alone is wrong (a negative
        # count, a word that is no choice): a typo must not pass because it happens to be ignored. Files and
        # columns depend on the data and are only checked when they apply.
        if not is_enabled(spec, values) and spec.kind in ("path", "column", "columns", "column_paths"):
            continue
        problem = _problem(spec, values[spec.name])
        if problem is not None:
            raise ParameterError(f"{spec.label} {problem}", name=spec.name, problem=problem)
    check = getattr(params, "check", None)
    if callable(check):
        check()
    return params


def problem_of(spec: ParamSpec, value: Any) -> str | None:
    """What is wrong with ``value`` for ``spec`` on its own (range, kind, choice), or None."""
    return _problem(spec, value)


def _number_problem(value: Any, kind: str, spec: ParamSpec) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"must be a number (got {value!r})"
    if isinstance(value, float) and not math.isfinite(value):
        return f"must be a finite number (got {value!r})"
    if kind == "int" and int(value) != value:
        return f"must be a whole number (got {value!r})"
    if kind == "int" and abs(int(value)) > 2**63 - 1:
        return f"is too large (got {value!r})"
    if spec.minimum is not None and value < spec.minimum:
        return f"must be at least {_show(spec.minimum, kind)} (got {_show(value, kind)})"
    if spec.maximum is not None and value > spec.maximum:
        return f"must be at most {_show(spec.maximum, kind)} (got {_show(value, kind)})"
    return None


def _show(value: float, kind: str) -> str:
    """A bound or a value in an error message: whole numbers in full (2,147,483,647), others as %g."""
    if kind == "int" or (isinstance(value, (int, float)) and float(value).is_integer() and abs(value) < 1e15):
        return f"{int(value):,}"
    return f"{value:g}"


def _problem(spec: ParamSpec, value: Any) -> str | None:
    """What is wrong with ``value`` for ``spec`` (a phrase to follow its label), or None."""
    if value is None:
        return None if spec.optional else "must be set"
    kind = spec.kind
    if kind == "choice":
        if value not in spec.choices:
            return f"must be one of {', '.join(map(str, spec.choices))} (got {value!r})"
        return None
    if kind in ("int", "float"):
        return _number_problem(value, kind, spec)
    if kind == "bool":
        return None if isinstance(value, bool) else f"must be true or false (got {value!r})"
    if kind in ("str", "column"):
        # An empty column means "the column the table's roles mark" (validated against the data later).
        return None if isinstance(value, str) else f"must be text (got {value!r})"
    if kind == "path":
        return _path_problem(spec, value)
    if kind == "columns":
        if not isinstance(value, tuple) or not all(isinstance(v, str) and v.strip() for v in value):
            return f"must be a list of column names (got {value!r})"
        duplicates = sorted({v for v in value if value.count(v) > 1})
        return f"names {', '.join(duplicates)} twice" if duplicates else None
    if kind == "levels":
        if not isinstance(value, tuple):
            return f"must be a list of numbers, one per level (got {value!r})"
        for i, v in enumerate(value, 1):
            problem = _number_problem(v, spec.element or "float", spec)
            if problem is not None:
                return f"at level {i} {problem}"
        return None
    if kind == "column_paths":
        if not isinstance(value, tuple) or not all(isinstance(p, tuple) and len(p) == 2 for p in value):
            return f"must be a list of COLUMN=FILE pairs (got {value!r})"
        columns = [c for c, _ in value]
        duplicates = sorted({c for c in columns if columns.count(c) > 1})
        if duplicates:
            return f"names column {', '.join(duplicates)} twice"
        for _, path in value:
            problem = _path_problem(spec, path)
            if problem is not None:
                return problem
        return None
    return None


def _path_problem(spec: ParamSpec, value: Any) -> str | None:
    if not isinstance(value, Path):
        return f"must be a file path (got {value!r})"
    if spec.must_exist:
        if not value.exists():
            return f"names a file that does not exist: {value}"
        if not value.is_file():
            return f"must be a regular file, not a folder, pipe or device: {value}"
    return None


# ----------------------------------------------------------------- conversion
def coerce(spec: ParamSpec, raw: Any) -> Any:
    """A value of ``spec``'s kind from a CLI string, a JSON/TOML value or a Python value.

    Raises
    ------
    ParameterError
        When ``raw`` cannot be read as that kind (ranges are :func:`validate`'s job).
    """
    if raw is None:
        return None
    kind = spec.kind
    try:
        if kind == "bool":
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if kind == "int":
            return _to_int(raw)
        if kind == "float":
            if isinstance(raw, bool):
                raise ValueError
            return float(raw)
        if kind == "choice":
            for choice in spec.choices:
                if raw == choice or str(raw) == str(choice):
                    return choice
            return raw  # validate names the allowed values
        if kind in ("str", "column"):
            return str(raw)
        if kind == "path":
            return Path(str(raw)).expanduser()
        if kind == "columns":
            items = raw.split(",") if isinstance(raw, str) else list(raw)
            return tuple(str(v).strip() for v in items if str(v).strip())
        if kind == "levels":
            items = raw.split(",") if isinstance(raw, str) else list(raw)
            convert = _to_int if spec.element == "int" else float
            return tuple(convert(v.strip() if isinstance(v, str) else v) for v in items
                         if not (isinstance(v, str) and not v.strip()))
        if kind == "column_paths":
            return _column_paths(raw)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(f"{spec.label}: cannot read {raw!r} as {_KIND_WORDS[kind]}", name=spec.name,
                             problem=f"cannot read {raw!r} as {_KIND_WORDS[kind]}") from None
    return raw


_KIND_WORDS = {"bool": "true or false", "int": "a whole number", "float": "a number", "choice": "a choice",
               "str": "text", "column": "a column name", "path": "a file path", "columns": "column names",
               "levels": "comma-separated numbers", "column_paths": "COLUMN=FILE pairs"}


def _to_int(raw: Any) -> int:
    if isinstance(raw, bool):
        raise ValueError
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float):
        if not math.isfinite(raw) or raw != int(raw):
            raise ValueError
        return int(raw)
    text = str(raw).strip().replace("_", "")
    try:
        return int(text)
    except ValueError:
        # "1e6" is a whole number too; Decimal is exact, so "1e-400" is not 0 and "1e400" not infinite.
        try:
            number = decimal.Decimal(text)
        except decimal.InvalidOperation:
            raise ValueError(text) from None
        if not number.is_finite() or number != number.to_integral_value() or abs(number) > 2**63:
            raise ValueError(text) from None
        return int(number)


def _column_paths(raw: Any) -> tuple[tuple[str, Path], ...]:
    if isinstance(raw, Mapping):
        pairs = list(raw.items())
    elif isinstance(raw, str):
        pairs = [tuple(raw.split("=", 1))]
    else:
        pairs = []
        for item in raw:
            pairs.append(tuple(item.split("=", 1)) if isinstance(item, str) else tuple(item))
    out = []
    for pair in pairs:
        if len(pair) != 2 or not str(pair[0]).strip() or not str(pair[1]).strip():
            raise ValueError
        out.append((str(pair[0]).strip(), Path(str(pair[1]).strip()).expanduser()))
    return tuple(out)


def _plain(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def to_dict(params: Any) -> dict[str, Any]:
    """Every declared field as a JSON/TOML-ready value (paths as text, tuples as lists)."""
    return {spec.name: _plain(getattr(params, spec.name)) for spec in specs(params)}


def from_dict(params_cls: type, values: Mapping[str, Any], *, check: bool = True) -> Any:
    """A params object from :func:`to_dict` output (or CLI/TOML values); missing fields keep defaults.

    Raises
    ------
    ParameterError
        For an unknown field, a value of the wrong kind, or (``check=True``) a
        value :func:`validate` rejects.
    """
    known = {spec.name: spec for spec in specs(params_cls)}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ParameterError(f"unknown parameter(s) {', '.join(unknown)}; known: {', '.join(known)}",
                             name=unknown[0])
    obj = params_cls(**{name: coerce(known[name], value) for name, value in values.items()})
    return validate(obj) if check else obj
