"""Small datasets and conversions shared by the uniqueness tests."""
from __future__ import annotations

from anonstudio.data.transactions import TransactionData

#: |Omega^3| (distinct 3-itemsets) and the unique ones of tests/data/uniqueness/baskets.dat, as
#: ``tests.reference.uniqueness_reference.omega`` counts them (re-derived by a slow test in test_uniqueness.py).
BASKETS_OMEGA3 = (9491, 896)

#: Table I of Acs, Achara, Castelluccia (BigData 2015).
TABLE_I = [
    {"LA"},
    {"LA", "Seattle"},
    {"New York", "Boston"},
    {"New York", "Boston"},
    {"LA", "Seattle", "New York"},
    {"LA", "Seattle", "New York"},
    {"LA", "Seattle", "New York", "Boston"},
]


def as_data(records: list[set], name: str = "test") -> TransactionData:
    return TransactionData.from_records(records, name=name)


def id_sets(data: TransactionData) -> list[set]:
    """The records as sets of item ids (what the reference functions take)."""
    return [set(int(i) for i in data.record(u)) for u in range(data.n_records)]
