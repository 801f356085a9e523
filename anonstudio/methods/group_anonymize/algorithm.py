"""The entry points of group anonymization: :func:`run_group_anonymize` (any table, the pipeline's call) and
:func:`anonymize` (a table with no missing value, hierarchies given as objects).

>>> result = run_group_anonymize(table, GroupAnonymizeParams(scheme="mondrian", k=4, l=4,
...                              qi=("age", "sex"), sensitive="occupation"))   # doctest: +SKIP
>>> result.release.n_groups                                                    # doctest: +SKIP
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence

from ...data.hierarchy import Hierarchy
from ...data.table import Role, Table
from ...jobs import NullProgress, Progress
from ...params import ParameterError
from .domains import complete_rows, resolve_columns
from .params import PUBLISHED, GroupAnonymizeParams
from .result import GroupAnonymizeResult

__all__ = ["run_group_anonymize", "anonymize", "columns_of", "prepared_table", "load_hierarchies", "release_text"]


def run_group_anonymize(data: Table, params: GroupAnonymizeParams, progress: Progress | None = None, *,
                        rows: int | None = None) -> GroupAnonymizeResult:
    """Anonymize ``data`` (or read the published CSV of ``params``) after dropping incomplete rows.

    Parameters
    ----------
    data
        The cleartext table; rows with a missing quasi-identifier or sensitive value are dropped first.
    params
        The recipe (validated by the pipeline, :func:`anonstudio.methods.contract.prepare`).
    rows
        Keep only the first this many complete rows (the threat analysis of a large table).

    Raises
    ------
    ParameterError
        Columns the table lacks, or no release can meet k and ℓ on these rows.
    DataFormatError
        A published CSV that is malformed or contradicts the table.
    """
    progress = progress or NullProgress()
    qi, sensitive = columns_of(data, params)
    analysed, dropped = prepared_table(data, params, rows, columns=(qi, sensitive))
    t0 = time.perf_counter()
    if params.scheme == PUBLISHED:
        from .published_csv import import_release

        progress.set(0.0, f"reading {params.published.name}")
        release = import_release(params.published, analysed, qi=qi, sensitive=sensitive,
                                 gid_column=params.group_column, id_column=params.id_column,
                                 domain_path=params.domains)
        result = GroupAnonymizeResult(analysed, release, params.scheme, dropped=dropped, info=None)
    else:
        progress.set(0.0, f"anonymizing {analysed.n_rows:,} rows")
        recipe = dataclasses.replace(params, qi=tuple(qi), sensitive=sensitive, l=params.effective_l)
        try:
            result = anonymize(analysed, recipe, progress, hierarchies=load_hierarchies(params))
        except ValueError as exc:
            raise ParameterError(str(exc)) from None
        result.dropped = dropped
        result.scheme = params.scheme
    result.seconds = time.perf_counter() - t0
    result.text = release_text(result, params)
    return result


def anonymize(table: Table, params: GroupAnonymizeParams, progress: Progress | None = None, *,
              hierarchies: Mapping[str, Hierarchy | Mapping[str, Sequence[str]]] | None = None
              ) -> GroupAnonymizeResult:
    """Anonymize ``table`` with the scheme of ``params`` (its ``qi`` and ``sensitive`` named, ``l`` as applied).

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

    if params.scheme == PUBLISHED:
        raise ValueError("the scheme 'published' reads a release; it does not anonymize")
    progress = progress or NullProgress()
    start = time.perf_counter()
    if params.scheme == "mondrian":
        trees = {c: h for c, h in (hierarchies or {}).items() if isinstance(h, Hierarchy)}
        release, complete, info = mondrian.mondrian(table, params, progress, hierarchies=trees)
    elif params.scheme == "global":
        release, complete, info = global_recoding.global_recoding(table, params, progress, hierarchies=hierarchies)
    else:
        release, complete, info = anatomy.anatomy(table, params, progress)
    return GroupAnonymizeResult(table, release, params.scheme, finished=complete,
                                seconds=time.perf_counter() - start, info=info)


def load_hierarchies(params: GroupAnonymizeParams) -> dict:
    """The hierarchy files of ``params``, loaded: column -> Hierarchy."""
    from ...data.io import load_hierarchy

    return {column: load_hierarchy(path) for column, path in params.hierarchies}


def columns_of(table: Table, params: GroupAnonymizeParams) -> tuple[list[str], str]:
    """Quasi-identifiers and sensitive column: as given, else a published CSV's header, else the table's roles."""
    qi = list(params.qi)
    try:
        if not qi and params.scheme == PUBLISHED and params.published is not None and params.sensitive:
            from .published_csv import published_columns

            qi = published_columns(params.published, table, sensitive=params.sensitive,
                                   gid_column=params.group_column, id_column=params.id_column)
        return resolve_columns(table, qi, params.sensitive)
    except ValueError as exc:  # DataFormatError included
        raise ParameterError(str(exc), name="qi") from None


def prepared_table(table: Table, params: GroupAnonymizeParams, rows: int | None = None, *,
                   columns: tuple[list[str], str] | None = None) -> tuple[Table, int]:
    """The rows with no missing quasi-identifier or sensitive value (the first ``rows`` of them), and how
    many rows were dropped; the sensitive column is marked as such.

    ``columns`` are the ``(qi, sensitive)`` of :func:`columns_of` when the caller has them already (so a
    published CSV's header is read once).
    """
    qi, sensitive = columns if columns is not None else columns_of(table, params)
    complete = complete_rows(table, [*qi, sensitive]).with_roles(**{sensitive: Role.SENSITIVE})
    if rows is not None and complete.n_rows > rows:
        frame = complete.frame.iloc[:rows].reset_index(drop=True)
        complete = Table(frame, dict(complete.roles), complete.name, complete.source)
    return complete, table.n_rows - complete.n_rows


def release_text(result: GroupAnonymizeResult, params: GroupAnonymizeParams) -> str:
    """One line: what was published and how large its groups are."""
    if result.release is None:
        return "No release yet."
    if params.scheme == PUBLISHED:
        what = f"imported {params.published.name} ({result.release.scheme})"
    elif params.scheme == "anatomy":
        what = f"Anatomy, ℓ = {params.effective_l}"
    else:
        name = "Mondrian" if params.scheme == "mondrian" else "Global recoding"
        what = f"{name}, k = {params.k}" + (f", ℓ = {params.l}" if params.l is not None else "")
    sizes = result.release.group_sizes()
    return (f"{what}: {result.release.n_rows:,} rows in {result.release.n_groups:,} groups "
            f"(size {int(sizes.min())}–{int(sizes.max())}, mean {sizes.mean():.1f})")
