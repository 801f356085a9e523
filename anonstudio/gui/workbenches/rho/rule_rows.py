"""The rule browser and the person view as row sources (Qt-free), for the studio's virtual row tables.

:class:`RuleRows` shows the sensitive rules Q → e of a
:class:`~anonstudio.methods.rho.rules.RuleBrowser` one per row, formatted only
when a row is on screen (a run can list many thousands), sortable by
confidence, people and suppressions, and filterable by item and by person.
:class:`PersonRows` shows one person: their items, their sensitive items, what
was suppressed and what is published.
"""
from __future__ import annotations

import numpy as np

from ....data.rows import MAX_CHIPS, Chip, Match, capped
from ....formatting import integer
from ....methods.rho.rules import RuleBrowser
from ....methods.rho.suppressor import LOG_COLUMNS

__all__ = ["RuleRows", "PersonRows", "confidence_text", "rule_sentence", "PEOPLE_SHOWN"]

#: People named in a rule's cell (the rest are counted).
PEOPLE_SHOWN = 6


def confidence_text(s_qe: int, s_q: int) -> str:
    """"75.0 % (3 of 4)"; "nobody has Q" when no record holds the known items."""
    if s_q == 0:
        return "nobody has Q"
    return f"{100.0 * s_qe / s_q:.1f} % ({integer(s_qe)} of {integer(s_q)})"


def numbers_text(records: np.ndarray) -> str:
    """The first :data:`PEOPLE_SHOWN` record numbers (from 1), the rest counted: "3, 8, 12 +40"."""
    shown = ", ".join(str(int(u) + 1) for u in records[:PEOPLE_SHOWN])
    more = f" +{integer(len(records) - PEOPLE_SHOWN)}" if len(records) > PEOPLE_SHOWN else ""
    return shown + more


def _people_text(people: np.ndarray) -> str:
    return f"{integer(len(people))}: {numbers_text(people)}" if len(people) else "0"


class RuleRows:
    """Rows of a rule browser; see the module docstring.

    Parameters
    ----------
    browser
        The run's rules (``methods.rho.rules.rule_browser(result)``).
    """

    def __init__(self, browser: RuleBrowser):
        self.browser = browser
        result = browser.result
        self.rho = result.params.rho_fraction
        self.labels = result.original.vocab
        rules = browser.rules
        self.n_rows = len(rules)
        self.columns = ("#", "knows Q", "infers e", "before", "after", "suppressed to fix it", "people")
        self.column_tips = (
            "Rule number, strongest inference first (by confidence in the original data).",
            "Q: items an attacker knows a person has.",
            "e: an item the person wants kept uncertain, which the attacker infers from Q.",
            "Confidence before: share of the records holding Q that also hold e, in the ORIGINAL data (how sure "
            "the attacker could be). Above ρ, the rule broke the promise.",
            "Confidence after: the same share in the PUBLISHED data (must be at most ρ; 'nobody has Q' is safe "
            "too).",
            "What the suppressor removed for this rule: in which pass, which item, from which records. 'None "
            "itself': suppressions made for other rules already brought it down.",
            "People (record numbers from 1) who hold Q and protect e: whom the rule threatened.",
        )
        self.right_aligned = frozenset({0, 3, 4})
        self.conf_before = np.array([r.conf_before if r.conf_before is not None else -1.0 for r in rules])
        self.conf_after = np.array([r.conf_after if r.conf_after is not None else -1.0 for r in rules])
        self.people = np.array([len(r.people) for r in rules], dtype=np.int64)
        log = result.log
        n_col = LOG_COLUMNS.index("n")
        self.repaired = np.array([int(sum(int(log.meta[k, n_col]) for k in r.repairs)) for r in rules],
                                 dtype=np.int64)
        self.still_above = np.array([r.above(self.rho, after=True) for r in rules], dtype=bool)
        self.consequents = np.array([r.consequent for r in rules], dtype=np.int64)
        width = max((len(r.antecedent) for r in rules), default=0)
        self.antecedents = np.full((len(rules), max(width, 1)), -1, dtype=np.int64)
        for j, r in enumerate(rules):
            self.antecedents[j, :len(r.antecedent)] = r.antecedent
        self._lower = np.char.lower(np.asarray(self.labels, dtype=str)) if len(self.labels) else np.zeros(0, str)

    # ------------------------------------------------------------- cells
    def cells(self, row: int):
        rule = self.browser.rules[row]
        lab = self.labels
        q = [Chip(lab[i], "item", int(i)) for i in rule.antecedent[:MAX_CHIPS]]
        e = (Chip(lab[rule.consequent], "general", int(rule.consequent)),)
        after = confidence_text(rule.s_qe_after, rule.s_q_after)
        if self.still_above[row]:
            after += " still above ρ" if self.browser.result.complete else " STILL ABOVE ρ"
        # An empty cell read as missing data: say that other suppressions brought the rule down.
        fixes = self.repairs_text(row) or ("none" if self.still_above[row] else "none itself: others fixed it")
        return (str(row + 1), capped(q, len(rule.antecedent)), e, confidence_text(rule.s_qe_before, rule.s_q_before),
                after, fixes, _people_text(rule.people))

    def repairs_text(self, row: int) -> str:
        rule = self.browser.rules[row]
        log = self.browser.result.log
        parts = []
        for k in rule.repairs:
            records = log.records_of(k)
            item = self.labels[int(log.meta[k, LOG_COLUMNS.index("d")])]
            noun = "record" if len(records) == 1 else "records"
            parts.append(f"pass {int(log.meta[k, LOG_COLUMNS.index('pass')])}: {item} from {noun} "
                         f"{numbers_text(records)}")
        return "; ".join(parts)

    def sort_order(self, column: int, descending: bool = False) -> np.ndarray | None:
        keys = {0: np.arange(self.n_rows), 3: self.conf_before, 4: self.conf_after, 5: self.repaired,
                6: self.people}.get(column)
        if keys is None:
            return None
        order = np.argsort(-keys if descending else keys, kind="stable")
        return order.astype(np.int64)

    # ----------------------------------------------------------- filters
    def items_matching(self, text: str) -> np.ndarray:
        """Item ids named ``text`` (any case), else whose label contains it."""
        term = text.strip().lower()
        if not term or not len(self._lower):
            return np.zeros(0, dtype=np.int64)
        exact = np.flatnonzero(self._lower == term)
        return exact if len(exact) else np.flatnonzero(np.char.find(self._lower, term) >= 0)

    def select(self, item: str = "", person: int | None = None, above_after: bool = False) -> np.ndarray:
        """Rows mentioning an item matching ``item`` (in Q or as e), threatening ``person``, and/or still above ρ."""
        keep = np.ones(self.n_rows, dtype=bool)
        if item.strip():
            ids = self.items_matching(item)
            keep &= np.isin(self.consequents, ids) | np.isin(self.antecedents, ids).any(axis=1)
        if person is not None:
            mine = np.zeros(self.n_rows, dtype=bool)
            mine[np.asarray(self.browser.select(person=int(person)), dtype=np.int64)] = True
            keep &= mine
        if above_after:
            keep &= self.still_above
        return np.flatnonzero(keep).astype(np.int64)

    def search(self, text: str) -> Match:
        rows = self.select(item=text)
        return Match(rows, f"rules with an item matching “{text.strip()}”")

    # ------------------------------------------------------------ detail
    def sentence(self, row: int) -> str:
        return rule_sentence(self, row)


def rule_sentence(rows: RuleRows, row: int) -> str:
    """One rule in plain words: what an attacker could infer, for whom, and what fixed it."""
    rule = rows.browser.rules[row]
    lab = rows.labels
    q = ", ".join(lab[i] for i in rule.antecedent)
    e = lab[rule.consequent]
    rho = float(rows.rho)
    text = (f"Knowing that a person has {{{q}}}, an attacker could infer {e} with "
            f"{confidence_text(rule.s_qe_before, rule.s_q_before)} confidence in the original data "
            f"(allowed: {rho * 100:g} %).")
    if rule.s_q_after == 0:
        text += f" In the published data nobody has {{{q}}} any more."
    else:
        text += f" Published: {confidence_text(rule.s_qe_after, rule.s_q_after)}"
        if not rows.still_above[row]:
            text += "."
        elif rows.browser.result.complete:
            text += (" — still above ρ: the sampled algorithm's promise lets up to ε of the attackers succeed, and "
                     "this rule was not among the attackers drawn in the last pass.")
        else:
            text += " — STILL ABOVE ρ: the run stopped before it was fixed."
    fixes = rows.repairs_text(row)
    text += f" Suppressed for it: {fixes}." if fixes else " Nothing was suppressed for this rule itself: other " \
                                                          "suppressions brought it down."
    return text


class PersonRows:
    """One person as four rows of chips: items, sensitive items, suppressed items, published record.

    Parameters
    ----------
    browser
        The run's rules (gives the person's items, E_u and suppressions).
    person
        The person's record index (from 0; shown as its number, from 1).
    """

    LINES = ("items", "sensitive", "suppressed", "published")
    TIPS = ("The person's items in the original data.", "The items this person wants kept uncertain.",
            "Items removed from this person's record.", "What the release publishes for this person.")

    def __init__(self, browser: RuleBrowser, person: int):
        result = browser.result
        self.person = int(person)
        self.view = browser.person(self.person)
        self.columns = ("", "items")
        self.column_tips = ("items: the original record; sensitive: what the person wants kept uncertain; "
                            "suppressed: removed from the record; published: what the release holds.",
                            "Grey chips: suppressed items; yellow chips: the person's sensitive items.")
        self.right_aligned = frozenset()
        self.n_rows = len(self.LINES)
        index = {label: i for i, label in enumerate(result.original.vocab)}
        gone = set(self.view.suppressed)
        self._chips = (
            [Chip(x, "suppressed" if x in gone else "item", index[x]) for x in self.view.items],
            [Chip(x, "general", index.get(x, -1)) for x in self.view.sensitive],
            [Chip(x, "suppressed", index[x]) for x in self.view.suppressed],
            [Chip(x, "item", index[x]) for x in result.published.record_labels(self.person)],
        )

    def cells(self, row: int):
        chips = self._chips[row]
        cell = capped(chips, len(chips)) if chips else (Chip("none", "more"),)
        return (self.LINES[row], cell)

    def sort_order(self, column: int, descending: bool = False) -> None:
        return None

    def search(self, text: str) -> Match:
        return Match(np.arange(self.n_rows, dtype=np.int64), "")

    def summary(self) -> str:
        v = self.view
        rules = len(v.rules)
        return (f"Person {v.user + 1}: {integer(len(v.items))} items, {integer(len(v.sensitive))} sensitive, "
                f"{integer(len(v.suppressed))} suppressed; threatened by {integer(rules)} listed "
                f"rule{'s' if rules != 1 else ''}.")
