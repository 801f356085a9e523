"""The four distributions over sensitive values compared by the relative threat analysis.

* ``p_L(s | r, t*)`` learner: the population model learned from the release.
* ``p_A(s | r_v, t*)`` attacker who also knows the victim is in the table (Lemma 1, eq. 8; eq. 15 for
  partial knowledge).
* ``p_RW`` random worlds: Lemma 1 with every compatible cleartext table equally likely.
* ``p_I(s | r, t)`` ideal: learned from the cleartext table, closed form (20).

Reading of ``p_L(s | r, t*)``. The paper defines it as the conditional of the
learned joint ``p_L(s, r | t*)`` (Section III-B, eq. 5) and then writes eq. (6),
the chain average of ``f(s | r, pi)``, as "equivalent". The two differ; the
figures of Table III (0.343, 0.317, 0.113, 0.114, 0.113) are reproduced by the
conditional of the joint (within 0.013), while the average of the conditional
gives (0.305, 0.304, 0.130, 0.130, 0.130). "predictive" (default) is the
former, "average" the latter.
"""
from __future__ import annotations

import itertools

import numpy as np

from ...kernels.threat_attack import lemma1_horizontal
from .layout import HorizontalLayout, VerticalLayout
from .model import EncodedRelease

__all__ = ["known_mask", "victim_tuples", "ideal_parts", "ideal_joint", "ideal_conditional", "faithfulness_points",
           "normalize_rows", "attacker_horizontal", "attacker_vertical", "total_variation", "empirical_tv"]


def known_mask(enc: EncodedRelease, known: list[str] | None) -> np.ndarray:
    """Boolean per quasi-identifier: does the attacker know it?"""
    if not known:
        return np.ones(enc.n_attr, dtype=bool)
    unknown = [c for c in known if c not in enc.qi]
    if unknown:
        raise ValueError(f"the attacker's known attributes {unknown} are not quasi-identifiers ({', '.join(enc.qi)})")
    return np.array([c in known for c in enc.qi], dtype=bool)


def victim_tuples(enc: EncodedRelease, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct victim observations ``y = g(r)`` of the rows, and each row's index among them."""
    codes = np.where(mask[None, :], enc.r_d, -1)
    uniq, inverse = np.unique(codes, axis=0, return_inverse=True)
    return np.ascontiguousarray(uniq, dtype=np.int64), inverse.reshape(-1)


def normalize_rows(x: np.ndarray) -> np.ndarray:
    total = x.sum(axis=1, keepdims=True)
    return np.divide(x, total, out=np.zeros_like(x, dtype=float), where=total > 0)


def ideal_parts(enc: EncodedRelease) -> tuple[np.ndarray, np.ndarray]:
    """Factors of eq. (20): ``ps[s] = (alpha_s + gamma_s) / (alpha_0 + N)``,
    ``means[s, d] = (beta + delta) / (beta_0 + gamma_s)``."""
    ps = (enc.alpha + enc.gamma_s) / (enc.alpha.sum() + enc.n_rows)
    counts = enc.true_counts()
    means = (enc.beta + counts) / (enc.beta0[:, enc.attr_of] + enc.gamma_s[:, None])
    return ps, means


def ideal_joint(enc: EncodedRelease, s: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``p_I(s_i, r_i | t)`` at points (flat codes ``d``, -1 = attribute marginalized out)."""
    ps, means = ideal_parts(enc)
    out = ps[s].astype(float)
    for a in range(d.shape[1]):
        col = d[:, a]
        out *= np.where(col >= 0, means[s, np.maximum(col, 0)], 1.0)
    return out


def ideal_conditional(enc: EncodedRelease, tuples: np.ndarray) -> np.ndarray:
    """``p_I(s | y, t)`` for every tuple (rows) and sensitive value (columns)."""
    joint = np.stack([ideal_joint(enc, np.full(len(tuples), s, dtype=np.int64), tuples) for s in range(enc.n_s)],
                     axis=1)
    return normalize_rows(joint)


def faithfulness_points(enc: EncodedRelease, exact_limit: int, n_samples: int,
                        rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, bool]:
    """Points where ``p_L(s, r)`` is accumulated for RF.

    Every (s, r) combination when there are at most ``exact_limit`` (exact
    total variation), else ``n_samples`` i.i.d. draws from ``p_I`` (ETV, Remark 4).
    Returns ``(s, d, exact)``.
    """
    sizes = enc.domain_sizes()
    space = enc.n_s * float(np.prod(sizes.astype(float)))
    if space <= exact_limit:
        combos = np.array(list(itertools.product(range(enc.n_s), *[range(int(k)) for k in sizes])), dtype=np.int64)
        return combos[:, 0].copy(), combos[:, 1:] + enc.attr_off[:-1][None, :], True
    ps, means = ideal_parts(enc)
    s = rng.choice(enc.n_s, size=n_samples, p=ps)
    d = np.empty((n_samples, enc.n_attr), dtype=np.int64)
    for a in range(enc.n_attr):
        lo, hi = int(enc.attr_off[a]), int(enc.attr_off[a + 1])
        block = means[:, lo:hi]
        cdf = np.cumsum(block, axis=1)
        u = rng.random(n_samples) * cdf[s, -1]
        d[:, a] = lo + np.minimum((cdf[s] < u[:, None]).sum(axis=1), hi - lo - 1)
    return s.astype(np.int64), d, False


def total_variation(p_ideal: np.ndarray, p_learned: np.ndarray) -> float:
    return 0.5 * float(np.abs(p_ideal - p_learned).sum())


def empirical_tv(p_ideal: np.ndarray, p_learned: np.ndarray) -> float:
    """ETV of Remark 4, eq. (21): points drawn from ``p_I``."""
    return 0.5 * float(np.mean(np.abs(1.0 - p_learned / p_ideal)))


def attacker_horizontal(lay: HorizontalLayout, tuples: np.ndarray, marginals: np.ndarray, n_s: int) -> np.ndarray:
    """Lemma 1 over a horizontal release: normalized ``p(s | y)`` per victim tuple."""
    out = np.zeros((tuples.shape[0], n_s))
    lemma1_horizontal(tuples, lay.d_groups_ptr, lay.d_groups, lay.gunit_ptr, lay.unit_s, lay.unit_n,
                      lay.unit_pat, lay.unit_fixed, lay.pat_ptr, lay.pat_vals, np.ascontiguousarray(marginals), out)
    return normalize_rows(out)


def attacker_vertical(enc: EncodedRelease, lay: VerticalLayout, tuples_of_row: np.ndarray, n_tuples: int,
                      row_s: np.ndarray) -> np.ndarray:
    """Lemma 1 over an Anatomy release.

    ``row_s[k, s] = P(S_k = s | t*)`` for quasi-identifier row ``k``. Sensitive
    position j with ``s_j = s`` contributes ``P(R_j ∈ g^{-1}(y))``, which summed
    over the positions equals the sum of ``row_s[k, s]`` over the rows k whose
    published tuple matches ``y``.
    """
    acc = np.zeros((n_tuples, enc.n_s))
    np.add.at(acc, tuples_of_row, row_s)
    return normalize_rows(acc)
