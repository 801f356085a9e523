"""The RT family's declaration: (k, k^m)-anonymity of people with demographics and item sets."""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from ...data.table import RTData, Table
from ...params import ParameterError
from ..contract import Export, Figure, MethodRun, MethodSpec, write_evaluated_exports
from .params import STAGES, RTParams
from .sweeps import HEURISTICS
from .terms import TERMS

__all__ = ["RTSpec", "SPEC", "items_word", "promise_text"]


def _not_an_input(path: Path, run: MethodRun) -> None:
    """Refuse to replace a file the run read (a last guard; outputs are also checked before the run)."""
    from ...data.io.atomic import OutputPathError

    inputs = [getattr(run.data, "source", None), *run.spec.input_files(run.params).values()]
    for source in inputs:
        if source is not None and Path(path).exists() and Path(source).exists() and \
                os.path.samefile(source, path):
            raise OutputPathError(path, "is an input of this run; choose another output file")


def _write_release(path: Path, run: MethodRun, outputs) -> None:
    from .export import write_anon_csv

    _not_an_input(path, run)
    write_anon_csv(outputs.path_for(path), run.result)


def _write_hierarchy(path: Path, run: MethodRun, outputs) -> None:
    from .export import write_item_hierarchy

    _not_an_input(path, run)
    write_item_hierarchy(outputs.path_for(path), run.result)


def _publishable(run: MethodRun) -> bool:
    return run.result is not None and run.result.publishable


def _has_hierarchy(run: MethodRun) -> bool:
    return run.result is not None and run.result.problem.item_hierarchy is not None


class RTSpec(MethodSpec):
    name = "rt"
    samples = (("small-clinic", {"qi": ("age", "sex"), "items_column": "diagnoses", "k": 10, "m": 2, "delta": 0.7}),)
    title = "RT-data: demographics with item sets"
    summary = "anonymize people's demographics together with their item sets (diagnoses, baskets) under a loss bound"
    description = (
        "Publishes people who have both demographics (age, sex, race...) and a set of items (diagnosis "
        "codes, purchased products) so that anyone who knows a person's demographics and up to m of their "
        "items matches at least k people ((k, k^m)-anonymity), optionally with no sensitive item linked to "
        "more than 1/ℓ of them. People are clustered on their demographics, clusters are merged while the "
        "bounded side's loss stays within δ (Rum: demographics, Tum: items), and each cluster's items are "
        "generalized along an item hierarchy (Apriori Anonymization) or into sets. The input is a table "
        "whose items column holds each person's items separated by ';', or a table plus a person,item file "
        "(--items-file, joined on --person-column). Infeasible bounds exit with status 3 and write no table."
    )
    reference = ("G. Poulis, G. Loukides, A. Gkoulalas-Divanis, S. Skiadopoulos. <i>Anonymizing Data with "
                 "Relational and Transaction Attributes.</i> ECML PKDD 2013.")
    params = RTParams
    data_kinds = (Table, RTData)
    release_kind = "rt"
    sweeps = (HEURISTICS,)
    terms = TERMS
    guarantee = True
    stages = STAGES
    exports = (
        Export("release", "Anonymized table", "--out",
               "ANON.csv: cluster (numbered from 1), generalized demographics ([19-22], {a|b}, a group label or *) "
               "and generalized items, one row per person in input order", (".csv",), _write_release,
               available=_publishable),
        Export("hierarchy", "Item hierarchy", "--hierarchy-out",
               "the item hierarchy the items were generalized along (item;group;...;*), e.g. the built one, "
               "for checking the table", (".csv",), _write_hierarchy, kind="report", available=_has_hierarchy),
    )

    def open_dataset(self, spec: str | Path, *, format: str | None = None, encoding: str | None = None,
                     columns: str | None = None, sep: str | None = None, header: bool | None = None,
                     progress: Any = None, **source: Any) -> Any:
        """A delimited file is read as a people table keeping codes such as 001 as text; others (spreadsheets,
        databases) as usual."""
        path = Path(spec)
        if not source and (path.exists() or path.is_symlink()) and format in (None, "csv-table") and \
                path.suffix.lower() not in (".parquet", ".xlsx", ".xlsm", ".ods"):
            from .inputs import open_rt_table

            return open_rt_table(path, encoding=encoding, columns=columns, sep=sep, header=header,
                                 progress=progress)
        return super().open_dataset(spec, format=format, encoding=encoding, columns=columns, sep=sep,
                                    header=header, progress=progress, **source)

    def example(self) -> tuple[Any, RTParams]:
        """The first 400 patients of the first sample, with the sample's settings."""
        from ...data.samples import load_sample

        name, settings = self.samples[0]
        rows = 400
        table = load_sample(name)
        frame = table.frame.iloc[:rows].reset_index(drop=True)
        return Table(frame, dict(table.roles), f"{name} ({rows} rows)", None), self.params_from(dict(settings))

    def adult_params(self) -> RTParams:
        """Settings for Adult-shaped tables (the studio suggests them): each person's occupation as their one item."""
        # Columns in table order: the column pickers list them so.
        return RTParams(qi=("age", "education", "race", "sex"), items_column="occupation", k=20, m=1, delta=0.8,
                        merge="r", item_fanout=4)

    def check_data(self, data: Any, params: RTParams) -> None:
        from .inputs import check_columns

        check_columns(data, params)
        rows = data.table.n_rows if isinstance(data, RTData) else data.n_rows
        if params.k > rows:
            raise ParameterError(f"k = {params.k} is larger than the {rows:,} people", name="k")

    def write_for_evaluation(self, run: MethodRun, folder: Path):
        from ...evaluate import SideFiles

        paths = {"release": folder / "release.csv", "hierarchy": folder / "items.csv"}
        release = write_evaluated_exports(run, paths, "release")
        p = run.params
        return release, SideFiles(item_hierarchy=paths["hierarchy"], qi=list(p.qi) or None,
                                  items_column=p.items_column or None)

    def release_object(self, run: MethodRun) -> Any:
        from ...data.io.relational import frame_of_text_rows
        from .export import anon_rows

        return frame_of_text_rows(*anon_rows(run.result))

    def run(self, data: Any, params: RTParams, progress) -> Any:
        from .algorithm import run_rt

        return run_rt(data, params, progress)

    def verify(self, data: Any, result: Any, params: RTParams, progress) -> Any:
        from .verify import verify_result

        return verify_result(result.data, result, progress)

    # ---------------------------------------------------------------- texts
    def promise(self, run: MethodRun) -> str:
        return promise_text(run.params)

    def check_figures(self, run: MethodRun) -> str:
        v = run.verification
        if v is None:
            return ""
        from ...verifiers.rt import NotPublished

        if isinstance(v, NotPublished):
            return "nothing is published, so there is no table to check"
        if not v.passed:
            failed = [line.removeprefix("FAILED: ") for line in v.lines() if line.startswith("FAILED")]
            return "; ".join(failed or v.lines())
        text = (f"{v.n_clusters:,} clusters of at least {v.min_cluster_size:,} people; every published cell and "
                f"item covers the original; the promise holds for all {v.n_records:,} people")
        if v.l is not None:
            text += f", with ℓ = {v.l} diversity"
        if v.rum_matches and v.tum_matches:
            text += "; Rum and Tum recomputed: equal"
        return text + "."

    def figure(self, run: MethodRun) -> Figure | None:
        """The run's plot: the losses after Cluster (merge 0) and after each merge (0 = none, 1 = all)."""
        r = run.result
        if r is None or r.initial_rum is None:
            return None
        rum = (float(r.initial_rum), *map(float, r.rum_trace))
        series = [("NCP (relational)", tuple(float(i) for i in range(len(rum))), rum)]
        if r.initial_tum is not None:
            tum = (float(r.initial_tum), *map(float, r.tum_trace))
            series.insert(0, ("UL (items)", tuple(float(i) for i in range(len(tum))), tum))
        return Figure(f"Losses along the merges on {run.dataset.name}", "merges", "loss (0 = none, 1 = all)",
                      tuple(series), y_range=(0.0, 1.0))

    def notes(self, run: MethodRun) -> list[str]:
        result = run.result
        p: RTParams = run.params
        notes = []
        if result is not None and result.rum is not None and result.feasible is not False:
            rum = f"demographics loss (Rum) {result.rum:.3f}"
            tum = "" if result.tum is None else f"items loss (Tum) {result.tum:.3f}"
            losses = (f"{rum} ≤ δ = {p.delta:g}" + (f"; {tum}" if tum else "") if p.bound == "rum" else
                      (f"{tum} ≤ δ = {p.delta:g}; " if tum else "") + rum)
            notes.append(f"{result.n_clusters:,} clusters of people published together; {losses}.")
        elif result is not None and result.rum is not None:
            side = "demographics (Rum)" if p.bound == "rum" else "items (Tum)"
            notes.append(f"Nothing published: {result.reason}.")
            notes.append(f"Loss bound δ = {p.delta:g} on the {side}.")
        if run.status == "cancelled" and result is not None:
            notes.append("Stopped before the end: the clusters so far are kept.")
        return notes

    def detail_lines(self, run: MethodRun, options: dict | None = None) -> list[str]:
        """Every line of the independent check, then the losses right after the first clustering."""
        lines = []
        from ...verifiers.rt import NotPublished

        v = run.verification
        if v is not None and not isinstance(v, NotPublished):
            lines.extend(f"  {line}" for line in v.lines())
        r = run.result
        if r is not None and r.initial_rum is not None:
            lines.append(f"after Cluster, before any merge: Rum {r.initial_rum:.4f}"
                         + ("" if r.initial_tum is None else f", Tum {r.initial_tum:.4f}"))
        return lines


def items_word(params: RTParams) -> str:
    """What the items are called in plain texts: a plural column name such as ``diagnoses``, else "items"."""
    name = params.items_column.strip()
    if params.items_file is None and re.fullmatch(r"[a-z]+(?: [a-z]+)*s", name) and name != "items":
        return name
    return "items"


def promise_text(params: RTParams) -> str:
    """"Anyone who knows a person's age, sex, race and any 2 of their diagnoses matches at least 25 people." """
    word = items_word(params)
    some = "any one" if params.m == 1 else f"any {params.m}"
    known = [*params.qi, f"{some} of their {word}"]
    knows = ", ".join(known[:-1]) + " and " + known[-1] if len(known) > 1 else known[0]
    text = f"Anyone who knows a person's {knows} matches at least {params.k:,} people"
    if params.sensitive_items is not None:
        text += f" (sensitive {word} are never assumed known)"
    text += f", and none of the sensitive {word} is linked to more than 1/{params.l} of them." if params.l else "."
    return text


SPEC = RTSpec()
