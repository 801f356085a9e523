"""The shared work-size guard where it was missing: items per record, hierarchy levels, per-level values, queries.

The limits are lowered for the test (``LIMITS`` is read at each check), so small files stand for a person with a
million items or a hierarchy a thousand levels deep.
"""
from __future__ import annotations

import json

import pytest

from anonstudio.cli import main
from anonstudio.limits import LIMITS, OVERRIDE_FLAG

from .test_internal_errors import BASKETS, _one_error


@pytest.fixture
def files(tmp_path):
    rows = [(f"p{i}", 20 + i % 30, "MF"[i % 2], [f"i{(i + j) % 7}" for j in range(1 + i % 3)]) for i in range(40)]
    rows[4] = ("p4", 30, "M", [f"x{j}" for j in range(12)])  # the heavy person: 12 items
    (tmp_path / "rt.csv").write_text("pid,age,sex,items\n" + "".join(
        f"{p},{a},{s},{';'.join(items)}\n" for p, a, s, items in rows))
    (tmp_path / "people.csv").write_text("pid,age,sex\n" + "".join(f"{p},{a},{s}\n" for p, a, s, _ in rows))
    (tmp_path / "items.csv").write_text("pid,item\n" + "".join(f"{p},{i}\n" for p, _, _, items in rows for i in items))
    (tmp_path / "b.dat").write_text(" ".join(str(20 + j) for j in range(12)) + "\n" + BASKETS)
    return tmp_path


def _rt(d, *args: str) -> list[str]:
    return ["rt", str(d / "rt.csv"), "--qi", "age,sex", "--k", "2", "--quiet", *args]


@pytest.mark.parametrize("argv, words", [
    (lambda d: _rt(d), ["rt.csv, record 5", "12 items per record", "limit of 10"]),
    (lambda d: ["rt", str(d / "people.csv"), "--items-file", str(d / "items.csv"), "--person-column", "pid",
                "--items-column", "item", "--qi", "age,sex", "--k", "2", "--quiet"],
     ["items.csv, line 19: person 'p4'", "11 items per record"]),
    (lambda d: ["kmanon", str(d / "b.dat"), "--k", "2", "--quiet"], ["b.dat: record 1", "12 items per record"]),
])
def test_a_person_with_too_many_items_is_refused_before_the_run(files, capsys, monkeypatch, argv, words):
    monkeypatch.setitem(LIMITS, "items per record", 10)
    assert main(argv(files)) == 2
    _one_error(capsys, *words, OVERRIDE_FLAG)
    # The override lets the same request through this guard.
    assert main([*argv(files), OVERRIDE_FLAG]) in (0, 3)


@pytest.mark.parametrize("command", ["rt", "kmanon"])
def test_a_hierarchy_deeper_than_the_limit_is_refused(files, capsys, monkeypatch, command):
    monkeypatch.setitem(LIMITS, "levels", 5)
    deep = files / "deep.csv"
    deep.write_text("M;F\nF;" + ";".join(f"g{j}" for j in range(8)) + ";*\n")
    argv = (_rt(files, "--hierarchy", f"sex={deep}") if command == "rt" else
            ["kmanon", str(files / "b.dat"), "--k", "2", "--item-hierarchy", str(deep), "--quiet"])
    assert main(argv) == 2
    _one_error(capsys, "deep.csv, line 2", "9 levels is more than the limit of 5", OVERRIDE_FLAG)


def test_per_level_values_beyond_the_limit_are_refused(files, capsys, monkeypatch):
    monkeypatch.setitem(LIMITS, "levels", 1)
    assert main(["kmanon", str(files / "b.dat"), "--m", "2", "--k-levels", "2,3", "--quiet"]) == 2
    _one_error(capsys, "--k-levels", "2 levels is more than the limit of 1", OVERRIDE_FLAG)


def test_a_queries_file_with_too_many_queries(files, capsys, monkeypatch):
    monkeypatch.setitem(LIMITS, "queries", 5)
    queries = files / "q.json"
    queries.write_text(json.dumps({"workloads": {"a": [{"items": ["i1"]}] * 4, "b": [{"rel": {"sex": "M"}}] * 3}}))
    assert main(_rt(files, "--queries", str(queries))) == 2
    _one_error(capsys, "q.json", "7 queries is more than the limit of 5", OVERRIDE_FLAG)


def test_the_evaluator_queries_beyond_the_limit(files, capsys, monkeypatch):
    monkeypatch.setitem(LIMITS, "queries", 100)
    argv = ["evaluate", str(files / "b.dat"), "--release", str(files / "b.dat"), "--k", "2", "--m", "1",
            "--json", str(files / "e.json"), "--quiet"]
    assert main([*argv, "--queries", "101"]) == 2
    _one_error(capsys, "--queries", "101 queries is more than the limit of 100", OVERRIDE_FLAG)
    assert not (files / "e.json").exists()
    assert main([*argv, "--queries", "-1"]) == 2
    _one_error(capsys, "--queries must be at least 0")


def test_a_million_item_person_is_refused_while_the_items_file_streams(tmp_path, capsys, monkeypatch):
    """The guard counts each person's items chunk by chunk: the file is not read whole first."""
    import anonstudio.data.io.rt as rt_io
    from anonstudio.data.io import text

    monkeypatch.setitem(LIMITS, "items per record", 1000)
    monkeypatch.setattr(text, "CHUNK_BYTES", 1 << 16)
    (tmp_path / "people.csv").write_text("pid,age,sex\np1,30,M\np2,40,F\n")
    (tmp_path / "items.csv").write_text("pid,item\np2,a\n" + "".join(f"p1,i{j}\n" for j in range(300_000)))
    chunks = []

    class Counting:
        def __init__(self, reader):
            self.reader = reader

        def __iter__(self):
            for chunk in self.reader:
                chunks.append(chunk.n_rows)
                yield chunk

        def __getattr__(self, name):
            return getattr(self.reader, name)

    real = rt_io.iter_rows
    monkeypatch.setattr(rt_io, "iter_rows", lambda *a, **k: Counting(real(*a, **k)))
    argv = ["rt", str(tmp_path / "people.csv"), "--items-file", str(tmp_path / "items.csv"), "--person-column",
            "pid", "--items-column", "item", "--qi", "age,sex", "--k", "2", "--quiet"]
    assert main(argv) == 2
    # Line 1 is the header, line 2 p2's item: p1's 1,001st item is on line 1,003.
    _one_error(capsys, "items.csv, line 1003: person 'p1'", "1,001 items per record", OVERRIDE_FLAG)
    assert 0 < len(chunks) < 5, f"read {len(chunks)} chunks of ~60 before refusing"
