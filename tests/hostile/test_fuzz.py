"""Property-based fuzzing of every loader and every CLI parameter (Hypothesis).

Whatever the input, the result is a valid dataset or the one-line error
(file, line, reason) with exit status 2: never a traceback, never a hang
(a per-case timeout), never a silent change of record count, never a
modified input.
"""
from __future__ import annotations

import hashlib
import math
import tempfile
from pathlib import Path

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from anonstudio.data.errors import DataFormatError  # noqa: E402
from anonstudio.data.io import load_file, load_table, load_transactions  # noqa: E402
from anonstudio.data.table import Table  # noqa: E402
from anonstudio.data.transactions import TransactionData  # noqa: E402

# Characters that break naive readers: separators, quotes, comment marks, every Unicode line-break look-alike.
TRICKY = list("0123456789  ,;\t\"'#%@|-+_.eE") + ["\n", "\n", "\r\n", "\r", "\x0c", "\x0b", "\x1c", "\x85",
                                                 "\u2028", "\x00", "é", "a", "b", "?"]
LOADER_SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                                    HealthCheck.too_slow])


def _check_loaded(obj) -> None:
    if isinstance(obj, TransactionData):
        assert obj.indptr[0] == 0 and obj.indptr[-1] == len(obj.indices)
        assert np.all(np.diff(obj.indptr) >= 0)
        for u in range(min(obj.n_records, 50)):
            rec = obj.record(u)
            assert np.all(np.diff(rec) > 0)  # sorted, no repeats
    else:
        assert isinstance(obj, Table)


def _records_by_lines(text: str) -> int:
    """Records a one-record-per-line file holds: lines end at \\n, \\r\\n or \\r only; comments are no records."""
    normal = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = normal.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return sum(1 for ln in lines if not ln.startswith(("#", "%", "@", "|")))


@LOADER_SETTINGS
@given(text=st.lists(st.sampled_from(TRICKY), min_size=0, max_size=120).map("".join),
       fmt=st.sampled_from([None, "fimi", "spmf-seq", "csv-long", "csv-sets", "checkins", "csv-table"]),
       encoding=st.sampled_from(["utf-8", "utf-16", "latin-1"]))
@example(text="-|\n0|", fmt=None, encoding="utf-8")  # a text column the fast reader typed half as numbers
@example(text=';"\n0', fmt=None, encoding="utf-8")  # the csv module raised inside a format sniffer
def test_any_text_loads_or_fails_in_one_line(tmp_path, text, fmt, encoding):
    path = tmp_path / "fuzz.dat"
    raw = text.encode(encoding) if encoding != "latin-1" else text.encode("latin-1", errors="replace")
    path.write_bytes(raw)
    before = hashlib.sha256(raw).hexdigest()
    try:
        obj = load_file(path, fmt, encoding=None if encoding == "utf-8" else encoding)
    except DataFormatError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("fuzz.dat")
    else:
        _check_loaded(obj)
        if fmt == "fimi" and "\x00" not in text:
            assert obj.n_records == _records_by_lines(raw.decode(encoding))
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


@LOADER_SETTINGS
@given(records=st.lists(st.lists(st.integers(0, 10**6), max_size=8), min_size=1, max_size=40).filter(any),
       sep=st.sampled_from([" ", ",", "\t", ", "]), end=st.sampled_from(["\n", "\r\n"]),
       junk=st.sampled_from(["", "\x0c", "\u2028", "\x0b"]))
def test_fimi_record_count_is_the_line_count(tmp_path, records, sep, end, junk):
    lines = [sep.join(map(str, r)) + (junk if r else "") for r in records]
    path = tmp_path / "r.dat"
    path.write_text(end.join(lines) + end, encoding="utf-8", newline="")
    data = load_transactions(path, format="fimi")
    assert data.n_records == len(records)
    assert [sorted({str(v) for v in r}) == sorted(data.record_labels(u)) for u, r in enumerate(records)] \
        == [True] * len(records)


@LOADER_SETTINGS
@given(rows=st.lists(st.tuples(st.text(st.sampled_from(list("ab1 ,;\"\n\u2028\x0c")), max_size=6),
                               st.text(st.sampled_from(list("xy2 ,;\"\n\u2028\x0c")), max_size=6)),
                     min_size=1, max_size=30))
def test_csv_written_by_the_csv_module_reads_back(tmp_path, rows):
    import csv

    path = tmp_path / "t.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["name", "place", "n"])
        writer.writerows((a, b, str(i)) for i, (a, b) in enumerate(rows))
    try:
        table = load_table(path, header=True)
    except DataFormatError as exc:
        assert "\n" not in str(exc)
        return
    assert table.n_rows == len(rows)  # quoted line breaks never split or merge rows
    assert table.frame["n"].tolist() == list(range(len(rows)))


# ------------------------------------------------------------------ CLI parameters
def _bad_numbers():
    return st.one_of(
        st.sampled_from(["nan", "NaN", "inf", "-inf", "1e400", "-1e400", "1e-400", "99999999999999999999999",
                         "-99999999999999999999", "0x10", "1_0", "", " ", "abc", "1,5", "½", "٣", "--", "0"]),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.integers(-2**70, 2**70).map(str),
    )


def _method_flags():
    from anonstudio.methods.contract import discover_methods
    from anonstudio.params import specs

    out = []
    for name, spec in discover_methods().items():
        for p in specs(spec.params):
            out.append((name, p.cli_flag, p.kind))
    return out


def _work_size(method: str, flag: str, value: str, usual: str | None) -> bool:
    """Whether ``value`` is an accepted work size at least 1,000 times the usual one (a long run, not a hang).

    ``usual`` is the value the base command line gives (None: the parameter's default).

    The CLI takes 6,500,000 sampler iterations on 200 rows: that is legitimate work that outlasts the
    per-case timeout, not the endless loop the timeout is there to catch.
    """
    from anonstudio.methods.contract import discover_methods
    from anonstudio.params import ParameterError, coerce, specs

    spec = next(p for p in specs(discover_methods()[method].params) if p.cli_flag == flag)
    if spec.kind not in ("int", "float"):
        return False
    try:
        number = coerce(spec, value)
        usual_number = coerce(spec, usual) if usual is not None else spec.default
    except ParameterError:
        return False
    inside = (spec.minimum is None or number >= spec.minimum) and (spec.maximum is None or number <= spec.maximum)
    return bool(usual_number) and inside and math.isfinite(number) and number >= 1000 * abs(usual_number)


FLAGS = _method_flags()
RT_EXAMPLE = Path(__file__).parents[1] / "data" / "rt" / "example.csv"


def _base(method: str, city: Path, corpus: Path) -> list[str]:
    """A quick, valid command of ``method`` whose flags the fuzz then spoils one at a time."""
    quick = _quick_commands(corpus)
    if method in quick:
        return quick[method]
    # A family not listed runs on the sample it declares, with its quick settings: a new family needs no line here.
    from anonstudio.methods.contract import get_method

    sample, settings = get_method(method).samples[0]
    argv = [method, sample]
    for key, value in settings.items():
        argv += [f"--{key.replace('_', '-')}", str(value)]
    return argv


def _quick_commands(corpus: Path) -> dict[str, list[str]]:
    return {
        "uniqueness": ["uniqueness", str(corpus / "small.dat"), "--m", "2"],
        "kmanon": ["kmanon", str(corpus / "small.dat"), "--k", "3", "--m", "2", "--verify-samples", "200"],
        "group-anonymize": ["group-anonymize", "adult", "--qi", "age,sex", "--sensitive", "occupation"],
        "threat": ["threat", "adult", "--qi", "age,sex", "--sensitive", "occupation", "--rows", "200",
                   "--iterations", "60", "--burn-in", "20", "--thinning", "1", "--etv-samples", "200"],
        "nonreciprocal": ["nonreciprocal", str(corpus / "small.dat"), "--k", "3"],
        "rho": ["rho", str(corpus / "small.dat"), "--setting", "fixed", "--rho", "0.5"],
        "rt": ["rt", str(RT_EXAMPLE), "--qi", "age,gender", "--items-column", "items", "--k", "2", "--m", "1"],
    }


def _assert_clean(result, argv) -> None:
    assert not result.hung, f"hang: {argv}"
    assert not result.traceback and "internal error" not in result.stderr, (argv, result.stderr[-2000:])
    assert result.code in (0, 2, 3), (argv, result)
    if result.code == 2:
        assert len(result.error_lines) == 1, (argv, result.stderr)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(choice=st.sampled_from(FLAGS), value=st.one_of(_bad_numbers(), st.sampled_from(
    ["PIPE", "ZERO", "FOLDER", "BINARY", "CYCLE", "TABLE", "none", "age", "age,age", "x=y", "sex=CYCLE",
     "occupation", "race"])))
def test_every_cli_parameter_gets_a_clean_answer(cli, corpus, small_city, tmp_path, choice, value):
    method, flag, kind = choice
    files = {"PIPE": corpus / "pipe", "ZERO": "/dev/zero", "FOLDER": corpus / "folder", "BINARY": corpus / "binary.bin",
             "CYCLE": corpus / "cycle.csv", "TABLE": corpus / "table.csv"}
    for key, path in files.items():
        value = value.replace(key, str(path))
    argv = [a for a in _base(method, small_city, corpus)]
    usual = None
    if flag in argv:
        i = argv.index(flag)
        usual = argv[i + 1]
        del argv[i:i + 2]
    out = Path(tempfile.mkdtemp(dir=tmp_path))  # one folder per example: the tmp_path is shared
    argv += [flag, value, "--quiet", "--json", str(out / "run.json")] if kind != "bool" else [flag, "--quiet"]
    result = cli.run(argv, cwd=out, timeout=60)
    if result.hung and _work_size(method, flag, value, usual):
        return
    _assert_clean(result, argv)
    if result.code == 2:
        assert not (out / "run.json").exists()


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from(["info", "convert", "attack", "synth-city"]),
       flag=st.sampled_from(["--top", "--record", "--min-items", "--seed", "--users", "--towers", "--area-km2",
                             "--mean-size", "--std-size", "--max-size", "--columns", "--format", "--encoding"]),
       value=st.one_of(_bad_numbers(), st.sampled_from(["utf-16", "bogus", "fimi", "csv-table", "a,b", "parquet"])))
def test_tool_commands_get_a_clean_answer(cli, corpus, tmp_path, command, flag, value):
    data = str(corpus / "small.dat")
    argv = {"info": ["info", data], "convert": ["convert", data, str(tmp_path / "out.csv")],
            "attack": ["attack", data, "--random"],
            "synth-city": ["synth-city", "--towers", "30", "--users", "200", "--mean-size", "3", "--std-size", "2",
                           "--max-size", "20", "--quiet", "--out", str(tmp_path / "c.dat")]}[command]
    if flag in argv:
        i = argv.index(flag)
        del argv[i:i + 2]
    argv += [flag, value]
    result = cli.run(argv, cwd=tmp_path, timeout=60)
    _assert_clean(result, argv)


def test_runner_reports_tracebacks_and_hangs(cli, tmp_path):
    """The harness itself: a clean error is clean, a hang is caught (the pipe blocks a naive open)."""
    result = cli.run(["info", str(tmp_path / "missing.dat")], cwd=tmp_path, timeout=30)
    assert result.code == 2 and len(result.error_lines) == 1 and not result.traceback
    assert math.isfinite(result.seconds)


_CELL = st.one_of(st.integers(-10**6, 10**6).map(str), st.floats(-1e6, 1e6, allow_nan=False).map(lambda f: f"{f:.3f}"),
                  st.sampled_from(["?", "", " ? ", "a", "b c", " d ", "inf", "nan", "1_0", "+5", "007", "1e3",
                                   "True", "x."]))


@LOADER_SETTINGS
@given(columns=st.lists(st.lists(_CELL, min_size=6, max_size=6), min_size=1, max_size=5),
       header=st.booleans())
def test_the_fast_table_reader_agrees_with_the_exact_one(tmp_path, columns, header):
    """pandas' C parser types plain files; the result must be what the exact reader gives."""
    from anonstudio.data.io.relational import _text_columns, _typed_columns
    from anonstudio.data.io.report import LoadReport

    rows = list(zip(*columns))
    path = tmp_path / "t.csv"
    names = [f"col{j}" for j in range(len(columns))]
    path.write_text(("" if not header else ", ".join(names) + "\n") + "".join(", ".join(r) + "\n" for r in rows))
    options = dict(header=header, missing=("?",), sep=",", names=None if header else names, encoding=None,
                   latin1_fallback=False, progress=None)
    try:
        exact = _text_columns(path, LoadReport(), **options)
    except DataFormatError:
        return
    fast = _typed_columns(path, LoadReport(), **options)
    if fast is None:
        return  # not plain: the exact reader is the one used
    assert fast[0] == exact[0] and fast[2] == exact[2]
    for name in exact[0]:
        a, b = fast[1][name], exact[1][name]
        assert str(a.dtype) == str(b.dtype), (name, a.dtype, b.dtype, list(b))
        assert a.astype(object).where(a.notna(), None).tolist() == b.astype(object).where(b.notna(), None).tolist()
