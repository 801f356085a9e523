"""The σ-k^m family: probabilistic k^m-anonymity by constrained generalization (paper 000, Algorithm 2)."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...data.errors import DataFormatError
from ...data.io.atomic import OutputSet
from ...data.transactions import TransactionData
from ...glossary import meaning
from ...jobs import PartialRelay
from ...parallel import shared_client, using_scheduler
from ...params import ParameterError
from ...verifiers.kmanon import KmVerifyResult, verify_km
from ..contract import Description, Export, MethodRun, MethodSpec, Stage
from ..sweep import Axis, SweepPreset
from .algorithm import kmanonymize
from .params import KmAnonParams
from .report import check_text, guarantee_notes, guarantee_text
from .result import KmAnonResult, LevelResult

__all__ = ["KmAnonSpec", "KmRunResult", "SPEC", "resolve_constraint", "prepare_cells", "attach_item_coordinates",
           "VERIFY_CONFIDENCE"]

VERIFY_CONFIDENCE = 0.95


@dataclass(frozen=True)
class KmRunResult:
    """A k^m run as exported and shown: the algorithm's result plus what it ran on.

    ``data`` is the dataset the partitions refer to (with coordinates
    attached, items without coordinates dropped when asked); ``cells`` the
    Voronoi cells of its items (touching-towers merging only).
    """

    result: KmAnonResult
    data: TransactionData
    constraint: str
    cells: Any = None
    projection: Any = None

    @property
    def complete(self) -> bool:
        return self.result.complete

    @property
    def final(self) -> LevelResult | None:
        return self.result.final

    @property
    def item_word(self) -> str:
        return "tower" if self.constraint == "contiguity" else "item"

    def contiguous(self) -> bool | None:
        if self.cells is None or self.final is None:
            return None
        from ...data.geo import PartitionGeometry

        return bool(PartitionGeometry(self.cells, self.final.labels).contiguous.all())

    def to_json(self) -> dict:
        doc = self.result.to_json()
        doc["constraint"] = self.constraint
        doc["dataset"] = {"name": self.data.name, "records": self.data.n_records, "items": self.data.n_items}
        contiguous = self.contiguous()
        if contiguous is not None:
            doc["all_partitions_contiguous"] = contiguous
        return doc

    def summary(self) -> dict[str, float]:
        final = self.final
        if final is None:
            return {"levels_finished": 0.0}
        return {"levels_finished": float(len(self.result.levels)), "partitions": float(final.partitions),
                "error": final.error, "merges": float(sum(lv.merges for lv in self.result.levels))}


def resolve_constraint(data: TransactionData, params: KmAnonParams) -> str:
    """The merge rule ``auto`` stands for on this dataset."""
    if params.constraint != "auto":
        return params.constraint
    if params.item_hierarchy is not None:
        return "hierarchy"
    if data.coords is not None or params.coords is not None:
        return "contiguity"
    return "free"


def attach_item_coordinates(data: TransactionData, params: KmAnonParams):
    """The dataset with the ``coords`` file attached (if one is given) and the projection of lat/lon input."""
    if params.coords is None:
        return data, None
    from ...data.geo import LocalProjection
    from ...data.io import attach_coordinates, load_coordinates

    coords = load_coordinates(params.coords)
    try:
        located = attach_coordinates(data, coords, drop_missing=params.drop_missing)
    except ValueError as exc:
        raise DataFormatError(params.coords, str(exc)) from None
    return located, LocalProjection.of(coords)


def prepare_cells(data: TransactionData, params: KmAnonParams):
    """The located dataset, the Voronoi cells of its items cut to the study area, and the lat/lon projection."""
    from ...data.geo import build_voronoi, default_boundary, load_boundary

    located, projection = attach_item_coordinates(data, params)
    if located.coords is None:
        raise ParameterError("Touching-towers merging needs item coordinates: give an item coordinates file",
                             name="coords")
    boundary = (load_boundary(params.boundary, projection=projection) if params.boundary is not None
                else default_boundary(located.coords))
    try:
        return located, build_voronoi(located.coords, boundary), projection
    except ValueError as exc:
        raise DataFormatError(params.boundary, f"Voronoi cells: {exc}") from None


def _prepare(data: TransactionData, params: KmAnonParams):
    """The dataset with coordinates attached, the constraint object, the cells and the projection."""
    from ...data.io import load_hierarchy
    from .constraints import Contiguity, FreeMerge, HierarchyCut

    name = resolve_constraint(data, params)
    if name == "contiguity":
        located, cells, projection = prepare_cells(data, params)
        return located, Contiguity(cells), cells, projection, name
    located, projection = attach_item_coordinates(data, params)
    if name == "hierarchy":
        tree = load_hierarchy(params.item_hierarchy)
        try:
            return located, HierarchyCut(tree, located.vocab), None, projection, name
        except ValueError as exc:
            raise DataFormatError(params.item_hierarchy, str(exc)) from None
    return located, FreeMerge(), None, projection, name


# ------------------------------------------------------------------ exports
def _release_level(run: MethodRun) -> LevelResult | None:
    return run.result.final if run.result is not None else None


def _release_format(path: Path):
    from ...data.io.registry import format_for_extension

    fmt = format_for_extension(path, "transactions")
    if fmt is None:
        raise ParameterError(f"{path.name}: cannot tell the format from the file name; end it with .dat (FIMI), "
                             ".csv, .sets.csv or .parquet")
    return fmt


def _write_release(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    from .export import anonymized_dataset

    _release_format(path).save(anonymized_dataset(run.result.data, _release_level(run)), outputs.path_for(path))


def _write_map(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    from .export import write_partition_map

    write_partition_map(outputs.path_for(path), run.result.data, _release_level(run))


def _write_geojson(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    from ...data.geo import PartitionGeometry, write_partitions_geojson

    r: KmRunResult = run.result
    geometry = PartitionGeometry(r.cells, r.final.labels)
    supports = geometry.supports(r.data.indptr, r.data.indices)
    write_partitions_geojson(outputs.path_for(path), geometry, item_labels=r.data.vocab, supports=supports,
                             projection=r.projection)


class KmAnonSpec(MethodSpec):
    name = "kmanon"
    samples = (("small-city", {"k": 10, "m": 2, "trials": 1}),)
    title = "σ-k^m anonymity"
    summary = "generalize items so that any m items of a person are shared by at least k people (with probability σ)"
    description = (
        "Probabilistic k^m-anonymity by greedy generalization: items are merged into partitions until uniformly drawn "
        "itemsets of up to m items (of the original data) are shared by at least k generalized records, in gamma "
        "samples in a row (Theorem 1), or exactly for sigma = 1. Merges follow one rule: touching Voronoi cells of "
        "item coordinates, cuts of an item hierarchy, or any two partitions. Afterwards an independent check draws "
        "itemsets uniformly and reports the k-anonymous share per size; a release is written only when it agrees "
        "with the promise.")
    reference = ("G. Ács, J. P. Achara, C. Castelluccia. <i>Probabilistic k<sup>m</sup>-anonymity: efficient "
                 "anonymization of large set-valued datasets.</i> IEEE International Conference on Big Data, 2015.")
    params = KmAnonParams
    data_kinds = (TransactionData,)
    guarantee = True
    stages = (Stage("anonymize", "anonymizing", 6.0),
              Stage("verify", "independent check", lambda p: 1.0 if p.verify_samples else 0.0))
    exports = (
        Export("release", "Anonymized data", "--out",
               "the anonymized records (partition names), format by extension (.dat FIMI, .csv, .parquet...); the "
               "release for the largest m whose level finished", (".dat", ".csv", ".sets.csv", ".parquet"),
               _write_release, check_path=_release_format),
        Export("map", "Item → partition CSV", "--map-out", "item,partition CSV: which partition publishes each item",
               (".csv",), _write_map),
        Export("geojson", "Partition polygons (GeoJSON)", "--geojson-out",
               "the partitions as merged Voronoi polygons (touching-towers merging only)", (".geojson",),
               _write_geojson, available=lambda run: run.result is not None and run.result.cells is not None,
               requires=lambda data, params: "" if resolve_constraint(data, params) == "contiguity" else
               "partition polygons need touching-towers merging, which needs item coordinates (--coords)"),
    )
    sweeps = (SweepPreset("Partitions and error vs k, one curve per m", (Axis("k", (5, 10, 20, 50)),
                                                                         Axis("m", (1, 2, 3))),
                          ("partitions", "error"), group="m"),)
    # Where the trials run is a run option, not part of the recipe: the numbers are the same anywhere.
    cli_options = (
        ("--scheduler", dict(metavar="ADDRESS", default=None,
                             help="run the independent trials (--trials above 1) as tasks on the Dask cluster of "
                                  "this scheduler (tcp://host:8786); default: the ANONSTUDIO_SCHEDULER environment "
                                  "variable, else this machine. The result is the same. Needs "
                                  "pip install anonstudio[cluster]")),
    )
    cli_aliases = {
        "--free": (lambda _v: ["--constraint", "free"], False, "--free is now --constraint free"),
        "--sample-always": (lambda _v: ["--no-exact-when-cheaper"], False,
                            "--sample-always is now --no-exact-when-cheaper"),
    }

    def example(self):
        from ...data.synth_city import SynthCityParams, generate_city

        city = generate_city(SynthCityParams(towers=40, area_km2=2.0, users=400, mean_record_size=5.0,
                                             std_record_size=3.0, max_record_size=20, seed=2))
        return city.data, KmAnonParams(k=5, m=2, sigma=0.9, verify_samples=500)

    def check_data(self, data: TransactionData, params: KmAnonParams) -> None:
        biggest = max(params.k_vector())
        if biggest > data.n_records:
            raise ParameterError(f"k = {biggest:,} is larger than the {data.n_records:,} records of "
                                 f"{data.name}: no itemset can be shared by k people", name="k")
        name = resolve_constraint(data, params)
        if name == "contiguity" and data.coords is None and params.coords is None:
            raise ParameterError("Touching-towers merging needs item coordinates: give an item coordinates file",
                                 name="coords")
        if params.boundary is not None and name != "contiguity":
            raise ParameterError("A study area only applies to touching-towers merging, which needs coordinates",
                                 name="boundary")

    def check_cli_options(self, data: TransactionData, params: KmAnonParams, options: dict) -> None:
        address = options.get("scheduler")
        if address and params.trials > 1:
            shared_client(address)  # an unreachable scheduler is reported before the run, not after a while

    def run_context(self, options: dict):
        address = options.get("scheduler")
        return using_scheduler(address) if address else contextlib.nullcontext()

    def run(self, data: TransactionData, params: KmAnonParams, progress) -> KmRunResult:
        data, constraint, cells, projection, name = _prepare(data, params)
        relay = PartialRelay(progress.stage("anonymize"), lambda r: KmRunResult(r, data, name, cells, projection))
        result = kmanonymize(data, constraint, params, relay)
        return KmRunResult(result, data, name, cells, projection)

    def verify(self, data: TransactionData, result: KmRunResult, params: KmAnonParams, progress) -> KmVerifyResult | None:
        final = result.final
        if final is None or params.verify_samples == 0:
            return None
        levels = result.result.levels
        return verify_km(result.data, final.labels, [lv.k for lv in levels], len(levels),
                         samples=params.verify_samples, seed=params.seed, confidence=VERIFY_CONFIDENCE,
                         progress=progress, sigma=[lv.sigma for lv in levels])

    def describe(self, run: MethodRun) -> Description:
        r: KmRunResult = run.result
        levels = r.result.levels if r is not None else ()
        word = r.item_word if r is not None else "item"
        promise = guarantee_text(levels, word)
        notes = [n for n in (guarantee_notes(levels, word),) if n]
        if r is not None and r.result.stopped_reason:
            notes.append(f"Stopped early: {r.result.stopped_reason}.")
        return Description(promise=promise, check=check_text(run.verification, word), state=run.state,
                           notes=tuple(notes))

    def report_lines(self, run: MethodRun, options: dict | None = None) -> list[str]:
        r: KmRunResult = run.result
        result = r.result
        unit = f" {result.error_unit}" if result.error_unit else ""
        lines = []
        if any(lv.mode == "sampling" for lv in result.levels):
            lines.append(f"itemset sampler: {result.sampler}")
        for lv in result.levels:
            lines.append(f"m={lv.level}: k={lv.k} σ={lv.sigma:g} γ={lv.gamma:,} {lv.mode}: "
                         f"{lv.samples:,} itemsets checked, {lv.violations:,} violations, {lv.merges:,} merges -> "
                         f"{lv.partitions:,} partitions, error {lv.error:.4g}{unit}, {lv.seconds:.1f} s")
        if run.verification is not None:
            lines.extend(f"check {line}" for line in run.verification.lines())
        contiguous = r.contiguous()
        if contiguous is not None:
            lines.append(f"all partitions contiguous: {'yes' if contiguous else 'NO'}")
        lines.append(f"generalized support checks: {result.support_checks_per_second:,.0f} per second")
        lines.extend(f"  {word}: {meaning(key)}" for word, key in (("γ", "gamma"), ("partitions", "partitions"),
                                                                    ("error", "error")))
        d = self.describe(run)
        lines.append(d.promise)
        return lines


SPEC = KmAnonSpec()
