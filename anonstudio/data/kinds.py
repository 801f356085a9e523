"""Plain words for the kinds of dataset, used in every "wrong kind of data" message."""
from __future__ import annotations

__all__ = ["kind_words", "KIND_WORDS"]

#: Dataset class name -> what a privacy officer calls it.
KIND_WORDS = {
    "TransactionData": "set-valued data (one set of items per person)",
    "Table": "a table (one row of attribute values per person)",
    "RTData": "a table with a set of items per row",
}


def kind_words(kind: type | str) -> str:
    name = kind if isinstance(kind, str) else kind.__name__
    return KIND_WORDS.get(name, name)
