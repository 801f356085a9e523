"""The background job of the Threats workbench: anonymize (or import), verify, sample, measure.

Qt-free on purpose (it runs on a worker thread). One run

1. takes the first ``rows`` complete rows of the chosen columns (interactive
   runs stay in seconds; the paper used 5,692 Adult rows),
2. anonymizes them with Mondrian, global recoding or Anatomy
   (:func:`anonstudio.methods.group_anon.api.anonymize`), or reads a published
   CSV aligned with the loaded table
   (:func:`anonstudio.methods.group_anon.published_csv.import_release`),
3. checks the release with the independent verifier
   (:func:`anonstudio.verifiers.group_privacy.verify_group_release`),
4. runs the Bayesian threat analysis
   (:func:`anonstudio.methods.threat.analyze_threat`), whose running
   estimates are published as partial :class:`ThreatRun` results.

A cancel returns what exists so far with ``complete=False``: the release and
its check when sampling had not begun, else the estimates from the samples
kept so far.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..data.table import Table
from ..jobs import Progress, SubProgress
from ..methods.group_anon.api import GroupAnonParams, GroupAnonResult, anonymize
from ..methods.group_anon.domains import complete_rows
from ..methods.group_anon.release import GroupRelease
from ..methods.threat import ThreatParams, ThreatResult, analyze_threat
from ..verifiers.group_privacy import GroupPrivacyReport, verify_group_release
from ..params import ParameterError, param
from ..methods.threat.params import check_params

__all__ = ["ThreatRunParams", "ThreatSetup", "ThreatRun", "run_threat_pipeline", "select_rows", "SCHEMES", "RowView",
           "log2_or_inf"]

#: Progress-bar slices: anonymizing and verifying take a second or two next to a
#: sampler running for many; larger slices would make the jobs dock's time-left
#: estimate (extrapolated from the fraction done) far too optimistic.
ANONYMIZE_STOP = 0.02
VERIFY_STOP = 0.03

#: The anonymizers' schemes, then an already anonymized CSV.
SCHEMES = ("mondrian", "global", "anatomy", "csv")


def _reuse(source: type, name: str, default: Any = dataclasses.MISSING, note: str = "", **changes: Any) -> Any:
    """A copy of ``source``'s declared field ``name`` with a new default, ``note`` appended to its tooltip.

    The labels, ranges and tooltips stay those of the method, so the panel
    follows the method's own parameter definitions as they evolve.
    """
    original = source.__dataclass_fields__[name]
    meta = dict(original.metadata["anonstudio"])
    meta.update(changes)
    if note:
        meta["tooltip"] = f"{meta['tooltip']} {note}"
    return field(default=original.default if default is dataclasses.MISSING else default,
                 metadata={"anonstudio": meta})


INTERACTIVE_NOTE = ("The defaults are sized for an interactive run that finishes in seconds on a few thousand "
                    "rows; raise them for a report (the paper used 100,000 sweeps).")


@dataclass(frozen=True)
class ThreatRunParams:
    """Everything the Threats panel sets through its form (columns are picked beside it)."""

    scheme: str = param(
        "mondrian", label="Anonymization", choices=SCHEMES,
        choice_labels=("Mondrian", "Global recoding", "Anatomy", "Imported CSV"),
        tooltip="How the table is anonymized before the analysis. Mondrian and global recoding publish "
                "generalized cells (age [20-29]); Anatomy publishes exact attributes but each group's "
                "sensitive values as an unordered bag. 'Imported CSV' analyses an anonymized file you choose "
                "below, whose lines match the loaded table's rows.")
    k: int = _reuse(GroupAnonParams, "k")
    # Short labels: the parameters dock is narrow; the tooltips keep the full meaning.
    l: int | None = _reuse(GroupAnonParams, "l", default=4, label="ℓ (diversity)")
    rows: int = param(
        3000, label="Rows analysed", minimum=10, maximum=1_000_000, step=500,
        tooltip="Only the first this many rows with no missing value in the chosen columns are anonymized "
                "and analysed. 3,000 rows take 5-10 s with the default sweeps; the paper used 5,692 rows "
                "of Adult. Ignored for an imported CSV, which must cover the whole loaded table.")
    # Smaller maxima than the method allows keep the spin boxes narrow enough for the dock.
    iterations: int = _reuse(ThreatParams, "iterations", default=2000, note=INTERACTIVE_NOTE, maximum=10_000_000)
    burn_in: int = _reuse(ThreatParams, "burn_in", default=1000, maximum=10_000_000)
    thinning: int = _reuse(ThreatParams, "thinning", default=2)
    chains: int = _reuse(ThreatParams, "chains")
    seed: int | None = _reuse(ThreatParams, "seed", maximum=2**31 - 1)
    prior_alpha: float = _reuse(ThreatParams, "prior_alpha", label="Prior α (sensitive)")
    prior_beta: float = _reuse(ThreatParams, "prior_beta", label="Prior β (attributes)")
    learner: str = _reuse(ThreatParams, "learner")
    proposal: str = _reuse(ThreatParams, "proposal", advanced=True)

    def __post_init__(self) -> None:
        if self.burn_in >= self.iterations:
            raise ParameterError(f"Burn-in must be smaller than Iterations (got {self.burn_in:,} ≥ "
                                 f"{self.iterations:,})")
        if self.scheme == "anatomy" and self.l is None:
            raise ParameterError("Anatomy needs ℓ: tick and set “ℓ (diversity)”")

    def group_params(self, qi: list[str], sensitive: str) -> GroupAnonParams:
        return GroupAnonParams(scheme=self.scheme, k=self.k, l=self.l, qi=",".join(qi), sensitive=sensitive)

    def threat_params(self, known_qi: list[str]) -> ThreatParams:
        shared = {f.name: getattr(self, f.name) for f in dataclasses.fields(ThreatParams) if hasattr(self, f.name)}
        return check_params(ThreatParams(**{**shared, "known_qi": ",".join(known_qi)}))


@dataclass(frozen=True)
class ThreatSetup:
    """What the column pickers and the CSV chooser decide."""

    qi: tuple[str, ...]
    sensitive: str
    known: tuple[str, ...] = ()  # empty: the attacker knows every quasi-identifier
    csv_path: Path | None = None
    domain_path: Path | None = None
    id_column: str | None = None

    def problem(self, scheme: str) -> str:
        """Why this setup cannot run ("" when it can)."""
        if not self.sensitive:
            return "Choose the sensitive attribute."
        if not self.qi:
            return "Tick at least one quasi-identifier."
        if self.sensitive in self.qi:
            return f"“{self.sensitive}” cannot be both sensitive and a quasi-identifier."
        if scheme == "csv" and self.csv_path is None:
            return "Choose the anonymized CSV file to analyse."
        return ""


@dataclass(eq=False)
class ThreatRun:
    """One run as the workbench shows it; ``result`` is None until sampling has estimates."""

    params: ThreatRunParams
    setup: ThreatSetup
    table: Table
    release: GroupRelease | None = None
    anonymization: GroupAnonResult | None = None
    report: GroupPrivacyReport | None = None
    result: ThreatResult | None = None
    finished: bool = False

    @property
    def complete(self) -> bool:
        anonymized = self.anonymization is None or self.anonymization.complete
        return self.finished and anonymized and self.result is not None and self.result.complete

    def release_text(self) -> str:
        """One line: what was published and how large its groups are."""
        if self.release is None:
            return "No release yet."
        p = self.params
        if p.scheme == "csv":
            what = f"imported {self.setup.csv_path.name if self.setup.csv_path else 'CSV'} ({self.release.scheme})"
        elif p.scheme == "anatomy":
            what = f"Anatomy, ℓ = {p.l}"
        else:
            what = f"{'Mondrian' if p.scheme == 'mondrian' else 'Global recoding'}, k = {p.k}" + (
                f", ℓ = {p.l}" if p.l is not None else "")
        sizes = self.release.group_sizes()
        return (f"{what}: {self.release.n_rows:,} rows in {self.release.n_groups:,} groups "
                f"(size {int(sizes.min())}–{int(sizes.max())}, mean {sizes.mean():.1f})")

    def verifier_text(self) -> str:
        """The independent verifier's verdict in one line."""
        r = self.report
        if r is None:
            return "Independent check: not run yet."
        sizes = (f"{r.min_group_size}" if r.min_group_size == r.max_group_size
                 else f"{r.min_group_size}–{r.max_group_size}")
        parts = [f"{'PASS' if r.ok else 'FAIL'}: groups of {sizes} rows",
                 f"at least {r.min_distinct_sensitive} different sensitive values per group"]
        if r.k is not None:
            parts.append(f"{r.k}-anonymous: {'yes' if r.k_anonymous else 'NO'}")
        if r.l is not None:
            parts.append(f"{r.l}-diverse: {'yes' if r.l_diverse else 'NO'}")
        parts.append(f"{r.n_misfits} rows outside their group's cells")
        parts.extend(r.problems[:1])
        return "Independent check — " + "; ".join(parts)


class _RunPartials:
    """Passes progress through and wraps each partial ThreatResult in the run."""

    def __init__(self, parent: Progress, run: ThreatRun):
        self.parent, self.run = parent, run

    def set(self, fraction: float, status: str = "") -> None:
        self.parent.set(fraction, status)

    def partial(self, result: Any) -> None:
        self.parent.partial(dataclasses.replace(self.run, result=result))

    def cancelled(self) -> bool:
        return self.parent.cancelled()


def select_rows(table: Table, columns: list[str], rows: int | None) -> Table:
    """The first ``rows`` rows with no missing value in ``columns`` (None: all of them)."""
    complete = complete_rows(table, columns)
    if rows is None or complete.n_rows <= rows:
        return complete
    frame = complete.frame.iloc[:rows].reset_index(drop=True)
    return Table(frame, dict(complete.roles), complete.name, complete.source)


def _release(table: Table, params: ThreatRunParams, setup: ThreatSetup,
             progress: Progress) -> tuple[Table, GroupRelease | None, GroupAnonResult | None]:
    qi = list(setup.qi)
    if params.scheme == "csv":
        from ..methods.group_anon.published_csv import import_release

        progress.set(0.0, f"reading {setup.csv_path.name}")
        release = import_release(setup.csv_path, table, qi=qi, sensitive=setup.sensitive,
                                 id_column=setup.id_column, domain_path=setup.domain_path)
        return table, release, None
    subset = select_rows(table, [*qi, setup.sensitive], params.rows)
    progress.set(0.0, f"anonymizing {subset.n_rows:,} rows")
    result = anonymize(subset, params.group_params(qi, setup.sensitive), SubProgress(progress, 0.0, 1.0))
    return subset, result.release, result


def run_threat_pipeline(table: Table, params: ThreatRunParams, setup: ThreatSetup, progress: Progress) -> ThreatRun:
    """Anonymize or import, verify, then estimate p_L, p_A, p_RW and the measures (see the module docstring)."""
    problem = setup.problem(params.scheme)
    if problem:
        raise ValueError(problem)
    threat_params = params.threat_params(list(setup.known))
    analysed, release, anonymization = _release(table, params, setup, SubProgress(progress, 0.0, ANONYMIZE_STOP))
    run = ThreatRun(params, setup, analysed, release, anonymization)
    if release is None or progress.cancelled():
        run.finished = True
        return run
    progress.set(ANONYMIZE_STOP, "checking the release independently")
    check_k = params.k if params.scheme in ("mondrian", "global") else None
    run.report = verify_group_release(analysed, release, check_k, params.l if params.scheme != "csv" else None)
    progress.partial(dataclasses.replace(run))
    if progress.cancelled():
        run.finished = True
        return run
    sampling = _RunPartials(SubProgress(progress, VERIFY_STOP, 1.0), run)
    run.result = analyze_threat(analysed, release, threat_params, sampling)
    run.finished = True
    return run


def log2_or_inf(values: np.ndarray) -> np.ndarray:
    """log2 of positive values; zeros become -inf without a warning."""
    with np.errstate(divide="ignore"):
        return np.log2(np.asarray(values, dtype=float))


@dataclass(eq=False)
class RowView:
    """Per-row quantities of a run, ready for tables, plots and exports (rows in analysed order).

    ``p_A``, ``p_L`` and ``p_RW`` are the probabilities of each row's *true*
    sensitive value; ``ti = p_A / p_L`` (inf where p_L is 0).
    """

    frame: Any
    qi: list[str]
    sensitive: str
    s_names: list[str]
    s_true: np.ndarray
    group: np.ndarray
    p_A: np.ndarray
    p_L: np.ndarray
    p_RW: np.ndarray
    ti: np.ndarray
    threatened_A: np.ndarray
    threatened_L: np.ndarray

    @classmethod
    def of(cls, run: ThreatRun) -> "RowView":
        from ..methods.threat.model import text_of

        result = run.result
        measures = result.rows()
        rows = np.arange(result.n_rows)
        return cls(run.table.frame, list(result.qi), result.sensitive, [text_of(v) for v in result.sensitive_values],
                   result.s_true, run.release.row_group, measures["p_A"], measures["p_L"],
                   result.p_RW[rows, result.s_true], measures["Ti"], measures["threatened_A"],
                   measures["threatened_L"])

    @property
    def log2_ti(self) -> np.ndarray:
        return log2_or_inf(self.ti)
