"""The uniqueness family's glossary entries: its two measures (registered when the family is discovered)."""
from __future__ import annotations

from ...glossary import Term

__all__ = ["TERMS"]

TERMS = (
    Term("uniqueness", "Uniqueness(m)", "Of all combinations of m items that occur in the data, the share that "
         "belongs to exactly one person.", "uniqueness"),
    Term("unicity", "Unicity(m)", "The chance that a person is unique given m of their items: pick a person and m "
         "of their items at random; how often does no one else have all m.", "uniqueness"),
)
