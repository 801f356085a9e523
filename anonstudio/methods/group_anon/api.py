"""One entry point for the three group-anonymization schemes.

>>> result = anonymize(table, GroupAnonParams(scheme="mondrian", k=4, l=4,
...                    qi="age,sex", sensitive="occupation"))   # doctest: +SKIP
>>> result.release.n_groups                                        # doctest: +SKIP
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ...data.hierarchy import Hierarchy
from ...data.table import Table
from ...jobs import NullProgress, Progress
from ...params import param, validate
from .release import GroupRelease

__all__ = ["GroupAnonParams", "GroupAnonResult", "anonymize", "SCHEMES"]

SCHEMES = ("mondrian", "global", "anatomy")


@dataclass(frozen=True)
class GroupAnonParams:
    """Parameters of k-anonymity / l-diversity / Anatomy anonymization."""

    scheme: str = param(
        "mondrian", label="Scheme", choices=SCHEMES,
        choice_labels=("Mondrian (local recoding)", "Global recoding (hierarchies)", "Anatomy (separate sensitive values)"),
        tooltip="Mondrian cuts the table into small boxes and generalizes each box separately. "
                "Global recoding generalizes a value the same way everywhere, using hierarchies. "
                "Anatomy keeps the quasi-identifiers exact but publishes each group's sensitive values "
                "as an unordered bag.")
    k: int = param(
        4, label="k", minimum=1, maximum=100_000,
        tooltip="Every published group holds at least k people, so each person hides among k-1 others. "
                "Anatomy uses groups of max(k, l) people.")
    l: int | None = param(
        None, label="l (distinct sensitive values)", minimum=1, maximum=10_000, optional=True,
        tooltip="Every group contains at least l different sensitive values, so knowing someone's group "
                "never pins down their sensitive value. Anatomy needs it; leave unset for plain k-anonymity.")
    qi: str = param(
        "", label="Quasi-identifiers",
        tooltip="Comma-separated columns an attacker may know from elsewhere (age, sex, ...). "
                "Empty: the columns marked quasi-identifier in the table.")
    sensitive: str = param(
        "", label="Sensitive column",
        tooltip="The column that must not be inferred, e.g. occupation or disease. "
                "Empty: the column marked sensitive in the table.")
    max_suppression: float = param(
        0.0, label="Suppression limit (share of rows)", minimum=0.0, maximum=0.5, step=0.01, decimals=3,
        advanced=True,
        tooltip="Global recoding only: up to this share of rows may be suppressed instead of generalizing "
                "everyone further. Suppressed rows are published with every quasi-identifier hidden ('*'), "
                "together in one group that must itself satisfy k and l.")
    seed: int = param(
        1, label="Seed", minimum=0, maximum=2**31 - 1, advanced=True,
        tooltip="Anatomy draws rows at random within each sensitive value; the same seed gives the same table.")


@dataclass(eq=False)
class GroupAnonResult:
    """An anonymization outcome.

    ``release`` is None only when the run was cancelled before it had any
    valid release (Anatomy); a cancelled Mondrian or global-recoding run
    returns a valid but coarser release with ``complete=False``.
    """

    release: GroupRelease | None
    complete: bool
    scheme: str
    params: GroupAnonParams
    table: Table
    seconds: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)


def anonymize(
    table: Table,
    params: GroupAnonParams,
    progress: Progress | None = None,
    *,
    hierarchies: Mapping[str, Hierarchy | Mapping[str, Sequence[str]]] | None = None,
) -> GroupAnonResult:
    """Anonymize ``table`` with the scheme of ``params``.

    Parameters
    ----------
    table
        Cleartext table; rows with a missing quasi-identifier or sensitive value
        are rejected (drop them first with ``domains.complete_rows``).
    hierarchies
        Column -> :class:`~anonstudio.data.hierarchy.Hierarchy` (or
        ``{leaf text: [leaf, parent, ..., root]}``): global recoding climbs it;
        Mondrian cuts categorical values in its leaf order.

    Raises
    ------
    ValueError
        Unknown columns, missing values, or no release can meet k and l.
    """
    from . import anatomy, global_recoding, mondrian

    validate(params)
    progress = progress or NullProgress()
    start = time.perf_counter()
    if params.scheme == "mondrian":
        trees = {c: h for c, h in (hierarchies or {}).items() if isinstance(h, Hierarchy)}
        release, complete, info = mondrian.mondrian(table, params, progress, hierarchies=trees)
    elif params.scheme == "global":
        release, complete, info = global_recoding.global_recoding(table, params, progress, hierarchies=hierarchies)
    else:
        release, complete, info = anatomy.anatomy(table, params, progress)
    return GroupAnonResult(release, complete, params.scheme, params, table, time.perf_counter() - start, info)
