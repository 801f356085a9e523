"""End to end: labels file, parameters, outputs, same seed same bytes, cancel."""
import csv
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from anonstudio.data.errors import DataFormatError
from anonstudio.data.io import load_transactions
from anonstudio.data.io.record_labels import load_record_labels
from anonstudio.data.transactions import TransactionData
from anonstudio.jobs import RecordingProgress
from anonstudio.methods.nonreciprocal.algorithm import nonreciprocal
from anonstudio.methods.nonreciprocal.diversity import NotEligibleError
from anonstudio.methods.nonreciprocal.export import (
    write_graph,
    write_json,
    write_order,
    write_public,
    write_published,
)
from anonstudio.methods.nonreciprocal.params import NonreciprocalParams
from anonstudio.params import ParameterError

DATA = Path(__file__).resolve().parents[1] / "data" / "nonreciprocal"


def random_data(seed, n, b, density=0.2):
    rng = np.random.default_rng(seed)
    return TransactionData.from_id_lists([np.flatnonzero(rng.random(b) < density) for _ in range(n)], n_items=b)


def write_labels(path, labels):
    path.write_text("record,label\n" + "".join(f"{i + 1},{s}\n" for i, s in enumerate(labels)))
    return path


# ------------------------------------------------------------------ labels file
@pytest.mark.parametrize("text,pattern", [
    ("", "empty"),
    ("rec,lab\n1,a\n", "header 'record,label'"),
    ("record,label\n1,a,b\n", "line 2: expected 2 fields"),
    ("record,label\nx,a\n", "line 2: 'x' is not a record number"),
    ("record,label\n0,a\n", "line 2: record 0 is not between 1 and 3"),
    ("record,label\n4,a\n", "line 2: record 4 is not between 1 and 3"),
    ("record,label\n1,a\n2,\n", "line 3: record 2 has an empty label"),
    ("record,label\n1,a\n2,b\n1,c\n", r"line 4: record 1 already has a label \(line 2\)"),
    ("record,label\n1,a\n3,b\n", "record 2 of the dataset has no label"),
    ("record,label\n1,a\n", "record 2 and 1 more records"),
])
def test_labels_file_errors_name_file_line_and_reason(tmp_path, text, pattern):
    path = tmp_path / "labels.csv"
    path.write_text(text)
    with pytest.raises(DataFormatError, match=pattern) as exc:
        load_record_labels(path, 3)
    assert str(exc.value).startswith("labels.csv")
    assert "\n" not in str(exc.value)


def test_labels_file_binary_and_missing(tmp_path):
    (tmp_path / "bin.csv").write_bytes(b"record,label\n1,\xff\xfe\n")
    with pytest.raises(DataFormatError, match="line 2"):
        load_record_labels(tmp_path / "bin.csv", 1)
    with pytest.raises(DataFormatError, match="no such file"):
        load_record_labels(tmp_path / "none.csv", 1)


def test_labels_file_with_record_ids_and_any_line_order(tmp_path):
    path = tmp_path / "l.csv"
    path.write_text("Record,Label\nu2,b\nu1,a\n")
    labels = load_record_labels(path, 2, ["u1", "u2"])
    assert [labels.names[c] for c in labels.codes] == ["a", "b"]
    with pytest.raises(DataFormatError, match="'u3' is not in the dataset"):
        path.write_text("record,label\nu3,b\n")
        load_record_labels(path, 2, ["u1", "u2"])


# ------------------------------------------------------------------ parameters
@pytest.mark.parametrize("params,pattern", [
    (dict(), "exactly one of k"),
    (dict(k=3, l=3, labels=DATA / "table1_labels.csv"), "exactly one of k"),
    (dict(k=3, labels=DATA / "missing.csv"), "does not exist"),
    (dict(l=3), "needs a labels file"),
    (dict(k=1), "at least 2"),
    (dict(k=3, seg_min=50, seg_max=40), "larger than the largest"),
    (dict(k=3, seed=-1), "at least 0"),
    (dict(k=3, order="hilbert"), "must be one of"),
    (dict(k=7), "larger than the 6 records"),
])
def test_bad_parameters_are_refused_before_any_work(params, pattern):
    data = load_transactions(DATA / "table1.dat")
    with pytest.raises(ParameterError, match=pattern):
        nonreciprocal(data, NonreciprocalParams(**params))


def test_ineligible_labels_are_refused_naming_the_label(tmp_path):
    data = load_transactions(DATA / "table1.dat")
    path = write_labels(tmp_path / "l.csv", ["a", "a", "b", "c", "d", "e"])
    with pytest.raises(NotEligibleError, match="'a' holds 2 of 6"):
        nonreciprocal(data, NonreciprocalParams(l=3, labels=path))  # windows of 5 need <= 1 per label


# ------------------------------------------------------------------ outputs
def _write_all(res, folder):
    folder.mkdir(exist_ok=True)
    write_published(folder / "PUBLISHED.csv", res)
    write_public(folder / "PUBLIC.csv", res)
    write_graph(folder / "GRAPH.csv", res)
    write_order(folder / "ORDER.csv", res)
    write_json(folder / "OUT.json", res, include_audit=True)
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def _strip_seconds(raw):
    doc = json.loads(raw)
    doc.pop("seconds")
    return doc


def test_same_seed_same_bytes(tmp_path):
    data = random_data(0, 900, 40)
    labels = write_labels(tmp_path / "labels.csv", [f"s{i % 7}" for i in range(900)])
    params = NonreciprocalParams(l=3, labels=labels, seed=9, seg_min=40, seg_max=60, threads=2)
    a = _write_all(nonreciprocal(data, params), tmp_path / "a")
    b = _write_all(nonreciprocal(data, dataclasses.replace(params, threads=1)), tmp_path / "b")
    for name in a:
        if name == "OUT.json":
            assert _strip_seconds(a[name]) == _strip_seconds(b[name])
        else:
            assert a[name] == b[name], name
    c = _write_all(nonreciprocal(data, dataclasses.replace(params, seed=10)), tmp_path / "c")
    assert a["PUBLISHED.csv"] != c["PUBLISHED.csv"]


def test_output_files(tmp_path):
    data = load_transactions(DATA / "table1.dat")
    res = nonreciprocal(data, NonreciprocalParams(k=3, labels=DATA / "table1_labels.csv"))
    files = _write_all(res, tmp_path)
    rows = list(csv.reader(files["PUBLISHED.csv"].decode().splitlines()))
    assert rows[0] == ["record", "base", "distance", "threshold", "label"]
    assert rows[1][:4] == ["1", "1;2;4", "1;3;4", "2"]  # Table 3, r'1
    assert rows[5][:4] == ["5", "1;2", "3;4", "1"]
    public = list(csv.reader(files["PUBLIC.csv"].decode().splitlines()))
    assert [r[0] for r in public[1:]] == [str(i) for i in range(1, 7)]
    assert sorted(r[1:] for r in public[1:]) == sorted(r[1:] for r in rows[1:])
    graph = list(csv.reader(files["GRAPH.csv"].decode().splitlines()))
    assert graph[0] == ["original", "published", "assignment"] and len(graph) == 1 + 18
    order = list(csv.reader(files["ORDER.csv"].decode().splitlines()))
    assert [r[1] for r in order[1:]] == ["2", "4", "3", "1", "5", "6"]
    doc = json.loads(files["OUT.json"])
    for key in ("k", "method", "order", "segments", "bit_order", "seed", "error_rate", "query_error",
                "hamming_before", "hamming_gray", "hamming_after", "seconds", "walk_steps", "chosen_assignment"):
        assert key in doc, key
    assert doc["query_error"]["in_size"] == 3 and doc["query_error"]["ex_size"] == 4
    assert (doc["hamming_before"], doc["hamming_gray"], doc["hamming_after"]) == (14, 12, 10)
    assert "chosen_assignment" not in res.to_json()


def test_gray_only_order_skips_tsp():
    data = random_data(2, 500, 30)
    res = nonreciprocal(data, NonreciprocalParams(k=4, order="gray"))
    assert res.complete and "tsp" not in res.seconds and res.segments is None
    assert res.hamming_after == res.hamming_gray
    tsp = nonreciprocal(data, NonreciprocalParams(k=4, seg_min=40, seg_max=60))
    assert tsp.hamming_after < res.hamming_after


# ------------------------------------------------------------------ cancel
@pytest.mark.parametrize("after", [1, 2, 3, 5, 8])
def test_cancel_returns_a_partial_result_and_writes_nothing(tmp_path, after):
    data = random_data(3, 800, 30)
    progress = RecordingProgress(cancel_after_sets=after)
    res = nonreciprocal(data, NonreciprocalParams(k=5, seg_min=30, seg_max=40, threads=1), progress)
    assert not res.complete and res.stopped_reason == "cancelled"
    assert res.stage in ("sort", "tsp", "graph", "assignments", "publish")
    assert progress.partials and progress.partials[-1] is res
    for writer in (write_published, write_public, write_graph, write_order, write_json):
        with pytest.raises(ValueError, match="did not finish"):
            writer(tmp_path / "x.csv", res)
    assert list(tmp_path.iterdir()) == []


def test_cancel_between_phases_keeps_what_is_done():
    data = random_data(4, 800, 30)
    # cancel as soon as the order is published as a partial result
    progress = RecordingProgress(cancel_after_partials=1)
    res = nonreciprocal(data, NonreciprocalParams(k=5, seg_min=30, seg_max=40), progress)
    assert res.stage == "sort" and res.gray_order is not None and res.graph is None
    progress = RecordingProgress(cancel_after_partials=3)
    res = nonreciprocal(data, NonreciprocalParams(k=5, seg_min=30, seg_max=40), progress)
    assert res.stage == "graph" and res.graph is not None and res.assignments is None


def test_item_labels_with_the_separator_are_refused(tmp_path):
    data = TransactionData.from_records([["a;b", "c"], ["c"], ["a;b"], ["d"]])
    res = nonreciprocal(data, NonreciprocalParams(k=2))
    with pytest.raises(ValueError, match="'a;b' contains ';'"):
        write_published(tmp_path / "p.csv", res)
    assert not (tmp_path / "p.csv").exists()
