"""The side-by-side adapter of a σ-k^m release: each record published as its items' partitions."""
from __future__ import annotations

import numpy as np
import pytest

from anonstudio.data.compare import check_comparison
from anonstudio.data.transactions import TransactionData
from anonstudio.methods.kmanon.compare import PartitionComparison, comparison_of
from anonstudio.methods.kmanon.export import anonymized_dataset, partition_names
from anonstudio.methods.kmanon.result import LevelResult


def level_with(labels, names=None, level=2):
    return LevelResult(level=level, k=3, sigma=0.9, gamma=0, mode="sampling", samples=0, violations=0, merges=0,
                       partitions=len(set(labels)), error=0.0, avg_area_km2=None, seconds=0.0, support_checks=0,
                       unfixable=0, complete=True, labels=np.asarray(labels, dtype=np.int32), names=names or {})


@pytest.fixture
def data():
    rng = np.random.default_rng(11)
    return TransactionData.from_id_lists([rng.choice(12, size=rng.integers(0, 6), replace=False)
                                          for _ in range(60)], n_items=12, name="visits")


def test_published_records_are_the_exported_ones(data):
    labels = [0, 0, 2, 2, 2, 5, 6, 6, 8, 8, 8, 8]
    level = level_with(labels)
    comparison = PartitionComparison(data, level, item_word="tower")
    check_comparison(comparison)
    exported = anonymized_dataset(data, level)
    names = partition_names(level)
    for u in range(data.n_records):
        chips = comparison.published.cells(u)[2]
        assert [c.text for c in chips] == exported.record_labels(u)
        assert [c.key for c in chips] == sorted({labels[i] for i in data.record(u)})
        assert all(c.kind == "partition" for c in chips)
        assert comparison.highlight_keys(u) == tuple(c.key for c in chips)
        originals = comparison.original.cells(u)[-1]
        assert [c.key for c in originals] == [labels[i] for i in data.record(u)]
    assert comparison.row_groups() is None
    assert set(names.values()) == set(exported.vocab)


def test_describe_names_partitions_and_their_size(data):
    labels = [0, 0, 2, 2, 2, 5, 6, 6, 8, 8, 8, 8]
    comparison = PartitionComparison(data, level_with(labels, {0: "north", 2: "centre", 5: "west", 6: "east",
                                                               8: "south"}), item_word="tower")
    u = next(u for u in range(data.n_records) if len(data.record(u)) == 1)
    i = int(data.record(u)[0])
    group = {0: "north", 2: "centre", 5: "west", 6: "east", 8: "south"}[labels[i]]
    count = labels.count(labels[i])
    assert comparison.describe(u) == (f"Record {u + 1}: 1 tower published as 1 partition: {group} ({count} tower"
                                      f"{'s' if count != 1 else ''}).")
    assert comparison.published.search("south").text == "records with partition south"
    assert comparison.title == "σ-k^m release (k = 3, m = 2): 12 towers in 5 partitions"


def test_comparison_of_a_run():
    from anonstudio.jobs import NullProgress
    from anonstudio.methods.contract import run_and_verify
    from anonstudio.methods.kmanon.spec import SPEC

    data, params = SPEC.example()
    run = run_and_verify(SPEC, data, params, NullProgress())
    comparison = comparison_of(run.result)
    assert comparison.level is run.result.final and comparison.item_word == run.result.item_word
    first = comparison_of(run.result, run.result.levels[0])
    assert first.level.level == 1


def test_labels_must_cover_the_items(data):
    with pytest.raises(ValueError, match="maps 3 items"):
        PartitionComparison(data, level_with([0, 0, 1]))
