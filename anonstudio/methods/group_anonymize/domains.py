"""Column domains and value codes shared by the anonymizers and the CSV importer.

A domain is the ordered list of values a column may take. Numeric columns are
sorted ascending (so that ranges are runs of consecutive codes), categorical
columns lexicographically by their text. Every value is compared through its
*text form* (:func:`anonstudio.data.table.value_text`), which is also what masks such as ``4550*``
match against.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ...data.table import Table, value_text

__all__ = [
    "is_numeric_domain",
    "column_domain",
    "build_domains",
    "encode_column",
    "encode_columns",
    "resolve_columns",
    "complete_rows",
    "EncodedTable",
]


def _plain(value):
    """numpy scalars -> Python scalars, so domains compare and print naturally."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        f = float(value)
        return int(f) if f.is_integer() else f
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def is_numeric_domain(domain: Sequence) -> bool:
    """True when every value is a number (ranges ``[a-b]`` then make sense)."""
    return len(domain) > 0 and all(
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)) for v in domain
    )


def column_domain(series: pd.Series, extra: Iterable = ()) -> list:
    """Sorted distinct non-missing values of ``series`` (plus ``extra``)."""
    values = {_plain(v) for v in series.dropna().unique()}
    values.update(_plain(v) for v in extra)
    if is_numeric_domain(list(values)):
        return sorted(values)
    # Mixed or text columns: compare by text form so 7 and "7" cannot both appear.
    by_text = {value_text(v): v for v in values}
    return [by_text[t] for t in sorted(by_text)]


def build_domains(table: Table, columns: Sequence[str]) -> dict[str, list]:
    """Domain of every named column, taken from the cleartext values."""
    return {c: column_domain(table.frame[c]) for c in columns}


def encode_column(series: pd.Series, domain: Sequence) -> np.ndarray:
    """int64 code of every value in ``domain``; -1 for missing or unknown values."""
    index = {value_text(v): i for i, v in enumerate(domain)}
    # Factorize first so the text form is computed once per distinct value, not per row.
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    lookup = np.asarray([index.get(value_text(u), -1) for u in uniques] + [-1], dtype=np.int64)
    return lookup[codes]  # NA has factor code -1, which picks the trailing -1


def encode_columns(table: Table, domains: dict[str, list], columns: Sequence[str]) -> np.ndarray:
    """``(n_rows, len(columns))`` int64 code matrix."""
    out = np.empty((table.n_rows, len(columns)), dtype=np.int64)
    for j, c in enumerate(columns):
        out[:, j] = encode_column(table.frame[c], domains[c])
    return out


def resolve_columns(table: Table, qi: Sequence[str] | str | None, sensitive: str | None) -> tuple[list[str], str]:
    """Quasi-identifiers and sensitive column: given names, else the table's roles.

    Raises
    ------
    ValueError
        Unknown column names, no sensitive column, or the sensitive column
        also listed as a quasi-identifier.
    """
    if isinstance(qi, str):
        qi = [c.strip() for c in qi.split(",") if c.strip()]
    if not sensitive:
        roles = table.sensitive
        if len(roles) != 1:
            raise ValueError("name the sensitive column (the table does not mark exactly one)")
        sensitive = roles[0]
    qi = list(qi) if qi else [c for c in table.quasi_identifiers if c != sensitive]
    unknown = [c for c in [*qi, sensitive] if c not in table.frame.columns]
    if unknown:
        raise ValueError(f"unknown column(s) {', '.join(unknown)}; the table has "
                         f"{', '.join(map(str, table.frame.columns))}")
    if sensitive in qi:
        raise ValueError(f"{sensitive!r} cannot be both quasi-identifier and sensitive")
    if not qi:
        raise ValueError("no quasi-identifier columns")
    return qi, sensitive


def complete_rows(table: Table, columns: Sequence[str]) -> Table:
    """The rows with no missing value in ``columns`` (anonymizers need complete rows)."""
    frame = table.frame
    keep = frame[list(columns)].notna().all(axis=1)
    if bool(keep.all()):
        return table
    return Table(frame.loc[keep].reset_index(drop=True), dict(table.roles), table.name, table.source)


class EncodedTable:
    """Quasi-identifier and sensitive codes of a complete table, ready for an anonymizer.

    Attributes
    ----------
    qi, sensitive, domains
        As in :class:`~anonstudio.methods.group_anonymize.release.GroupRelease`.
    codes
        ``(n_rows, len(qi))`` int64 domain codes.
    s_codes
        ``(n_rows,)`` int64 codes of the sensitive value.
    numeric
        Per quasi-identifier: True when its domain is numeric (published as ranges).
    """

    def __init__(self, table: Table, qi: Sequence[str] | str | None, sensitive: str | None):
        self.qi, self.sensitive = resolve_columns(table, qi, sensitive)
        columns = [*self.qi, self.sensitive]
        frame = table.frame
        missing = frame[columns].isna().any(axis=1).to_numpy()
        if missing.any():
            row = int(np.flatnonzero(missing)[0])
            raise ValueError(
                f"{int(missing.sum())} row(s) have a missing quasi-identifier or sensitive value "
                f"(first: row {row + 1}); drop incomplete rows before anonymizing"
            )
        self.domains = build_domains(table, columns)
        self.codes = encode_columns(table, self.domains, self.qi)
        self.s_codes = encode_column(frame[self.sensitive], self.domains[self.sensitive])
        self.numeric = [is_numeric_domain(self.domains[c]) for c in self.qi]
        self.n_rows = table.n_rows

    def check_feasible(self, k: int, l: int | None) -> None:
        """Raise ValueError when not even the whole table is k-anonymous and l-diverse."""
        if self.n_rows < k:
            raise ValueError(f"the table has {self.n_rows} rows, fewer than k = {k}")
        distinct = len(np.unique(self.s_codes))
        if l is not None and distinct < l:
            raise ValueError(f"the sensitive column has {distinct} distinct values, fewer than l = {l}")
