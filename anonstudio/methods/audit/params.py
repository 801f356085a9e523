"""Parameters of an audit: the release and its side files, what to measure, and the claim to check."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...params import ParameterError, param, seed_param

__all__ = ["AuditParams", "KIND_CHOICES", "MAX_M"]

SECTION_RELEASE = "Release"
SECTION_SIDE = "Side files of the release"
SECTION_MEASURE = "What to measure"
SECTION_CLAIM = "Claim to audit"

#: What the release is (the evaluator's kinds, or sniffed).
KIND_CHOICES = ("auto", "plain", "generalized", "nonreciprocal", "rt", "table")
#: Largest m the evaluator enumerates known sets for.
MAX_M = 16
_FILES = "All files (*);;CSV files (*.csv);;FIMI itemsets (*.dat *.txt)"


@dataclass(frozen=True)
class AuditParams:
    """Everything an audit needs besides the original (``anonstudio-cli evaluate``'s options, by the same names)."""

    release: Path | None = param(
        None, label="Release file", kind="path", optional=True, section=SECTION_RELEASE,
        none_means="the original itself (a baseline)", file_filter=_FILES, flag="--release",
        tooltip="The published file to audit: set-valued lines (plain, suppressed or generalized), a "
                "nonreciprocal PUBLISHED.csv, an RT table or a group-anonymized table such as ARX's output. "
                "Empty: the original is measured as its own release, the risk before any anonymization.")
    kind: str = param(
        "auto", label="Release kind", choices=KIND_CHOICES, section=SECTION_RELEASE,
        choice_labels=("sniff from the files", "plain or suppressed sets", "generalized sets",
                       "nonreciprocal release", "RT table (demographics + items)", "group-anonymized table"),
        tooltip="How the release publishes a person: a record is a candidate when it is consistent with what "
                "the attacker knows under that kind's own rules (docs/evaluate.md).")
    map: Path | None = param(
        None, label="Item → published item map", kind="path", optional=True, section=SECTION_SIDE,
        none_means="no map", file_filter="CSV files (*.csv);;All files (*)",
        tooltip="item,partition CSV: the published item of every original item (σ-k^m's partition map).")
    item_hierarchy: Path | None = param(
        None, label="Item hierarchy", kind="path", optional=True, section=SECTION_SIDE, none_means="no hierarchy",
        file_filter="Hierarchy files (*.csv *.txt);;All files (*)",
        tooltip="The item hierarchy whose nodes the release publishes (leaf;parent;...;root), e.g. RT's.")
    hierarchies: tuple = param(
        (), label="Column hierarchies", kind="column_paths", section=SECTION_SIDE, flag="--hierarchy",
        file_filter="Hierarchy CSV (*.csv *.txt);;All files (*)",
        tooltip="A hierarchy per table column whose published cells name its nodes (COLUMN=FILE).")
    sensitive: Path | None = param(
        None, label="Sensitive items", kind="path", optional=True, section=SECTION_SIDE,
        none_means="no sensitive items", file_filter="CSV or text (*.csv *.txt);;All files (*)",
        tooltip="person,item pairs (people numbered from 1, * for everyone: ρ's file) or one item per line, "
                "sensitive for everyone (RT's list). Needed for attribute disclosure on set-valued data.")
    sensitive_column: str | None = param(
        None, label="Sensitive column", kind="column", optional=True, section=SECTION_SIDE,
        none_means="the column marked sensitive",
        tooltip="Tables: the column whose value must not be inferred (default: the one marked sensitive).")
    m: int = param(3, label="m (most items the attacker knows)", minimum=1, maximum=MAX_M, section=SECTION_MEASURE,
                   tooltip="Risk is measured for m = 1, 2, ... up to this many known items.")
    k: int = param(5, label="k (fewer candidates = at risk)", minimum=1, maximum=1_000_000, section=SECTION_MEASURE,
                   tooltip="A person is at risk when their own record is a candidate and there are fewer than k "
                           "candidates.")
    rho: float = param(0.5, label="ρ (attribute disclosure)", minimum=0.01, maximum=1.0, step=0.05, decimals=2,
                       section=SECTION_MEASURE,
                       tooltip="A sensitive value is disclosed when more than this share of a person's candidates "
                               "hold it.")
    queries: int = param(1000, label="count queries", minimum=0, maximum=1_000_000, section=SECTION_MEASURE,
                         tooltip="Random count queries of the shared workload the utility is measured on.")
    seed: int = seed_param(tooltip="Seeds the sampled known sets and the query workload: same seed, same figures.")
    claim_k: int | None = param(
        None, label="claimed k", minimum=1, maximum=1_000_000, optional=True, section=SECTION_CLAIM,
        none_means="no claim: measure only",
        tooltip="The claim to audit: nobody whose record can be found has fewer than k candidates when the "
                "attacker knows m of their items (and the quasi-identifiers). False: a counterexample.")
    claim_m: int | None = param(
        None, label="claimed m", minimum=1, maximum=MAX_M, optional=True, section=SECTION_CLAIM,
        none_means="the largest m above",
        tooltip="How many items the claim says an attacker may know (at most m above).")

    def check(self) -> None:
        if self.claim_m is not None and self.claim_k is None:
            raise ParameterError("claimed m needs a claimed k", name="claim_m")
        if self.claim_m is not None and self.claim_m > self.m:
            raise ParameterError(f"claimed m = {self.claim_m} is beyond m = {self.m} (raise m)", name="claim_m")

    @property
    def claim_text(self) -> str | None:
        """The claim as ``anonstudio-cli evaluate --claim`` spells it (None: no claim)."""
        if self.claim_k is None:
            return None
        return f"k={self.claim_k}" + (f",m={self.claim_m}" if self.claim_m is not None else "")
