"""The Audit family: the independent evaluator on a release of the open dataset (the Audit tab)."""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from ...data.table import RTData, Table
from ...data.transactions import TransactionData
from ...formatting import probability
from ..contract import CHECK_INCOMPLETE, Export, Figure, MethodRun, MethodSpec, Stage
from .params import AuditParams
from .terms import TERMS

__all__ = ["AuditSpec", "SPEC"]


def _write_csv(path: Path, run: MethodRun, outputs) -> None:
    ev = run.result.evaluation
    with outputs.open(path) as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(ev.CSV_HEADER)
        writer.writerows(ev.csv_rows())


class AuditSpec(MethodSpec):
    name = "audit"
    title = "Audit a release"
    summary = ("measure a release of the dataset (a file, or a finished run) on the evaluator's one scale of risk "
               "and utility, and audit a claim such as k=5,m=2")
    description = (
        "The independent evaluator (docs/evaluate.md) as a studio tab: for m = 1..M known items (plus the "
        "quasi-identifiers of tables), the prosecutor risk, the share of people at risk (fewer than k candidates) "
        "and the attribute disclosure at rho, exact where affordable and otherwise sampled with 95 % intervals; the "
        "count-query error and the frequency distortion. With --claim-k (and --claim-m) the run is an audit: a "
        "false claim exits with status 3 and names a person (numbered from 1) and a known set with fewer "
        "candidates. Without --release the original is measured as its own release. anonstudio-cli evaluate "
        "offers every option of the evaluator.")
    reference = (
        "The evaluator's attacker and measures (docs/evaluate.md): prosecutor risk after K. El Emam, F. K. Dankar, "
        "<i>Protecting privacy using k-anonymity</i>, JAMIA 15(5), 2008; k<sup>m</sup>-anonymity after M. Terrovitis, "
        "N. Mamoulis, P. Kalnis, <i>Privacy-preserving anonymization of set-valued data</i>, PVLDB 1(1), 2008; the "
        "count-query error as ARE in G. Poulis et al., ECML PKDD 2013.")
    params = AuditParams
    data_kinds = (TransactionData, Table, RTData)
    stages = (Stage("evaluate", "measuring", 20.0), Stage("verify", "auditing the claim", 0.1))
    exports = (
        Export("measures", "Measures (CSV)", "--csv-out", "one row of measures per m, with the intervals",
               (".csv",), _write_csv, kind="report"),
    )
    samples = (("sports-example", {"m": 2, "queries": 50}),)
    terms = TERMS

    def example(self):
        import numpy as np

        rng = np.random.default_rng(5)
        records = [np.unique(rng.integers(0, 10, size=int(rng.integers(1, 5)))) for _ in range(60)]
        data = TransactionData.from_id_lists(records, n_items=10, vocab=tuple(f"i{i}" for i in range(10)),
                                            name="example baskets")
        return data, AuditParams(m=2, k=2, queries=50)

    def run(self, data: Any, params: AuditParams, progress):
        from .algorithm import run_audit

        return run_audit(data, params, progress.stage("evaluate"))

    def verify(self, data: Any, result: Any, params: AuditParams, progress) -> Any | None:
        """The claim as the evaluator audited it (None without a claim: a measurement only)."""
        from .result import ClaimCheck

        progress.set(1.0, "claim audited")
        claims = result.evaluation.claims
        return ClaimCheck(list(claims)) if claims else None

    # ------------------------------------------------------------- texts
    def promise(self, run: MethodRun) -> str:
        result, p = run.result, run.params
        if p.claim_text:
            claim = result.evaluation.claims[0] if result.evaluation.claims else None
            said = claim.promise if claim is not None else f"the claim {p.claim_text}"
            return f"Claim {p.claim_text} audited on {result.release_name}: {said}."
        levels = result.levels
        if not levels:
            return f"Measured {result.release_name}: no m finished."
        last = levels[-1]
        return (f"Measured {result.release_name}: at m = {last.m}, prosecutor risk "
                f"{probability(last.prosecutor_risk.value)}, share at risk (k = {p.k}) "
                f"{probability(last.share_at_risk.value)}.")

    def check_figures(self, run: MethodRun) -> str:
        v = run.verification
        return "; ".join(v.lines()) if v is not None else ""

    def figure(self, run: MethodRun) -> Figure | None:
        """The evaluator's risk at each m: prosecutor risk and the share of people at risk (shares from 0 to 1)."""
        import math

        levels = list(run.result.levels) if run.result is not None else []
        series = []
        for name, key in (("prosecutor risk", "prosecutor_risk"), ("share at risk", "share_at_risk")):
            points = [(float(lv.m), float(getattr(lv, key).value)) for lv in levels
                      if getattr(lv, key) is not None and getattr(lv, key).value is not None
                      and math.isfinite(getattr(lv, key).value)]
            if points:
                series.append((name, tuple(x for x, _ in points), tuple(y for _, y in points)))
        if not series:
            return None
        return Figure(f"Risk vs m on {run.dataset.name}", "m (items the attacker knows)", "share of people",
                      tuple(series), y_range=(0.0, 1.0))

    def notes(self, run: MethodRun) -> list[str]:
        ev = run.result.evaluation
        out = list(ev.notes) + list(ev.published.notes)
        if not run.result.complete:
            out.append("Stopped: the figures of the m values finished are shown; the utility is measured after the "
                       "last m.")
            if run.params.claim_text and run.verification is None:
                # A cancelled run is not verified, and a measurement has no verdict of its own: the claim still
                # gets the contract's words.
                out.append(f"{CHECK_INCOMPLETE}: stopped before the claim {run.params.claim_text} was audited.")
        return out

    def detail_lines(self, run: MethodRun, options: dict | None = None) -> list[str]:
        ev = run.result.evaluation
        # The verdict and the notes are printed above already; the release is named as the texts name it.
        lines = [line for line in ev.lines() if not line.startswith(("Independent check", "note: "))]
        if lines and lines[0].startswith("release: "):
            lines[0] = f"release: {run.result.release_name}:" + lines[0].split(":", 2)[2]
        return lines


SPEC = AuditSpec()
