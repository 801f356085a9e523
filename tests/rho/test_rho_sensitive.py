"""The sensitive constraint E: the person,item CSV (and the old 0-based form), its errors, the generators, E_USED."""
from __future__ import annotations

import numpy as np
import pytest

from anonstudio.data.errors import DataFormatError
from anonstudio.data.io import load_transactions
from anonstudio.data.transactions import TransactionData
from anonstudio.methods.rho.sensitive import generate_sensitive, load_sensitive, sensitive_count, write_sensitive


@pytest.fixture
def data(rho_data):
    return load_transactions(rho_data / "example_b.dat")


def _pairs(e):
    recs, items = e.pairs()
    return sorted(zip(recs.tolist(), [e.labels[i] for i in items]))


def test_csv_star_header_comments_and_foreign_items(tmp_path, data):
    path = tmp_path / "E.csv"
    path.write_text("person,item\n# everyone protects 9\n*,9\n\n4, 1 \n4,77\n4,9\n6,007\n", encoding="utf-8")
    e = load_sensitive(path, data)
    assert e.notice == ""  # the current form: people numbered from 1
    assert e.labels_of(0) == ["9"]
    assert e.labels_of(3) == ["1", "9", "77"]          # 77 is not in the data: kept, never inferable
    assert e.labels_of(5) == ["9", "7"]                # 007 is item 7 (integer labels), not held either
    assert e.n_data_items == data.n_items and e.labels[data.n_items:] == ("77", "7")
    assert e.sizes().tolist() == [1, 1, 1, 3, 1, 2, 1]
    # stored as a global set plus deviations, never one row per record and item
    assert e.global_items.tolist() == [data.vocab.index("9")]
    assert len(e.add_items) == 3 and len(e.del_items) == 0
    gmask, add_ptr, add_items, _, _ = e.kernel_arrays()
    assert add_items.tolist() == [data.vocab.index("1")]   # foreign labels never reach the kernels


def test_e_used_round_trip_and_star_rows(tmp_path, data):
    src = tmp_path / "E.csv"
    src.write_text("person,item\n*,9\n1,1\n2,1\n7,3\n", encoding="utf-8")
    e = load_sensitive(src, data)
    assert _pairs(e) == [(-1, "9"), (0, "1"), (1, "1"), (6, "3")]  # record indexes from 0 inside
    out = tmp_path / "E_USED.csv"
    write_sensitive(out, e)
    text = out.read_text(encoding="utf-8").splitlines()
    assert text[0] == "person,item" and text[1] == "*,9"
    again = load_sensitive(out, data)
    assert _pairs(again) == _pairs(e) and again.notice == ""
    assert sorted(text[1:]) == sorted(["*,9", "1,1", "2,1", "7,3"])


def test_majority_items_are_stored_globally(tmp_path, data):
    rows = "\n".join(f"{u + 1},9" for u in range(7) if u != 2)
    src = tmp_path / "E.csv"
    src.write_text("person,item\n" + rows + "\n", encoding="utf-8")
    e = load_sensitive(src, data)
    assert e.global_items.tolist() == [data.vocab.index("9")]
    assert e.del_items.tolist() == [data.vocab.index("9")] and np.diff(e.del_indptr).tolist() == [0, 0, 1, 0, 0, 0, 0]
    assert [len(e.items_of(u)) for u in range(7)] == [1, 1, 0, 1, 1, 1, 1]
    out = tmp_path / "E_USED.csv"
    write_sensitive(out, e)
    assert "*" not in out.read_text(encoding="utf-8")   # person 3 lacks it: no '*' row may claim everyone
    assert _pairs(load_sensitive(out, data)) == _pairs(e)


@pytest.mark.parametrize("content, line, reason", [
    ("person,item\n1,1\nx,1\n", 3, "person 'x' is neither a record number nor '*'"),
    ("person,item\n1,1\n8,1\n", 3, "person 8 does not exist (the data has 7 records, numbered 1 to 7)"),
    ("person,item\n1,1\n0,2\n", 3, "person 0 does not exist"),
    ("person,item\n1,1,2\n", 2, "expected two fields 'person,item'"),
    ("person,item\n1,\n", 2, "the item is empty"),
    # the previous release's form: records from 0, header record,item or none
    ("record,item\n0,1\nx,1\n", 3, "record 'x' is neither a record number nor '*'"),
    ("0,1\n7,1\n", 2, "record 7 does not exist (the data has 7 records, numbered 0 to 6)"),
    ("0,1\n-1,2\n", 2, "record -1 does not exist"),
    ("0,1,2\n", 1, "expected two fields 'record,item'"),
    ("0\n", 1, "expected two fields"),
    ("0,\n", 1, "the item is empty"),
])
def test_bad_lines_name_file_line_and_reason(tmp_path, data, content, line, reason):
    path = tmp_path / "bad_E.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataFormatError) as info:
        load_sensitive(path, data)
    message = str(info.value)
    assert message.startswith(f"bad_E.csv, line {line}: ")
    assert reason in message
    assert "\n" not in message


@pytest.mark.parametrize("header", ["record,item\n", ""])
def test_a_file_of_the_previous_release_is_read_from_0_with_a_notice(tmp_path, data, header):
    """Header record,item (what E_USED.csv was) or none: records from 0, as before, and a one-line notice."""
    old = tmp_path / "old_E.csv"
    old.write_text(header + "*,9\n0,1\n1,1\n6,3\n", encoding="utf-8")
    new = tmp_path / "E.csv"
    new.write_text("person,item\n*,9\n1,1\n2,1\n7,3\n", encoding="utf-8")
    e_old, e_new = load_sensitive(old, data), load_sensitive(new, data)
    assert _pairs(e_old) == _pairs(e_new)  # never shifted by one
    assert e_new.notice == ""
    notice = e_old.notice
    assert notice.startswith("old_E.csv numbers records from 0") and "person,item" in notice and "\n" not in notice
    out = tmp_path / "E_USED.csv"
    write_sensitive(out, e_old)  # written back in the current form
    assert out.read_text(encoding="utf-8").splitlines()[0] == "person,item"
    assert _pairs(load_sensitive(out, data)) == _pairs(e_new)


def test_binary_and_missing_files_are_refused(tmp_path, data):
    path = tmp_path / "E.bin"
    path.write_bytes(b"0,1\n\x00\x01")
    with pytest.raises(DataFormatError, match="E.bin, line 2: looks like a binary file"):
        load_sensitive(path, data)
    with pytest.raises(DataFormatError, match="no such file"):
        load_sensitive(tmp_path / "nope.csv", data)


def _bigger():
    rng = np.random.default_rng(5)
    records = [rng.choice(60, size=rng.integers(0, 6), replace=False) for _ in range(700)]
    return TransactionData.from_id_lists(records, n_items=60)


def test_sensitive_count_rounds_half_up():
    assert sensitive_count(0.1, 497) == 50
    assert sensitive_count(0.1, 472) == 47
    assert sensitive_count(0.1, 25) == 3   # 2.5 rounds up
    assert sensitive_count(0.0, 100) == 0


def test_generators():
    d = _bigger()
    held = np.count_nonzero(d.item_frequencies)
    k = sensitive_count(0.2, held)
    fixed = generate_sensitive(d, "fixed", 0.2, 3)
    assert len(fixed.global_items) == k and len(fixed.add_items) == len(fixed.del_items) == 0
    pers = generate_sensitive(d, "personalized", 0.2, 3)
    assert len(pers.global_items) == 0 and (pers.sizes() == k).all()
    assert len({tuple(pers.items_of(u)) for u in range(d.n_records)}) > d.n_records // 2
    plus = generate_sensitive(d, "personalized+", 0.2, 3, noise=0.05)
    assert plus.global_items.tolist() == fixed.global_items.tolist()   # the same S for one seed
    union = set()
    for u in range(d.n_records):
        union |= set(plus.items_of(u).tolist())
    fplus = generate_sensitive(d, "fixed+", 0.2, 3, noise=0.05)
    assert set(fplus.global_items.tolist()) == union and len(fplus.add_items) == 0
    # about 5 % of S dropped and 5 % of the other items added per person
    dropped = len(plus.del_items) / (d.n_records * k)
    added = len(plus.add_items) / (d.n_records * (held - k))
    assert 0.03 < dropped < 0.07 and 0.03 < added < 0.07
    assert fixed.setting == "fixed" and plus.noise == 0.05 and fixed.noise is None


def test_generators_are_seeded():
    d = _bigger()
    for setting in ("fixed", "personalized", "fixed+", "personalized+"):
        a = generate_sensitive(d, setting, 0.1, 11)
        b = generate_sensitive(d, setting, 0.1, 11)
        c = generate_sensitive(d, setting, 0.1, 12)
        assert _pairs(a) == _pairs(b)
        if setting != "fixed+":  # with 700 people and 1 % noise, fixed+ is every item whatever the seed
            assert _pairs(a) != _pairs(c)


def test_fixed_writes_star_rows_only(tmp_path):
    d = _bigger()
    e = generate_sensitive(d, "fixed", 0.1, 1)
    out = tmp_path / "E_USED.csv"
    write_sensitive(out, e)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "person,item" and len(lines) == 1 + len(e.global_items)
    assert all(line.startswith("*,") for line in lines[1:])


def test_pairs_list_every_persons_set_as_the_reference_does():
    """E's (record, item) pairs against the sets it was built from: '*' rows, majority items, deviations."""
    from anonstudio.methods.rho.sensitive import SensitiveConstraint
    from tests.reference.rho_reference import e_pairs

    rng = np.random.default_rng(3)
    for _ in range(60):
        n, n_labels = int(rng.integers(1, 30)), int(rng.integers(1, 12))
        size = int(rng.integers(0, 3 * n))
        records = rng.integers(-1, n, size).tolist()
        items = rng.integers(0, n_labels, size).tolist()
        # a few items most people hold, so that the global set and its drops are exercised
        for i in rng.choice(n_labels, min(2, n_labels), replace=False).tolist():
            holders = rng.random(n) < 0.8
            records += np.flatnonzero(holders).tolist()
            items += [i] * int(holders.sum())
        labels = tuple(str(i) for i in range(n_labels))
        e = SensitiveConstraint.from_pairs(n, labels, n_labels, np.array(records, dtype=np.int64),
                                           np.array(items, dtype=np.int64))
        recs, its = e.pairs()
        assert list(zip(recs.tolist(), its.tolist())) == e_pairs(n, records, items)
