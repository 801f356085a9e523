"""The ρ family's declaration: personalized ρ-uncertainty by partial suppression (``anonstudio-cli rho``)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ...data.io.atomic import OutputSet
from ...data.transactions import TransactionData
from ...verifiers.rho import RhoVerification, verify_rho
from ..contract import Description, Export, MethodRun, MethodSpec, Stage
from ..sweep import Axis, SweepPreset
from .api import check_data, run_rho
from .export import write_suppressed
from .params import RhoParams, parse_exact
from .result import RhoResult
from .rules import rule_browser
from .sensitive import write_sensitive

__all__ = ["RhoSpec", "SPEC", "verify_run", "write_rules"]


def _write_release(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    write_suppressed(outputs.path_for(path), run.result)


def _write_sensitive(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    write_sensitive(outputs.path_for(path), run.result.constraint)


def write_rules(path: Path, result: RhoResult) -> None:
    """The rule browser as CSV: rule, confidence before and after, people threatened, what was suppressed."""
    import csv

    from ...data.io import atomic_write

    browser = rule_browser(result)
    with atomic_write(path) as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["antecedent", "consequent", "confidence_before", "confidence_after", "people",
                         "people_listed", "suppressed"])
        for row in browser.rows():
            fixes = "; ".join(f"pass {f['pass']}: {f['suppressed_item']} from records "
                              f"{' '.join(map(str, f['records']))}" for f in row["repairs"])
            writer.writerow([" ".join(row["antecedent"]), row["consequent"],
                             "" if row["confidence_before"] is None else f"{row['confidence_before']:.6g}",
                             "" if row["confidence_after"] is None else f"{row['confidence_after']:.6g}",
                             row["people"], " ".join(map(str, row["people_listed"])), fixes])


def _write_rules(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    write_rules(outputs.path_for(path), run.result)


def _reported(result: RhoResult) -> dict:
    doc = result.to_json()
    return {key: doc[key] for key in ("suppressed_items", "util_info", "util_dist", "util_mining", "rules_original",
                                      "rules_published", "rules_common")}


def verify_run(data: TransactionData, result: RhoResult, params: RhoParams, progress=None) -> RhoVerification:
    """The independent check of a run: its published records against D and E_USED's pairs."""
    return verify_rho(data, result.published, result.constraint.pairs(), params.rho_fraction, params.m,
                      epsilon=params.epsilon, sampler=params.sampler, samples=params.verify_samples,
                      confidence=params.verify_confidence, exhaustive_limit=params.exhaustive_limit,
                      seed=params.seed, reported=_reported(result), minsup=parse_exact(params.minsup, "minsup"),
                      minconf=parse_exact(params.minconf, "minconf"), mining_max_length=params.mining_max_length,
                      progress=progress)


def _example_data() -> TransactionData:
    """400 shopping baskets of 0-5 items over 40 products (popular ones more often), the same every time.

    Big enough that the trade-off plots, the rule browser and a cancel have something to show, small
    enough for the exact algorithm with any m (about 0.1 s a run).
    """
    rng = np.random.default_rng(7)
    weights = 1.0 / np.arange(1, 41) ** 0.9
    weights /= weights.sum()
    lengths = rng.choice(np.array([0, 1, 1, 2, 2, 2, 3, 3, 4, 5]), size=400)
    records = [[str(101 + i) for i in rng.choice(40, size=k, replace=False, p=weights)] for k in lengths]
    return TransactionData.from_records(records, name="example baskets")


class RhoSpec(MethodSpec):
    name = "rho"
    samples = (("sports-example", {"rho": "0.5", "m": 2, "setting": "fixed", "sensitive_fraction": 0.5}),
               ("chess", {"rho": "0.5", "m": 2, "epsilon": 0.2, "delta": 0.2, "setting": "fixed",
                          "sensitive_fraction": 0.05}))
    title = "Personalized ρ-uncertainty"
    summary = "suppress single items until nobody can infer a person's sensitive items with confidence above rho"
    description = (
        "Each person names the items they want kept uncertain (a record,item CSV with --sensitive, '*' for "
        "everyone, records numbered from 0), or they are drawn with --setting and --sensitive-fraction. Items "
        "are then removed from single records (partial suppression) until nobody who knows some of a "
        "person's items can infer one of that person's sensitive items with confidence above rho: checking "
        "every attacker who knows up to m items (SUPPRESSOR; all items when m is not set), or, with "
        "--epsilon and --delta, sampled attackers per pass (SAMPLESUPPRESSOR). Passes repeat until a clean "
        "one. The published file keeps every line of the input, in order, each a subset of the original."
    )
    reference = ("T. Nakagawa, H. Arai, H. Nakagawa. <i>Personalized Anonymization for Set-Valued Data by Partial "
                 "Suppression.</i> Transactions on Data Privacy 11 (2018).")
    params = RhoParams
    data_kinds = (TransactionData,)
    guarantee = True
    stages = (Stage("run", "suppressing", 4.0), Stage("verify", "independent check", 1.0))
    exports = (
        Export("release", "Suppressed data", "--out",
               "SUPPRESSED.dat: the input's lines in the input's format and order, suppressed items removed",
               (".dat", ".txt", ".csv", ".parquet"), _write_release),
        Export("sensitive", "Sensitive items", "--sensitive-out",
               "E_USED.csv: record,item pairs of the sensitive items used ('*' = every record)", (".csv",),
               _write_sensitive, kind="audit",
               warning="it lists what each person wants hidden; keep it private"),
        Export("rules", "Sensitive rules", "--rules-out",
               "the rules Q -> e above rho in the original data, with confidence before and after, the people "
               "they threatened and what was suppressed", (".csv",), _write_rules, kind="audit",
               warning="it names people and their sensitive items"),
    )

    # The paper's figures (Nakagawa et al. 2018): loss against ρ, the sensitive share and m, one curve per
    # setting. ε = δ (Fig. 8) moves two fields together, which a grid of axes cannot; the workbench's
    # trade-off tab draws it.
    sweeps = tuple(
        SweepPreset(f"Loss vs {what}, {' vs '.join(pair)} ({fig})", (axis, Axis("setting", pair)),
                    ("util_info", "util_mining"), group="setting")
        for what, axis, fig in (("ρ", Axis("rho", ("0.3", "0.4", "0.5", "0.6", "0.7")), "Figs. 3, 5"),
                                ("sensitive share", Axis("sensitive_fraction", (0.05, 0.1, 0.2, 0.3, 0.4)),
                                 "Figs. 4, 6"),
                                ("m", Axis("m", (1, 2, 3, 4, 5)), "Fig. 7"))
        for pair in (("fixed", "personalized"), ("fixed+", "personalized+"))
    )

    def example(self) -> tuple[TransactionData, RhoParams]:
        return _example_data(), RhoParams(rho="0.5", m=3, setting="personalized+", sensitive_fraction=0.2,
                                          noise=0.05, seed=3)

    def check_data(self, data: TransactionData, params: RhoParams) -> None:
        check_data(data, params)

    def run(self, data: TransactionData, params: RhoParams, progress) -> RhoResult:
        return run_rho(data, params, progress.stage("run"))

    def verify(self, data: TransactionData, result: RhoResult, params: RhoParams, progress) -> RhoVerification:
        return verify_run(data, result, params, progress)

    def promise(self, params: RhoParams) -> str:
        rho = params.rho_fraction
        pct = f"{float(rho) * 100:.4g} %"
        knows = "any of a person's items" if params.m is None else f"up to {params.m} of a person's items"
        text = (f"Nobody who knows {knows} can infer one of that person's sensitive items with more than {pct} "
                "confidence")
        if params.sampled:
            drawn = "a random person and their items" if params.sampler == "user" else "a random person-itemset pair"
            text += (f", except for at most {params.epsilon:g} of such attackers ({drawn}), with probability at "
                     f"least {1 - params.delta:g}")
        return text + "."

    def describe(self, run: MethodRun) -> Description:
        params: RhoParams = run.params
        result: RhoResult | None = run.result
        promise = self.promise(params)
        notes = []
        if result is not None:
            notes.append(f"{result.suppressed_items:,} item occurrences suppressed ({result.util_info:.2%}) in "
                         f"{result.iterations} passes; {result.constraint.describe()}.")
        if run.status == "cancelled":
            return Description(promise=promise, check="Stopped before a clean pass: the data so far may still "
                               "let someone infer a sensitive item.", state="incomplete", notes=tuple(notes))
        v = run.verification
        if v is None:
            check, state = "Independent check: not run.", "warning"
        elif v.passed:
            check, state = "Independent check passed: " + "; ".join(v.lines()), "ok"
        else:
            check, state = "Independent check FAILED: " + "; ".join(v.lines()), "failed"
        return Description(promise=promise, check=check, state=state, notes=tuple(notes))

    def report_lines(self, run: MethodRun, options: dict | None = None) -> list[str]:
        d = self.describe(run)
        lines = [d.promise, *d.notes]
        v = run.verification
        if v is not None:
            lines.append("Independent check " + ("passed:" if v.passed else "FAILED:"))
            lines.extend(f"  {line}" for line in v.lines())
        elif d.check:
            lines.append(d.check)
        r: RhoResult | None = run.result
        if r is not None:
            dist = "n/a" if r.util_dist is None else f"{r.util_dist:.6g}"
            mining = "n/a" if r.mining is None or r.mining.value is None else f"{r.mining.value:.4f}"
            lines.append(f"util_info {r.util_info:.6g}, util_dist {dist}, util_mining {mining}; "
                         f"{r.iterations} passes, {r.seconds:.2f} s")
        return lines


SPEC = RhoSpec()
