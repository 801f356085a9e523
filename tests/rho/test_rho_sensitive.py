"""The sensitive constraint E: the record,item CSV, its errors, the four generators, E_USED."""
from __future__ import annotations

import numpy as np
import pytest

from anonstudio.data.errors import DataFormatError
from anonstudio.data.io import load_transactions
from anonstudio.data.transactions import TransactionData
from anonstudio.methods.rho import generate_sensitive, load_sensitive, write_sensitive
from anonstudio.methods.rho.sensitive import sensitive_count


@pytest.fixture
def data(rho_data):
    return load_transactions(rho_data / "example_b.dat")


def _pairs(e):
    recs, items = e.pairs()
    return sorted(zip(recs.tolist(), [e.labels[i] for i in items]))


def test_csv_star_header_comments_and_foreign_items(tmp_path, data):
    path = tmp_path / "E.csv"
    path.write_text("record,item\n# everyone protects 9\n*,9\n\n3, 1 \n3,77\n3,9\n5,007\n", encoding="utf-8")
    e = load_sensitive(path, data)
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
    src.write_text("record,item\n*,9\n0,1\n1,1\n6,3\n", encoding="utf-8")
    e = load_sensitive(src, data)
    out = tmp_path / "E_USED.csv"
    write_sensitive(out, e)
    text = out.read_text(encoding="utf-8").splitlines()
    assert text[0] == "record,item" and text[1] == "*,9"
    again = load_sensitive(out, data)
    assert _pairs(again) == _pairs(e)
    assert sorted(text[1:]) == sorted(["*,9", "0,1", "1,1", "6,3"])


def test_majority_items_are_stored_globally(tmp_path, data):
    rows = "\n".join(f"{u},9" for u in range(7) if u != 2)
    src = tmp_path / "E.csv"
    src.write_text(rows + "\n", encoding="utf-8")
    e = load_sensitive(src, data)
    assert e.global_items.tolist() == [data.vocab.index("9")]
    assert e.del_items.tolist() == [data.vocab.index("9")] and np.diff(e.del_indptr).tolist() == [0, 0, 1, 0, 0, 0, 0]
    assert [len(e.items_of(u)) for u in range(7)] == [1, 1, 0, 1, 1, 1, 1]
    out = tmp_path / "E_USED.csv"
    write_sensitive(out, e)
    assert "*" not in out.read_text(encoding="utf-8")   # record 2 lacks it: no '*' row may claim everyone
    assert _pairs(load_sensitive(out, data)) == _pairs(e)


@pytest.mark.parametrize("content, line, reason", [
    ("record,item\n0,1\nx,1\n", 3, "neither a record number nor '*'"),
    ("0,1\n7,1\n", 2, "record 7 does not exist"),
    ("0,1\n-1,2\n", 2, "record -1 does not exist"),
    ("0,1,2\n", 1, "expected two fields"),
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
    assert lines[0] == "record,item" and len(lines) == 1 + len(e.global_items)
    assert all(line.startswith("*,") for line in lines[1:])
