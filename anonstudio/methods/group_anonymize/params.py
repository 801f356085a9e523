"""Parameters of group anonymization (k-anonymity, ℓ-diversity, Anatomy), shared by the CLI, the studio and
project files; the threat analysis builds its release from the same fields."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...params import ParameterError, param, seed_param

__all__ = ["GroupAnonymizeParams", "SCHEMES", "PUBLISHED", "SECTION_COLUMNS", "SECTION_PUBLISHED"]

SCHEMES = ("mondrian", "global", "anatomy")


#: Where a published (already anonymized) CSV is read instead of anonymizing.
PUBLISHED = "published"
SECTION_COLUMNS = "Columns"
SECTION_PUBLISHED = "Published file"


@dataclass(frozen=True)
class GroupAnonymizeParams:
    """Parameters of k-anonymity / ℓ-diversity / Anatomy anonymization: the whole recipe of a run."""

    scheme: str = param(
        "mondrian", label="Scheme", choices=(*SCHEMES, PUBLISHED),
        choice_labels=("Mondrian (local recoding)", "Global recoding (hierarchies)",
                       "Anatomy (separate sensitive values)", "Check a published CSV"),
        choice_tooltips=("Cuts the table into small boxes and generalizes each box separately (age [20-29]).",
                         "Generalizes a value the same way everywhere, climbing column hierarchies.",
                         "Keeps the quasi-identifiers exact but publishes each group's sensitive values as an "
                         "unordered bag.",
                         "Reads an already anonymized CSV (gid, cells, sensitive value or {multiset}) whose lines "
                         "follow the table's rows, and checks it."),
        tooltip="How the table is anonymized, or 'published' to check an anonymized CSV you already have.")
    k: int = param(
        4, label="k", minimum=1, maximum=100_000,
        tooltip="Every published group holds at least k people, so each person hides among k-1 others. "
                "Anatomy uses groups of max(k, ℓ) people.")
    l: int | None = param(
        None, label="ℓ (distinct sensitive values)", minimum=1, maximum=10_000, optional=True,
        none_means="no ℓ-diversity requirement (Anatomy: ℓ = k)",
        tooltip="Every group contains at least ℓ different sensitive values, so knowing someone's group "
                "never pins down their sensitive value. Anatomy needs it (unset: ℓ = k); leave unset for plain "
                "k-anonymity.")
    qi: tuple[str, ...] = param(
        (), label="Quasi-identifiers", kind="columns", section=SECTION_COLUMNS,
        none_means="the columns the table marks as quasi-identifiers",
        tooltip="Columns an attacker may know from elsewhere (age, sex, ...). "
                "Empty: the columns marked quasi-identifier in the table.")
    sensitive: str = param(
        "", label="Sensitive column", kind="column", section=SECTION_COLUMNS, none_means="as marked in the table",
        tooltip="The column that must not be inferred, e.g. occupation or disease. "
                "Empty: the column marked sensitive in the table.")
    hierarchies: tuple = param(
        (), label="Hierarchies", kind="column_paths", section=SECTION_COLUMNS, flag="--hierarchy",
        file_filter="Hierarchy CSV (*.csv *.txt);;All files (*)",
        tooltip="A generalization hierarchy file per column (COLUMN=FILE): global recoding climbs it; Mondrian "
                "cuts categories in its leaf order.")
    max_suppression: float = param(
        0.0, label="Suppression limit (share of rows)", minimum=0.0, maximum=0.5, step=0.01, decimals=3,
        advanced=True, enabled_when={"scheme": ("global",)},
        tooltip="Global recoding only: up to this share of rows may be suppressed instead of generalizing "
                "everyone further. Suppressed rows are published with every quasi-identifier hidden ('*'), "
                "together in one group that must itself satisfy k and ℓ.")
    seed: int = seed_param(advanced=True, tooltip="Anatomy draws rows at random within each sensitive value; "
                                                  "the same seed gives the same table.")
    group_column: str = param(
        "gid", label="Group column", advanced=True, deprecated_flags=("--gid-column",),
        tooltip="Name of the published CSV's column holding each line's group number.")
    id_column: str | None = param(
        None, label="Row id column", kind="column", optional=True, advanced=True, none_means="no id column",
        tooltip="A column of row identifiers written first on every published line (or read back from a "
                "published CSV) to name each line's cleartext row. Never a quasi-identifier or the sensitive "
                "column: that would publish those values in the clear.")
    published: Path | None = param(
        None, label="Published CSV", kind="path", optional=True, section=SECTION_PUBLISHED, none_means="no file chosen",
        enabled_when={"scheme": (PUBLISHED,)}, file_filter="CSV files (*.csv);;All files (*)",
        tooltip="The anonymized CSV to check (scheme 'published'): one line per row of the table, in the same "
                "order (or an id column naming the row).")
    domains: Path | None = param(
        None, label="Domain file", kind="path", optional=True, section=SECTION_PUBLISHED,
        none_means="the values the table shows",
        enabled_when={"scheme": (PUBLISHED,)}, file_filter="CSV files (*.csv);;All files (*)",
        tooltip="CSV 'column,value' listing every value a '*' or a mask such as 4550* stands for, when the table "
                "does not show them all.")

    def check(self) -> None:
        if self.sensitive and self.sensitive in self.qi:
            raise ParameterError(f"“{self.sensitive}” cannot be both sensitive and a quasi-identifier",
                                 name="sensitive")
        if self.id_column is not None and (self.id_column in self.qi or self.id_column == self.sensitive):
            raise ParameterError(f"The row id column “{self.id_column}” is a quasi-identifier or the sensitive "
                                 "column: writing it would publish those values in the clear", name="id_column")
        if self.scheme == PUBLISHED and self.published is None:
            raise ParameterError("Checking a published release needs the published CSV file", name="published")
        if self.scheme != PUBLISHED and self.published is not None:
            raise ParameterError("A published CSV is only read with the scheme 'published' (it would be ignored)",
                                 name="published")
        if self.hierarchies and self.scheme == "anatomy":
            raise ParameterError("Hierarchies are used by global recoding and Mondrian only", name="hierarchies")
        if self.max_suppression and self.scheme != "global":
            raise ParameterError("A suppression limit is used by global recoding only", name="max_suppression")

    @property
    def effective_l(self) -> int | None:
        """ℓ as the scheme applies it: Anatomy without ℓ uses ℓ = k."""
        return self.l if self.l is not None or self.scheme != "anatomy" else self.k
