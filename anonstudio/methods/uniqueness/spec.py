"""The Risk family: how identifying is the raw data? (uniqueness and unicity vs m)."""
from __future__ import annotations

import math
from typing import Any

from ...data.transactions import TransactionData
from ...jobs import PartialRelay
from ..contract import Description, MethodRun, MethodSpec, Stage
from .uniqueness import (
    RiskResult,
    UniquenessParams,
    person_unicity_curve,
    uniqueness_curve,
)

__all__ = ["RiskSpec", "SPEC", "format_curve"]

#: Marker after the interval of a point whose requested precision was not reached.
IMPRECISE = "*"


def format_curve(result) -> list[str]:
    """A curve as aligned text rows, plus a footnote for points that missed the requested precision.

    ``samples`` is the number of random draws ("-" for exact counts); ``itemsets``
    the number of distinct m-itemsets an exact count found ("-" when sampled).
    """
    head = (f"{'m':>3}  {'uniqueness':>10}  {'ci_low':>8}  {'ci_high':>9}  {'method':>8}  {'samples':>9}  "
            f"{'itemsets':>12}  {'seconds':>8}")
    rows = [head]
    missed = []
    for p in result.points:
        u = "n/a" if math.isnan(p.uniqueness) else f"{p.uniqueness:.4f}"
        lo = "n/a" if math.isnan(p.ci_low) else f"{p.ci_low:.4f}"
        hi = "n/a" if math.isnan(p.ci_high) else f"{p.ci_high:.4f}"
        if not p.precision_met:
            hi += IMPRECISE
            missed.append(p)
        else:
            hi += " "
        samples = f"{p.samples:,}" if p.samples else "-"
        itemsets = f"{p.itemsets:,}" if p.itemsets is not None else "-"
        rows.append(f"{p.m:>3}  {u:>10}  {lo:>8}  {hi:>9}  {p.method:>8}  {samples:>9}  {itemsets:>12}  "
                    f"{p.seconds:>8.2f}")
    for p in missed:
        rows.append(f"{IMPRECISE} m={p.m}: {p.warning}")
    return rows


def _wants(measure: str, curve: str) -> bool:
    return measure in ("both", curve)


class RiskSpec(MethodSpec):
    name = "uniqueness"
    samples = (("chess", {"max_m": 2}),)
    title = "Risk: uniqueness vs m"
    summary = "uniqueness of m-itemsets and person unicity for m = 1..M (exact or sampled, with confidence intervals)"
    description = (
        "Itemset uniqueness: the share of the m-item combinations occurring in the data that occur in exactly one "
        "record (Acs, Achara, Castelluccia 2015), counted exactly when cheap, else estimated from a uniform MCMC "
        "sample of ceil(ln(2/delta)/(2 eps^2)) itemsets. Person unicity: the chance that a person is unique given "
        "m of their items (de Montjoye et al. 2013). JSON: the itemset curve's columns at the top level ('samples' "
        "= random draws, 0 for exact points; 'itemsets' = distinct m-itemsets counted; 'precision_met' false where "
        "the interval is wider than +-epsilon), the person curve under 'person'.")
    reference = (
        "G. Ács, J. P. Achara, C. Castelluccia. <i>Probabilistic k<sup>m</sup>-anonymity: efficient anonymization of "
        "large set-valued datasets.</i> IEEE BigData 2015 (uniqueness vs m, Algorithm 1). "
        "Y.-A. de Montjoye, C. A. Hidalgo, M. Verleysen, V. D. Blondel. <i>Unique in the Crowd: the privacy bounds "
        "of human mobility.</i> Scientific Reports 3, 2013 (person unicity).")
    params = UniquenessParams
    data_kinds = (TransactionData,)
    stages = (
        Stage("itemset", "itemsets", lambda p: 3.0 if _wants(p.measure, "itemset") else 0.0),
        Stage("person", "people", lambda p: 2.0 if _wants(p.measure, "person") else 0.0),
    )
    cli_aliases = {
        "--person": (lambda _v: ["--measure", "person"], False, "--person is now --measure person"),
        "--m": (lambda v: ["--min-m", v.split("-", 1)[0], "--m", v.split("-", 1)[1]] if v and "-" in v else None,
                True, "--m A-B is now --min-m A --m B"),
    }

    def example(self):
        import numpy as np

        rng = np.random.default_rng(11)
        records = [np.unique(rng.integers(0, 14, size=int(rng.integers(1, 7)))) for _ in range(80)]
        data = TransactionData.from_id_lists(records, n_items=14, vocab=tuple(f"i{i}" for i in range(14)),
                                            name="example baskets")
        return data, UniquenessParams(max_m=3, epsilon=0.05, delta=0.05)

    def run(self, data: Any, params: UniquenessParams, progress) -> RiskResult:
        measure = params.measure
        itemset = None
        if _wants(measure, "itemset"):
            itemset = uniqueness_curve(data, params, PartialRelay(
                progress.stage("itemset"), lambda c: RiskResult(measure, c, None)))
            if not itemset.complete:
                return RiskResult(measure, itemset, None)
        person = None
        if _wants(measure, "person"):
            person = person_unicity_curve(data, params, PartialRelay(
                progress.stage("person"), lambda c: RiskResult(measure, itemset, c)))
        return RiskResult(measure, itemset, person)

    def describe(self, run: MethodRun) -> Description:
        result: RiskResult = run.result
        parts = []
        for curve, word in ((result.itemset, "itemsets"), (result.person, "people")):
            if curve is None or not curve.points:
                continue
            finite = [p for p in curve.points if math.isfinite(p.uniqueness)]
            if finite:
                worst = max(finite, key=lambda p: p.uniqueness)
                parts.append(f"{worst.uniqueness:.1%} of {word} unique at m = {worst.m}")
        promise = "Measured: " + "; ".join(parts) + "." if parts else "No point finished."
        missed = [p for c in result.curves for p in c.points if not p.precision_met]
        notes = [f"m = {', '.join(str(p.m) for p in missed)}: precision not reached (see the table)."] if missed else []
        state = "incomplete" if not run.complete else ("warning" if missed else "ok")
        return Description(promise=promise, state=state, notes=tuple(notes))

    def report_lines(self, run: MethodRun, options: dict | None = None) -> list[str]:
        result: RiskResult = run.result
        p = run.params
        lines = []
        for curve, title in ((result.itemset, "itemset uniqueness"), (result.person, "person unicity")):
            if curve is None:
                continue
            lines.append(f"{title} of {run.dataset.name} ({run.data.n_records:,} records), "
                         f"ε={p.epsilon:g}, δ={p.delta:g}, seed={p.seed}")
            lines.extend(format_curve(curve))
        if not run.complete:
            lines.append("incomplete: cancelled before the last m; the rows above are the finished ones")
        return lines


SPEC = RiskSpec()
