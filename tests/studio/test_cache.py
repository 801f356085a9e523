"""The result cache: a stored run comes back equal; anything stale or damaged is recomputed, never trusted."""
from __future__ import annotations

import dataclasses
import json

import pytest

from anonstudio.data.datasets import ReadOptions, load_with_options
from anonstudio.data.transactions import TransactionData
from anonstudio.methods.contract import get_method, run_and_verify
from anonstudio.studio.cache import ResultCache, dataset_fingerprint, run_key

from .conftest import NAMES


@pytest.mark.parametrize("name", NAMES)
def test_a_stored_run_comes_back_with_the_same_json(name, examples, cache):
    spec, data, params = examples[name]
    run = run_and_verify(spec, data, params)
    assert cache.put(run)
    back = cache.get(spec, params, data)
    assert back is not None and back.cached and back.status == run.status
    assert back.to_json() == run.to_json()
    assert back.summary() == run.summary()


def test_the_dataset_is_stored_as_a_reference_not_its_records(examples, cache):
    spec, data, params = examples["nonreciprocal"]
    run = run_and_verify(spec, data, params)
    cache.put(run)
    back = cache.get(spec, params, data)
    entry = next(cache.folder.glob("*.run"))
    # The records are not in the entry: loading it hands back the live dataset.
    assert data.indices.tobytes() not in entry.read_bytes() or len(data.indices) < 8
    assert back.data is data


def _small(tmp_path, text="1 2 3\n2 3\n1 3 4\n2 4\n", name="d.dat"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_with_options(path, ReadOptions(format="fimi"))


def test_other_params_seed_or_data_miss(tmp_path, cache):
    spec = get_method("uniqueness")
    params = spec.params(max_m=2, seed=3)
    data = _small(tmp_path)
    cache.put(run_and_verify(spec, data, params))
    assert cache.get(spec, params, data) is not None
    assert cache.get(spec, dataclasses.replace(params, seed=4), data) is None
    assert cache.get(spec, dataclasses.replace(params, max_m=1), data) is None
    other = _small(tmp_path, "1 2 3\n2 3\n1 3 5\n2 4\n", "e.dat")
    assert cache.get(spec, params, other) is None


def test_a_changed_file_is_a_different_entry(tmp_path, cache):
    spec = get_method("uniqueness")
    params = spec.params(max_m=2)
    data = _small(tmp_path)
    cache.put(run_and_verify(spec, data, params))
    (tmp_path / "d.dat").write_text("1 2 3\n2 3\n1 3 4\n2 5\n", encoding="utf-8")
    reloaded = load_with_options(tmp_path / "d.dat", ReadOptions(format="fimi"))
    assert cache.get(spec, params, reloaded) is None


def test_another_version_never_reads_an_entry(tmp_path, cache, monkeypatch):
    import anonstudio.studio.cache as cache_module

    spec = get_method("uniqueness")
    params = spec.params(max_m=2)
    data = _small(tmp_path)
    cache.put(run_and_verify(spec, data, params))
    monkeypatch.setattr(cache_module, "__version__", "99.0")
    assert cache.get(spec, params, data) is None


@pytest.mark.parametrize("damage", ["flip", "truncate", "header", "garbage"])
def test_a_damaged_entry_is_discarded_and_recomputed(tmp_path, cache, damage):
    spec = get_method("uniqueness")
    params = spec.params(max_m=2)
    data = _small(tmp_path)
    run = run_and_verify(spec, data, params)
    cache.put(run)
    (entry,) = cache.folder.glob("*.run")
    raw = bytearray(entry.read_bytes())
    if damage == "flip":
        raw[-5] ^= 0xFF
    elif damage == "truncate":
        raw = raw[: len(raw) // 2]
    elif damage == "header":
        head, _, payload = bytes(raw).partition(b"\n")
        doc = json.loads(head)
        doc["key"] = "0" * 64
        raw = bytearray(json.dumps(doc).encode() + b"\n" + payload)
    else:
        raw = bytearray(b"\x00\x01 not an entry")
    entry.write_bytes(bytes(raw))
    assert cache.get(spec, params, data) is None
    assert cache.discarded == 1 and not entry.exists()
    # The next run is stored again and read back.
    cache.put(run_and_verify(spec, data, params))
    assert cache.get(spec, params, data) is not None


def test_a_cancelled_run_and_data_built_in_memory_are_not_kept(tmp_path, cache):
    from anonstudio.jobs import RecordingProgress

    spec = get_method("uniqueness")
    params = spec.params(max_m=3)
    memory = TransactionData.from_records([["a", "b"], ["b", "c"], ["a", "c"]])
    assert dataset_fingerprint(memory) is None and run_key(spec, params, memory) is None
    assert not cache.put(run_and_verify(spec, memory, params))
    data = _small(tmp_path)
    cancelled = run_and_verify(spec, data, params, RecordingProgress(cancel_after_sets=1))
    assert cancelled.status == "cancelled" and not cache.put(cancelled)


def test_roles_and_reading_options_are_part_of_the_key(tmp_path):
    from anonstudio.data.datasets import table_with_roles

    path = tmp_path / "t.csv"
    path.write_text("a;b\n1;x\n2;y\n", encoding="utf-8")
    table = load_with_options(path, ReadOptions(format="csv-table"))
    assert dataset_fingerprint(table) != dataset_fingerprint(table_with_roles(table, {"b": "sensitive"}))
    other_sep = load_with_options(path, ReadOptions(format="csv-table", sep=","))
    assert dataset_fingerprint(table) != dataset_fingerprint(other_sep)


def test_sweep_cells_are_small_json_entries(tmp_path, cache):
    spec = get_method("uniqueness")
    params = spec.params(max_m=2)
    data = _small(tmp_path)
    assert cache.get_cell(spec, params, data) is None
    assert cache.put_cell(spec, params, data, "done", {"unique_share": 0.5}, 0.1)
    assert cache.get_cell(spec, params, data)["summary"] == {"unique_share": 0.5}
    assert not cache.put_cell(spec, params, data, "cancelled", {}, 0.1)
    next(cache.folder.glob("*.cell.json")).write_text("{ not json", encoding="utf-8")
    assert cache.get_cell(spec, params, data) is None and cache.discarded == 1


def test_the_oldest_entries_go_when_the_folder_is_full(tmp_path):
    import os

    spec = get_method("uniqueness")
    data = _small(tmp_path)
    cache = ResultCache(tmp_path / "c", limit=10_000)
    for m in (1, 2, 3):
        cache.put(run_and_verify(spec, data, spec.params(max_m=m)))
        for i, entry in enumerate(sorted(cache.folder.glob("*.run"), key=os.path.getmtime)):
            os.utime(entry, (1000 + i, 1000 + i))
    assert cache.size() <= 10_000
    assert cache.get(spec, spec.params(max_m=3), data) is not None
