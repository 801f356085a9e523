"""The RT family's glossary entries: its measures and parameters in plain words (``RTSpec.terms``).

Registered with :mod:`anonstudio.glossary` when the family is discovered, so
the studio's "?" buttons, Help › Glossary and the report's measure tables read
them. Keys match the summary measures of a run (``rum``, ``clusters``,
``are_R2``...) or the words the tab shows (``Rum``, ``cluster``).
"""
from __future__ import annotations

from ...glossary import Term

__all__ = ["TERMS"]

TERMS = (
    # ------------------------------------------------------------------ losses
    Term("Rum", "Rum", "Demographics loss of an RT release: the average NCP of the people's published "
         "demographics (0 = exact values, 1 = everyone in one group).", "rt"),
    Term("Tum", "Tum", "Items loss of an RT release: the average UL of the people's published items (0 = items as "
         "they are, near 1 = each person's items merged into one).", "rt"),
    Term("rum_check", "Rum, recomputed", "The demographics loss (Rum) as the independent check recomputed it from "
         "the published cells; it must equal the reported Rum.", "rt"),
    Term("tum_check", "Tum, recomputed", "The items loss (Tum) as the independent check recomputed it from the "
         "published items, with exact fractions; it must equal the reported Tum.", "rt"),
    Term("bound", "Rum-bound / Tum-bound", "Which loss the limit δ caps: the demographics' (Rum ≤ δ) or the "
         "items' (Tum ≤ δ); the other side then loses as little as the merges allow.", "rt", "bound"),
    # ------------------------------------------------------------------ clusters and merges
    Term("cluster", "cluster", "A group of at least k people published with one shared set of demographics and "
         "with their items generalized together.", "rt"),
    Term("clusters", "clusters", "How many clusters the release publishes: groups of at least k people who share "
         "one set of demographics; more clusters keep the demographics sharper.", "rt"),
    Term("max_cluster_size", "largest cluster", "The number of people in the biggest cluster: the more people "
         "share one set of demographics, the more those demographics are blurred.", "rt", "max_cluster_size"),
    Term("merges", "merges", "How many times two clusters were joined into one after the first clustering; the "
         "losses are drawn after each merge.", "rt"),
    Term("merge", "R, T, RT (merge heuristics)", "How an RT run merges clusters: R joins the clusters with the "
         "closest demographics, T those with the most similar items, RT balances both rankings.", "rt", "merge"),
    Term("BTD", "BTD", "Bit-vector transaction distance: a fast estimate of how different two clusters' item sets "
         "are, used to rank merges by items instead of generalizing every candidate.", "rt"),
    # ------------------------------------------------------------------ query accuracy
    Term("ARE", "ARE", "Average relative error of counting queries on the published data.", "rt"),
    Term("are_R2", "ARE of demographic queries", "Average relative error of counts of people with given values "
         "in 2 demographic columns (workload R2).", "rt", "are_R2"),
    Term("are_T2", "ARE of item queries", "Average relative error of counts of people who have 2 given items "
         "(workload T2).", "rt", "are_T2"),
    Term("are_R1T2", "ARE of mixed queries", "Average relative error of counts of people with a given value in "
         "one demographic column and 2 given items (workload R1T2).", "rt", "are_R1T2"),
    # ------------------------------------------------------------------ the promise and its check
    Term("km_anonymity", "(k, k^m)-anonymity", "Anyone who knows a person's demographics and up to m of their "
         "items finds at least k people who match.", "rt"),
    Term("feasible", "feasible", "1 when the loss bound δ could be met; 0 means nothing may be published.", "rt"),
    Term("violations", "violations", "Problems the independent check found in the release (0 when the promise "
         "holds).", "rt"),
)
