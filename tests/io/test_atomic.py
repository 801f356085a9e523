import contextlib
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

    real_atomic_write = fimi.atomic_write

    @contextlib.contextmanager
    def half_then_fail(path):
        """The real atomic writer, whose file accepts one block of lines and then fails."""
        with real_atomic_write(path) as fh:
            class HalfFull:
                blocks = 0

                def write(self, text):
                    HalfFull.blocks += 1
                    if HalfFull.blocks > 1:
                        raise OSError("device full")
                    return fh.write(text)

            yield HalfFull()

    monkeypatch.setattr(fimi, "atomic_write", half_then_fail)
    monkeypatch.setattr(fimi, "_SAVE_BLOCK", 1)  # one record per block: the second block fails
    with pytest.raises(OSError, match="device full"):
        save_transactions(TransactionData.from_records([["1", "2"], ["3"]]), target)
    assert target.read_text() == "old contents\n"
    assert os.listdir(tmp_path) == ["out.dat"]


def test_an_output_that_is_an_input_is_refused(tmp_path):
    from anonstudio.data.io.atomic import OutputPathError, check_output_path

    data = tmp_path / "in.dat"
    data.write_text("1 2\n")
    link = tmp_path / "link.dat"
    link.symlink_to(data)
    for out in (data, link):
        with pytest.raises(OutputPathError, match="is an input of this run"):
            check_output_path(out, inputs=(data,))
    assert data.read_text() == "1 2\n"


def test_cli_never_overwrites_its_input(tmp_path):
    from anonstudio.cli import main

    data = tmp_path / "in.dat"
    data.write_text("1 2\n2 3\n1 3\n1 2 3\n")
    before = data.read_bytes()
    assert main(["kmanon", str(data), "--constraint", "free", "--k", "2", "--m", "1", "--out", str(data)]) == 2
    assert data.read_bytes() == before
