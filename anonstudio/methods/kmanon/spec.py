"""The σ-k^m family: probabilistic k^m-anonymity by constrained generalization (paper 000, Algorithm 2)."""
from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from ...data.transactions import TransactionData
from ...limits import check_work
from ...params import ParameterError
from ..contract import Export, Figure, MethodRun, MethodSpec, Stage, write_evaluated_exports
from ..sweep import Axis, SweepPreset
from .params import KmAnonParams
from .terms import TERMS

if TYPE_CHECKING:
    from ...data.io.atomic import OutputSet

__all__ = ["KmAnonSpec", "SPEC", "VERIFY_CONFIDENCE"]

#: Confidence of the independent check's intervals.
VERIFY_CONFIDENCE = 0.95


# ------------------------------------------------------------------ exports
def _release_format(path: Path):
    from ...data.io.registry import format_for_extension

    fmt = format_for_extension(path, "transactions")
    if fmt is None:
        raise ParameterError(f"{path.name}: cannot tell the format from the file name; end it with .dat (FIMI), "
                             ".csv, .sets.csv or .parquet")
    return fmt


def _release_fits(path: Path, params: KmAnonParams) -> str:
    """Why a release file ``path`` cannot hold this run's partition names ("" when it can).

    Hierarchy merging names partitions after the hierarchy's groups; FIMI holds integer items only.
    """
    from ...data.io import load_hierarchy
    from ...data.io.registry import format_for_extension

    fmt = format_for_extension(path, "transactions")
    if fmt is None or fmt.name != "fimi" or params.item_hierarchy is None or params.constraint not in (
            "auto", "hierarchy"):
        return ""
    try:
        labels = load_hierarchy(params.item_hierarchy).labels
    except (OSError, ValueError):
        return ""  # the file's own error comes when the run reads it
    named = sorted((str(label) for label in labels if not str(label).strip().isdigit()), key=lambda t: t == "*")
    named = named[0] if named else None
    if named is None:
        return ""
    return (f"FIMI (.dat) holds integer items only, and the item hierarchy names groups such as {named[:40]!r}; "
            "end the file name with .csv, .sets.csv or .parquet")


def _write_release(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    from .export import anonymized_dataset

    _release_format(path).save(anonymized_dataset(run.result.data, run.result.final), outputs.path_for(path))


def _write_map(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    from .export import write_partition_map

    write_partition_map(outputs.path_for(path), run.result.data, run.result.final)


def _write_geojson(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    from ...data.geo import PartitionGeometry, write_partitions_geojson

    r = run.result
    geometry = PartitionGeometry(r.cells, r.final.labels)
    supports = geometry.supports(r.data.indptr, r.data.indices)
    write_partitions_geojson(outputs.path_for(path), geometry, item_labels=r.data.vocab, supports=supports,
                             projection=r.projection)


def _polygons_need_cells(data: TransactionData, params: KmAnonParams) -> str:
    from .inputs import resolve_constraint

    if resolve_constraint(data, params) == "contiguity":
        return ""
    return "partition polygons need touching-towers merging, which needs item coordinates (--coords)"


class KmAnonSpec(MethodSpec):
    name = "kmanon"
    # σ < 1 draws itemsets with the independent sampler, a kernel path of its own.
    samples = (("small-city", {"k": 10, "m": 2, "trials": 1}),
               ("small-city", {"k": 10, "m": 2, "sigma": 0.9, "trials": 1}))
    terms = TERMS
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
    release_kind = "generalized"
    guarantee = True
    stages = (Stage("anonymize", "anonymizing", 6.0),
              Stage("verify", "independent check", lambda p: 1.0 if p.verify_samples else 0.0))
    exports = (
        Export("release", "Anonymized data", "--out",
               "the anonymized records (partition names), format by extension (.dat FIMI, .csv, .parquet...); the "
               "release for the largest m whose level finished", (".dat", ".csv", ".sets.csv", ".parquet"),
               _write_release, check_path=_release_format, fits=_release_fits),
        Export("map", "Item → partition CSV", "--map-out", "item,partition CSV: which partition publishes each item",
               (".csv",), _write_map),
        Export("geojson", "Partition polygons (GeoJSON)", "--geojson-out",
               "the partitions as merged Voronoi polygons (touching-towers merging only)", (".geojson",),
               _write_geojson, available=lambda run: run.result is not None and run.result.cells is not None,
               requires=_polygons_need_cells),
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
        import numpy as np

        from .inputs import NEEDS_COORDINATES, resolve_constraint

        sizes = np.diff(data.indptr)
        if len(sizes):
            # Every m-subset of a record is counted: a record of a million items is no job to start.
            check_work("items per record", int(sizes.max()), where=f"{data.name}: record {int(np.argmax(sizes)) + 1}")
        biggest = max(params.k_vector())
        if biggest > data.n_records:
            raise ParameterError(f"k = {biggest:,} is larger than the {data.n_records:,} records of "
                                 f"{data.name}: no itemset can be shared by k people", name="k")
        name = resolve_constraint(data, params)
        if name == "contiguity" and data.coords is None and params.coords is None:
            raise ParameterError(NEEDS_COORDINATES, name="coords")
        if params.boundary is not None and name != "contiguity":
            raise ParameterError("A study area only applies to touching-towers merging, which needs coordinates",
                                 name="boundary")

    def check_cli_options(self, data: TransactionData, params: KmAnonParams, options: dict) -> None:
        from ...parallel import shared_client

        address = options.get("scheduler")
        if address and params.trials > 1:
            shared_client(address)  # an unreachable scheduler is reported before the run, not after a while

    def run_context(self, options: dict):
        from ...parallel import using_scheduler

        address = options.get("scheduler")
        return using_scheduler(address) if address else contextlib.nullcontext()

    def write_for_evaluation(self, run: MethodRun, folder: Path):
        from ...evaluate import SideFiles

        paths = {"release": folder / "release.sets.csv", "map": folder / "map.csv"}
        release = write_evaluated_exports(run, paths, "release")
        # A run without generalized items has no map: the evaluator then reads the release's items as they are.
        return release, SideFiles(map=paths["map"] if paths["map"].is_file() else None)

    def release_object(self, run: MethodRun):
        from .export import anonymized_dataset

        return anonymized_dataset(run.result.data, run.result.final)

    def run(self, data: TransactionData, params: KmAnonParams, progress):
        from .algorithm import run_kmanon

        return run_kmanon(data, params, progress)

    def verify(self, data: TransactionData, result, params: KmAnonParams, progress):
        from ...verifiers.kmanon import verify_km

        final = result.final
        if final is None or params.verify_samples == 0:
            return None
        levels = result.levels
        return verify_km(result.data, final.labels, [lv.k for lv in levels], len(levels),
                         samples=params.verify_samples, seed=params.seed, confidence=VERIFY_CONFIDENCE,
                         progress=progress, sigma=[lv.sigma for lv in levels])

    # ------------------------------------------------------------- texts
    def promise(self, run: MethodRun) -> str:
        from .report import guarantee_text

        r = run.result
        return guarantee_text(r.levels if r is not None else (), r.item_word if r is not None else "item")

    def notes(self, run: MethodRun) -> list[str]:
        from .report import guarantee_notes

        r = run.result
        if r is None:
            return []
        notes = [n for n in (guarantee_notes(r.levels, r.item_word),) if n]
        if r.stopped_reason:
            notes.append(f"The anonymization stopped before the last level: {r.stopped_reason}.")
        return notes

    def figure(self, run: MethodRun) -> Figure | None:
        """Published partitions after each level ℓ (the items an attacker may know): fewer is coarser."""
        levels = [lv for lv in run.result.levels if lv.complete] if run.result is not None else []
        if not levels:
            return None
        return Figure(f"Partitions per level on {run.dataset.name}", "level ℓ (itemset size checked)",
                      "published partitions", (("partitions", tuple(float(lv.level) for lv in levels),
                                               tuple(float(lv.partitions) for lv in levels)),))

    def detail_lines(self, run: MethodRun, options: dict | None = None) -> list[str]:
        """The sampler, one line per level, whether the partitions are contiguous, and the words used."""
        from ...formatting import integer, number
        from ...glossary import meaning

        r = run.result
        unit = f" {r.error_unit}" if r.error_unit else ""
        lines = []
        if any(lv.mode == "sampling" for lv in r.levels):
            lines.append(f"itemset sampler: {r.sampler}")
        for lv in r.levels:
            lines.append(f"m={lv.level}: k={lv.k} σ={lv.sigma:g} γ={integer(lv.gamma)} {lv.mode}: "
                         f"{integer(lv.samples)} itemsets checked, {integer(lv.violations)} violations, "
                         f"{integer(lv.merges)} merges -> {integer(lv.partitions)} partitions, "
                         f"error {number(lv.error)}{unit}, {lv.seconds:.1f} s")
        contiguous = r.contiguous()
        if contiguous is not None:
            lines.append(f"all partitions contiguous: {'yes' if contiguous else 'NO'}")
        lines.append(f"generalized support checks: {integer(r.support_checks_per_second)} per second")
        lines.extend(f"  {word}: {meaning(key, self.name)}" for word, key in (("γ", "gamma"),
                                                                             ("partitions", "partitions"),
                                                                             ("error", "error")))
        return lines


SPEC = KmAnonSpec()
