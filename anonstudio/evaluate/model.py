"""The evaluator's one model of every release: people who may be attacked, and published records.

Everything an attacker can know or a release can publish is an *atom*:

* ``0 .. n_items - 1``: the original's items;
* ``n_items .. qi_base - 1``: values of the original's sensitive column (tables);
* ``qi_base ..``: values of the quasi-identifier columns, column after column.

:class:`People` is the original as the attacker sees it: per person the items
they may learn (their *pool*), the sensitive atoms they hold, their
quasi-identifier values (a *tuple*) and which published record is their own.
:class:`Published` is the release: per published record its class (the
distinct tuple of its published quasi-identifier cells), the record atoms it
may hold with a probability and a kind (see :mod:`anonstudio.kernels.evaluate_risk`),
a budget of distance items (nonreciprocal thresholds), and per class the cells
as bit sets for the candidate test and as probabilities for count queries.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..kernels.evaluate_risk import NO_BUDGET
from .cells import Domain

__all__ = ["Atoms", "People", "Published", "csr", "postings"]


def csr(lists, dtype=np.int64) -> tuple[np.ndarray, np.ndarray]:
    """(indptr, values) of a list of sequences."""
    indptr = np.zeros(len(lists) + 1, dtype=np.int64)
    if lists:
        np.cumsum([len(x) for x in lists], out=indptr[1:])
    values = np.fromiter((v for x in lists for v in x), dtype=dtype, count=int(indptr[-1]))
    return indptr, values


def postings(indptr: np.ndarray, atoms: np.ndarray, n_atoms: int) -> tuple[np.ndarray, np.ndarray]:
    """Inverted CSR: per atom the rows holding it, ascending."""
    rows = np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr))
    order = np.argsort(atoms, kind="stable")
    post_indptr = np.zeros(n_atoms + 1, dtype=np.int64)
    np.cumsum(np.bincount(atoms, minlength=n_atoms)[:n_atoms], out=post_indptr[1:])
    return post_indptr, np.ascontiguousarray(rows[order])


@dataclass(eq=False)
class Atoms:
    """The atom numbering of one evaluation (see the module docstring)."""

    item_labels: tuple[str, ...] = ()
    sensitive_column: str | None = None
    sensitive_domain: Domain | None = None
    qi: tuple[str, ...] = ()
    qi_domains: tuple[Domain, ...] = ()

    @property
    def n_items(self) -> int:
        return len(self.item_labels)

    @property
    def sensitive_base(self) -> int:
        return self.n_items

    @property
    def qi_base(self) -> int:
        return self.n_items + (self.sensitive_domain.size if self.sensitive_domain is not None else 0)

    @property
    def qi_offsets(self) -> np.ndarray:
        """Offset of each quasi-identifier column's values among the quasi-identifier atoms (and the total)."""
        return np.concatenate([[0], np.cumsum([d.size for d in self.qi_domains])]).astype(np.int64)

    @property
    def n_qi_atoms(self) -> int:
        return int(self.qi_offsets[-1])

    @property
    def total(self) -> int:
        return self.qi_base + self.n_qi_atoms

    def label(self, atom: int) -> str:
        """How a person reads an atom: an item label, or ``column = value``."""
        atom = int(atom)
        if atom < self.n_items:
            return self.item_labels[atom]
        if atom < self.qi_base:
            return f"{self.sensitive_column} = {self.sensitive_domain.texts[atom - self.n_items]}"
        rest = atom - self.qi_base
        offsets = self.qi_offsets
        c = int(np.searchsorted(offsets, rest, side="right") - 1)
        return f"{self.qi[c]} = {self.qi_domains[c].texts[rest - offsets[c]]}"


@dataclass(eq=False)
class People:
    """The original's people as an attacker sees them (arrays indexed by person, 0-based inside)."""

    atoms: Atoms
    names: tuple[str, ...] | None
    items_indptr: np.ndarray
    items: np.ndarray
    pool_indptr: np.ndarray
    pool_items: np.ndarray
    sens_indptr: np.ndarray
    sens_atoms: np.ndarray
    tuple_of: np.ndarray
    tuple_codes: np.ndarray
    qi_codes: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
    sens_codes: np.ndarray | None = None
    #: Sensitive information was given (a sensitive column or items), so attribute disclosure is measured.
    sensitive_given: bool = False
    #: Where the sensitive information came from, for the report.
    sensitive_source: str = ""

    @property
    def n(self) -> int:
        return len(self.tuple_of)

    def name(self, u: int) -> str:
        """How outputs name person ``u``: the original's record identifier, or its number from 1."""
        return self.names[u] if self.names is not None else str(u + 1)

    def pool(self, u: int) -> np.ndarray:
        return self.pool_items[self.pool_indptr[u]:self.pool_indptr[u + 1]]

    def pairs(self, m: int) -> int:
        """Number of (person, known set) pairs at m: C(pool, m) per person, 1 for shorter pools."""
        sizes = np.diff(self.pool_indptr)
        return int(sum(_comb_counts(sizes, m)))

    def tuple_rows(self) -> np.ndarray:
        """Per tuple, the quasi-identifier atom row (atom - qi_base) of each of its values."""
        return np.ascontiguousarray(self.tuple_codes + self.atoms.qi_offsets[:-1][None, :], dtype=np.int64)

    def person_atoms(self) -> tuple[np.ndarray, np.ndarray]:
        """CSR of every atom each person holds (items, sensitive value, quasi-identifier values), sorted."""
        a = self.atoms
        extra = []
        if a.sensitive_domain is not None and self.sens_codes is not None:
            extra.append(np.where(self.sens_codes >= 0, a.sensitive_base + self.sens_codes, -1))
        offsets = a.qi_offsets
        for c in range(len(a.qi)):
            extra.append(a.qi_base + offsets[c] + self.qi_codes[:, c])
        n = self.n
        lengths = np.diff(self.items_indptr)
        owner = np.repeat(np.arange(n, dtype=np.int64), lengths)
        rows = [owner] + [np.arange(n, dtype=np.int64) for _ in extra]
        values = [self.items.astype(np.int64)] + extra
        rows_all = np.concatenate(rows) if rows else np.zeros(0, np.int64)
        vals_all = np.concatenate(values) if values else np.zeros(0, np.int64)
        keep = vals_all >= 0
        rows_all, vals_all = rows_all[keep], vals_all[keep]
        order = np.lexsort((vals_all, rows_all))
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows_all, minlength=n), out=indptr[1:])
        return indptr, np.ascontiguousarray(vals_all[order])


def _comb_counts(sizes: np.ndarray, m: int) -> list[int]:
    from math import comb

    values, counts = np.unique(sizes, return_counts=True)
    return [int(c) * (comb(int(v), m) if v > m else 1) for v, c in zip(values, counts)]


@dataclass(eq=False)
class Published:
    """A release in the evaluator's terms (see the module docstring)."""

    kind: str
    n_records: int
    own: np.ndarray
    rec_class: np.ndarray
    class_size: np.ndarray
    colbits: np.ndarray
    qi_prob: np.ndarray
    a_indptr: np.ndarray
    a_atoms: np.ndarray
    a_kind: np.ndarray
    a_prob: np.ndarray
    budget: np.ndarray
    worlds: bool = False
    n_dist: np.ndarray | None = None
    threshold: np.ndarray | None = None
    log_z: np.ndarray | None = None
    notes: list[str] = field(default_factory=list)
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def n_classes(self) -> int:
        return len(self.class_size)

    def valid_bits(self) -> np.ndarray:
        """One bit per class (the cover of a table without quasi-identifiers)."""
        words = max(1, (self.n_classes + 63) // 64)
        bits = np.zeros(words, dtype=np.uint64)
        full, rest = divmod(self.n_classes, 64)
        bits[:full] = np.uint64(0xFFFFFFFFFFFFFFFF)
        if rest:
            bits[full] = np.uint64((1 << rest) - 1)
        return bits

    def record_postings(self, n_record_atoms: int) -> tuple[np.ndarray, np.ndarray]:
        return postings(self.a_indptr, self.a_atoms, n_record_atoms)

    def class_sums(self, atoms: np.ndarray, n_record_atoms: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per class, the sum over its records of the probability of each atom in ``atoms`` (CSR, atoms sorted)."""
        wanted = np.zeros(max(n_record_atoms, 1), dtype=bool)
        wanted[np.asarray(atoms, dtype=np.int64)] = True
        owner = np.repeat(np.arange(self.n_records, dtype=np.int64), np.diff(self.a_indptr))
        keep = wanted[self.a_atoms]
        cls = self.rec_class[owner[keep]]
        key = cls * n_record_atoms + self.a_atoms[keep]
        uniq, inverse = np.unique(key, return_inverse=True)
        sums = np.bincount(inverse.reshape(-1), weights=self.a_prob[keep], minlength=len(uniq))
        cls_u = uniq // max(n_record_atoms, 1)
        indptr = np.zeros(self.n_classes + 1, dtype=np.int64)
        np.cumsum(np.bincount(cls_u, minlength=self.n_classes), out=indptr[1:])
        return indptr, (uniq % max(n_record_atoms, 1)).astype(np.int64), sums.astype(np.float64)


def plain_classes(n_records: int) -> dict:
    """Class arrays of a release without quasi-identifiers: every record in one class."""
    return {
        "rec_class": np.zeros(n_records, dtype=np.int64),
        "class_size": np.array([n_records], dtype=np.int64),
        "colbits": np.zeros((0, 1), dtype=np.uint64),
        "qi_prob": np.zeros((1, 0), dtype=np.float64),
    }


def entries_to_csr(n_records: int, rec: np.ndarray, atom: np.ndarray, prob: np.ndarray,
                   kind: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Record atom CSR from (record, atom, probability[, kind]) entries: sorted, one entry per (record, atom)
    keeping the highest probability (an item published both as such and inside a generalized item counts as
    published)."""
    rec = np.asarray(rec, dtype=np.int64)
    atom = np.asarray(atom, dtype=np.int64)
    prob = np.asarray(prob, dtype=np.float64)
    kind = np.zeros(len(rec), dtype=np.int8) if kind is None else np.asarray(kind, dtype=np.int8)
    order = np.lexsort((-prob, atom, rec))
    rec, atom, prob, kind = rec[order], atom[order], prob[order], kind[order]
    first = np.ones(len(rec), dtype=bool)
    if len(rec):
        first[1:] = (rec[1:] != rec[:-1]) | (atom[1:] != atom[:-1])
    rec, atom, prob, kind = rec[first], atom[first], prob[first], kind[first]
    indptr = np.zeros(n_records + 1, dtype=np.int64)
    np.cumsum(np.bincount(rec, minlength=n_records), out=indptr[1:])
    return indptr, np.ascontiguousarray(atom), np.ascontiguousarray(kind), np.ascontiguousarray(prob)


def no_budget(n_records: int) -> np.ndarray:
    return np.full(n_records, NO_BUDGET, dtype=np.int64)
