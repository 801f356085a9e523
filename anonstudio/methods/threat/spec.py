"""The Threats family: what does an attacker learn from a group-anonymized table beyond what it teaches about
everyone? (Boreale, Corradi, Viscardi 2020).

One run anonymizes the loaded table (Mondrian, global recoding or Anatomy)
or reads a published CSV aligned with it, runs the Bayesian analysis
(learner p_L, attacker p_A, random worlds p_RW) and checks the release with
the independent group verifier.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...data.io.atomic import OutputSet
from ...data.table import Table
from ...jobs import PartialRelay
from ...params import ParameterError, param, reuse_param, validate
from ...verifiers.group_anonymize import GroupPrivacyReport
from ..contract import Description, Export, MethodRun, MethodSpec, Stage
from ..sweep import Axis, SweepPreset
from ..group_anonymize.api import PUBLISHED, GroupAnonParams
from ..group_anonymize.spec import GroupRun, check_release, release_of, write_group_release
from .analysis import ThreatResult, analyze_threat
from .params import ThreatParams

__all__ = ["ThreatRunParams", "ThreatRun", "ThreatSpec", "SPEC", "summary_sentence"]

SECTION_SAMPLER = "Sampler"


@dataclass(frozen=True)
class ThreatRunParams:
    """The release to analyse (anonymize the table, or read a published CSV) and the sampler's settings."""

    scheme: str = reuse_param(GroupAnonParams, "scheme", label="Anonymization",
                              tooltip="How the table is anonymized before the analysis, or 'published' to analyse "
                                      "an anonymized CSV you choose below.")
    k: int = reuse_param(GroupAnonParams, "k", enabled_when={"scheme": ("mondrian", "global", "anatomy")})
    l: int | None = reuse_param(GroupAnonParams, "l", default=4, label="ℓ (diversity)",
                                enabled_when={"scheme": ("mondrian", "global", "anatomy")})
    qi: tuple[str, ...] = reuse_param(GroupAnonParams, "qi")
    sensitive: str = reuse_param(GroupAnonParams, "sensitive")
    known: tuple[str, ...] = reuse_param(ThreatParams, "known_qi", section="Columns")
    rows: int | None = param(
        None, label="Rows analysed", minimum=10, maximum=100_000_000, step=500, optional=True,
        none_means="every complete row",
        enabled_when={"scheme": ("mondrian", "global", "anatomy")},
        tooltip="Only the first this many rows with no missing value in the chosen columns are anonymized and "
                "analysed (the paper used 5,692 rows of Adult). Not set: every complete row.")
    hierarchies: tuple = reuse_param(GroupAnonParams, "hierarchies")
    max_suppression: float = reuse_param(GroupAnonParams, "max_suppression")
    published: Path | None = reuse_param(GroupAnonParams, "published")
    domains: Path | None = reuse_param(GroupAnonParams, "domains")
    id_column: str | None = reuse_param(GroupAnonParams, "id_column")
    group_column: str = reuse_param(GroupAnonParams, "group_column")
    iterations: int = reuse_param(ThreatParams, "iterations", section=SECTION_SAMPLER)
    burn_in: int = reuse_param(ThreatParams, "burn_in", section=SECTION_SAMPLER)
    thinning: int = reuse_param(ThreatParams, "thinning", section=SECTION_SAMPLER)
    chains: int = reuse_param(ThreatParams, "chains", section=SECTION_SAMPLER)
    seed: int = reuse_param(ThreatParams, "seed")
    prior_alpha: float = reuse_param(ThreatParams, "prior_alpha", label="Prior α (sensitive)",
                                     section=SECTION_SAMPLER)
    prior_beta: float = reuse_param(ThreatParams, "prior_beta", label="Prior β (attributes)",
                                    section=SECTION_SAMPLER)
    learner: str = reuse_param(ThreatParams, "learner")
    # Both shape Anatomy's sampler only (a published release may be an Anatomy one).
    proposal: str = reuse_param(ThreatParams, "proposal", advanced=True,
                                enabled_when={"scheme": ("anatomy", "published")})
    moves_per_group: int = reuse_param(ThreatParams, "moves_per_group",
                                       enabled_when={"scheme": ("anatomy", "published")})
    etv_samples: int = reuse_param(ThreatParams, "etv_samples")
    exact_tv_limit: int = reuse_param(ThreatParams, "exact_tv_limit")
    tracked_rows: int = reuse_param(ThreatParams, "tracked_rows")

    def group_params(self) -> GroupAnonParams:
        shared = {f.name: getattr(self, f.name) for f in dataclasses.fields(GroupAnonParams) if hasattr(self, f.name)}
        return GroupAnonParams(**shared)

    def threat_params(self) -> ThreatParams:
        shared = {f.name: getattr(self, f.name) for f in dataclasses.fields(ThreatParams) if hasattr(self, f.name)}
        return ThreatParams(**shared, known_qi=self.known)

    def check(self) -> None:
        validate(self.group_params())
        validate(self.threat_params())
        unknown = [c for c in self.known if self.qi and c not in self.qi]
        if unknown:
            raise ParameterError(f"The attacker can only know quasi-identifiers; {', '.join(unknown)} is not one",
                                 name="known")


@dataclass(eq=False)
class ThreatRun:
    """One analysis: the release (with the rows it covers) and the estimates (None until sampling has any)."""

    release: GroupRun
    result: ThreatResult | None = None

    @property
    def complete(self) -> bool:
        return self.release.complete and self.result is not None and self.result.complete

    @property
    def table(self) -> Table:
        return self.release.table

    def to_json(self) -> dict:
        """Measures, diagnostics and the release; the per-row distributions are an audit export of their own."""
        doc = self.result.to_json() if self.result is not None else {}
        doc.pop("rows", None)
        doc["release"] = self.release.to_json()
        doc["complete"] = self.complete
        return doc

    def summary(self) -> dict[str, float]:
        out = dict(self.release.summary())
        if self.result is not None:
            out.update({k: float(v) for k, v in self.result.measures.items()
                        if isinstance(v, (int, float, np.floating))})
        return out


def _pct(share: Any) -> str:
    return "n/a" if share is None or not np.isfinite(share) else f"{share * 100:.1f} %"


def summary_sentence(result: ThreatResult) -> str:
    """The analysis in one sentence a privacy officer reads."""
    m = result.measures
    count = m.get("count_log2Ti_ge1", float("nan"))
    count_text = f"{int(count):,}" if np.isfinite(count) else "n/a"
    return (f"The attacker guesses the true {result.sensitive} of {_pct(m.get('GT_A'))} of the rows, the learner "
            f"of {_pct(m.get('GT_L'))}, random worlds of {_pct(m.get('GT_RW'))}; for {count_text} people the "
            f"attacker guesses right and is at least twice as confident as the learner.")


def _write_rows(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    from .export import write_rows_csv

    r: ThreatRun = run.result
    write_rows_csv(r.result, r.release.release.row_group, outputs.path_for(path))


def _write_distributions(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    from ...data.io.jsonfile import write_json

    r: ThreatRun = run.result
    doc = r.result.to_json()
    write_json(path, {"sensitive_values": doc["sensitive_values"], "complete": r.complete, "rows": doc["rows"]},
               indent=1, outputs=outputs)


def _write_release(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    write_group_release(path, run.result.release, run.params, outputs)


class ThreatSpec(MethodSpec):
    name = "threat"
    samples = (("adult", {"rows": 300, "iterations": 200, "burn_in": 100}),)
    title = "Threats: attacker vs learner"
    summary = "measure what an attacker learns from a group-anonymized table beyond what it teaches about everyone"
    description = (
        "Anonymize the table (Mondrian, global recoding, Anatomy) or read a published CSV aligned with it "
        "(--scheme published --published FILE), learn the population model from the release by MCMC and compare, "
        "row by row, the learner's prediction of the sensitive value (p_L) with an attacker who also knows the "
        "victim is in the table (p_A, Lemma 1) and with random worlds (p_RW). Prints the threat and faithfulness "
        "measures; the release is checked by the independent group verifier.")
    reference = ("M. Boreale, F. Corradi, C. Viscardi. <i>Relative privacy threats and learning from anonymized "
                 "data.</i> IEEE Transactions on Information Forensics and Security, 2020.")
    params = ThreatRunParams
    data_kinds = (Table,)
    guarantee = True
    stages = (Stage("release", "anonymizing", 1.0),
              Stage("sample", "sampling", lambda p: max(p.iterations * p.chains / 2000.0, 0.5)),
              Stage("verify", "independent check", 0.3))
    exports = (
        Export("release", "Anonymized table", "--out", "the analysed release as CSV (as group-anonymize writes it)",
               (".csv",), _write_release, available=lambda run: run.params.scheme != PUBLISHED),
        Export("rows", "Per-row CSV", "--rows-out",
               "one line per analysed row: row, group, true value s, p_A(s), p_L(s), p_RW(s), Ti, log2 Ti and "
               "whether each side guesses it right", (".csv",), _write_rows, kind="audit",
               warning="per-row posteriors name what the attacker learns about each cleartext row; keep the file "
                       "internal", available=lambda run: run.result is not None and run.result.result is not None),
        Export("distributions", "Per-row distributions (JSON)", "--distributions-out",
               "every analysed row's full p_A, p_L, p_RW and p_I over the sensitive values, as JSON", (".json",),
               _write_distributions, kind="audit",
               warning="the full posterior of every cleartext row; keep the file internal",
               available=lambda run: run.result is not None and run.result.result is not None),
    )
    sweeps = (SweepPreset("Attacker and learner vs k, Mondrian and Anatomy",
                          (Axis("k", (2, 4, 8)), Axis("scheme", ("mondrian", "anatomy"))), ("GT_A", "GT_L"),
                          group="scheme"),)
    cli_options = (("--victim", dict(type=int, metavar="ROW", default=None,
                                     help="print the three distributions of the victim in analysed row ROW "
                                          "(0-based)")),)
    cli_aliases = {
        "--original": (lambda v: [v] if v is not None else None, True,
                       "--original TABLE is now the positional DATASET"),
        "--anonymized": (lambda v: ["--scheme", "published", "--published", v] if v is not None else None, True,
                         "--anonymized FILE is now --scheme published --published FILE"),
        "--drop-incomplete": (lambda _v: [], False,
                              "--drop-incomplete is always on: rows with a missing value are dropped first"),
    }

    def example(self):
        from ..group_anonymize.spec import example_table

        return example_table(200), ThreatRunParams(k=4, l=2, iterations=300, burn_in=100, thinning=1)

    def check_data(self, table: Table, params: ThreatRunParams) -> None:
        from ..group_anonymize.spec import SPEC as GROUP

        GROUP.check_data(table, params.group_params())

    def run(self, table: Table, params: ThreatRunParams, progress) -> ThreatRun:
        rows = params.rows if params.scheme != PUBLISHED else None
        group_run = release_of(table, params.group_params(), progress.stage("release"), rows=rows)
        run = ThreatRun(group_run)
        if group_run.release is None or progress.cancelled():
            return run
        progress.partial(ThreatRun(group_run))
        sampling = PartialRelay(progress.stage("sample"), lambda result: ThreatRun(group_run, result))
        try:
            run.result = analyze_threat(group_run.table, group_run.release, params.threat_params(), sampling)
        except ValueError as exc:
            raise ParameterError(str(exc)) from None
        return run

    def verify(self, table: Table, result: ThreatRun, params: ThreatRunParams, progress) -> GroupPrivacyReport | None:
        if result.release.release is None:
            return None
        progress.set(0.0, "checking the release")
        group = params.group_params()
        if params.scheme == PUBLISHED:  # nothing was promised: check the release's consistency only
            group = dataclasses.replace(group, k=1, l=None)
        elif params.scheme == "anatomy":  # Anatomy promises ℓ; its groups are as large as ℓ asks
            group = dataclasses.replace(group, k=1)
        return check_release(result.release, group)

    def describe(self, run: MethodRun) -> Description:
        r: ThreatRun = run.result
        promise = summary_sentence(r.result) if r.result is not None and r.result.kept else \
            "No estimate yet: the sampler kept no sample."
        check = "Release: " + r.release.text
        if run.verification is not None:
            check += (". Independent check: " + ("PASS" if run.verification.passed else "FAIL") + " — "
                      + "; ".join(run.verification.lines()))
        return Description(promise, check, run.state)

    def report_lines(self, run: MethodRun, options: dict | None = None) -> list[str]:
        r: ThreatRun = run.result
        lines = []
        if r.result is None:
            return ["no estimates: stopped before sampling began"]
        if not r.result.complete:
            lines.append("warning: sampling was interrupted; estimates use the samples kept so far")
        if run.params.tracked_rows > r.table.n_rows:
            lines.append(f"warning: --tracked-rows {run.params.tracked_rows:,} is more than the {r.table.n_rows:,} "
                         "rows analysed; all of them were diagnosed")
        for name, value in r.result.measures.items():
            lines.append(f"{name:>30} = {value:.6g}    {r.result.meanings.get(name, '')}")
        victim = (options or {}).get("victim")
        if victim is not None:
            lines.extend(_victim_lines(r.result, victim))
        lines.append(self.describe(run).promise)
        return lines

    def check_cli_options(self, data: Table, params: ThreatRunParams, options: dict) -> None:
        from ..group_anonymize.spec import prepared_table

        victim = options.get("victim")
        if victim is None:
            return
        rows = prepared_table(data, params.group_params(), params.rows if params.scheme != PUBLISHED else None)[0]
        if not 0 <= victim < rows.n_rows:
            raise ParameterError(f"--victim {victim} is outside the {rows.n_rows:,} rows analysed "
                                 f"(0..{rows.n_rows - 1:,})")


def _victim_lines(result: ThreatResult, row: int) -> list[str]:
    if not 0 <= row < result.n_rows:
        return [f"--victim {row}: the analysis covers rows 0..{result.n_rows - 1}"]
    victim = result.victim(row)
    names = list(victim["p_L"])
    width = max(len(n) for n in names + ["value"])
    lines = [f"victim: row {row}, true sensitive value {victim['s']}",
             f"{'value':<{width}}  {'p_L':>7}  {'p_A':>7}  {'p_RW':>7}"]
    for n in names:
        lines.append(f"{n:<{width}}  {victim['p_L'][n]:7.3f}  {victim['p_A'][n]:7.3f}  {victim['p_RW'][n]:7.3f}")
    return lines


SPEC = ThreatSpec()
