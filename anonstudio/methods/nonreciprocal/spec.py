"""The nonreciprocal family: k-anonymity and ℓ-diversity by nonreciprocal recoding (paper 001)."""
from __future__ import annotations

from pathlib import Path

from ...data.io.atomic import OutputSet
from ...data.transactions import TransactionData
from ...verifiers.nonreciprocal import NonreciprocalVerification, verify_result
from ..contract import Description, Export, MethodRun, MethodSpec, Stage
from ..sweep import Axis, SweepPreset
from .algorithm import check_data, load_labels, nonreciprocal
from .diversity import check_eligible
from .export import AUDIT_WARNING, ORDER_WARNING, write_graph, write_order, write_public, write_published
from .params import NonreciprocalParams
from .result import NonreciprocalResult

__all__ = ["NonreciprocalSpec", "SPEC", "K_SWEEP", "L_SWEEP"]

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


def _writer(write):
    def export(path: Path, run: MethodRun, outputs: OutputSet) -> None:
        write(outputs.path_for(path), run.result)
    return export


def _complete(run: MethodRun) -> bool:
    return run.result is not None and run.result.complete


class NonreciprocalSpec(MethodSpec):
    name = "nonreciprocal"
    samples = (("sports-example", {}),)
    title = "Nonreciprocal recoding"
    summary = ("publish each record generalized towards k (or ℓ) others, without groups or hierarchies, "
               "so that every person could be any of k published records")
    description = (
        "Records are sorted so that similar ones are neighbours (Gray order, improved per segment by a fixed-end TSP), "
        "each record is matched with the next k-1 in a ring, and k disjoint assignments are extracted from that graph "
        "by random closed walks; one of them, drawn at random, is the truth. Every published record is the bit vote "
        "of the records matched to it, with a distance bitmap and a threshold that bound where and by how much a "
        "person may differ from it. For ℓ-diversity, records are first spaced so that any ℓ matches carry ℓ "
        "different sensitive labels whatever assignment is drawn (or, with --l-method greedy, the paper's greedy extraction, "
        "checked afterwards). An independent check counts, for every person, the published records that could be "
        "theirs, and re-checks the graph, the votes, the labels and the error rate.")
    reference = ("M. Xue, P. Karras, C. Raïssi, J. Vaidya, K.-L. Tan. <i>Anonymizing set-valued data by "
                 "nonreciprocal recoding.</i> KDD 2012.")
    params = NonreciprocalParams
    data_kinds = (TransactionData,)
    guarantee = True
    stages = (Stage("anonymize", "anonymizing", 3.0), Stage("verify", "independent check", 2.0))
    exports = (
        Export("release", "Release", "--out",
               "PUBLISHED.csv: record,base,distance,threshold,label; base and distance are ;-joined items",
               (".csv",), _writer(write_published), available=_complete),
        Export("public", "Public release", "--public-out",
               "the published records in a random order, numbered 1..n: the file to hand out",
               (".csv",), _writer(write_public), available=_complete),
        Export("graph", "Audit graph", "--graph-out",
               "GRAPH.csv: original,published,assignment for every edge of the graph", (".csv",),
               _writer(write_graph), kind="audit", available=_complete, warning=AUDIT_WARNING),
        Export("order", "Audit order", "--order-out",
               "ORDER.csv: rank,record,ring_record: the Gray(-TSP) order and the order the ring was built over",
               (".csv",), _writer(write_order), kind="audit", available=_complete, warning=ORDER_WARNING),
    )

    sweeps = (K_SWEEP, L_SWEEP)

    def example(self):
        data = TransactionData.from_records(
            [["1", "2"], ["2", "3"], ["1", "2", "4"], ["2", "3", "4"], ["1", "2", "3"], ["1", "3", "4"],
             ["1", "2"], ["2", "4"], ["1", "3"]], name="sports")
        return data, NonreciprocalParams(k=3)

    def check_data(self, data: TransactionData, params: NonreciprocalParams) -> None:
        check_data(data, params)
        if params.mode == "l":
            check_eligible(load_labels(data, params), params.m, params.l_method)

    def run(self, data: TransactionData, params: NonreciprocalParams, progress) -> NonreciprocalResult:
        return nonreciprocal(data, params, progress.stage("anonymize"))

    def verify(self, data: TransactionData, result: NonreciprocalResult, params: NonreciprocalParams,
               progress) -> NonreciprocalVerification | None:
        if not result.complete:
            return None
        return verify_result(data, result, progress, threads=params.threads)

    def describe(self, run: MethodRun) -> Description:
        p: NonreciprocalParams = run.params
        m = p.m
        if p.mode == "k":
            promise = (f"Each person's record is published so that it could be any of at least {m} published records, "
                       f"each equally likely to be theirs.")
        elif p.l_method == "ring":
            promise = (f"Each person could be any of {m} published records, equally likely, and those records carry "
                       f"{m} different sensitive labels whichever assignment was drawn.")
        else:
            promise = (f"Each person could be any of {m} published records (the paper's greedy ℓ method: the labels "
                       f"of those records are checked, not guaranteed, to be {m} different ones).")
        notes = []
        r: NonreciprocalResult | None = run.result
        if r is not None and r.complete:
            notes.append(f"Error rate {r.error_rate:.4g} (share of a person's items flipped in their published "
                         f"record); query error {r.query_error.type1:.3g} (Type I), {r.query_error.type2:.3g} "
                         f"(Type II).")
            if r.cahd is not None:
                notes.append(f"CAHD, the group-based method, on the same order: error rate {r.cahd.error_rate:.4g}, "
                             f"query error {r.cahd.query_error.type1:.3g} (Type I), "
                             f"{r.cahd.query_error.type2:.3g} (Type II).")
            if r.mode == "l" and r.label_failures:
                notes.append(f"{r.label_failures:,} people have fewer than {m} different labels among their matches: "
                             f"this release is not {m}-diverse.")
        elif r is not None and r.stopped_reason:
            notes.append(f"Stopped after the {r.stage or 'first'} phase: nothing was published.")
        return Description(promise=promise, check=_check_text(run), state=run.state, notes=tuple(notes))

    def report_lines(self, run: MethodRun, options: dict | None = None) -> list[str]:
        r: NonreciprocalResult = run.result
        d = self.describe(run)
        lines = [d.promise]
        if r is not None:
            lines.append(f"order {r.order_kind}: cyclic Hamming sum input {r.hamming_before}, Gray {r.hamming_gray}, "
                         f"after {r.hamming_after}" + (f", ring {r.hamming_ring}" if r.hamming_ring else ""))
            if r.walk_steps:
                lines.append(f"closed walk: {sum(r.walk_steps):,} steps over {len(r.walk_steps)} rounds")
            lines.append("phases: " + ", ".join(f"{k} {v:.2f} s" for k, v in r.seconds.items()))
        if run.verification is not None:
            lines.extend(f"check: {line}" for line in run.verification.lines())
        lines.extend(d.notes)
        return lines


def _check_text(run: MethodRun) -> str:
    """One sentence when the check passed (the CLI prints every line apart); every line otherwise."""
    v = run.verification
    if v is None:
        return "Independent check: not run."
    if v.passed and v.complete:
        lines = v.lines()
        if v.regular is None:
            return "Independent check passed: " + "; ".join(lines)
        confirmed = ["the graph and its assignments", "every vote, distance bitmap and threshold"]
        if v.error_rate is not None:
            confirmed.append("the error rate")
        if v.label_failures == 0:
            confirmed.append(f"{v.m} different labels behind every person's matches")
        return (f"Independent check passed (separate code): {lines[0]}. Also confirmed: "
                f"{', '.join(confirmed[:-1])} and {confirmed[-1]}.")
    head = "Independent check stopped before it finished" if not v.complete else "Independent check FAILED"
    return f"{head}: " + "; ".join(v.lines())


SPEC = NonreciprocalSpec()
