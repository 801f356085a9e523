"""The rule browser's data: sensitive rules Q → e, whom they threatened and what was suppressed to fix them.

A sensitive rule Q → e threatens person u when Q ⊆ D_u and e ∈ E_u \\ Q. The
browser lists every such rule whose confidence in the ORIGINAL data was above
ρ (found by a scan of all adversaries when there are at most ``scan_limit``
of them and the scan finds at most ``rule_limit`` (person, Q, e) threats),
plus every rule the algorithm repaired (some only broke ρ after other
suppressions: the model is not monotone). For each: its confidence before and
after, the people it threatened, and the repairs made for it.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ...jobs import ChunkSizer
from ...kernels.rho_suppressor import NEED_RULES, RESUME_SLOTS, active_users, exact_chunk
from .result import RhoResult
from .suppressor import LOG_COLUMNS, SuppressionState, adversary_count

__all__ = ["SensitiveRule", "PersonView", "RuleBrowser", "rule_browser", "RULE_LIMIT"]

#: Most (person, Q, e) threats a scan lists. On a small sample of long records nearly every itemset is held by one
#: person, so every Q → e is at 100 % and the threats run into millions (8 million on 1,500 records of
#: BMS-WebView-1 at m = 3): beyond this the browser lists the repaired rules only.
RULE_LIMIT = 200_000


@dataclass(frozen=True)
class SensitiveRule:
    """One rule Q → e with its supports on D (before) and D' (after)."""

    antecedent: tuple[int, ...]
    consequent: int
    s_q_before: int
    s_qe_before: int
    s_q_after: int
    s_qe_after: int
    people: np.ndarray
    repairs: tuple[int, ...]

    @property
    def conf_before(self) -> float | None:
        return self.s_qe_before / self.s_q_before if self.s_q_before else None

    @property
    def conf_after(self) -> float | None:
        return self.s_qe_after / self.s_q_after if self.s_q_after else None

    def above(self, rho: Fraction, after: bool = False) -> bool:
        s_q, s_qe = (self.s_q_after, self.s_qe_after) if after else (self.s_q_before, self.s_qe_before)
        return s_q > 0 and s_qe * rho.denominator > rho.numerator * s_q


@dataclass(frozen=True)
class PersonView:
    """One person: their items, their sensitive items, what was suppressed, the rules that threatened them."""

    user: int
    items: tuple[str, ...]
    sensitive: tuple[str, ...]
    suppressed: tuple[str, ...]
    rules: tuple[int, ...]


class RuleBrowser:
    """Sensitive rules of a run, filterable by item and by person."""

    def __init__(self, result: RhoResult, rules: list[SensitiveRule], scanned: bool):
        self.result = result
        self.rules = tuple(rules)
        self.scanned = scanned
        self.labels = result.original.vocab
        self._by_person: dict[int, list[int]] = {}
        for j, rule in enumerate(self.rules):
            for u in rule.people.tolist():
                self._by_person.setdefault(u, []).append(j)

    def __len__(self) -> int:
        return len(self.rules)

    def select(self, item: str | None = None, person: int | None = None) -> list[int]:
        """Indices of the rules mentioning ``item`` (in Q or as e) and/or threatening ``person``."""
        picked = range(len(self.rules)) if person is None else self._by_person.get(int(person), [])
        if item is None:
            return list(picked)
        try:
            i = self.labels.index(str(item))
        except ValueError:
            return []
        return [j for j in picked if self.rules[j].consequent == i or i in self.rules[j].antecedent]

    def row(self, j: int, max_people: int = 20) -> dict:
        """One rule as plain values (labels, confidences, people, what was suppressed)."""
        rule = self.rules[j]
        log = self.result.log
        lab = self.labels
        fixes = []
        for k in rule.repairs:
            d = int(log.meta[k, LOG_COLUMNS.index("d")])
            fixes.append({"pass": int(log.meta[k, LOG_COLUMNS.index("pass")]), "suppressed_item": lab[d],
                          "records": log.records_of(k).tolist()})
        rho = self.result.params.rho_fraction
        return {
            "antecedent": [lab[i] for i in rule.antecedent], "consequent": lab[rule.consequent],
            "confidence_before": rule.conf_before, "confidence_after": rule.conf_after,
            "support_before": [rule.s_qe_before, rule.s_q_before], "support_after": [rule.s_qe_after, rule.s_q_after],
            "above_rho_before": rule.above(rho), "above_rho_after": rule.above(rho, after=True),
            "people": len(rule.people), "people_listed": rule.people[:max_people].tolist(), "repairs": fixes,
        }

    def rows(self, item: str | None = None, person: int | None = None) -> list[dict]:
        return [self.row(j) for j in self.select(item, person)]

    def person(self, u: int) -> PersonView:
        res = self.result
        lab = res.original.vocab
        return PersonView(int(u), tuple(res.original.record_labels(u)), tuple(res.constraint.labels_of(u)),
                          tuple(lab[i] for i in res.suppressed_of(u)), tuple(self._by_person.get(int(u), [])))


def _holders(post: tuple[np.ndarray, np.ndarray], items) -> np.ndarray:
    ptr, rec = post
    out = None
    for i in items:
        part = rec[ptr[i]:ptr[i + 1]]
        out = part if out is None else np.intersect1d(out, part, assume_unique=True)
        if not len(out):
            break
    return out if out is not None else np.zeros(0, dtype=np.int32)


def _count_with(post: tuple[np.ndarray, np.ndarray], records: np.ndarray, item: int) -> int:
    """How many of ``records`` (sorted) hold ``item``: supp(Q ∪ {e}) from the holders of Q."""
    ptr, rec = post
    part = rec[ptr[item]:ptr[item + 1]]
    if not len(part) or not len(records):
        return 0
    at = np.searchsorted(part, records)
    return int(np.count_nonzero(part[np.minimum(at, len(part) - 1)] == records))


def _scan(result: RhoResult, rule_limit: int) -> list[tuple[tuple[int, ...], int, np.ndarray]] | None:
    """Every (Q, e, people) with conf_D(Q→e) > ρ, by the suppressor's own check on the untouched data.

    None when more than ``rule_limit`` (person, Q, e) threats are found (checked after every chunk).
    """
    data, e = result.original, result.constraint
    top = result.suppression.levels
    state = SuppressionState(data, e, top)
    rho = result.params.rho_fraction
    active = active_users(state.indptr, state.indices, data.n_items, state.ep)
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    rng = np.zeros(1, dtype=np.uint64)
    resume = np.zeros(RESUME_SLOTS, dtype=np.int64)
    listed = 0
    for level in range(1, top + 1):
        sizer = ChunkSizer(initial=1024)  # adversaries per call: a level's cost per adversary is its own
        u, n_rules = 0, 0
        while u < data.n_records:
            if listed + n_rules > rule_limit:
                return None
            nxt, code, n_rules = exact_chunk(level, u, data.n_records, 0, False, rho.numerator, rho.denominator,
                                             state.dp, state.ep, active, state.cache, rng, state.rule_u,
                                             state.rule_q, state.rule_e, n_rules, state.work, state.log,
                                             np.zeros(5, np.int64), sizer.next_size(), resume)
            sizer.done(max(int(resume[4]), 1))
            if code == NEED_RULES:
                state.grow_rules(2 * len(state.rule_e))
            u = nxt
        if listed + n_rules > rule_limit:
            return None
        listed += n_rules
        found.append((state.rule_u[:n_rules].copy(), state.rule_q[:n_rules, :level].copy(),
                      state.rule_e[:n_rules].copy()))
    out = []
    for users, qs, es in found:
        if not len(es):
            continue
        keys = np.column_stack([qs, es])
        uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        order = np.argsort(inverse, kind="stable")
        bounds = np.searchsorted(inverse[order], np.arange(len(uniq) + 1))
        for g, key in enumerate(uniq):
            people = np.unique(users[order[bounds[g]:bounds[g + 1]]])
            out.append((tuple(int(v) for v in key[:-1]), int(key[-1]), people))
    return out


def rule_browser(result: RhoResult, scan_limit: int = 5_000_000, rule_limit: int = RULE_LIMIT) -> RuleBrowser:
    """Build the browser's rules for ``result`` (see the module docstring)."""
    data, pub, e = result.original, result.published, result.constraint
    post_d = data.inverted()
    post_p = pub.inverted()
    found = _scan(result, rule_limit) if adversary_count(data.lengths, result.suppression.levels) <= scan_limit \
        else None
    scanned = found is not None
    entries: dict[tuple[tuple[int, ...], int], np.ndarray | None] = {}
    for q, item, people in found or ():
        entries[(q, item)] = people
    repairs: dict[tuple[tuple[int, ...], int], list[int]] = {}
    log = result.log
    for k in range(len(log)):
        key = (log.antecedent(k), int(log.meta[k, LOG_COLUMNS.index("e")]))
        repairs.setdefault(key, []).append(k)
        entries.setdefault(key, None)
    rules = []
    # Many rules share Q (one per sensitive item e): the holders of Q are found once per Q.
    holders: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
    for (q, item), people in entries.items():
        if q not in holders:
            holders[q] = (_holders(post_d, q), _holders(post_p, q))
        holders_d, after_q = holders[q]
        if people is None:
            candidates = holders_d
            people = candidates[e.protects(candidates, item)] if len(candidates) else candidates
        with_e = _count_with(post_d, holders_d, item)
        after_qe = _count_with(post_p, after_q, item)
        rules.append(SensitiveRule(q, item, len(holders_d), with_e, len(after_q), after_qe,
                                   np.asarray(people, dtype=np.int64), tuple(repairs.get((q, item), ()))))
    rules.sort(key=lambda r: (-(r.conf_before or 0.0), r.antecedent, r.consequent))
    return RuleBrowser(result, rules, scanned)
