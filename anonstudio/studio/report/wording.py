"""What a report says in words: the verdict, each measure's meaning, the parameters, the input, the command.

Plain text only (the HTML layer escapes it): :func:`verdict` states a run's
status and never more than was checked; :func:`measure_meaning` looks a
summary measure up in the glossary (:mod:`anonstudio.glossary`);
:func:`parameter_rows` and :func:`input_rows` give the rows of the parameters
and input tables as the studio's panel words them; :func:`command_text` the
command line that repeats the run. Values read as :mod:`anonstudio.formatting`
writes them.
"""
from __future__ import annotations

import re
from typing import Any

from ... import glossary
from ...data.kinds import kind_words
from ...formatting import integer, measure
from ...methods.contract import CHECK_INCOMPLETE, MethodRun, verdict_head
from ...params import ParamSpec, is_enabled, specs
from ..command_line import NotReproducible, run_command_line

__all__ = ["verdict", "measure_term", "measure_meaning", "own_meanings", "parameter_rows", "input_rows",
           "command_text"]


def verdict(run: MethodRun) -> tuple[str, str, str]:
    """``(word, state, sentence)``: the run's status as a report states it; never more than was checked.

    ``word`` is the contract's verdict (``Independent check passed`` / ``FAILED`` / ``incomplete``, the same
    words as the CLI and the studio), or ``Measured`` for a method that promises nothing. ``state`` is a CSS
    class: ``ok``, ``info``, ``failed``, ``incomplete`` or ``warning``.
    """
    status = run.status
    reason = run.status_reason()
    head = verdict_head(run)
    if status == "not-met":  # the reason reads "the independent check found the promise broken (...)"
        return (head, "failed", f"{reason[:1].upper()}{reason[1:]}. Do not publish this release.")
    if status == "cancelled":
        return (head or CHECK_INCOMPLETE, "incomplete",
                f"Stopped early: {reason}. Nothing in this section is a guarantee.")
    if status == "unverified":
        return (head, "warning", "Complete, but the independent check was skipped: the promise is unchecked.")
    if run.spec.guarantee:
        return (head, "ok", "Complete, and the independent check confirmed the promise.")
    return ("Measured", "info", "Complete. This method measures; it makes no privacy promise.")


_LEVEL_SUFFIX = re.compile(r"_(?:m|l|level)\d+$")


def _candidates(key: str) -> list[str]:
    out = [key]
    for variant in (_LEVEL_SUFFIX.sub("", key), key.removesuffix("_check"), key.removesuffix("s")):
        if variant and variant not in out:
            out.append(variant)
    return out


def measure_term(key: str, family: str) -> glossary.Term | None:
    """The glossary entry explaining the summary measure ``key`` of ``family`` (a spec name), or None.

    A key is looked up as it is, without a per-size suffix (``uniqueness_m2``,
    ``k_anonymous_share_l1``), without ``_check`` and without a plural ``s``;
    it matches an entry's key, name or ASCII spelling. Entries of the run's
    own family win over general ones; another family's entry never applies
    (``merges`` means different things in two families).
    """
    terms = list(glossary.TERMS.values())
    for candidate in _candidates(key):
        low = candidate.lower()
        found = [t for t in terms if low in (t.key.lower(), t.name.lower(), t.ascii.lower())
                 and t.family in (family, "")]
        if found:
            return min(found, key=lambda t: t.family != family)
    return None


def measure_meaning(key: str, family: str, own: dict | None = None) -> tuple[str, str]:
    """``(name, meaning)`` of a summary measure: the glossary's, else the run's own (``own``); ``("", "")`` if none.

    ``own`` is the ``measure_meanings`` mapping a result's JSON may carry (the
    threat family names its measures' meanings there); the glossary comes first.
    """
    term = measure_term(key, family)
    if term is not None:
        return term.name, term.meaning
    if own and isinstance(own.get(key), str):
        return "", own[key]
    return "", ""


def own_meanings(run: MethodRun) -> dict:
    """The ``measure_meanings`` a run's result names in its JSON ({} when it names none)."""
    if run.result is None:
        return {}
    meanings = run.result.to_json().get("measure_meanings")
    return dict(meanings) if isinstance(meanings, dict) else {}


def _param_value(spec: ParamSpec, value: Any, inputs: dict[str, dict], labels: dict[str, str]) -> str:
    """A parameter's value as the studio's panel shows it (choice labels, yes/no, files with their SHA-256).

    ``labels`` maps field names to labels (a per-level vector left empty names the scalar it repeats).
    """
    if value is None:
        return spec.none_means or "not set"
    kind = spec.kind
    if kind in ("column", "columns", "column_paths") and not value:  # empty: the panel's "none" text
        return spec.none_means or "none"
    if kind == "bool":
        return "yes" if value else "no"
    if kind == "choice":
        return spec.choice_label(value)
    if kind == "path":
        sha = (inputs.get(spec.name) or {}).get("sha256")
        return f"{value} (SHA-256 {sha})" if sha else str(value)
    if kind == "columns":
        return ", ".join(map(str, value)) or "none"
    if kind == "levels":
        if not value and spec.per_level:
            scalar = spec.per_level[1]
            return f"the same {labels.get(scalar, scalar)} for every level"
        return ", ".join(measure(v) for v in value)
    if kind == "column_paths":
        parts = []
        for column, path in value:
            sha = (inputs.get(f"{spec.name}[{column}]") or {}).get("sha256")
            parts.append(f"{column}: {path}" + (f" (SHA-256 {sha})" if sha else ""))
        return "; ".join(parts) or "none"
    return measure(value)


def parameter_rows(run: MethodRun) -> list[tuple[str, str, str, bool]]:
    """``(section, label, value, used)`` for every parameter, grouped as the studio's panel groups them.

    Sections in order of first appearance, advanced ones after the others
    (their section reads "… (advanced)").
    """
    params = run.params
    fields = specs(params)
    values = {s.name: getattr(params, s.name) for s in fields}
    groups: dict[tuple[bool, str], list[ParamSpec]] = {}
    for s in fields:
        groups.setdefault((s.advanced, s.section), []).append(s)
    labels = {s.name: s.label for s in fields}
    rows = []
    for (advanced, section), members in sorted(groups.items(), key=lambda kv: kv[0][0]):  # stable: keeps order
        title = f"{section or 'Other settings'} (advanced)" if advanced else section
        rows += [(title, s.label, _param_value(s, values[s.name], run.inputs, labels), is_enabled(s, values))
                 for s in members]
    return rows


def _size_text(size: int | None) -> str:
    if size is None:
        return "unknown"
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if size >= scale:
            return f"{integer(size)} bytes ({size / scale:.1f} {unit})"
    return f"{integer(size)} bytes"


def input_rows(run: MethodRun) -> list[tuple[str, str]]:
    """The input as ``(label, value)`` rows: name, kind, records, file, size, SHA-256."""
    ref = run.dataset
    rows = [("Dataset", ref.name), ("Kind", kind_words(ref.kind))]
    data = run.data
    for attr, word in (("n_records", "Records"), ("n_rows", "Rows")):
        count = getattr(data, attr, None)
        if isinstance(count, int):
            rows.append((word, integer(count)))
            break
    if ref.path is None:
        rows.append(("File", "built in memory, not read from a file: no file size and no SHA-256 to check it "
                             "against"))
    else:
        rows += [("File", ref.path), ("Size", _size_text(ref.size)), ("SHA-256", ref.sha256 or "unknown")]
    return rows


def command_text(run: MethodRun) -> tuple[str | None, str]:
    """``(command line, note)``: the command that repeats the run, or None and why there is none."""
    try:
        return run_command_line(run), ""
    except NotReproducible as exc:
        return None, f"No command line: {exc}."
