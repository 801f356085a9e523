"""Results of a uniqueness run: points, curves (itemset uniqueness, person unicity) and the run's result."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ...data.io.jsonfile import strict_json
from .params import EXPLANATION, PERSON_EXPLANATION

__all__ = ["UniquenessPoint", "UniquenessCurve", "UniquenessResult", "IMPRECISE"]

#: Marker after the interval of a point whose requested precision was not reached.
IMPRECISE = "*"


@dataclass(frozen=True)
class UniquenessPoint:
    """Uniqueness of one itemset size m.

    ``method`` is ``"exact"``, ``"mcmc"`` or ``"sampling"`` (person-level, i.i.d.).
    ``samples`` is the number of random draws the value rests on (0 for ``exact``,
    which draws nothing); ``itemsets`` is |Omega^m|, the number of distinct
    m-itemsets in the data, when it was counted (``exact``), else ``None``.
    ``precision_met`` is False when the interval is wider than the ±epsilon asked
    for (the sample cap was reached first); ``warning`` then says so in plain words.
    ``ci_kind`` says how the interval was made: ``"exact"`` (zero width),
    ``"hoeffding-ess"`` (Hoeffding at the effective sample size ``ess``) or
    ``"hoeffding"`` (i.i.d. samples). ``diagnostics`` holds method-specific numbers
    (burn-in steps, thinning, acceptance rate, Geweke z, counts).
    """

    m: int
    uniqueness: float
    ci_low: float
    ci_high: float
    method: str
    samples: int
    seconds: float
    ci_kind: str = "exact"
    ess: float = math.nan
    diagnostics: dict[str, Any] = field(default_factory=dict)
    itemsets: int | None = None
    precision_met: bool = True
    warning: str = ""


@dataclass(frozen=True)
class UniquenessCurve:
    """Points of one curve (``kind`` ``"itemset"`` or ``"person"``); ``complete=False`` when cancelled before the
    last m."""

    points: tuple[UniquenessPoint, ...]
    complete: bool
    kind: str = "itemset"
    epsilon: float = math.nan
    delta: float = math.nan

    @property
    def explanation(self) -> str:
        """Plain-language meaning of this curve (:data:`EXPLANATION` or :data:`PERSON_EXPLANATION`)."""
        return PERSON_EXPLANATION if self.kind == "person" else EXPLANATION

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON: one list per column, plus ``kind``, ``complete`` and diagnostics.

        ``samples`` counts random draws (0 for exact points); ``itemsets`` is the
        number of distinct m-itemsets for exact points (null otherwise);
        ``precision_met`` is false where the interval is wider than ±epsilon, with
        the reason in ``warnings``; ``complete`` is false when the run was cancelled
        (the lists then hold the finished m only). An undefined value (no record
        has m items) is null.
        """
        pts = self.points
        return strict_json({
            "m": [p.m for p in pts],
            "uniqueness": [p.uniqueness for p in pts],
            "ci_low": [p.ci_low for p in pts],
            "ci_high": [p.ci_high for p in pts],
            "method": [p.method for p in pts],
            "samples": [p.samples for p in pts],
            "seconds": [round(p.seconds, 4) for p in pts],
            "itemsets": [p.itemsets for p in pts],
            "precision_met": [bool(p.precision_met) for p in pts],
            "warnings": [p.warning for p in pts],
            "kind": self.kind,
            "complete": self.complete,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "ci_kind": [p.ci_kind for p in pts],
            "ess": [p.ess for p in pts],
            "diagnostics": [p.diagnostics for p in pts],
        })

    def table_lines(self) -> list[str]:
        """The curve as aligned text rows, plus a footnote for points that missed the requested precision.

        ``samples`` is the number of random draws ("-" for exact counts); ``itemsets``
        the number of distinct m-itemsets an exact count found ("-" when sampled).
        """
        head = (f"{'m':>3}  {'uniqueness':>10}  {'ci_low':>8}  {'ci_high':>9}  {'method':>8}  {'samples':>9}  "
                f"{'itemsets':>12}  {'seconds':>8}")
        rows = [head]
        missed = []
        for p in self.points:
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


#: Which curves each ``UniquenessParams.measure`` asks for.
CURVES = {"both": ("itemset", "person"), "itemset": ("itemset",), "person": ("person",)}


@dataclass(frozen=True)
class UniquenessResult:
    """The curves one run computed (``measure`` says which); ``None`` for a curve not (yet) computed."""

    measure: str
    itemset: UniquenessCurve | None = None
    person: UniquenessCurve | None = None

    @property
    def curves(self) -> tuple[UniquenessCurve, ...]:
        return tuple(c for c in (self.itemset, self.person) if c is not None)

    @property
    def complete(self) -> bool:
        return all(getattr(self, k) is not None and getattr(self, k).complete for k in CURVES[self.measure])

    def to_json(self) -> dict[str, Any]:
        """The first curve's columns at the top level (as ``uniqueness --json`` always wrote); with both
        measures the person curve under ``"person"``."""
        first = self.itemset if self.measure != "person" else self.person
        doc = first.to_json() if first is not None else {"m": [], "kind": self.measure, "complete": False}
        if self.measure == "both":
            doc["person"] = self.person.to_json() if self.person is not None else None
        doc["complete"] = self.complete
        doc["measure"] = self.measure
        return doc

    def summary(self) -> dict[str, float]:
        """``uniqueness_m<m>`` and ``unicity_m<m>`` for every finished m."""
        out: dict[str, float] = {}
        for curve, prefix in ((self.itemset, "uniqueness"), (self.person, "unicity")):
            for p in curve.points if curve is not None else ():
                out[f"{prefix}_m{p.m}"] = p.uniqueness
        return out
