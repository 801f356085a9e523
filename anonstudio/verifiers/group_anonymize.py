"""Independent check of a group-anonymized release against its cleartext table.

Given the cleartext :class:`~anonstudio.data.table.Table` and a
:class:`~anonstudio.methods.group_anonymize.release.GroupRelease` (from any
anonymizer or an imported CSV), :func:`verify_group_release` checks from the
data alone that

- every cleartext row's quasi-identifier values lie inside its group's cells,
- every group has at least k rows (k-anonymity),
- every group has at least l distinct sensitive values (distinct l-diversity),

and reports the group size distribution, the largest share of one sensitive
value within a group (what a random-worlds attacker who knows a victim's group
guesses with), and two utility measures:

- NCP (normalized certainty penalty, Xu et al. 2006): mean over rows and
  quasi-identifiers of the published cell's size relative to the column's
  domain: (largest - smallest value) / domain spread for numbers,
  (values in cell - 1) / (domain size - 1) for categories; 0 = exact,
  1 = fully suppressed. Vertical releases publish exact quasi-identifiers, so
  their NCP is 0.
- Discernibility (Bayardo and Agrawal 2005): sum over groups of size squared.

This module deliberately shares no code with the anonymizers or the CSV
reader: it reads only the release's arrays and the table's values.
"""
from __future__ import annotations

import numbers
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from ..data.table import Table
from ..formatting import integer

__all__ = ["GroupPrivacyReport", "verify_group_release"]


@dataclass
class GroupPrivacyReport:
    """What :func:`verify_group_release` found. ``ok`` (``passed``) is the overall finding; the words of the
    verdict are the method contract's. ``misfits`` name rows and groups from 1."""

    scheme: str
    n_rows: int
    n_groups: int
    k: int | None
    l: int | None
    min_group_size: int
    max_group_size: int
    mean_group_size: float
    size_histogram: dict[int, int]
    min_distinct_sensitive: int
    max_sensitive_share: float
    k_anonymous: bool | None
    l_diverse: bool | None
    n_misfits: int
    misfits: list[dict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    ncp: float = 0.0
    #: NCP of each quasi-identifier alone (mean over rows); ``ncp`` is their mean.
    ncp_columns: dict[str, float] = field(default_factory=dict)
    discernibility: int = 0

    @property
    def ok(self) -> bool:
        return (not self.problems and self.n_misfits == 0 and self.k_anonymous is not False
                and self.l_diverse is not False)

    #: The contract's names: the check always runs to the end.
    complete = True

    @property
    def passed(self) -> bool:
        return self.ok

    def lines(self) -> list[str]:
        """What was checked and found, one plain line each (the verdict's figures; rows and groups from 1)."""
        lines = [
            f"{self.scheme} release, {integer(self.n_rows)} rows in {integer(self.n_groups)} groups",
            f"group size: min {integer(self.min_group_size)}, mean {self.mean_group_size:.2f}, "
            f"max {integer(self.max_group_size)}",
            f"distinct sensitive values per group: min {self.min_distinct_sensitive}; "
            f"largest share of one value in a group {self.max_sensitive_share:.3f}",
        ]
        if self.k is not None:
            lines.append(f"{self.k}-anonymous: {'yes' if self.k_anonymous else 'NO'}")
        if self.l is not None:
            lines.append(f"{self.l}-diverse: {'yes' if self.l_diverse else 'NO'}")
        lines.append(f"rows outside their group's cells: {integer(self.n_misfits)}")
        for m in self.misfits[:5]:
            lines.append(f"row {m['row']}: {m['column']} = {m['value']!r} not in group {m['group']}'s cell")
        lines.extend(f"problem: {p}" for p in self.problems)
        lines.append(f"NCP {self.ncp:.4f}, discernibility {integer(self.discernibility)}")
        return lines

    def summary(self) -> dict[str, float]:
        return {"passed": float(self.ok), "groups": float(self.n_groups), "min_group_size": float(self.min_group_size),
                "min_distinct_sensitive": float(self.min_distinct_sensitive),
                "max_sensitive_share": self.max_sensitive_share, "misfits": float(self.n_misfits), "ncp": self.ncp}

    def to_json(self) -> dict:
        out = asdict(self)
        out["size_histogram"] = {str(s): n for s, n in self.size_histogram.items()}
        out["ok"] = self.ok
        return out


def _is_number(v) -> bool:
    return isinstance(v, numbers.Number) and not isinstance(v, (bool, np.bool_))


def _key(v):
    """Equality key for matching cleartext values to domain entries (39 == 39.0; text otherwise)."""
    if _is_number(v):
        return ("n", float(v))
    return ("s", str(v))


def _domain_index(domain: list, series: pd.Series) -> np.ndarray:
    lookup = {_key(v): i for i, v in enumerate(domain)}
    # Keyed once per distinct value, not once per row (Adult: 8 columns x 30,162 rows were most of the check).
    # pandas' hash table merges values that compare equal; only a bool beside numbers (True == 1) would merge
    # values whose keys differ, so such a column is keyed row by row.
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    uniques = list(uniques)
    if any(isinstance(u, (bool, np.bool_)) for u in uniques) and any(_is_number(u) for u in uniques):
        return np.asarray([-1 if pd.isna(v) else lookup.get(_key(v), -1) for v in series.tolist()],
                          dtype=np.int64)
    per_unique = np.asarray([-1 if pd.isna(u) else lookup.get(_key(u), -1) for u in uniques] + [-1],
                            dtype=np.int64)
    return per_unique[codes]  # code -1 (missing) picks the trailing -1


def _cell_ncp(domain: list, cells: np.ndarray) -> np.ndarray:
    """NCP of every group's cell of one column."""
    counts = cells.sum(axis=1)
    if len(domain) <= 1:
        return np.zeros(len(cells))
    if all(_is_number(v) for v in domain):
        values = np.asarray(domain, dtype=float)
        spread = values.max() - values.min()
        if spread <= 0:
            return np.zeros(len(cells))
        hi = np.where(cells, values[None, :], -np.inf).max(axis=1)
        lo = np.where(cells, values[None, :], np.inf).min(axis=1)
        return np.where(counts > 0, (hi - lo) / spread, 1.0)
    return (counts - 1).clip(min=0) / (len(domain) - 1)


def _clear_text_leaks(frame: pd.DataFrame, release, name: str, values) -> list[str]:
    """Problems of one extra published column that repeats protected values in the clear."""
    protected = [*release.qi, release.sensitive]
    if name in protected:
        return [f"column {name!r} is published in the clear next to the generalized cells, but it is "
                f"{'the sensitive attribute' if name == release.sensitive else 'a quasi-identifier'}"]
    texts = pd.Series([str(v) for v in values])
    out = []
    for column in protected:
        if len(texts) == len(frame) and texts.equals(frame[column].astype(str).reset_index(drop=True)):
            out.append(f"column {name!r} repeats the cleartext values of {column!r}")
    return out


def verify_group_release(table: Table, release, k: int | None = None, l: int | None = None,
                         *, max_misfits: int = 20, extra_columns: dict | None = None) -> GroupPrivacyReport:
    """Check ``release`` against ``table``; see the module docstring.

    Parameters
    ----------
    k, l
        Requirements to check; None skips that check (its field is None).
    max_misfits
        How many offending rows to list (all are counted).
    extra_columns
        Columns published beside the cells (name -> values per row, e.g. a
        row id column). A release fails when one of them is a quasi-identifier
        or the sensitive attribute, or carries its cleartext values under
        another name: those values would be published in the clear.
    """
    frame = table.frame
    row_group = np.asarray(release.row_group, dtype=np.int64)
    problems = []
    for name, values in (extra_columns or {}).items():
        problems.extend(_clear_text_leaks(frame, release, name, values))
    n = len(frame)
    if len(row_group) != n:
        problems.append(f"the release has {len(row_group)} rows, the table {n}")
        row_group = (row_group[:n] if len(row_group) > n
                     else np.concatenate([row_group, -np.ones(n - len(row_group), np.int64)]))
    if n and row_group.min() < 0:
        problems.append("some rows belong to no group")
    valid = row_group >= 0
    n_groups = int(row_group.max()) + 1 if n else 0
    sizes = np.bincount(row_group[valid], minlength=n_groups) if n_groups else np.zeros(0, np.int64)
    if n_groups and (sizes == 0).any():
        problems.append(f"{int((sizes == 0).sum())} group id(s) have no rows")

    # Distinct sensitive values per group, via pandas (independent of the anonymizers' numpy path).
    sens = frame[release.sensitive].reset_index(drop=True)
    distinct = sens[valid].groupby(row_group[valid]).nunique(dropna=True).reindex(range(n_groups), fill_value=0)
    min_distinct = int(distinct.min()) if n_groups else 0
    pair_counts = pd.DataFrame({"g": row_group[valid], "s": sens[valid].to_numpy()}).value_counts()
    top = pair_counts.groupby(level="g").max()  # rows of each group's most frequent sensitive value
    max_share = float((top / sizes[top.index.to_numpy()]).max()) if len(top) else 0.0

    misfits: list[dict] = []
    n_misfits = 0
    ncp_total = 0.0
    ncp_columns: dict[str, float] = {}
    for c in release.qi:
        cells = release.cells.get(c)
        if cells is None:
            problems.append(f"no cells for {c!r}")
            continue
        domain = list(release.domains[c])
        idx = _domain_index(domain, frame[c])
        inside = np.zeros(n, dtype=bool)
        ok_rows = valid & (idx >= 0)
        inside[ok_rows] = cells[row_group[ok_rows], idx[ok_rows]]
        bad = np.flatnonzero(~inside)
        n_misfits += len(bad)
        for r in bad[: max(0, max_misfits - len(misfits))]:
            value = frame[c].iloc[r]
            value = value.item() if hasattr(value, "item") else value  # numpy scalar -> JSON-friendly
            # Rows and groups numbered from 1, as the published file and every view number them.
            misfits.append({"row": int(r) + 1, "column": c, "value": value, "group": int(row_group[r]) + 1})
        column_ncp = 0.0
        if release.scheme == "horizontal":
            column_ncp = float(_cell_ncp(domain, cells)[row_group[valid]].sum())
            ncp_total += column_ncp
        ncp_columns[c] = column_ncp / n if n and release.scheme == "horizontal" else 0.0
    ncp = ncp_total / (n * len(release.qi)) if n and release.qi and release.scheme == "horizontal" else 0.0
    hist_sizes, hist_counts = np.unique(sizes, return_counts=True)
    return GroupPrivacyReport(
        scheme=release.scheme,
        n_rows=n,
        n_groups=n_groups,
        k=k,
        l=l,
        min_group_size=int(sizes.min()) if n_groups else 0,
        max_group_size=int(sizes.max()) if n_groups else 0,
        mean_group_size=float(sizes.mean()) if n_groups else 0.0,
        size_histogram={int(s): int(c) for s, c in zip(hist_sizes, hist_counts)},
        min_distinct_sensitive=min_distinct,
        max_sensitive_share=max_share,
        k_anonymous=None if k is None else bool(n_groups and sizes.min() >= k),
        l_diverse=None if l is None else bool(n_groups and min_distinct >= l),
        n_misfits=n_misfits,
        misfits=misfits,
        problems=problems,
        ncp=ncp,
        ncp_columns=ncp_columns,
        discernibility=int((sizes.astype(np.int64) ** 2).sum()),
    )
