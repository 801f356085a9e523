"""The uniqueness family (the Risk tab): how identifying is the raw data? (uniqueness and unicity vs m)."""
from __future__ import annotations

import math
from typing import Any

from ...data.transactions import TransactionData
from ...formatting import percent
from ..contract import Figure, MethodRun, MethodSpec, Stage
from .params import UniquenessParams
from .terms import TERMS

__all__ = ["UniquenessSpec", "SPEC"]


def _wants(measure: str, curve: str) -> bool:
    return measure in ("both", curve)


class UniquenessSpec(MethodSpec):
    name = "uniqueness"
    samples = (("chess", {"max_m": 2}),)
    terms = TERMS
    report_measures = False  # detail_lines print every point in the curves' tables
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

    def run(self, data: Any, params: UniquenessParams, progress):
        from .algorithm import run_uniqueness

        return run_uniqueness(data, params, progress)

    # ------------------------------------------------------------- texts
    def promise(self, run: MethodRun) -> str:
        """What was measured: the highest share of unique itemsets and of unique people, and at which m."""
        parts = []
        for curve, word in ((run.result.itemset, "itemsets"), (run.result.person, "people")):
            finite = [p for p in (curve.points if curve is not None else ()) if math.isfinite(p.uniqueness)]
            if finite:
                # Among ties (often all zero) the largest m: "0 % at m = 3" says more than "at m = 1".
                worst = max(finite, key=lambda p: (p.uniqueness, p.m))
                parts.append(f"{percent(worst.uniqueness)} of {word} unique at m = {worst.m}")
        return "Measured: " + "; ".join(parts) + "." if parts else "No point finished."

    def needs_caution(self, run: MethodRun) -> bool:
        """A point short of its precision ε is shown in amber: its interval is wider than asked."""
        return any(not p.precision_met for c in run.result.curves for p in c.points)

    def notes(self, run: MethodRun) -> list[str]:
        out = []
        missed = [p for c in run.result.curves for p in c.points if not p.precision_met]
        if missed:
            out.append(f"m = {', '.join(str(p.m) for p in missed)}: precision not reached (see the table).")
        if not run.complete:
            out.append("Incomplete: cancelled before the last m; the tables hold the finished points only.")
        return out

    def figure(self, run: MethodRun) -> Figure | None:
        """The Risk tab's curves: the share of unique itemsets and of unique people for each m."""
        series = []
        for curve, name in ((run.result.itemset, "itemsets"), (run.result.person, "people")):
            points = [p for p in (curve.points if curve is not None else ()) if math.isfinite(p.uniqueness)]
            if points:
                series.append((name, tuple(float(p.m) for p in points), tuple(float(p.uniqueness) for p in points)))
        if not series:
            return None
        return Figure(f"Uniqueness vs m on {run.dataset.name}", "m (items the attacker knows)", "share unique",
                      tuple(series), y_range=(0.0, 1.0))

    def detail_lines(self, run: MethodRun, options: dict | None = None) -> list[str]:
        """Each curve's table, headed by what it is and the run's precision."""
        p = run.params
        lines = []
        for curve, title in ((run.result.itemset, "itemset uniqueness"), (run.result.person, "person unicity")):
            if curve is None:
                continue
            lines.append(f"{title} of {run.dataset.name} ({run.data.n_records:,} records), "
                         f"ε={p.epsilon:g}, δ={p.delta:g}, seed={p.seed}")
            lines.extend(curve.table_lines())
        return lines


SPEC = UniquenessSpec()
