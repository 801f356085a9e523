"""The audit's glossary entries: its parameters (the measures are the evaluator's, in ``anonstudio/glossary.py``)."""
from __future__ import annotations

from ...glossary import Term

__all__ = ["TERMS"]

TERMS = (
    Term("claim", "claim", "What a release is said to guarantee, e.g. k = 5, m = 2: nobody whose record an attacker "
         "who knows 2 of their items can find has fewer than 5 candidates. An audit checks it on every person and "
         "known set, and names a counterexample when it is false."),
    Term("counterexample", "counterexample", "A person (numbered from 1) and the items an attacker knows of them "
         "for which a claim fails: fewer candidates than claimed."),
    Term("exact_or_sampled", "exact / sampled", "Exact: every (person, known set) was counted, the figure has no "
         "error. Sampled: random (person, known set) pairs were drawn, and the error bar is the 95 % interval."),
)
