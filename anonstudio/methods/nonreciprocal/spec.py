"""The nonreciprocal family: k-anonymity and ℓ-diversity by nonreciprocal recoding (paper 001).

Imports lightly: the algorithm, its kernels and the verifier load when a run,
a check or an export needs them.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ...data.transactions import TransactionData
from ...formatting import integer, measure
from ...params import ParameterError
from ..contract import Export, Figure, MethodRun, MethodSpec, write_evaluated_exports
from ..sweep import Axis, SweepPreset
from .params import NonreciprocalParams
from .stages import STAGES
from .terms import TERMS

if TYPE_CHECKING:  # the writers' type only: data.io imports every loader, which --help must not
    from ...data.io.atomic import OutputSet

__all__ = ["NonreciprocalSpec", "SPEC", "K_SWEEP", "L_SWEEP", "AUDIT_WARNING", "ORDER_WARNING"]

#: The paper's Fig. 6 (a, c, e, g): error rate and query error vs k, plain Gray order against Gray-TSP.
K_SWEEP = SweepPreset("ER and QE vs k: Gray vs Gray-TSP (paper Fig. 6 a, c, e, g)",
                      (Axis("k", (2, 4, 8, 16)), Axis("order", ("gray", "gray-tsp"))),
                      ("error_rate", "qe_type1", "qe_type2"), group="order")
#: Fig. 6 (b, d, f, h): vs ℓ, the label-spaced ring and the paper's greedy method, each run measuring the CAHD
#: baseline on its own order (``cahd_*``). Cells whose labels are too concentrated for an ℓ are refused, named.
#: ℓ stops at 5: near its eligibility limit the greedy method restarts for minutes (chess with Adult occupations,
#: ℓ = 6: 112 s in the graph phase against 3 s at ℓ = 5); larger ℓ are one edit away in the Compare tab.
L_SWEEP = SweepPreset("ER and QE vs ℓ: ring, greedy and CAHD (paper Fig. 6 b, d, f, h)",
                      (Axis("l", (2, 3, 4, 5)), Axis("l_method", ("ring", "greedy"))),
                      ("error_rate", "cahd_error_rate", "qe_type1", "cahd_qe_type1", "qe_type2", "cahd_qe_type2"),
                      group="l_method")

#: Shown wherever audit files are offered or written.
AUDIT_WARNING = ("GRAPH.csv together with the chosen assignment in the JSON links every published record to the "
                 "person it came from: keep these audit files away from the release.")
#: Shown where ORDER.csv is offered or written.
ORDER_WARNING = ("ORDER.csv tells which records sit next to each other in the order the graph was built over, hence "
                 "which published records each person can match: an audit file, keep it away from the release.")


def _writer(name: str):
    """The export writer ``name`` of :mod:`.export`, loaded when a file is written."""
    def export(path: Path, run: MethodRun, outputs: OutputSet) -> None:
        from . import export as writers

        getattr(writers, name)(outputs.path_for(path), run.result)
    return export


def _complete(run: MethodRun) -> bool:
    return run.result is not None and run.result.complete


class NonreciprocalSpec(MethodSpec):
    name = "nonreciprocal"
    # ℓ-diversity on the labels file: the label-spaced ring (with the CAHD baseline) and the greedy method.
    samples = (("sports-example", {}),
               ("sports-example", {"k": None, "l": 2, "l_method": "ring", "labels": "labels.csv"}),
               ("sports-example", {"k": None, "l": 2, "l_method": "greedy", "labels": "labels.csv"}))
    terms = TERMS
    title = "Nonreciprocal recoding"
    summary = ("publish each record generalized towards k (or ℓ) others, without groups or hierarchies, "
               "so that every person could be any of k published records")
    description = (
        "Records are sorted so that similar ones are neighbours (Gray order, improved per segment by a fixed-end TSP), "
        "each record is matched with the next k-1 in a ring, and k disjoint assignments are extracted from that graph "
        "by random closed walks; one of them, drawn at random, is the truth. Every published record is the bit vote "
        "of the records matched to it, with a distance bitmap and a threshold that bound where and by how much a "
        "person may differ from it. For ℓ-diversity, records are first spaced so that any ℓ matches carry ℓ "
        "different sensitive labels whatever assignment is drawn (or, with --l-method greedy, the paper's greedy "
        "extraction, checked afterwards). An independent check counts, for every person, the published records that "
        "could be theirs, and re-checks the graph, the votes, the labels and the error rate. Records are numbered "
        "from 1 in every file read or written.")
    reference = ("M. Xue, P. Karras, C. Raïssi, J. Vaidya, K.-L. Tan. <i>Anonymizing set-valued data by "
                 "nonreciprocal recoding.</i> KDD 2012.")
    params = NonreciprocalParams
    data_kinds = (TransactionData,)
    release_kind = "nonreciprocal"
    guarantee = True
    stages = STAGES
    exports = (
        Export("release", "Release", "--out",
               "PUBLISHED.csv: record,base,distance,threshold,label; base and distance are ;-joined items",
               (".csv",), _writer("write_published"), available=_complete),
        Export("public", "Public release", "--public-out",
               "the published records in a random order, numbered 1..n: the file to hand out",
               (".csv",), _writer("write_public"), available=_complete),
        Export("graph", "Audit graph", "--graph-out",
               "GRAPH.csv: original,published,assignment for every edge of the graph", (".csv",),
               _writer("write_graph"), kind="audit", available=_complete, warning=AUDIT_WARNING),
        Export("order", "Audit order", "--order-out",
               "ORDER.csv: rank,record,ring_record: the Gray(-TSP) order and the order the ring was built over",
               (".csv",), _writer("write_order"), kind="audit", available=_complete, warning=ORDER_WARNING),
    )

    sweeps = (K_SWEEP, L_SWEEP)

    def example(self):
        data = TransactionData.from_records(
            [["1", "2"], ["2", "3"], ["1", "2", "4"], ["2", "3", "4"], ["1", "2", "3"], ["1", "3", "4"],
             ["1", "2"], ["2", "4"], ["1", "3"]], name="sports")
        return data, NonreciprocalParams(k=3)

    def check_data(self, data: TransactionData, params: NonreciprocalParams) -> None:
        """k (ℓ) at most the records; a labels file that reads and, for ℓ, labels spread enough for the method."""
        n = data.n_records
        field = "k" if params.mode == "k" else "l"
        if n == 0:
            raise ParameterError(f"{data.name} has no records", name=field)
        if params.m > n:
            symbol = "k" if params.mode == "k" else "ℓ"
            raise ParameterError(f"{symbol} ({params.m}) is larger than the {n:,} records of {data.name}", name=field)
        if params.labels is not None:
            from .labels import labels_for

            labels = labels_for(data, params)  # read once: the run gets the same labels
            if params.mode == "l":
                from .diversity import check_eligible

                check_eligible(labels, params.m, params.l_method)

    def write_for_evaluation(self, run: MethodRun, folder: Path):
        from ...evaluate import SideFiles

        return write_evaluated_exports(run, {"release": folder / "published.csv"}, "release"), SideFiles()

    def release_object(self, run: MethodRun):
        from ...data.io.relational import frame_of_text_rows
        from .export import PUBLISHED_COLUMNS, published_rows

        return frame_of_text_rows(PUBLISHED_COLUMNS, published_rows(run.result))

    def run(self, data: TransactionData, params: NonreciprocalParams, progress):
        from .algorithm import run_nonreciprocal

        return run_nonreciprocal(data, params, progress)

    def verify(self, data: TransactionData, result, params: NonreciprocalParams, progress):
        from ...verifiers.nonreciprocal import verify_result

        return verify_result(data, result, progress, threads=params.threads)

    # ------------------------------------------------------------------ texts
    def promise(self, run: MethodRun) -> str:
        p: NonreciprocalParams = run.params
        m = p.m
        if p.mode == "k":
            return (f"Each person's record is published so that it could be any of at least {m} published records, "
                    f"each equally likely to be theirs.")
        if p.l_method == "ring":
            return (f"Each person could be any of {m} published records, equally likely, and those records carry "
                    f"{m} different sensitive labels whichever assignment was drawn.")
        return (f"Each person could be any of {m} published records (the paper's greedy ℓ method: the labels "
                f"of those records are checked, not guaranteed, to be {m} different ones).")

    def check_figures(self, run: MethodRun) -> str:
        """The possible-world count, then what else was confirmed (or every line when something was not)."""
        v = run.verification
        lines = v.lines()
        if not (v.passed and v.complete) or v.regular is None:
            return "; ".join(lines)
        confirmed = ["the graph and its assignments", "every vote, distance bitmap and threshold"]
        if v.error_rate is not None:
            confirmed.append("the error rate")
        if v.label_failures == 0:
            confirmed.append(f"{v.m} different labels behind every person's matches")
        return f"{lines[0]}; also confirmed: " + "; ".join(confirmed)

    def figure(self, run: MethodRun) -> Figure | None:
        """The Check tab's plot: people by how many published records they could be (k or ℓ is the fewest
        allowed)."""
        v = run.verification
        histogram = getattr(v, "world_histogram", None) if v is not None else None
        if not histogram:
            return None
        counts = sorted(histogram.items())
        return Figure(f"People by possible records on {run.dataset.name}",
                      "published records a person could be", "people",
                      (("people", tuple(float(c) for c, _ in counts), tuple(float(p) for _, p in counts)),))

    def notes(self, run: MethodRun) -> list[str]:
        r = run.result
        notes = []
        if r is not None and r.complete:
            notes.append(f"Error rate {measure(r.error_rate)} (share of a person's items flipped in their published "
                         f"record); query error {measure(r.query_error.type1)} (Type I), "
                         f"{measure(r.query_error.type2)} (Type II).")
            if r.cahd is not None:
                notes.append(f"CAHD, the group-based method, on the same order: error rate "
                             f"{measure(r.cahd.error_rate)}, query error {measure(r.cahd.query_error.type1)} "
                             f"(Type I), {measure(r.cahd.query_error.type2)} (Type II).")
            if r.mode == "l" and r.label_failures:
                notes.append(f"{integer(r.label_failures)} people have fewer than {r.m} different labels among "
                             f"their matches: this release is not {r.m}-diverse.")
        elif r is not None and r.stopped_reason:
            notes.append(f"Stopped after the {r.stage or 'first'} phase: nothing was published.")
        return notes

    def detail_lines(self, run: MethodRun, options: dict | None = None) -> list[str]:
        """The orders' cyclic Hamming sums and the closed walks' steps."""
        r = run.result
        if r is None or r.hamming_before is None:
            return []
        lines = [f"order {r.order_kind}: cyclic Hamming sum input {integer(r.hamming_before)}, Gray "
                 f"{integer(r.hamming_gray)}, after {integer(r.hamming_after)}"
                 + (f", ring {integer(r.hamming_ring)}" if r.hamming_ring else "")]
        if r.walk_steps:
            lines.append(f"closed walk: {integer(sum(r.walk_steps))} steps over {len(r.walk_steps)} rounds")
        return lines


SPEC = NonreciprocalSpec()
