"""Exact posteriors of the relative threat model by brute force over all compatible cleartext tables.

Slow and obvious on purpose; shares no code with ``anonstudio.methods.threat``.

A tiny table is given as plain Python lists: every row has a sensitive value
``s`` (index), a group, and per attribute either a set of allowed values
(horizontal cell) or its exact value (vertical). Every cleartext table ``t``
compatible with the release is enumerated; its posterior weight given the
release is the marginal likelihood ``f(t) = ∫ f(t | pi) f(pi) dpi``, a product
of Dirichlet-multinomial terms (the Dirichlet is integrated analytically).
From the weighted tables:

* ``p_L(s, r | t*) = sum_t P(t | t*) p_I(s, r | t)`` (p_I closed form per table),
  then conditioned on r;
* ``p_A(s | r_v)`` straight from its definition (7), with a uniform victim index
  V: ``P(S_V = s, R_V = r_v | t*) / P(R_V = r_v | t*)``, not through Lemma 1;
* ``p_RW`` the same with every compatible table equally likely.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Sequence


def _log_dm(counts: Sequence[int], prior: Sequence[float]) -> float:
    """log of ∫ prod_v theta_v^counts_v Dir(theta | prior) dtheta (an ordered sequence)."""
    out = math.lgamma(sum(prior)) - math.lgamma(sum(prior) + sum(counts))
    for c, a in zip(counts, prior):
        out += math.lgamma(a + c) - math.lgamma(a)
    return out


class TinyModel:
    """Model dimensions and priors: ``alpha[s]``, ``beta[a][s][v]``."""

    def __init__(self, n_s: int, domain_sizes: Sequence[int], alpha=None, beta=None):
        self.n_s = n_s
        self.sizes = list(domain_sizes)
        self.alpha = list(alpha) if alpha is not None else [1.0] * n_s
        self.beta = beta if beta is not None else [[[1.0] * k for _ in range(n_s)] for k in self.sizes]

    def log_marginal(self, s_list: Sequence[int], r_list: Sequence[Sequence[int]]) -> float:
        out = _log_dm([s_list.count(s) for s in range(self.n_s)], self.alpha)
        for a, k in enumerate(self.sizes):
            for s in range(self.n_s):
                counts = [0] * k
                for si, r in zip(s_list, r_list):
                    if si == s:
                        counts[r[a]] += 1
                out += _log_dm(counts, self.beta[a][s])
        return out

    def ideal_joint(self, s_list, r_list, s: int, r: Sequence[int | None]) -> float:
        """p_I(s, r | t), eq. (20); attributes given as None are summed out."""
        n = len(s_list)
        gamma = s_list.count(s)
        p = (self.alpha[s] + gamma) / (sum(self.alpha) + n)
        for a, v in enumerate(r):
            if v is None:
                continue
            delta = sum(1 for si, ri in zip(s_list, r_list) if si == s and ri[a] == v)
            p *= (self.beta[a][s][v] + delta) / (sum(self.beta[a][s]) + gamma)
        return p


def horizontal_tables(cells: Sequence[Sequence[Sequence[int]]]):
    """Every table: cells[row][attribute] is the list of allowed values."""
    per_row = [list(itertools.product(*row_cells)) for row_cells in cells]
    yield from itertools.product(*per_row)


def vertical_tables(groups: Sequence[int], r_rows: Sequence[Sequence[int]], s_rows: Sequence[int]):
    """Every (s_list, r_list): each group's sensitive positions keep their order, the r tuples are permuted.

    Position j keeps the row's published sensitive value ``s_rows[j]``; the
    group's r tuples are assigned to its positions in every distinct order.
    """
    members: dict[int, list[int]] = {}
    for j, g in enumerate(groups):
        members.setdefault(g, []).append(j)
    options = []
    for rows in members.values():
        tuples = [tuple(r_rows[j]) for j in rows]
        options.append((rows, sorted(set(itertools.permutations(tuples)))))
    for choice in itertools.product(*[opts for _, opts in options]):
        r_list = [None] * len(groups)
        for (rows, _), perm in zip(options, choice):
            for j, r in zip(rows, perm):
                r_list[j] = r
        yield list(s_rows), r_list


def exact_posteriors(model: TinyModel, s_rows, tables, victims: Sequence[Sequence[int | None]]):
    """p_L (conditioned joint), p_A and p_RW for each victim observation (None = attribute unknown).

    ``tables`` yields r lists (horizontal) or (s_list, r_list) pairs (vertical).
    Returns three lists of per-victim lists over sensitive values.
    """
    weights, tabs = [], []
    for t in tables:
        s_list, r_list = (t if isinstance(t, tuple) and len(t) == 2 and isinstance(t[0], list) else (list(s_rows), t))
        weights.append(model.log_marginal(s_list, r_list))
        tabs.append((s_list, r_list))
    top = max(weights)
    w = [math.exp(x - top) for x in weights]
    total = sum(w)
    w = [x / total for x in w]
    n_uniform = len(tabs)

    def matches(r, victim):
        return all(v is None or r[a] == v for a, v in enumerate(victim))

    out_l, out_a, out_rw = [], [], []
    for victim in victims:
        joint = [sum(wi * model.ideal_joint(s_l, r_l, s, victim) for wi, (s_l, r_l) in zip(w, tabs))
                 for s in range(model.n_s)]
        out_l.append([x / sum(joint) for x in joint])
        for weights_of, out in ((w, out_a), ([1.0 / n_uniform] * n_uniform, out_rw)):
            num = [0.0] * model.n_s
            for wi, (s_l, r_l) in zip(weights_of, tabs):
                for s, r in zip(s_l, r_l):
                    if matches(r, victim):
                        num[s] += wi / len(s_l)  # V uniform over the N positions
            out.append([x / sum(num) for x in num])
    return out_l, out_a, out_rw


def exact_learner_joint(model: TinyModel, s_rows, tables) -> dict[tuple, float]:
    """p_L(s, r | t*) over the whole value space, for total variation."""
    tabs = [(t if isinstance(t, tuple) and len(t) == 2 and isinstance(t[0], list) else (list(s_rows), t))
            for t in tables]
    weights = [model.log_marginal(s_l, r_l) for s_l, r_l in tabs]
    top = max(weights)
    w = [math.exp(x - top) for x in weights]
    total = sum(w)
    out = {}
    for s in range(model.n_s):
        for r in itertools.product(*[range(k) for k in model.sizes]):
            out[(s, r)] = sum(wi / total * model.ideal_joint(s_l, r_l, s, r) for wi, (s_l, r_l) in zip(w, tabs))
    return out
