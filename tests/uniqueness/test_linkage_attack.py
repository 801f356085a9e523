"""Linkage attack traces against brute-force matching."""
from __future__ import annotations

import pytest

from anonstudio.methods.uniqueness.linkage_attack import linkage_attack, random_person
from tests.reference import uniqueness_reference as ref
from tests.uniqueness.helpers import as_data, id_sets


def test_table_i_rarest_first_singles_out_record_7(table_i):
    # Record 7 = {LA, Seattle, New York, Boston}; Boston (3 records) is rarest, then
    # Seattle (4): {Boston, Seattle} only occurs in record 7 (Section III).
    trace = linkage_attack(table_i, 6, order="rarest")  # the row of record 7
    assert [s.label for s in trace.steps] == ["Boston", "Seattle"]
    assert [s.matches for s in trace.steps] == [3, 1]
    assert trace.steps[-1].match_indices == (6,)
    assert trace.singled_out and trace.items_needed == 2
    # A person reads record numbers from 1, as the paper numbers Table I.
    assert trace.record == 7 and trace.steps[0].match_records == (3, 4, 7)
    lines = trace.lines()
    assert lines[0].startswith("target: record 7 (4 items)")
    assert lines[1].endswith("-> records 3, 4, 7") and lines[2].endswith("-> records 7")
    doc = trace.to_json()
    assert doc["record"] == 7 and doc["index"] == 6
    assert doc["match_records"] == [[3, 4, 7], [7]]
    assert "person" not in doc and "match_ids" not in doc


def test_record_shared_by_others_is_never_singled_out(table_i):
    trace = linkage_attack(table_i, 2, order="rarest")  # {New York, Boston} is also record 4
    assert not trace.singled_out and trace.items_needed is None
    assert [s.matches for s in trace.steps] == [3, 3]  # records 3, 4 and 7 hold both
    assert "not singled out" in trace.lines()[-1]


@pytest.mark.parametrize("order", ["random", "rarest"])
def test_matches_equal_brute_force_at_every_step(rng, order):
    records = ref.random_records(rng, 120, 15, 8)
    data = as_data(records)
    sets = id_sets(data)
    freq = data.item_frequencies
    for person in range(0, 120, 7):
        trace = linkage_attack(data, person, order, seed=person)
        revealed = [s.item for s in trace.steps]
        assert len(set(revealed)) == len(revealed) and set(revealed) <= sets[person]
        for k, step in enumerate(trace.steps, 1):
            want = ref.linkage_matches(sets, revealed[:k])
            assert step.matches == len(want) and person in want
            assert step.match_indices == (tuple(want) if len(want) <= 10 else ())
        # Stops exactly when singled out, else reveals everything.
        assert trace.singled_out or len(revealed) == len(sets[person])
        assert all(s.matches > 1 for s in trace.steps[:-1])
        if order == "rarest":
            fs = [freq[i] for i in revealed]
            assert fs == sorted(fs)


def test_random_order_is_seeded(rng):
    data = as_data(ref.random_records(rng, 200, 30, 12))
    person = random_person(data, seed=1, min_items=8)
    assert len(data.record(person)) >= 8
    assert random_person(data, seed=1, min_items=8) == person
    a = linkage_attack(data, person, "random", seed=4)
    assert a == linkage_attack(data, person, "random", seed=4)
    orders = {tuple(s.item for s in linkage_attack(data, person, "random", seed=s).steps) for s in range(10)}
    assert len(orders) > 1


def test_bad_arguments(table_i):
    with pytest.raises(ValueError, match=r"record 8 is not a record of the data \(records 1\.\.7\)"):
        linkage_attack(table_i, 7)
    with pytest.raises(ValueError):
        linkage_attack(table_i, 0, order="frequent")
    with pytest.raises(ValueError):
        random_person(table_i, min_items=5)
