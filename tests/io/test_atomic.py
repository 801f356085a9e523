import os

import pytest

from anonstudio.data.io import atomic_write


def test_atomic_write_replaces_on_success(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with atomic_write(target) as fh:
        fh.write("new\n")
    assert target.read_text() == "new\n"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_atomic_write_leaves_no_partial_file_on_error(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_write(target) as fh:
            fh.write("half")
            raise RuntimeError("disk full")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_atomic_write_new_file_not_created_on_error(tmp_path):
    target = tmp_path / "new.bin"
    with pytest.raises(ValueError):
        with atomic_write(target, "wb") as fh:
            fh.write(b"\x00\x01")
            raise ValueError
    assert os.listdir(tmp_path) == []
