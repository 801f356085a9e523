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
from typing import Any

import numpy as np

from ...data.transactions import TransactionData
from ...jobs import derive_seed

__all__ = ["AttackStep", "AttackTrace", "ReleaseAttack", "ReadRelease", "attack_release", "read_attack_release",
           "replay_attack", "linkage_attack", "random_person", "ORDERS"]

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


# --------------------------------------------------------------------------- the same attack on a release
@dataclass(frozen=True)
class ReleaseAttack:
    """The same victim and the same revealed items, replayed on a release (before/after, for training).

    After each step of ``trace`` (the attack on the original), ``matches[i]`` counts the release's
    *candidates*: its records consistent with the items revealed so far under the release's own rules, as the
    independent evaluator (:func:`anonstudio.evaluate.candidates_of`) defines them, so the demo and the Audit
    tab count alike. ``own[i]`` says whether the victim's own published record is among them;
    ``match_indices[i]`` lists the candidates' 0-based rows when at most :data:`SHOW_MATCHES` are left.
    """

    trace: AttackTrace
    release_name: str
    kind: str
    records: int
    matches: tuple[int, ...]
    own: tuple[bool, ...]
    own_index: int | None
    match_indices: tuple[tuple[int, ...], ...]

    @property
    def singled_out(self) -> bool:
        """True when the release, too, leaves the victim's own record alone after the revealed items."""
        return bool(self.matches) and self.matches[-1] == 1 and self.own[-1]

    def lines(self) -> list[str]:
        """Both attacks side by side: per revealed item, the original's matches and the release's candidates."""
        t = self.trace
        out = [f"target: record {t.record} ({t.record_size} items), order: {t.order}; original: "
               f"{t.population:,} records; release: {self.release_name} ({self.kind}, {self.records:,} records)",
               f"{'':>5}{'revealed item':<28}{'original':>12}{'release':>12}"]
        for k, (step, count, own) in enumerate(zip(t.steps, self.matches, self.own), 1):
            mark = "" if own else "  (own record not among them)"
            out.append(f"{k:>3}. {step.label[:26]!r:<28}{step.matches:>12,}{count:>12,}{mark}")
        n = len(t.steps)
        before = (f"the original singles record {t.record} out after {n} item{'s' if n != 1 else ''}"
                  if t.singled_out else f"the original leaves {t.steps[-1].matches if n else t.population:,} "
                                        f"records after all {t.record_size} items")
        last = self.matches[-1] if self.matches else self.records
        if self.singled_out:
            after = "the release singles them out too: the attack still works"
        elif self.own and not self.own[-1]:
            after = (f"in the release the victim's own record is not among the {last:,} candidates: the attack "
                     "finds no one")
        else:
            after = f"in the release {last:,} candidates remain: the attack stops working"
        out.append(f"{before}; {after}")
        return out

    def to_json(self) -> dict:
        """The release side of the trace: ``matches``, ``own_record_found``, ``match_records`` (from 1)."""
        return {
            "release": self.release_name,
            "kind": self.kind,
            "records": self.records,
            "own_record": self.own_index + 1 if self.own_index is not None else None,
            "matches": list(self.matches),
            "own_record_found": list(self.own),
            "match_records": [[i + 1 for i in ids] for ids in self.match_indices],
            "singled_out": self.singled_out,
        }


@dataclass(frozen=True)
class ReadRelease:
    """A release read once by the evaluator's readers, to replay attacks on (:func:`read_attack_release`)."""

    name: str
    kind: str
    people: Any
    published: Any

    @property
    def records(self) -> int:
        return int(self.published.n_records)


def read_attack_release(data: TransactionData, release: Any, kind: str | None = None,
                        side: Any = None) -> ReadRelease:
    """Read the release file ``release`` of ``data`` with its side files (an :class:`anonstudio.evaluate.SideFiles`).

    Raises :class:`~anonstudio.data.errors.DataFormatError` for a release the evaluator cannot read.
    """
    from pathlib import Path

    from ...evaluate import SideFiles, read_release
    from ...evaluate.evaluation import KIND_WORDS

    people, published = read_release(data, Path(release), kind, side or SideFiles())
    return ReadRelease(Path(release).name, KIND_WORDS.get(published.kind, published.kind), people, published)


def replay_attack(trace: AttackTrace, release: ReadRelease) -> ReleaseAttack:
    """``trace``'s victim and revealed items on ``release``: the evaluator's candidates after every step."""
    from ...evaluate import candidates_of

    people, published = release.people, release.published
    atom_of = {label: atom for atom, label in enumerate(people.atoms.item_labels)}
    own_index = int(published.own[trace.index]) if published.own[trace.index] >= 0 else None
    known: list[int] = []
    matches, own, shown = [], [], []
    for step in trace.steps:
        known.append(atom_of[step.label])
        cands = candidates_of(people, published, trace.index, sorted(known))
        matches.append(len(cands))
        own.append(own_index is not None and bool(np.isin(own_index, cands)))
        shown.append(tuple(int(j) for j in cands) if len(cands) <= SHOW_MATCHES else ())
    return ReleaseAttack(trace, release.name, release.kind, release.records, tuple(matches), tuple(own), own_index,
                         tuple(shown))


def attack_release(data: TransactionData, trace: AttackTrace, release: Any, kind: str | None = None,
                   side: Any = None) -> ReleaseAttack:
    """Replay ``trace`` (an attack on ``data``) on the release file ``release`` with its side files.

    ``kind`` and ``side`` (an :class:`anonstudio.evaluate.SideFiles`) are the evaluator's; the release is read by
    the evaluator's own readers and candidates are its candidates (:func:`read_attack_release`,
    :func:`replay_attack`).
    """
    return replay_attack(trace, read_attack_release(data, release, kind, side))
