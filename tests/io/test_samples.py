import json

import pytest

from anonstudio.data import Table, TransactionData
from anonstudio.data.samples import get_sample, list_samples, load_sample

ADULT_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
                 "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
                 "native-country", "income"]


def test_bundled_samples_are_listed_with_licenses():
    samples = {s.name: s for s in list_samples()}
    for name, kind in [("chess", "transactions"), ("bms-webview-1", "transactions"), ("adult", "table")]:
        sample = samples[name]
        assert sample.kind == kind
        assert sample.license and sample.license_path.is_file()
        assert sample.data_path.is_file()


@pytest.mark.parametrize("name, records, items, max_len", [
    ("chess", 3196, 75, 37),
    ("bms-webview-1", 59602, 497, 267),
])
def test_transaction_samples_match_the_manifest(name, records, items, max_len):
    data = load_sample(name)
    assert isinstance(data, TransactionData)
    summary = data.summary()
    assert (summary.records, summary.items, summary.max_length) == (records, items, max_len)
    assert data.name == name
    assert get_sample(name).records == records


def test_adult_sample_has_named_columns():
    table = load_sample("adult")
    assert isinstance(table, Table)
    assert table.n_rows == 32561
    assert list(table.frame.columns) == ADULT_COLUMNS
    assert set(table.frame["income"].unique()) == {"<=50K", ">50K"}
    # Counted with awk on adult.data: 1,836 workclass, 1,843 occupation, 583 native-country '?'.
    assert table.frame[["workclass", "occupation", "native-country"]].isna().sum().tolist() == [1836, 1843, 583]


def test_discovery_skips_broken_folders(tmp_path):
    good = tmp_path / "tiny"
    good.mkdir()
    (good / "t.dat").write_text("1 2\n3\n")
    (good / "sample.json").write_text(json.dumps({
        "name": "tiny", "title": "Tiny", "kind": "transactions", "files": {"transactions": "t.dat"},
        "description": "", "records": 2, "license": "MIT"}))
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "sample.json").write_text("{not json")
    (tmp_path / "no-meta").mkdir()
    assert [s.name for s in list_samples(tmp_path)] == ["tiny"]
    assert load_sample("tiny", tmp_path).n_records == 2
    with pytest.raises(KeyError, match="no sample named 'nope'; bundled samples: tiny"):
        load_sample("nope", tmp_path)
