"""The group-anonymization family: k-anonymity / ℓ-diversity by Mondrian or global recoding, and Anatomy."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...data.io.atomic import OutputSet
from ...data.table import Role, Table
from ...params import ParameterError
from ...verifiers.group_anonymize import GroupPrivacyReport, verify_group_release
from ..contract import Description, Export, MethodRun, MethodSpec, Stage
from .api import PUBLISHED, GroupAnonParams, GroupAnonResult, anonymize
from .domains import complete_rows, resolve_columns
from .release import GroupRelease

__all__ = ["GroupAnonSpec", "GroupRun", "SPEC", "prepared_table", "load_hierarchies", "release_of",
           "release_text"]


@dataclass(eq=False)
class GroupRun:
    """A release and the table it is aligned with (rows with a missing value dropped).

    ``anonymization`` is None when the release was read from a published CSV.
    """

    table: Table
    release: GroupRelease | None
    anonymization: GroupAnonResult | None
    dropped: int
    scheme: str
    seconds: float = 0.0
    #: What was published, in one line (see :func:`release_text`).
    text: str = ""

    @property
    def complete(self) -> bool:
        return self.release is not None and (self.anonymization is None or self.anonymization.complete)

    def to_json(self) -> dict:
        doc = {"rows": self.table.n_rows, "dropped_incomplete_rows": self.dropped, "scheme": self.scheme,
               "complete": self.complete, "seconds": round(self.seconds, 4)}
        if self.release is not None:
            doc.update({"groups": self.release.n_groups, "release_scheme": self.release.scheme,
                        "qi": list(self.release.qi), "sensitive": self.release.sensitive})
        if self.anonymization is not None:
            doc["info"] = self.anonymization.info
        return doc

    def summary(self) -> dict[str, float]:
        if self.release is None:
            return {}
        sizes = self.release.group_sizes()
        return {"groups": float(self.release.n_groups), "min_group_size": float(sizes.min()),
                "mean_group_size": float(sizes.mean()), "rows": float(self.table.n_rows)}


def example_table(rows: int = 300) -> Table:
    """The first complete rows of the bundled Adult sample (with its roles: occupation sensitive)."""
    from ...data.samples import load_sample

    table = load_sample("adult")
    frame = table.frame.dropna().iloc[:rows].reset_index(drop=True)
    return Table(frame, dict(table.roles), f"adult ({rows} rows)", None)


def load_hierarchies(params: GroupAnonParams) -> dict:
    from ...data.io import load_hierarchy

    return {column: load_hierarchy(path) for column, path in params.hierarchies}


def columns_of(table: Table, params: GroupAnonParams) -> tuple[list[str], str]:
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


def prepared_table(table: Table, params: GroupAnonParams, rows: int | None = None) -> tuple[Table, int]:
    """The rows with no missing quasi-identifier or sensitive value (the first ``rows`` of them), and how
    many rows were dropped; the sensitive column is marked as such."""
    qi, sensitive = columns_of(table, params)
    complete = complete_rows(table, [*qi, sensitive]).with_roles(**{sensitive: Role.SENSITIVE})
    if rows is not None and complete.n_rows > rows:
        frame = complete.frame.iloc[:rows].reset_index(drop=True)
        complete = Table(frame, dict(complete.roles), complete.name, complete.source)
    return complete, table.n_rows - complete.n_rows


def release_of(table: Table, params: GroupAnonParams, progress, *, rows: int | None = None) -> GroupRun:
    """Anonymize (or read the published CSV) after dropping incomplete rows."""
    import time

    from .published_csv import import_release

    analysed, dropped = prepared_table(table, params, rows)
    qi, sensitive = columns_of(analysed, params)
    t0 = time.perf_counter()
    if params.scheme == PUBLISHED:
        progress.set(0.0, f"reading {params.published.name}")
        release = import_release(params.published, analysed, qi=qi, sensitive=sensitive,
                                 gid_column=params.group_column, id_column=params.id_column,
                                 domain_path=params.domains)
        run = GroupRun(analysed, release, None, dropped, params.scheme, time.perf_counter() - t0)
    else:
        progress.set(0.0, f"anonymizing {analysed.n_rows:,} rows")
        try:
            result = anonymize(analysed, _method_params(params, qi, sensitive), progress,
                               hierarchies=load_hierarchies(params))
        except ValueError as exc:
            raise ParameterError(str(exc)) from None
        run = GroupRun(analysed, result.release, result, dropped, params.scheme, time.perf_counter() - t0)
    run.text = release_text(run, params)
    return run


def _method_params(params: GroupAnonParams, qi: list[str], sensitive: str) -> GroupAnonParams:
    import dataclasses

    return dataclasses.replace(params, qi=tuple(qi), sensitive=sensitive, l=params.effective_l)


def check_release(run: GroupRun, params: GroupAnonParams) -> GroupPrivacyReport:
    """The independent verifier on a release (k for the horizontal schemes, ℓ for all)."""
    extra = {}
    if params.id_column is not None and params.id_column in run.table.frame.columns:
        extra[params.id_column] = run.table.frame[params.id_column].tolist()
    return verify_group_release(run.table, run.release, k=params.k, l=params.effective_l, extra_columns=extra)


def release_text(run: GroupRun, params: GroupAnonParams) -> str:
    """One line: what was published and how large its groups are."""
    if run.release is None:
        return "No release yet."
    if params.scheme == PUBLISHED:
        what = f"imported {params.published.name} ({run.release.scheme})"
    elif params.scheme == "anatomy":
        what = f"Anatomy, ℓ = {params.effective_l}"
    else:
        name = "Mondrian" if params.scheme == "mondrian" else "Global recoding"
        what = f"{name}, k = {params.k}" + (f", ℓ = {params.l}" if params.l is not None else "")
    sizes = run.release.group_sizes()
    return (f"{what}: {run.release.n_rows:,} rows in {run.release.n_groups:,} groups "
            f"(size {int(sizes.min())}–{int(sizes.max())}, mean {sizes.mean():.1f})")


def guarantee_sentence(params: GroupAnonParams, sensitive: str) -> str:
    """The promise of a group release in plain words."""
    l = params.effective_l
    parts = []
    if params.scheme != "anatomy":
        parts.append(f"every person shares the published quasi-identifier values with at least {params.k - 1} "
                     "others")
    if l is not None:
        parts.append(f"every group holds at least {l} different values of {sensitive}")
    return ("In the published table, " + " and ".join(parts) + ".") if parts else "No group requirement was set."


def write_group_release(path: Path, group_run: GroupRun, params: Any, outputs: OutputSet) -> None:
    """The release of ``group_run`` as the published CSV (group column and id column as ``params`` name them)."""
    from .published_csv import export_release

    export_release(group_run.release, group_run.table, outputs.path_for(path), gid_column=params.group_column,
                   id_column=params.id_column)


def _write_release(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    write_group_release(path, run.result, run.params, outputs)


class GroupAnonSpec(MethodSpec):
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
    params = GroupAnonParams
    data_kinds = (Table,)
    guarantee = True
    stages = (Stage("release", "anonymizing", 3.0), Stage("verify", "independent check", 1.0))
    exports = (Export("release", "Anonymized table", "--out",
                      "the anonymized table as CSV: group column, published quasi-identifier cells ([20-29], "
                      "{a|b}, *), sensitive value or {multiset}", (".csv",), _write_release),)

    def example(self):
        return example_table(), GroupAnonParams(k=4, l=2)

    def check_data(self, table: Table, params: GroupAnonParams) -> None:
        columns = set(map(str, table.frame.columns))
        for name in ("id_column",):
            value = getattr(params, name)
            if value is not None and value not in columns:
                raise ParameterError(f"The table has no column {value!r}", name=name)
        prepared, _ = prepared_table(table, params)
        if params.scheme != PUBLISHED and params.k > prepared.n_rows:
            raise ParameterError(f"k = {params.k:,} is larger than the {prepared.n_rows:,} complete rows", name="k")
        qi, sensitive = columns_of(table, params)
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

    def run(self, table: Table, params: GroupAnonParams, progress) -> GroupRun:
        return release_of(table, params, progress.stage("release"))

    def verify(self, table: Table, result: GroupRun, params: GroupAnonParams, progress) -> GroupPrivacyReport | None:
        if result.release is None:
            return None
        progress.set(0.0, "checking the release")
        return check_release(result, params)

    def describe(self, run: MethodRun) -> Description:
        r: GroupRun = run.result
        sensitive = r.release.sensitive if r.release is not None else run.params.sensitive
        promise = guarantee_sentence(run.params, sensitive)
        check = ("Independent check: " + ("PASS. " if run.verification.passed else "FAIL. ")
                 + "; ".join(run.verification.lines())) if run.verification is not None else \
            "Independent check: not run."
        notes = [r.text]
        if r.dropped:
            notes.append(f"{r.dropped:,} rows with a missing quasi-identifier or sensitive value were dropped first.")
        return Description(promise, check, run.state, tuple(notes))

    def report_lines(self, run: MethodRun, options: dict | None = None) -> list[str]:
        r: GroupRun = run.result
        lines = []
        if r.dropped:
            lines.append(f"dropped {r.dropped} rows with a missing quasi-identifier or sensitive value")
        if r.anonymization is not None and r.release is not None:
            lines.append(f"{run.params.scheme}: {r.release.n_groups} groups in {r.seconds:.2f} s"
                         + ("" if r.complete else " (cancelled: coarser release)"))
        if run.verification is not None:
            lines.append(run.verification.format())
        return lines


SPEC = GroupAnonSpec()
