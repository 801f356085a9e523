"""The group-anonymization family's own glossary entries (registered when the family is discovered).

Its run measures (groups, smallest group, fewest sensitive values, misfits, NCP...) are shared with the threat
analysis and live in :mod:`anonstudio.glossary`.
"""
from __future__ import annotations

from ...glossary import Term

__all__ = ["TERMS"]

TERMS = (
    Term("mondrian", "Mondrian", "Local recoding: the table is cut again and again at the median of its widest "
         "quasi-identifier while both halves keep k rows (and ℓ sensitive values); each final box is a group "
         "published with the ranges or sets of its own rows (LeFevre et al. 2006)."),
    Term("global_recoding", "global recoding", "Every value of a column is generalized the same way in the "
         "whole table, one hierarchy level for all rows; the levels with the least loss that meet k and ℓ are "
         "chosen.", ascii="global"),
    Term("anatomy", "Anatomy", "Quasi-identifiers are published exactly, and each group's sensitive values only "
         "as an unordered bag, so a row is never linked to its own value (Xiao and Tao 2006)."),
    Term("max_suppression", "suppression limit", "Global recoding only: the largest share of rows that may be "
         "published with every quasi-identifier hidden ('*') instead of generalizing everyone further."),
    Term("discernibility", "discernibility", "Sum over groups of their size squared (Bayardo and Agrawal 2005): "
         "the more rows share a group, the less the release tells them apart."),
    Term("group_size", "group size", "Rows published in one group: every row of it shows the same "
         "quasi-identifier cells, so each of them hides among the others."),
)
