"""The σ-k^m family's glossary entries: its parameters and measures (registered when the family is discovered)."""
from __future__ import annotations

from ...glossary import Term

__all__ = ["TERMS"]

TERMS = (
    Term("sigma", "σ", "Probability that a random itemset an attacker may know is k-anonymous (1 = every itemset "
                       "is checked).", "kmanon", "sigma"),
    Term("gamma", "γ", "How many uniformly drawn itemsets in a row must be k-anonymous before a σ-k^m level is "
                       "accepted (Theorem 1).", "kmanon", "gamma"),
    Term("partitions", "partitions", "How many published items (merged groups of original items) remain; more "
         "is more detail for the data's users.", "kmanon"),
    Term("error", "error", "How far, on average over all visits, a tower is moved when its partition's centre is "
         "published instead (metres); with a hierarchy or free merging, the NCP of the published partitions.",
         "kmanon"),
    Term("area", "area per person", "Area of the partition a person's visit is published as, averaged over "
         "people (km²).", "kmanon"),
    Term("levels_finished", "levels finished", "How many sizes m = 1, 2, … of attacker knowledge were made safe; "
         "the release protects against up to this many items.", "kmanon"),
    Term("partition_merges", "merges", "How many times two partitions were merged into one published item.",
         "kmanon", "merges"),
    Term("k_anonymous_share", "k-anonymous share", "Of the itemsets the independent check drew (per size ℓ), the "
         "share that at least k people have in the release; the promise needs at least σ.", "kmanon"),
)
