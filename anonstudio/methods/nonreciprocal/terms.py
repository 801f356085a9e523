"""Glossary entries of the nonreciprocal family: its measures (ER, QE, Hamming sums, possible worlds) and words."""
from __future__ import annotations

from ...glossary import Term

__all__ = ["TERMS"]

#: Registered with the glossary when the family is discovered (``MethodSpec.terms``).
TERMS = (
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
)
