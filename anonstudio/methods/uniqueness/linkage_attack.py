"""A step-by-step linkage attack: how many items of a person single them out?

The attacker learns a target person's items one at a time (in random order, or
rarest first -- the strongest order, since rare items cut the crowd fastest) and
after each item counts the records that still contain everything learned so far.
The attack succeeds when one record is left: the target is singled out.

Records are numbered from 1 wherever a person reads them (the trace's lines,
its JSON's ``record`` and ``match_records``); the functions take and return
0-based row indices (``index``), as :class:`~anonstudio.data.transactions.TransactionData` does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...data.transactions import TransactionData
from ...jobs import derive_seed

__all__ = ["AttackStep", "AttackTrace", "linkage_attack", "random_person", "ORDERS"]

#: Orders in which the attacker learns the items.
ORDERS = ("random", "rarest")

#: Matching records are listed once at most this many are left.
SHOW_MATCHES = 10


@dataclass(frozen=True)
class AttackStep:
    """The state after one more item was revealed.

    ``match_indices`` lists the 0-based rows of the matching records when at
    most :data:`SHOW_MATCHES` are left (else it is empty).
    """

    item: int
    label: str
    item_frequency: int
    matches: int
    match_indices: tuple[int, ...]

    @property
    def match_records(self) -> tuple[int, ...]:
        """The matching records numbered from 1, as a person reads them."""
        return tuple(i + 1 for i in self.match_indices)


@dataclass(frozen=True)
class AttackTrace:
    """Every step of one attack on the record at row ``index`` (0-based; :attr:`record` counts from 1)."""

    index: int
    order: str
    record_size: int
    population: int
    steps: tuple[AttackStep, ...]

    @property
    def record(self) -> int:
        """The target's record number, counted from 1."""
        return self.index + 1

    @property
    def singled_out(self) -> bool:
        """True when the revealed items match the target's record only."""
        return bool(self.steps) and self.steps[-1].matches == 1

    @property
    def items_needed(self) -> int | None:
        """Items revealed until the target was singled out (None if never)."""
        return len(self.steps) if self.singled_out else None

    def lines(self) -> list[str]:
        """Human-readable trace (CLI output and the GUI's text view)."""
        out = [f"target: record {self.record} ({self.record_size} items), order: {self.order}, "
               f"{self.population:,} records"]
        for k, s in enumerate(self.steps, 1):
            ids = f"  -> records {', '.join(map(str, s.match_records))}" if s.match_records else ""
            still = "1 record still matches" if s.matches == 1 else f"{s.matches:,} records still match"
            out.append(f"{k:>3}. reveal {s.label!r} (in {s.item_frequency:,} records): {still}{ids}")
        if self.singled_out:
            out.append(f"singled out after {self.items_needed} of {self.record_size} items")
        else:
            last = self.steps[-1].matches if self.steps else self.population
            out.append(f"not singled out: all {self.record_size} items are shared by {last:,} records")
        return out

    def to_json(self) -> dict:
        """The trace for programs: ``record`` and ``match_records`` count from 1, ``index`` from 0."""
        return {
            "record": self.record,
            "index": self.index,
            "order": self.order,
            "record_size": self.record_size,
            "singled_out": self.singled_out,
            "items_needed": self.items_needed,
            "items": [s.label for s in self.steps],
            "matches": [s.matches for s in self.steps],
            "match_records": [list(s.match_records) for s in self.steps],
        }


def linkage_attack(data: TransactionData, index: int, order: str = "random", seed: int | None = None) -> AttackTrace:
    """Reveal the items of the record at row ``index`` (0-based) one by one until only that record matches.

    Parameters
    ----------
    index
        The target's row, counted from 0 (record ``index + 1``).
    order
        ``"random"`` (a seeded permutation) or ``"rarest"`` (least frequent item
        first, ties by item id).
    seed
        Seeds the random order.
    """
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)} (got {order!r})")
    if not 0 <= index < data.n_records:
        raise ValueError(f"record {index + 1} is not a record of the data (records 1..{data.n_records:,})")
    items = np.asarray(data.record(index), dtype=np.int64)
    freq = data.item_frequencies
    if order == "rarest":
        items = items[np.lexsort((items, freq[items]))]
    else:
        items = np.random.default_rng(derive_seed(seed, "linkage-attack", index)).permutation(items)
    post_indptr, post_records = data.inverted()
    matching = np.arange(data.n_records, dtype=np.int32)
    steps = []
    for item in items:
        postings = post_records[post_indptr[item] : post_indptr[item + 1]]
        matching = np.intersect1d(matching, postings, assume_unique=True)
        ids = tuple(int(u) for u in matching) if len(matching) <= SHOW_MATCHES else ()
        steps.append(AttackStep(int(item), data.vocab[item], int(freq[item]), len(matching), ids))
        if len(matching) == 1:
            break
    return AttackTrace(index, order, len(data.record(index)), data.n_records, tuple(steps))


def random_person(data: TransactionData, seed: int | None = None, min_items: int = 1) -> int:
    """The 0-based row of a record drawn uniformly among records with at least ``min_items`` items."""
    candidates = np.flatnonzero(data.lengths >= min_items)
    if len(candidates) == 0:
        raise ValueError(f"no record has {min_items} or more items")
    rng = np.random.default_rng(derive_seed(seed, "random-person", min_items))
    return int(candidates[rng.integers(len(candidates))])
