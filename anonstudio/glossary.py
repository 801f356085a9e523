"""One-line meanings of every measure and parameter the studio shows: the glossary of the GUI and the CLI.

Qt-free, so the CLI prints the same sentences the window shows (Help > Glossary,
F1, and the "?" buttons beside plots and tables). One notation everywhere:
k, m, σ, ρ, ℓ, δ, ε are written as symbols in texts; the ASCII spelling in
parentheses is the CLI flag or JSON key.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Term", "TERMS", "term", "meaning", "search", "register", "all_terms"]


@dataclass(frozen=True)
class Term:
    """One glossary entry."""

    key: str
    name: str
    meaning: str
    family: str = ""
    ascii: str = ""

    @property
    def title(self) -> str:
        return f"{self.name} ({self.ascii})" if self.ascii and self.ascii != self.name else self.name


_ENTRIES = (
    # ---------------------------------------------------------------- parameters
    Term("k", "k", "The crowd size: every published record (or itemset, or group) is shared by at least k people."),
    Term("m", "m", "How many of a person's items an attacker is assumed to know."),
    Term("l", "ℓ", "Diversity: every group (or every record's possible matches) shows at least ℓ different "
                   "sensitive values, so knowing a person's group never pins down their value.", "", "l"),
    Term("delta", "δ", "The chance an estimate misses its ±ε band (Risk, ρ sampling), or the loss bound an RT "
                       "release may not exceed (RT-datasets).", "", "delta"),
    Term("epsilon", "ε", "The error an estimate may have: sampled results are within ±ε of the truth with "
                         "confidence 1 - δ.", "", "epsilon"),
    Term("seed", "seed", "The random seed: the same seed gives the same result, whatever the number of threads."),
    # ---------------------------------------------------------------- loss measures
    Term("NCP", "NCP", "Normalized certainty penalty: how much of a value's precision is lost when it is "
         "published as a range or a group (0 = none, 1 = everything merged)."),
    Term("UL", "UL", "Utility loss of generalized items: how many original items a published item stands for, "
         "on a log scale (0 = items as they are)."),
    # ---------------------------------------------------------------- run summaries (comparison tables, reports)
    Term("rows", "rows", "Rows (people) in the table the run worked on."),
    Term("passed", "check passed", "1 when the independent check confirmed the promise, 0 when it found it broken."),
    Term("groups", "groups", "Groups of rows published with the same quasi-identifier values; each person hides "
         "among the rows of their group."),
    Term("min_group_size", "smallest group", "Rows in the smallest group: every person hides among at least this "
         "many (the k actually reached)."),
    Term("mean_group_size", "mean group size", "Rows per group on average; larger groups hide people better and "
         "blur the data more."),
    Term("min_distinct_sensitive", "fewest sensitive values", "Fewest different sensitive values in any group (the "
         "ℓ actually reached)."),
    Term("max_sensitive_share", "largest sensitive share", "Largest share one sensitive value takes in any group: "
         "someone who finds a person's group guesses that value with at most this confidence."),
    Term("misfits", "misfits", "Rows whose published group does not cover their true values (0 for a correct "
         "release)."),
)

#: Every entry by key: the shared ones above and those the method families declare (:func:`register`).
TERMS: dict[str, Term] = {t.key: t for t in _ENTRIES}
_ALL: list[Term] = list(_ENTRIES)


def register(terms: Iterable[Term], family: str = "") -> None:
    """Add a method family's own entries (its ``MethodSpec.terms``; the method discovery calls this).

    ``family`` fills an entry's family where it names none. An entry whose key is already known from the same
    family is replaced (a family registered twice); the same key from another family is kept beside it, and
    :func:`term` prefers the shared entry, then the first family's.
    """
    for t in terms:
        if family and not t.family:
            t = dataclasses.replace(t, family=family)
        for i, old in enumerate(_ALL):
            if old.key == t.key and old.family == t.family:
                _ALL[i] = t
                break
        else:
            _ALL.append(t)
        TERMS.setdefault(t.key, t)
        if TERMS[t.key].family == t.family:
            TERMS[t.key] = t


def all_terms() -> list[Term]:
    """Every entry, shared ones first."""
    return list(_ALL)


def term(key: str, family: str = "") -> Term:
    """The entry for ``key`` (case-insensitive; also found by its symbol or ASCII spelling).

    ``family`` prefers that family's own entry where several share a key.
    """
    if family:
        for t in _ALL:
            if t.key == key and t.family == family:
                return t
    if key in TERMS:
        return TERMS[key]
    low = key.lower()
    for t in _ALL:
        if low in (t.key.lower(), t.name.lower(), t.ascii.lower()):
            return t
    raise KeyError(f"no glossary entry for {key!r}")


def meaning(key: str, family: str = "") -> str:
    """The one-line meaning of ``key`` ("" when the glossary has no entry)."""
    try:
        return term(key, family).meaning
    except KeyError:
        return ""


def search(text: str) -> list[Term]:
    """Entries whose name, spelling or meaning contains ``text`` (all of them for "")."""
    low = text.strip().lower()
    return [t for t in _ALL if not low or low in f"{t.key} {t.name} {t.ascii} {t.meaning}".lower()]


# ---------------------------------------------------------------- the independent evaluator (anonstudio.evaluate)
register((
    Term("candidates", "candidates", "The published records consistent with what an attacker knows of a person (their "
         "quasi-identifiers and m of their items) under the release's own rules: the records the attacker must "
         "choose among."),
    Term("prosecutor_risk", "prosecutor risk", "The chance that an attacker who knows a person's quasi-identifiers "
         "and m of their items picks that person's own record among the candidates: the mean over people of "
         "1 / candidates when their own record is one of them, 0 otherwise."),
    Term("share_at_risk", "share at risk", "The share of people whose own record is among the candidates and who "
         "have fewer than k candidates, for m known items."),
    Term("attribute_disclosure", "attribute disclosure", "The share of people whose own record is among the "
         "candidates and for whom some sensitive value they have (and the attacker does not know) is held by more "
         "than a fraction ρ of the candidates."),
    Term("count_query_error", "count-query error", "The mean relative error of one shared workload of random count "
         "queries (how many people have all of 1 to 3 items or values), each answered exactly on the original and "
         "by the release's natural estimate; errors are relative to the true count, but at least n/1000."),
    Term("frequency_distortion", "frequency distortion", "Total variation distance between how often each item (or "
         "each value of a column) occurs in the original and in the release: 0 = the same frequencies, 1 = "
         "nothing in common."),
), "evaluate")
