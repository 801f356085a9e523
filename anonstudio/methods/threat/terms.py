"""The threat family's own glossary entries (registered when the family is discovered): the distributions,
the threat and faithfulness measures of Boreale, Corradi, Viscardi (2020)."""
from __future__ import annotations

from ...glossary import Term

__all__ = ["TERMS"]

TERMS = (
    Term("skewness", "γ (skewness)", "Skewness of a log2 Ti histogram: above 0, a long tail of people the attacker "
         "is much surer about than the learner.", ascii="skewness"),
    Term("p_A", "p_A", "The attacker's probability of a person's sensitive value: learns from the release and "
         "knows the person is in the table (Lemma 1)."),
    Term("p_L", "p_L", "The learner's probability: what the release teaches about everyone with the same known "
         "attributes."),
    Term("p_RW", "p_RW", "Random worlds: every cleartext table compatible with the release equally likely."),
    Term("p_I", "p_I", "The ideal learner's probability, computed from the cleartext table itself."),
    Term("Ti", "Ti", "p_A / p_L of the true value: how many times surer the attacker is than the learner "
         "(log2 Ti = 1: twice as sure)."),
    Term("GT_A", "GT_A", "Share of rows whose sensitive value the attacker's best guess gets right."),
    Term("GT_L", "GT_L", "Share of rows whose sensitive value the learner's best guess gets right."),
    Term("RGT", "RGT_A", "Relative gain of the attacker: GT_A measured against what the learner already "
         "guesses right."),
    Term("RF", "RF", "Relative faithfulness: 1 when the release teaches the population what the cleartext would; "
         "lower when anonymization distorts it."),
    Term("ABS", "ABS", "Mean absolute difference between a distribution's probability of the true value and the "
         "ideal one."),
)
