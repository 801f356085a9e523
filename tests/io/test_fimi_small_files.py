"""A small FIMI file read while numba is not loaded goes line by line: the same dataset and report as the kernel."""
import numpy as np
import pytest

from anonstudio.data.io import fimi, load_report, load_transactions
from tests.io.test_reference import random_fimi_text


def _load_both(path, monkeypatch):
    monkeypatch.setattr(fimi, "SMALL_CHUNK", 0)  # every chunk to the kernel
    by_kernel = load_transactions(path, format="fimi")
    monkeypatch.setattr(fimi, "SMALL_CHUNK", 1 << 40)
    monkeypatch.setattr(fimi, "_numba_loaded", lambda: False)  # as in a fresh process
    by_lines = load_transactions(path, format="fimi")
    return by_kernel, by_lines


def test_line_reader_and_kernel_give_the_same_dataset_and_report(tmp_path, monkeypatch):
    rng = np.random.default_rng(11)
    for trial in range(60):
        text = random_fimi_text(rng).replace("# a comment", "")  # plain text: the kernel takes every chunk
        if trial % 3 == 0:
            text += "5 5 7\n\n"  # a repeated item and a trailing empty record, both reported
        path = tmp_path / f"t{trial}.dat"
        path.write_bytes(text.encode())
        by_kernel, by_lines = _load_both(path, monkeypatch)
        assert np.array_equal(by_kernel.indptr, by_lines.indptr)
        assert np.array_equal(by_kernel.indices, by_lines.indices)
        assert by_kernel.vocab == by_lines.vocab
        assert load_report(by_kernel).warnings == load_report(by_lines).warnings


def test_small_file_does_not_use_the_kernel_unless_numba_is_loaded(tmp_path, monkeypatch):
    calls = []
    real = fimi.fast_int_records
    monkeypatch.setattr(fimi, "fast_int_records", lambda raw: calls.append(len(raw)) or real(raw))
    path = tmp_path / "small.dat"
    path.write_text("1 2 3\n2 3\n")
    monkeypatch.setattr(fimi, "_numba_loaded", lambda: False)  # a fresh process: anonstudio-cli info
    load_transactions(path, format="fimi")
    assert calls == []
    monkeypatch.setattr(fimi, "_numba_loaded", lambda: True)  # a studio or a run: the kernel costs nothing extra
    load_transactions(path, format="fimi")
    assert calls == [len("1 2 3\n2 3\n")]


@pytest.mark.parametrize("text", ["1 x\n", "1 -2\n", "1\n2 12345678901234567890\n"])
def test_errors_are_the_same_either_way(tmp_path, monkeypatch, text):
    path = tmp_path / "bad.dat"
    path.write_text(text)
    messages = []
    monkeypatch.setattr(fimi, "_numba_loaded", lambda: False)
    for small in (0, 1 << 40):
        monkeypatch.setattr(fimi, "SMALL_CHUNK", small)
        try:
            data = load_transactions(path, format="fimi")
            messages.append(("ok", data.vocab))
        except Exception as exc:  # noqa: BLE001 - compared, whatever it is
            messages.append((type(exc).__name__, str(exc)))
    assert messages[0] == messages[1]
