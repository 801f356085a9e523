"""Every writer is read back by its loader to the same data (random small datasets)."""
import zlib

import numpy as np
import pandas as pd
import pytest

from anonstudio.data import Role, Table, TransactionData
from anonstudio.data.hierarchy import frequency_balanced_taxonomy
from anonstudio.data.io import (
    Coordinates,
    load_coordinates,
    load_table,
    load_transactions,
    save_coordinates,
    save_table,
    save_transactions,
)

INT_FORMATS = ["fimi", "spmf-seq"]
ANY_LABEL_FORMATS = ["csv-long", "checkins", "csv-sets", "parquet"]
EXT = {"fimi": "dat", "spmf-seq": "seq", "csv-long": "csv", "checkins": "tsv", "csv-sets": "sets.csv",
       "parquet": "parquet"}


def random_dataset(rng, labels: str, allow_empty: bool) -> TransactionData:
    n_items = int(rng.integers(1, 40))
    if labels == "int":
        vocab = sorted({str(int(x)) for x in rng.choice(100000, size=n_items, replace=False)}, key=int)
    else:
        words = ["milk", "tea", "Straße", "a b", "x,y", "q\"uote", "café", "7", "007"]
        vocab = sorted({rng.choice(words) + str(int(rng.integers(0, 50))) for _ in range(n_items)})
    records = []
    for _ in range(int(rng.integers(1, 25))):
        k = int(rng.integers(0 if allow_empty else 1, min(len(vocab), 8) + 1))
        records.append(list(rng.choice(vocab, size=k, replace=False)))
    if not allow_empty and not records[-1]:
        records[-1] = [vocab[0]]
    if not any(records):
        # A dataset with no item at all is written as blank lines, which every
        # loader rightly rejects as an empty file.
        records[0] = [vocab[0]]
    return TransactionData.from_records(records)


def as_sets(data: TransactionData) -> list[set[str]]:
    return [set(data.record_labels(u)) for u in range(data.n_records)]


@pytest.mark.parametrize("fmt", INT_FORMATS + ANY_LABEL_FORMATS)
def test_transactions_round_trip(tmp_path, fmt):
    # zlib.crc32, not hash(): str hashes change with every interpreter start.
    rng = np.random.default_rng(zlib.crc32(fmt.encode()))
    for trial in range(15):
        labels = "int" if fmt in INT_FORMATS or trial % 2 else "text"
        if fmt == "csv-sets":
            labels = "int" if trial % 2 else "text"
        data = random_dataset(rng, labels, allow_empty=True)
        if fmt == "csv-sets" and any(";" in v or v != v.strip() for v in data.vocab):
            continue
        path = tmp_path / f"t{trial}.{EXT[fmt]}"
        save_transactions(data, path, format=fmt)
        back = load_transactions(path, format=fmt)
        assert as_sets(back) == as_sets(data), (fmt, trial)
        # Sniffing reads it back the same way too.
        assert as_sets(load_transactions(path)) == as_sets(data), (fmt, trial)


def test_save_chooses_format_from_extension(tmp_path):
    data = TransactionData.from_records([["1", "2"], ["3"]])
    for ext, first_line in [("dat", "1 2"), ("csv", "record,item"), ("sets.csv", "items"), ("tsv", "1\t1")]:
        save_transactions(data, tmp_path / f"out.{ext}")
        assert (tmp_path / f"out.{ext}").read_text().splitlines()[0] == first_line


def test_fimi_refuses_text_labels(tmp_path):
    from anonstudio.data.errors import DataFormatError
    data = TransactionData.from_records([["milk"]])
    with pytest.raises(DataFormatError, match="FIMI needs integer items but 'milk' is not"):
        save_transactions(data, tmp_path / "x.dat")
    assert not (tmp_path / "x.dat").exists()


def random_table(rng) -> Table:
    n = int(rng.integers(2, 30))
    frame = pd.DataFrame({
        "age": rng.integers(17, 90, size=n),
        "income": np.round(rng.normal(5e4, 2e4, size=n), 3),
        "sex": rng.choice(["Male", "Female"], size=n),
        "job": rng.choice(["Sales", "Tech, support", "Clerk \"A\""], size=n),
    })
    frame["job"] = frame["job"].astype(object)
    frame.loc[rng.random(n) < 0.2, "job"] = None
    return Table(frame, {"job": Role.SENSITIVE})


@pytest.mark.parametrize("ext", ["csv", "parquet"])
def test_table_round_trip(tmp_path, ext):
    rng = np.random.default_rng(5)
    for trial in range(10):
        table = random_table(rng)
        path = tmp_path / f"t{trial}.{ext}"
        save_table(table, path)
        back = load_table(path)
        assert list(back.frame.columns) == list(table.frame.columns)
        for col in table.frame.columns:
            a = table.frame[col].tolist()
            b = back.frame[col].tolist()
            assert [None if pd.isna(x) else x for x in a] == [None if pd.isna(x) else x for x in b], col
        if ext == "parquet":
            assert back.roles == table.roles


def test_coordinates_round_trip(tmp_path, io_data):
    for source in ("coords_latlon.tsv", "coords_xy.csv"):
        coords = load_coordinates(io_data / source)
        save_coordinates(coords, tmp_path / "c.csv")
        back = load_coordinates(tmp_path / "c.csv")
        assert back.labels == coords.labels
        np.testing.assert_array_equal(back.xy, coords.xy)
        if coords.lonlat is not None:
            np.testing.assert_array_equal(back.lonlat, coords.lonlat)
    rng = np.random.default_rng(2)
    coords = Coordinates(tuple(f"p{i}" for i in range(20)), rng.normal(0, 5000, size=(20, 2)))
    save_coordinates(coords, tmp_path / "r.csv")
    np.testing.assert_array_equal(load_coordinates(tmp_path / "r.csv").xy, coords.xy)


def test_taxonomy_hierarchy_round_trip(tmp_path):
    from anonstudio.data.io import load_hierarchy, save_hierarchy
    rng = np.random.default_rng(9)
    tax = frequency_balanced_taxonomy([f"i{k}" for k in range(30)], rng.integers(1, 50, size=30), 4)
    save_hierarchy(tax, tmp_path / "tax.csv", sep=",")
    assert load_hierarchy(tmp_path / "tax.csv").rows() == tax.rows()
