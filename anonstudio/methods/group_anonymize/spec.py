"""The group-anonymization family: k-anonymity / ℓ-diversity by Mondrian or global recoding, and Anatomy.

Imports lightly (the CLI builds its commands from every spec): the algorithm,
the verifier and pandas-heavy modules are imported where they are used.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...data.table import Table
from ...params import ParameterError
from ..contract import Export, Figure, MethodRun, MethodSpec, Stage, write_evaluated_exports
from .params import PUBLISHED, GroupAnonymizeParams
from .terms import TERMS

if TYPE_CHECKING:  # the writers' type only: data.io imports every loader, which --help must not
    from ...data.io.atomic import OutputSet

__all__ = ["GroupAnonymizeSpec", "SPEC", "check_release", "example_table", "guarantee_sentence",
           "write_group_release"]


def example_table(rows: int = 300) -> Table:
    """The first complete rows of the bundled Adult sample (with its roles: occupation sensitive)."""
    from ...data.samples import load_sample

    table = load_sample("adult")
    frame = table.frame.dropna().iloc[:rows].reset_index(drop=True)
    return Table(frame, dict(table.roles), f"adult ({rows} rows)", None)


def check_release(result, params: GroupAnonymizeParams):
    """The independent verifier on the release of ``result`` (a GroupAnonymizeResult): k, and ℓ as the scheme
    applies it; the row id column of ``params``, when the table has it, is checked for leaking protected values."""
    from ...verifiers.group_anonymize import verify_group_release

    extra = {}
    if params.id_column is not None and params.id_column in result.table.frame.columns:
        extra[params.id_column] = result.table.frame[params.id_column].tolist()
    return verify_group_release(result.table, result.release, k=params.k, l=params.effective_l,
                                extra_columns=extra)


def guarantee_sentence(params: GroupAnonymizeParams, sensitive: str) -> str:
    """The promise of a group release in plain words."""
    l = params.effective_l
    parts = []
    if params.scheme != "anatomy":
        parts.append(f"every person shares the published quasi-identifier values with at least {params.k - 1} "
                     "others")
    if l is not None:
        parts.append(f"every group holds at least {l} different values of {sensitive}")
    return ("In the published table, " + " and ".join(parts) + ".") if parts else "No group requirement was set."


def write_group_release(path: Path, result, params: Any, outputs: OutputSet) -> None:
    """The release of ``result`` as the published CSV (group column and id column as ``params`` name them)."""
    from .published_csv import export_release

    export_release(result.release, result.table, outputs.path_for(path), gid_column=params.group_column,
                   id_column=params.id_column)


def _write_release(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    write_group_release(path, run.result, run.params, outputs)


class GroupAnonymizeSpec(MethodSpec):
    name = "group-anonymize"
    samples = (("adult", {}),)
    title = "Group anonymization (k-anonymity, ℓ-diversity, Anatomy)"
    summary = "group-anonymize a table (Mondrian, global recoding or Anatomy), or check a published CSV"
    description = (
        "Partition the rows of a table into groups of at least k people with at least ℓ distinct sensitive values, "
        "by Mondrian local recoding, optimal global recoding over hierarchies, or Anatomy (exact quasi-identifiers, "
        "sensitive values published per group). Rows with a missing quasi-identifier or sensitive value are dropped "
        "first. The release is checked by an independent verifier; with --scheme published an existing anonymized "
        "CSV is read and checked instead.")
    reference = (
        "K. LeFevre, D. DeWitt, R. Ramakrishnan. <i>Mondrian multidimensional k-anonymity.</i> ICDE 2006. "
        "X. Xiao, Y. Tao. <i>Anatomy: simple and effective privacy preservation.</i> VLDB 2006. "
        "As used by M. Boreale, F. Corradi, C. Viscardi. <i>Relative privacy threats and learning from anonymized "
        "data.</i> IEEE TIFS 2020.")
    params = GroupAnonymizeParams
    data_kinds = (Table,)
    release_kind = "table"
    guarantee = True
    terms = TERMS
    stages = (Stage("release", "anonymizing", 3.0), Stage("verify", "independent check", 1.0))
    exports = (Export("release", "Anonymized table", "--out",
                      "the anonymized table as CSV: group column, published quasi-identifier cells ([20-29], "
                      "{a|b}, *), sensitive value or {multiset}", (".csv",), _write_release),)

    def example(self):
        return example_table(), GroupAnonymizeParams(k=4, l=2)

    def check_data(self, table: Table, params: GroupAnonymizeParams) -> None:
        from .algorithm import columns_of, prepared_table

        columns = set(map(str, table.frame.columns))
        if params.id_column is not None and params.id_column not in columns:
            raise ParameterError(f"The table has no column {params.id_column!r}", name="id_column")
        qi, sensitive = columns_of(table, params)
        prepared, _ = prepared_table(table, params, columns=(qi, sensitive))
        if params.scheme != PUBLISHED and params.k > prepared.n_rows:
            raise ParameterError(f"k = {params.k:,} is larger than the {prepared.n_rows:,} complete rows", name="k")
        l = params.effective_l
        if params.scheme != PUBLISHED and l is not None:
            distinct = int(prepared.frame[sensitive].nunique())
            if distinct < l:
                raise ParameterError(f"ℓ = {l:,} is more than the {distinct:,} different values of {sensitive!r} "
                                     "in the complete rows: no group can hold that many", name="l")
            if params.scheme == "anatomy":
                largest = int(prepared.frame[sensitive].value_counts().max())
                if largest * l > prepared.n_rows:
                    raise ParameterError(f"ℓ = {l:,} is impossible for Anatomy: {largest:,} of the "
                                         f"{prepared.n_rows:,} complete rows share one value of {sensitive!r}, more "
                                         f"than 1/ℓ of them", name="l")
        for column, _path in params.hierarchies:
            if column not in columns:
                raise ParameterError(f"A hierarchy is given for {column!r}, which is not a column of the table",
                                     name="hierarchies")
            if column not in qi:
                raise ParameterError(f"A hierarchy is given for {column!r}, which is not a quasi-identifier: it "
                                     "would be ignored", name="hierarchies")
        if params.id_column is not None:
            ids = prepared.frame[params.id_column]
            if ids.isna().any() or ids.duplicated().any():
                raise ParameterError(f"The row id column {params.id_column!r} has missing or repeated values: it "
                                     "must name every row once", name="id_column")
        if params.scheme != PUBLISHED and params.group_column in columns | {params.id_column}:
            raise ParameterError(f"The group column name {params.group_column!r} is already a column of the table: "
                                 "the published CSV would have two columns of that name", name="group_column")

    def write_for_evaluation(self, run: MethodRun, folder: Path):
        from ...evaluate import SideFiles

        release = write_evaluated_exports(run, {"release": folder / "release.csv"}, "release")
        p = run.params
        return release, SideFiles(qi=list(p.qi) or None, sensitive_column=p.sensitive or None)

    def release_object(self, run: MethodRun) -> Any:
        from .published_csv import release_frame

        return release_frame(run.result.release, run.result.table, gid_column=run.params.group_column,
                             id_column=run.params.id_column)

    def run(self, table: Table, params: GroupAnonymizeParams, progress):
        from .algorithm import run_group_anonymize

        return run_group_anonymize(table, params, progress.stage("release"))

    def verify(self, table: Table, result, params: GroupAnonymizeParams, progress):
        if result.release is None:
            return None
        progress.set(0.0, "checking the release")
        return check_release(result, params)

    def promise(self, run: MethodRun) -> str:
        release = run.result.release if run.result is not None else None
        return guarantee_sentence(run.params, release.sensitive if release is not None else run.params.sensitive)

    def figure(self, run: MethodRun) -> Figure | None:
        """The group sizes: how many groups hold each number of rows (the smallest is the k a release achieves)."""
        import numpy as np

        release = run.result.release if run.result is not None else None
        if release is None or not release.n_groups:
            return None
        counts = np.bincount(np.asarray(release.group_sizes(), dtype=np.int64))
        sizes = np.flatnonzero(counts)
        return Figure(f"Group sizes on {run.dataset.name}", "group size (rows)", "groups",
                      (("groups", tuple(float(x) for x in sizes), tuple(float(counts[x]) for x in sizes)),))

    def notes(self, run: MethodRun) -> list[str]:
        r = run.result
        if r is None:
            return []
        notes = [r.text]
        if r.dropped:
            notes.append(f"{r.dropped:,} rows with a missing quasi-identifier or sensitive value were dropped first.")
        if r.release is not None and not r.complete:
            notes.append("The run was cancelled: the release shown is valid but coarser than a finished run's.")
        return notes


SPEC = GroupAnonymizeSpec()
