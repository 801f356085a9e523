"""Fixtures of the hostile-input tests: a fast CLI runner and a corpus of hostile files."""
from __future__ import annotations

import gzip
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from .forkrun import CliRunner

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"


@pytest.fixture(scope="session")
def cli():
    """Runs ``anonstudio-cli`` invocations in forked children of one pre-imported server."""
    runner = CliRunner(sys.executable)
    yield runner
    runner.close()


@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> Path:
    """Small hostile files of every class the loaders must refuse or read exactly."""
    d = tmp_path_factory.mktemp("corpus")

    def text(name: str, content: str) -> None:
        (d / name).write_text(content, encoding="utf-8", newline="")

    (d / "folder").mkdir()
    os.mkfifo(d / "pipe")
    (d / "zero_link").symlink_to("/dev/zero")
    (d / "broken_link").symlink_to(d / "nowhere")
    text("empty.dat", "")
    (d / "binary.bin").write_bytes(np.random.default_rng(1).bytes(3000))
    (d / "damaged.dat.gz").write_bytes(gzip.compress(b"1 2 3\n" * 500)[:-20])
    (d / "fake.parquet").write_bytes(b"PAR1 not parquet at all")
    text("ff.dat", "1 2\x0c3\n4 5\n6\n")
    text("u2028.csv", "record,item\nu1,caf\u2028e\nu1,c\nu2,d\nu3,e\n")
    text("spmf_missing.dat", "1 -1 2 -1 -2\n3 -1 4 -1\n5 -1 -2\n")
    text("cycle.csv", "a;b\nb;a\n")
    text("table.csv", "age,sex,income,city\n39,M,50000,Rome\n50,F,60000,Paris\n38,M,40000,Rome\n")
    text("small.dat", "".join(" ".join(str((i * 7 + j) % 23) for j in range(1 + i % 5)) + "\n" for i in range(120)))
    text("coords.csv", "item,x,y\n" + "".join(f"{i},{(i * 37) % 500}.0,{(i * 91) % 500}.0\n" for i in range(23)))
    text("hier.csv", "".join(f"{i};g{i % 4};*\n" for i in range(23)))
    return d


@pytest.fixture(scope="session")
def small_city(tmp_path_factory) -> Path:
    """The bundled small city's records (5,000 users, 200 towers), as a file."""
    d = tmp_path_factory.mktemp("city")
    path = d / "city.dat"
    path.write_bytes((SAMPLES / "small-city" / "city.dat").read_bytes())
    return path
