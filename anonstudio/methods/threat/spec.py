"""The Threats family: what does an attacker learn from a group-anonymized table beyond what it teaches about
everyone? (Boreale, Corradi, Viscardi 2020).

One run anonymizes the loaded table (Mondrian, global recoding or Anatomy)
or reads a published CSV aligned with it, runs the Bayesian analysis
(learner p_L, attacker p_A, random worlds p_RW) and checks the release with
the independent group verifier. Imports lightly: the sampler and its kernels
load only when a run starts.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from ...data.table import Table
from ...params import ParameterError
from ..contract import Export, Figure, MethodRun, MethodSpec, Stage
from ..group_anonymize.params import PUBLISHED
from ..group_anonymize.spec import check_release, write_group_release
from ..sweep import Axis, SweepPreset
from .params import ThreatParams
from .terms import TERMS

if TYPE_CHECKING:  # the writers' type only: data.io imports every loader, which --help must not
    from ...data.io.atomic import OutputSet

__all__ = ["ThreatSpec", "SPEC", "summary_sentence"]


def summary_sentence(estimates) -> str:
    """The analysis (a ThreatEstimates) in one sentence a privacy officer reads."""
    from ...formatting import integer, percent

    m = estimates.measures
    return (f"The attacker guesses the true {estimates.sensitive} of {percent(m.get('GT_A'))} of the rows, the "
            f"learner of {percent(m.get('GT_L'))}, random worlds of {percent(m.get('GT_RW'))}; for "
            f"{integer(m.get('count_log2Ti_ge1'))} people the attacker guesses right and is at least twice as "
            "confident as the learner.")


def _has_estimates(run: MethodRun) -> bool:
    return run.result is not None and run.result.estimates is not None


def _write_rows(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    from .export import write_rows_csv

    r = run.result
    write_rows_csv(r.estimates, r.release.release.row_group, outputs.path_for(path))


def _write_distributions(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    from ...data.io.jsonfile import write_json

    r = run.result
    doc = r.estimates.to_json()
    write_json(path, {"sensitive_values": doc["sensitive_values"], "complete": r.complete, "rows": doc["rows"]},
               indent=1, outputs=outputs)


def _write_release(path: Path, run: MethodRun, outputs: OutputSet) -> None:
    write_group_release(path, run.result.release, run.params, outputs)


def _victim_row(value: str | None) -> list[str] | None:
    """``--victim ROW`` (from 0) of earlier releases as ``--victim-row N`` (from 1)."""
    if value is None:
        return None
    try:
        return ["--victim-row", str(int(value) + 1)]
    except ValueError:
        return ["--victim-row", value]  # argparse names the bad value


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
    params = ThreatParams
    data_kinds = (Table,)
    guarantee = True
    #: The promise checked is the analysed release's k-anonymity and ℓ-diversity: the group verifier's.
    verified_by = "group_anonymize"
    terms = TERMS
    stages = (Stage("release", "anonymizing", 1.0),
              Stage("sample", "sampling", lambda p: max(p.iterations * p.chains / 2000.0, 0.5)),
              Stage("verify", "independent check", 0.3))
    exports = (
        Export("release", "Anonymized table", "--out", "the analysed release as CSV (as group-anonymize writes it)",
               (".csv",), _write_release, available=lambda run: run.params.scheme != PUBLISHED),
        Export("rows", "Per-row CSV", "--rows-out",
               "one line per analysed row: row (from 1), group, true value s, p_A(s), p_L(s), p_RW(s), Ti, log2 Ti "
               "and whether each side guesses it right", (".csv",), _write_rows, kind="audit",
               warning="per-row posteriors name what the attacker learns about each cleartext row; keep the file "
                       "internal", available=_has_estimates),
        Export("distributions", "Per-row distributions (JSON)", "--distributions-out",
               "every analysed row's full p_A, p_L, p_RW and p_I over the sensitive values, as JSON (rows from 1)",
               (".json",), _write_distributions, kind="audit",
               warning="the full posterior of every cleartext row; keep the file internal", available=_has_estimates),
    )
    sweeps = (SweepPreset("Attacker and learner vs k, Mondrian and Anatomy",
                          (Axis("k", (2, 4, 8)), Axis("scheme", ("mondrian", "anatomy"))), ("GT_A", "GT_L"),
                          group="scheme"),)
    cli_options = (("--victim-row", dict(type=int, metavar="N", default=None,
                                         help="print the three distributions of the victim in analysed row N "
                                              "(rows numbered from 1)")),)
    cli_aliases = {
        "--original": (lambda v: [v] if v is not None else None, True,
                       "--original TABLE is now the positional DATASET"),
        "--anonymized": (lambda v: ["--scheme", "published", "--published", v] if v is not None else None, True,
                         "--anonymized FILE is now --scheme published --published FILE"),
        "--drop-incomplete": (lambda _v: [], False,
                              "--drop-incomplete is always on: rows with a missing value are dropped first"),
        "--victim": (_victim_row, True, "--victim ROW (rows from 0) is now --victim-row N (rows from 1, N = ROW + 1)"),
    }

    def example(self):
        from ..group_anonymize.spec import example_table

        return example_table(200), ThreatParams(k=4, l=2, iterations=300, burn_in=100, thinning=1)

    def check_data(self, table: Table, params: ThreatParams) -> None:
        from ..group_anonymize.spec import SPEC as GROUP

        GROUP.check_data(table, params.group_params())

    def release_object(self, run: MethodRun):
        from ..group_anonymize.published_csv import release_frame

        published = run.result.release  # the group release the threat analysis read
        return release_frame(published.release, published.table, gid_column=run.params.group_column,
                             id_column=run.params.id_column)

    def run(self, table: Table, params: ThreatParams, progress):
        from .algorithm import run_threat

        return run_threat(table, params, progress)

    def verify(self, table: Table, result, params: ThreatParams, progress):
        if result.release.release is None:
            return None
        progress.set(0.0, "checking the release")
        group = params.group_params()
        if params.scheme == PUBLISHED:  # nothing was promised: check the release's consistency only
            group = dataclasses.replace(group, k=1, l=None)
        elif params.scheme == "anatomy":  # Anatomy promises ℓ; its groups are as large as ℓ asks
            group = dataclasses.replace(group, k=1)
        return check_release(result.release, group)

    def promise(self, run: MethodRun) -> str:
        estimates = run.result.estimates if run.result is not None else None
        if estimates is None or not estimates.kept:
            return "No estimate yet: the sampler kept no sample."
        return summary_sentence(estimates)

    def figure(self, run: MethodRun) -> Figure | None:
        """The Threat tab's histogram: rows by log2 Ti, how much surer of a row's true value the attacker is than a
        learner (rows where Ti is 0 or infinite left out)."""
        import numpy as np

        estimates = run.result.estimates if run.result is not None else None
        if estimates is None or not estimates.n_rows:
            return None
        with np.errstate(divide="ignore"):
            log_ti = np.log2(estimates.rows()["Ti"])
        log_ti = log_ti[np.isfinite(log_ti)]
        if not len(log_ti):
            return None
        # A bar per about sqrt(rows), 10 to 40 of them (a rule from the data's spread could make millions).
        bars = int(min(40, max(10, np.sqrt(len(log_ti)))))
        low, high = float(log_ti.min()), float(log_ti.max())
        counts, edges = np.histogram(log_ti, bins=bars, range=(low, high) if high > low else (low - 0.5, low + 0.5))
        centres = (edges[:-1] + edges[1:]) / 2
        return Figure(f"Rows by log2 Ti on {run.dataset.name}", "log2 Ti = log2(p_A / p_L), 1 = twice as sure",
                      "rows", (("rows", tuple(map(float, centres)), tuple(map(float, counts))),))

    def notes(self, run: MethodRun) -> list[str]:
        r = run.result
        if r is None:
            return []
        notes = [f"Release: {r.release.text}"]
        if r.estimates is None:
            notes.append("No estimates: stopped before sampling began.")
            return notes
        if not r.estimates.complete:
            notes.append("Sampling was interrupted; the estimates use the samples kept so far.")
        if run.params.tracked_rows > r.table.n_rows:
            notes.append(f"--tracked-rows {run.params.tracked_rows:,} is more than the {r.table.n_rows:,} rows "
                         "analysed; all of them were diagnosed.")
        return notes

    def detail_lines(self, run: MethodRun, options: dict | None = None) -> list[str]:
        victim = (options or {}).get("victim_row")
        if victim is None or not _has_estimates(run):
            return []
        return _victim_lines(run.result.estimates, victim)

    def check_cli_options(self, data: Table, params: ThreatParams, options: dict) -> None:
        from ..group_anonymize.algorithm import prepared_table
        from .algorithm import analysed_rows

        victim = options.get("victim_row")
        if victim is None:
            return
        rows = prepared_table(data, params.group_params(), analysed_rows(params))[0]
        if not 1 <= victim <= rows.n_rows:
            raise ParameterError(f"--victim-row {victim} is outside the {rows.n_rows:,} rows analysed "
                                 f"(1..{rows.n_rows:,})")


def _victim_lines(estimates, number: int) -> list[str]:
    """The victim in analysed row ``number`` (from 1): its three distributions, one line per value."""
    from ...formatting import probability

    if not 1 <= number <= estimates.n_rows:
        return [f"--victim-row {number}: the analysis covers rows 1..{estimates.n_rows}"]
    victim = estimates.victim(number - 1)
    names = list(victim["p_L"])
    width = max(len(n) for n in names + ["value"])
    lines = [f"victim: row {number}, true sensitive value {victim['s']}",
             f"{'value':<{width}}  {'p_L':>7}  {'p_A':>7}  {'p_RW':>7}"]
    for n in names:
        lines.append(f"{n:<{width}}  {probability(victim['p_L'][n]):>7}  {probability(victim['p_A'][n]):>7}  "
                     f"{probability(victim['p_RW'][n]):>7}")
    return lines


SPEC = ThreatSpec()
