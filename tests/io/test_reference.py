"""The vectorised loaders agree with slow line-by-line readers on random files."""
import numpy as np

from anonstudio.data.io import load_report, load_transactions
from tests.reference.io_reference import reference_csv_long, reference_fimi


def random_fimi_text(rng) -> str:
    lines = []
    for _ in range(int(rng.integers(1, 40))):
        kind = rng.random()
        if kind < 0.05:
            lines.append("# a comment")
        elif kind < 0.1:
            lines.append("")
        else:
            items = rng.integers(0, 30, size=int(rng.integers(1, 10)))  # repeats on purpose
            seps = rng.choice([" ", "  ", "\t", ",", ", "], size=len(items))
            line = "".join(f"{sep}{item}" for sep, item in zip(seps, items)).lstrip(" ,\t")
            lines.append(line + (" " if rng.random() < 0.5 else ""))
    if not any(ln.strip() and not ln.startswith("#") for ln in lines):
        lines.append("1")
    end = rng.choice(["\n", "\r\n"])
    return end.join(lines) + (end if rng.random() < 0.7 else "") + ("\n\n" if rng.random() < 0.2 else "")


def test_fimi_matches_reference(tmp_path):
    rng = np.random.default_rng(2024)
    for trial in range(200):
        text = random_fimi_text(rng)
        path = tmp_path / f"r{trial}.dat"
        path.write_bytes(text.encode())
        data = load_transactions(path, format="fimi")
        assert [set(data.record_labels(u)) for u in range(data.n_records)] == reference_fimi(text), repr(text)


def test_csv_long_matches_reference(tmp_path):
    rng = np.random.default_rng(99)
    for trial in range(100):
        rows = [f"u{rng.integers(0, 8)},{rng.choice(['a', 'b', 'c', 'd', '', 'e f'])}"
                for _ in range(int(rng.integers(1, 30)))]
        text = "record,item\n" + "\n".join(rows) + "\n"
        path = tmp_path / f"r{trial}.csv"
        path.write_text(text)
        data = load_transactions(path, format="csv-long")
        ids, sets = reference_csv_long(text)
        assert load_report(data).record_ids == ids
        assert [set(data.record_labels(u)) for u in range(data.n_records)] == sets


def test_byte_level_fast_path_is_used_and_agrees(tmp_path):
    from anonstudio.data.io.fimi import fast_int_records
    rng = np.random.default_rng(5)
    used = 0
    for _trial in range(100):
        text = random_fimi_text(rng)
        fast = fast_int_records(text.encode())
        if "#" in text:
            assert fast is None  # comments go the line-by-line way
            continue
        used += 1
        values, per_line = fast
        expected = reference_fimi(text)
        assert per_line.tolist() == [len([t for t in ln.replace(",", " ").split()])
                                     for ln in text.splitlines()]
        bounds = np.concatenate(([0], np.cumsum(per_line)))
        got = [{str(v) for v in values[bounds[i]:bounds[i + 1]]} for i in range(len(per_line))]
        assert got == expected
    assert used > 30
    assert fast_int_records(b"1 2\n3 -4\n") is None
    assert fast_int_records(b"1 2\r3\n") is None  # a lone CR is a line end for the slow path
    assert fast_int_records(b"12345678901234567890\n") is None
