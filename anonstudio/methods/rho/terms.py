"""Glossary entries of the ρ family: ρ, the utilities, the sensitive items and the independent check's measures."""
from __future__ import annotations

from ...glossary import Term

__all__ = ["TERMS"]

#: Registered with the glossary when the family is discovered (``MethodSpec.terms``).
TERMS = (
    Term("rho", "ρ", "The most confidence anyone may have that a person holds one of their sensitive items, given "
                     "items they know the person has (ρ = 0.5: at most 50 %).", "rho", "rho"),
    Term("util_info", "util_info", "Share of item occurrences suppressed: the information lost.", "rho"),
    Term("util_dist", "util_dist", "KL divergence of the published item distribution from the original one "
         "(0 = same distribution).", "rho"),
    Term("util_mining", "util_mining", "Jaccard distance between the association rules mined from the original "
         "and from the published data (0 = same rules).", "rho"),
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
