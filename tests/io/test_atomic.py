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


def test_a_writer_failing_midway_keeps_the_old_file(tmp_path, monkeypatch):
    from anonstudio.data import TransactionData
    from anonstudio.data.io import fimi, save_transactions

    target = tmp_path / "out.dat"
    target.write_text("old contents\n")

    def half_then_fail(data):
        yield ["1", "2"]
        raise OSError("device full")

    monkeypatch.setattr(fimi, "records_as_label_lists", half_then_fail)
    with pytest.raises(OSError, match="device full"):
        save_transactions(TransactionData.from_records([["1", "2"], ["3"]]), target)
    assert target.read_text() == "old contents\n"
    assert os.listdir(tmp_path) == ["out.dat"]
