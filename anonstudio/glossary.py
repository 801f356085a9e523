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
    Term("ER", "ER", "Error rate of nonreciprocal recoding: the items that differ between a person's record and "
         "the base of their true published record, divided by the record's size, averaged over people with at "
         "least one item (0 = exact).", "nonreciprocal", "error_rate"),
    Term("QE", "QE", "Query error: how far counts of records containing (Type I) or avoiding (Type II) some items "
         "move between the original and the published data.", "nonreciprocal"),
    Term("QE_I", "QE Type I", "Query error of 'how many people have all of these items?': the difference between "
         "the count in the original and in the published bases, as a share of all people, averaged over random "
         "item sets.", "nonreciprocal", "qe_type1"),
    Term("QE_II", "QE Type II", "Query error of 'how many people have none of these items?': the difference "
         "between the count in the original and in the published bases, as a share of all people, averaged over "
         "random item sets.", "nonreciprocal", "qe_type2"),
    Term("gray_order", "Gray order", "A sort that puts records differing in few items next to each other (their "
         "item bitmaps read as Gray codes); nonreciprocal recoding blends each record with its neighbours in it.",
         "nonreciprocal", "gray"),
    Term("gray_tsp", "Gray-TSP order", "The Gray order improved piece by piece (segments of a few hundred records) "
         "by a shortest-path search, so that neighbours differ in even fewer items.", "nonreciprocal", "gray-tsp"),
    Term("hamming_sum", "Hamming sum", "Items that differ between neighbouring records, added up around the whole "
         "order (back to the first); smaller means each record is blended with more similar ones.",
         "nonreciprocal", "hamming"),
    Term("possible_worlds", "possible worlds", "The records a published record could stand for: equal to its base "
         "outside the distance items and at most its threshold of items away. A person could be every published "
         "record whose possible worlds include their record.", "nonreciprocal"),
    Term("generalization_graph", "generalization graph", "Links each person to the k (or ℓ) published records "
         "made to cover them: every person has k links out, every published record k links in.",
         "nonreciprocal", "graph"),
    Term("assignment", "assignment", "One pairing of every person with one published record along the graph's "
         "links. The graph splits into k disjoint assignments; one, drawn at random, is the truth, so each link is "
         "equally likely to be the true one.", "nonreciprocal"),
    Term("base", "base", "The items a published record shows: the majority vote of the people it covers.",
         "nonreciprocal"),
    Term("distance_bitmap", "distance items", "The items on which the people behind a published record disagree: "
         "only on these may a person differ from the base.", "nonreciprocal", "distance"),
    Term("threshold", "threshold", "At most this many items differ between a published record's base and any "
         "person it covers.", "nonreciprocal"),
    Term("CAHD", "CAHD", "A group-based (reciprocal) method for ℓ-diversity: records in groups with ℓ different "
         "labels, each group published together; the baseline nonreciprocal recoding is compared with.",
         "nonreciprocal", "cahd"),
    Term("phase_seconds", "time per phase", "Seconds each step of a nonreciprocal run took: sort (Gray order), TSP, "
         "graph, assignments (closed walks), publish (bit vote), metrics.", "nonreciprocal", "seconds"),
    Term("util_info", "util_info", "Share of item occurrences suppressed: the information lost.", "rho"),
    Term("util_dist", "util_dist", "KL divergence of the published item distribution from the original one "
         "(0 = same distribution).", "rho"),
    Term("util_mining", "util_mining", "Jaccard distance between the association rules mined from the original "
         "and from the published data (0 = same rules).", "rho"),
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
    Term("hamming_before", "Hamming sum, input order", "Items that differ between neighbouring records in the "
         "input order, added up around the whole order.", "nonreciprocal"),
    Term("hamming_gray", "Hamming sum, Gray order", "The same sum after sorting the records in Gray order.",
         "nonreciprocal"),
    Term("hamming_after", "Hamming sum, final order", "The same sum in the order the records were blended in "
         "(after the TSP improvement when chosen); smaller means each record is blended with more similar ones.",
         "nonreciprocal"),
    Term("walk_steps", "walk steps", "Steps of the random closed walks that split the generalization graph into "
         "disjoint assignments, over all rounds.", "nonreciprocal"),
    Term("min_worlds", "fewest matches", "Fewest published records any person's record could be, as the "
         "independent check counted them (the promise needs at least m).", "nonreciprocal"),
    Term("below_m", "people below m", "People whose record matches fewer than m published records (0 when the "
         "promise holds).", "nonreciprocal"),
    Term("suppressed_items", "suppressed items", "How many item occurrences were removed from people's records "
         "(one item taken out of one record counts once).", "rho"),
    Term("passes", "passes", "How many times the suppressor went over all attackers; it stops after the first pass "
         "that finds nothing to fix (that clean pass is counted).", "rho", "iterations"),
    Term("runtime", "running time", "Seconds the suppression took on this computer (preliminary: the cores are "
         "shared with other work).", "rho", "seconds"),
    Term("sensitive_rule", "sensitive rule Q → e", "Knowing items Q of a person, an attacker guesses that the person "
         "also has e, one of their sensitive items; its confidence is the share of records with Q that also have e.",
         "rho"),
    Term("association_rules", "association rules", "Rules X → Y (people with X usually have Y) mined with a minimum "
         "support and confidence; util_mining compares those of the original and the published data.", "rho",
         "rules_original"),
    Term("minsup", "minimum support", "Share of records an itemset must appear in for its rules to be mined "
         "(0.05 % in the paper).", "rho", "minsup"),
    Term("minconf", "minimum confidence", "Least confidence (share of records with X that also have Y) of a mined "
         "rule (30 % in the paper).", "rho", "minconf"),
    Term("unsafe_share", "unsafe share", "Share of the attackers checked (a person and items they know) who can "
         "infer one of the person's sensitive items with more than ρ confidence.", "rho", "share"),
    Term("unsafe_adversaries", "unsafe attackers", "Attackers (a person and items they know) the independent check "
         "found able to infer one of that person's sensitive items with more than ρ confidence (0 for an exact "
         "promise).", "rho"),
    Term("max_unsafe_share", "largest unsafe share", "The highest share of unsafe attackers at any number of known "
         "items, as checked (for a sampled level its upper confidence bound); the (ε, δ) promise needs it below ε.",
         "rho"),
    Term("sensitive_setting", "sensitive items setting", "Who protects what: fixed (the same items for everyone), "
         "personalized (each person their own), fixed+ (everything anyone protects, for everyone), personalized+ "
         "(mostly shared, a few own).", "rho", "setting"),
    Term("sensitive_fraction", "sensitive share of items", "Share of the data's distinct items drawn as sensitive "
         "for each person.", "rho", "sensitive_fraction"),
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
