"""Integer encoding of a cleartext table and its group release for the Bayesian model.

The model of Section III (Boreale, Corradi, Viscardi 2020): ``pi_S ~ Dir(alpha)``
over the sensitive values and, for every sensitive value ``s`` and
quasi-identifier ``a``, ``pi_{a|s} ~ Dir(beta[s, a])``; the attributes of a row
are conditionally independent given ``s``. Uniform priors (all ones) are the
default; :class:`Priors` holds editable per-value hyperparameters.

Quasi-identifier domains are laid out flat: ``d = attr_off[a] + code``. The
Dirichlet over an attribute ranges over the release's whole domain for that
column, so the domain (e.g. all ten ZIP codes a mask ``4550*`` stands for) is
part of the model and changes the learner's estimates.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...data.table import value_text as text_of
from ..group_anonymize.release import GroupRelease

__all__ = ["Priors", "EncodedRelease", "encode_release", "text_of"]


def _codes(series: pd.Series, domain: list, column: str) -> np.ndarray:
    index = {text_of(v): i for i, v in enumerate(domain)}
    # Each distinct value is looked up once (a cell-by-cell lookup held the GIL for about a second on Adult,
    # while the chains' threads waited). Values that compare equal have one text unless a column mixes types
    # (True == 1, Decimal("1.0") == 1): such a column is looked up cell by cell.
    labels, uniques = pd.factorize(series, use_na_sentinel=True)
    values = uniques.tolist()
    if series.dtype == object and not all(type(v) is str for v in values):
        return _codes_by_cell(series, index, column)
    lookup = np.array([index.get(text_of(v), -1) for v in values] + [-1], dtype=np.int64)
    out = lookup[labels]  # label -1 (a missing cell) reads the last entry, -1
    bad = np.flatnonzero(out < 0)
    if len(bad):
        i = int(bad[0])
        v = series.iloc[[i]].tolist()[0]
        raise ValueError(f"row {i + 1}: {column} = {v!r} is missing or not in the release's domain")
    return out


def _codes_by_cell(series: pd.Series, index: dict[str, int], column: str) -> np.ndarray:
    out = np.empty(len(series), dtype=np.int64)
    for i, v in enumerate(series.tolist()):
        code = None if v is None or (isinstance(v, float) and np.isnan(v)) else index.get(text_of(v))
        if code is None:
            raise ValueError(f"row {i + 1}: {column} = {v!r} is missing or not in the release's domain")
        out[i] = code
    return out


@dataclass
class Priors:
    """Dirichlet hyperparameters: ``alpha`` over sensitive values, ``beta[column]`` of shape (S, |domain|)."""

    alpha: np.ndarray
    beta: dict[str, np.ndarray] = field(default_factory=dict)

    @classmethod
    def symmetric(cls, release: GroupRelease, alpha: float = 1.0, beta: float = 1.0) -> Priors:
        n_s = len(release.domains[release.sensitive])
        return cls(np.full(n_s, float(alpha)),
                   {c: np.full((n_s, len(release.domains[c])), float(beta)) for c in release.qi})


@dataclass(eq=False)
class EncodedRelease:
    """Everything the sampler and the estimators need, as plain arrays.

    Attributes
    ----------
    s_code
        ``(N,)`` sensitive code of every cleartext row.
    r_code, r_d
        ``(N, A)`` quasi-identifier codes, local to each domain and flat.
    attr_off, attr_of
        Flat layout: attribute ``a`` occupies ``attr_off[a]:attr_off[a+1]``;
        ``attr_of[d]`` is the attribute of flat code ``d``.
    alpha, beta, beta0, gamma_s
        Priors (``beta`` flat ``(S, D)``; ``beta0[s, a]`` its sums) and the
        count of every sensitive value (known from the release in both schemes).
    """

    release: GroupRelease
    sensitive_values: list
    s_code: np.ndarray
    r_code: np.ndarray
    r_d: np.ndarray
    attr_off: np.ndarray
    attr_of: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray
    beta0: np.ndarray
    gamma_s: np.ndarray

    @property
    def scheme(self) -> str:
        return self.release.scheme

    @property
    def qi(self) -> list[str]:
        return list(self.release.qi)

    @property
    def n_rows(self) -> int:
        return int(self.s_code.shape[0])

    @property
    def n_s(self) -> int:
        return len(self.sensitive_values)

    @property
    def n_attr(self) -> int:
        return int(self.r_code.shape[1])

    @property
    def width(self) -> int:
        return int(self.attr_off[-1])

    def domain_sizes(self) -> np.ndarray:
        return np.diff(self.attr_off)

    def true_counts(self) -> np.ndarray:
        """``(S, D)`` counts of (s, attribute value) in the cleartext table."""
        counts = np.zeros((self.n_s, self.width), dtype=np.int64)
        for a in range(self.n_attr):
            np.add.at(counts, (self.s_code, self.r_d[:, a]), 1)
        return counts


def encode_release(frame: pd.DataFrame, release: GroupRelease, priors: Priors | None = None) -> EncodedRelease:
    """Encode the cleartext ``frame`` (rows aligned with ``release``) and the priors.

    Raises
    ------
    ValueError
        A row count mismatch, a value outside its domain, or priors of the wrong shape / not positive.
    """
    if len(frame) != release.n_rows:
        raise ValueError(f"the table has {len(frame)} rows but the release has {release.n_rows}")
    qi = list(release.qi)
    s_values = list(release.domains[release.sensitive])
    s_code = _codes(frame[release.sensitive], s_values, release.sensitive)
    sizes = [len(release.domains[c]) for c in qi]
    attr_off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    attr_of = np.repeat(np.arange(len(qi), dtype=np.int64), sizes)
    r_code = np.empty((len(frame), len(qi)), dtype=np.int64)
    for a, c in enumerate(qi):
        r_code[:, a] = _codes(frame[c], list(release.domains[c]), c)
    r_d = r_code + attr_off[:-1][None, :]
    priors = priors or Priors.symmetric(release)
    alpha = np.asarray(priors.alpha, dtype=np.float64)
    if alpha.shape != (len(s_values),):
        raise ValueError(f"alpha needs {len(s_values)} entries, got shape {alpha.shape}")
    beta = np.empty((len(s_values), int(attr_off[-1])))
    for a, c in enumerate(qi):
        block = np.asarray(priors.beta[c], dtype=np.float64) if c in priors.beta else np.ones((len(s_values), sizes[a]))
        if block.shape != (len(s_values), sizes[a]):
            raise ValueError(f"beta[{c!r}] needs shape {(len(s_values), sizes[a])}, got {block.shape}")
        beta[:, attr_off[a]:attr_off[a + 1]] = block
    if (alpha <= 0).any() or (beta <= 0).any():
        raise ValueError("Dirichlet hyperparameters must be positive")
    beta0 = np.stack([beta[:, attr_off[a]:attr_off[a + 1]].sum(axis=1) for a in range(len(qi))], axis=1)
    gamma_s = np.bincount(s_code, minlength=len(s_values)).astype(np.int64)
    return EncodedRelease(release, s_values, s_code, r_code, r_d, attr_off, attr_of, alpha, beta,
                          beta0.reshape(len(s_values), len(qi)), gamma_s)
