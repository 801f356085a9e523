"""One-line meanings of every measure and parameter the studio shows: the glossary of the GUI and the CLI.

Qt-free, so the CLI prints the same sentences the window shows (Help > Glossary,
F1, and the "?" buttons beside plots and tables). One notation everywhere:
k, m, σ, ρ, ℓ, δ, ε are written as symbols in texts; the ASCII spelling in
parentheses is the CLI flag or JSON key.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Iterable

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
    Term("sigma", "σ", "Probability that a random itemset an attacker may know is k-anonymous (1 = every itemset "
                       "is checked).", "kmanon", "sigma"),
    Term("l", "ℓ", "Diversity: every group (or every record's possible matches) shows at least ℓ different "
                   "sensitive values, so knowing a person's group never pins down their value.", "", "l"),
    Term("delta", "δ", "The chance an estimate misses its ±ε band (Risk, ρ sampling), or the loss bound an RT "
                       "release may not exceed (RT-datasets).", "", "delta"),
    Term("epsilon", "ε", "The error an estimate may have: sampled results are within ±ε of the truth with "
                         "confidence 1 - δ.", "", "epsilon"),
    Term("gamma", "γ", "How many uniformly drawn itemsets in a row must be k-anonymous before a σ-k^m level is "
                       "accepted (Theorem 1).", "kmanon", "gamma"),
    Term("skewness", "γ (skewness)", "Skewness of a log2 Ti histogram: above 0, a long tail of people the attacker "
         "is much surer about than the learner.", "threat", "skewness"),
    Term("seed", "seed", "The random seed: the same seed gives the same result, whatever the number of threads."),
    # ---------------------------------------------------------------- risk
    Term("uniqueness", "Uniqueness(m)", "Of all combinations of m items that occur in the data, the share that "
         "belongs to exactly one person.", "uniqueness"),
    Term("unicity", "Unicity(m)", "The chance that a person is unique given m of their items: pick a person and m "
         "of their items at random; how often does no one else have all m.", "uniqueness"),
    # ---------------------------------------------------------------- σ-k^m
    Term("partitions", "partitions", "How many published items (merged groups of original items) remain; more "
         "is more detail for the data's users.", "kmanon"),
    Term("error", "error", "How far, on average over all visits, a tower is moved when its partition's centre is "
         "published instead (metres); with a hierarchy or free merging, the NCP of the published partitions.",
         "kmanon"),
    Term("area", "area per person", "Area of the partition a person's visit is published as, averaged over "
         "people (km²).", "kmanon"),
    # ---------------------------------------------------------------- threats
    Term("p_A", "p_A", "The attacker's probability of a person's sensitive value: learns from the release and "
         "knows the person is in the table (Lemma 1).", "threat"),
    Term("p_L", "p_L", "The learner's probability: what the release teaches about everyone with the same known "
         "attributes.", "threat"),
    Term("p_RW", "p_RW", "Random worlds: every cleartext table compatible with the release equally likely.",
         "threat"),
    Term("p_I", "p_I", "The ideal learner's probability, computed from the cleartext table itself.", "threat"),
    Term("Ti", "Ti", "p_A / p_L of the true value: how many times surer the attacker is than the learner "
         "(log2 Ti = 1: twice as sure).", "threat"),
    Term("GT_A", "GT_A", "Share of rows whose sensitive value the attacker's best guess gets right.", "threat"),
    Term("GT_L", "GT_L", "Share of rows whose sensitive value the learner's best guess gets right.", "threat"),
    Term("RGT", "RGT_A", "Relative gain of the attacker: GT_A measured against what the learner already "
         "guesses right.", "threat"),
    Term("RF", "RF", "Relative faithfulness: 1 when the release teaches the population what the cleartext would; "
         "lower when anonymization distorts it.", "threat"),
    Term("ABS", "ABS", "Mean absolute difference between a distribution's probability of the true value and the "
         "ideal one.", "threat"),
    # ---------------------------------------------------------------- loss measures
    Term("NCP", "NCP", "Normalized certainty penalty: how much of a value's precision is lost when it is "
         "published as a range or a group (0 = none, 1 = everything merged)."),
    Term("UL", "UL", "Utility loss of generalized items: how many original items a published item stands for, "
         "on a log scale (0 = items as they are)."),
    Term("ARE", "ARE", "Average relative error of counting queries on the published data.", "rt"),
    # ---------------------------------------------------------------- RT-data
    Term("Rum", "Rum", "Demographics loss of an RT release: the average NCP of the people's published "
         "demographics (0 = exact values, 1 = everyone in one group).", "rt"),
    Term("Tum", "Tum", "Items loss of an RT release: the average UL of the people's published items (0 = items as "
         "they are, near 1 = each person's items merged into one).", "rt"),
    Term("bound", "Rum-bound / Tum-bound", "Which loss the limit δ caps: the demographics' (Rum ≤ δ) or the "
         "items' (Tum ≤ δ); the other side then loses as little as the merges allow.", "rt", "bound"),
    Term("merge", "R, T, RT (merge heuristics)", "How an RT run merges clusters: R joins the clusters with the "
         "closest demographics, T those with the most similar items, RT balances both rankings.", "rt", "merge"),
    Term("BTD", "BTD", "Bit-vector transaction distance: a fast estimate of how different two clusters' item sets "
         "are, used to rank merges by items instead of generalizing every candidate.", "rt"),
    Term("cluster", "cluster", "A group of at least k people published with one shared set of demographics and "
         "with their items generalized together.", "rt"),
    Term("max_cluster_size", "largest cluster", "The number of people in the biggest cluster: the more people "
         "share one set of demographics, the more those demographics are blurred.", "rt", "max_cluster_size"),
    Term("merges", "merges", "How many times two clusters were joined into one; the losses are drawn after each "
         "merge.", "rt"),
    Term("are_R2", "ARE of demographic queries", "Average relative error of counts of people with given values "
         "in 2 demographic columns (workload R2).", "rt", "are_R2"),
    Term("are_T2", "ARE of item queries", "Average relative error of counts of people who have 2 given items "
         "(workload T2).", "rt", "are_T2"),
    Term("are_R1T2", "ARE of mixed queries", "Average relative error of counts of people with a given value in "
         "one demographic column and 2 given items (workload R1T2).", "rt", "are_R1T2"),
    Term("km_anonymity", "(k, k^m)-anonymity", "Anyone who knows a person's demographics and up to m of their "
         "items finds at least k people who match.", "rt"),
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
    Term("levels_finished", "levels finished", "How many sizes m = 1, 2, … of attacker knowledge were made safe; "
         "the release protects against up to this many items.", "kmanon"),
    Term("partition_merges", "merges", "How many times two partitions were merged into one published item.",
         "kmanon", "merges"),
    Term("k_anonymous_share", "k-anonymous share", "Of the itemsets the independent check drew (per size ℓ), the "
         "share that at least k people have in the release; the promise needs at least σ.", "kmanon"),
    Term("feasible", "feasible", "1 when the loss bound δ could be met; 0 means nothing may be published.", "rt"),
    Term("violations", "violations", "Problems the independent check found in the release (0 when the promise "
         "holds).", "rt"),
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
