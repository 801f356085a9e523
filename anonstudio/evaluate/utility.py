"""Utility on one scale: count-query error on one shared workload, and frequency distortion.

* **Count-query error.** Q queries "how many people have all of S", |S| drawn
  uniformly from 1..3, the members of S drawn uniformly from the atoms whose
  support in the original is at least ``min_support`` (items; for tables,
  ``column = value`` with no two values of one column). The workload depends
  only on the original, Q, the support threshold and the seed, so every release
  of one original is measured on the same queries. Each query is answered
  exactly on the original and by the release's natural estimator
  (:mod:`anonstudio.kernels.evaluate_utility`); the error of a query is
  ``|true - estimate| / max(true, b)`` with the sanity bound b = max(1, n / 1000)
  (so queries with tiny answers cannot dominate), and the measure is the mean.
* **Frequency distortion.** Total variation distance, ½ Σ |p - q|, between
  the distribution of the original's items (or of each column's values) and the
  release's expected one (each published record adding its atom probabilities);
  the value is the mean over the items and the published columns.
"""
from __future__ import annotations

import math

import numpy as np

from ..jobs import derive_seed
from ..kernels.evaluate_utility import count_queries, estimate_queries
from .model import People, Published, postings

__all__ = ["workload", "answers", "count_query_error", "frequency_distortion", "default_min_support", "sanity_bound"]

#: Sizes a query's set S may have.
QUERY_SIZES = (1, 2, 3)


def default_min_support(n: int) -> int:
    """Support an atom needs to be queried: 0.1 % of the people, at least 1."""
    return max(1, int(math.ceil(0.001 * n)))


def sanity_bound(n: int) -> float:
    return max(1.0, n / 1000.0)


def _atom_groups(people: People) -> np.ndarray:
    """Group of every atom: an item is its own group, a column's values share one (two values of one column
    never meet in a query)."""
    a = people.atoms
    groups = np.arange(a.total, dtype=np.int64)
    if a.sensitive_domain is not None:
        groups[a.sensitive_base:a.qi_base] = a.total
    offsets = a.qi_offsets
    for c in range(len(a.qi)):
        groups[a.qi_base + offsets[c]:a.qi_base + offsets[c + 1]] = a.total + 1 + c
    return groups


def workload(people: People, n_queries: int, seed: int, min_support: int) -> tuple[np.ndarray, np.ndarray]:
    """The shared random workload as CSR (query -> sorted atoms)."""
    p_indptr, p_atoms = people.person_atoms()
    support = np.bincount(p_atoms, minlength=people.atoms.total)
    pool = np.flatnonzero(support >= min_support).astype(np.int64)
    groups = _atom_groups(people)
    rng = np.random.default_rng(derive_seed(seed, "evaluate-queries"))
    queries: list[list[int]] = []
    n_groups = len(np.unique(groups[pool])) if len(pool) else 0
    for _ in range(n_queries if len(pool) else 0):
        size = min(int(rng.choice(QUERY_SIZES)), n_groups)
        picked: list[int] = []
        used: set[int] = set()
        while len(picked) < size:
            atom = int(pool[rng.integers(len(pool))])
            if groups[atom] in used:
                continue
            used.add(int(groups[atom]))
            picked.append(atom)
        queries.append(sorted(picked))
    indptr = np.zeros(len(queries) + 1, dtype=np.int64)
    np.cumsum([len(q) for q in queries], out=indptr[1:])
    atoms = np.fromiter((a for q in queries for a in q), dtype=np.int64, count=int(indptr[-1]))
    return indptr, atoms


def answers(people: People, published: Published, q_indptr: np.ndarray,
            q_atoms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(true counts on the original, the release's estimates) of the queries ``q_indptr``/``q_atoms``."""
    p_indptr, p_atoms = people.person_atoms()
    post_indptr, post_people = postings(p_indptr, p_atoms, people.atoms.total)
    true = np.zeros(len(q_indptr) - 1, dtype=np.int64)
    count_queries(q_indptr, q_atoms, p_indptr, p_atoms, post_indptr, post_people, true)
    r = published
    qi_base = people.atoms.qi_base
    r_post_indptr, r_post_recs = r.record_postings(max(qi_base, 1))
    estimate = np.zeros(len(true))
    zeros = np.zeros(r.n_records, dtype=np.int64)
    estimate_queries(q_indptr, q_atoms, qi_base, r.rec_class, r.class_size, np.ascontiguousarray(r.qi_prob),
                     r.a_indptr, r.a_atoms, r.a_kind, r.a_prob, r_post_indptr, r_post_recs, bool(r.worlds),
                     r.n_dist if r.n_dist is not None else zeros, r.threshold if r.threshold is not None else zeros,
                     r.log_z if r.log_z is not None else np.zeros(r.n_records), estimate)
    return true, estimate


def count_query_error(people: People, published: Published, n_queries: int, seed: int,
                      min_support: int | None = None) -> dict:
    """The mean relative error of the shared workload on ``published`` (see the module docstring)."""
    n = people.n
    min_support = default_min_support(n) if min_support is None else int(min_support)
    q_indptr, q_atoms = workload(people, n_queries, seed, min_support)
    bound = sanity_bound(n)
    doc = {"value": None, "queries": int(len(q_indptr) - 1), "min_support": min_support, "sanity_bound": bound,
           "seed": seed, "sizes": list(QUERY_SIZES)}
    if len(q_indptr) <= 1:
        doc["note"] = f"no item or value has support {min_support} or more: no query"
        return doc
    true, estimate = answers(people, published, q_indptr, q_atoms)
    errors = np.abs(true - estimate) / np.maximum(true, bound)
    doc.update({"value": float(errors.mean()), "median": float(np.median(errors)), "max": float(errors.max()),
                "zero_answers": int((true == 0).sum())})
    return doc


def _tv(p: np.ndarray, q: np.ndarray) -> float:
    sp, sq = float(p.sum()), float(q.sum())
    if sp == 0 and sq == 0:
        return 0.0
    if sp == 0 or sq == 0:
        return 1.0
    return float(0.5 * np.abs(p / sp - q / sq).sum())


def frequency_distortion(people: People, published: Published) -> dict:
    """Total variation distance between the original's and the release's item and value distributions."""
    a = people.atoms
    r = published
    parts: dict[str, float] = {}
    if a.n_items:
        orig = np.bincount(people.items, minlength=a.n_items).astype(float)
        keep = r.a_atoms < a.n_items
        rel = np.bincount(r.a_atoms[keep], weights=r.a_prob[keep], minlength=a.n_items)
        parts["items"] = _tv(orig, rel)
    if a.sensitive_domain is not None and people.sens_codes is not None:
        size = a.sensitive_domain.size
        codes = people.sens_codes[people.sens_codes >= 0]
        orig = np.bincount(codes, minlength=size).astype(float)
        keep = (r.a_atoms >= a.sensitive_base) & (r.a_atoms < a.qi_base)
        if keep.any():
            rel = np.bincount(r.a_atoms[keep] - a.sensitive_base, weights=r.a_prob[keep], minlength=size)
            parts[a.sensitive_column] = _tv(orig, rel)
    offsets = a.qi_offsets
    for c, column in enumerate(a.qi):
        orig = np.bincount(people.qi_codes[:, c][people.qi_codes[:, c] >= 0], minlength=a.qi_domains[c].size)
        rel = (r.class_size[:, None] * r.qi_prob[:, offsets[c]:offsets[c + 1]]).sum(axis=0)
        parts[column] = _tv(orig.astype(float), rel)
    value = float(np.mean(list(parts.values()))) if parts else None
    return {"value": value, "parts": parts}
