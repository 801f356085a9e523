"""The fast table reader (pandas' C parser over the bytes, then checks) gives what the exact reader gives.

Whatever the file, ``load_table`` must return the table, report and error that the exact reader alone
(the csv module's rows typed by ``_column``) returns: the fast reader's checks may send a file to the exact
reader, never read it differently.
"""
from __future__ import annotations

import codecs
import subprocess
import sys
import warnings
from contextlib import contextmanager
from unittest import mock

import numpy as np
import pandas as pd
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from anonstudio.data.errors import DataFormatError  # noqa: E402
from anonstudio.data.io import load_report, load_table, relational  # noqa: E402
from anonstudio.data.io import text as text_module  # noqa: E402
from anonstudio.data.io.report import LoadReport  # noqa: E402

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# Cells the two parsers may read differently: codes with leading zeros, booleans, integers past int64 and
# uint64, infinities, NaN spelt out, white space pandas keeps (tabs, form feeds, Unicode spaces, trailing
# spaces), markers, comment marks inside a field, non-ASCII digits.
_TRICKY = ["?", "", " ? ", "? ", "a", "b c", " d ", "e ", "inf", "-Infinity", "nan", "NaN", "1_0", "+5", "-0", "007",
           "-01", "0", "00.5", "0.5", "1e3", "1E+03", "5.", ".5", "True", "False", "x.", "<=50K.",
           "18446744073709551615", "99999999999999999999999", "-9223372036854775809", "\t7", "7\t", "8 ", "é",
           "\u3000", "\x0c", "a\x0c", "\x1f", "٣", "x#", "|", "#", "NA", "-1", "-1.0", "1e400", "0x10"]
_CELL = st.one_of(st.integers(-10**6, 10**6).map(str), st.integers(-2**63, 2**64).map(str),
                  st.floats(allow_nan=False, allow_infinity=False).map(repr),
                  st.floats(-1e6, 1e6, allow_nan=False).map(lambda f: f"{f:.3f}"),
                  st.sampled_from(_TRICKY))


def _with_odd(base, odd):
    """Lists of ``base`` cells with one cell of ``odd`` among them, the cell that may decide the type."""
    return st.tuples(st.lists(base, min_size=1, max_size=7), st.sampled_from(odd), st.integers(0, 7)).map(
        lambda t: [*t[0][:t[2]], t[1], *t[0][t[2]:]])


# A column's cells: mostly of one kind, as in a real table, so that numeric columns occur.
_COLUMN = st.one_of(st.lists(st.integers(-1000, 1000).map(str), min_size=1, max_size=8),
                    st.lists(st.one_of(st.integers(0, 99).map(str), st.sampled_from(["?", ""])), min_size=1,
                             max_size=8),
                    st.lists(st.floats(-1e3, 1e3, allow_nan=False).map(repr), min_size=1, max_size=8),
                    st.lists(st.sampled_from(["Private", "State-gov", "?", "Self-emp"]), min_size=1, max_size=8),
                    st.lists(_CELL, min_size=1, max_size=8),
                    _with_odd(st.integers(-99, 99).map(str), _TRICKY))
# What may stand between rows: nothing mostly, or a line either reader may skip, refuse or mistake.
_EXTRA = st.sampled_from(["", "", "", "", "\n", "# a note\n", "|1x3 Cross validator\n", "   \n", "\t\n", "\x0c\n",
                          " \t \n", '"q",1\n', "only\n", "\u2028\n"])


def _frame(table) -> tuple:
    frame = table.frame
    return (list(frame.columns), [str(t) for t in frame.dtypes],
            [frame[c].astype(object).where(frame[c].notna(), None).tolist() for c in frame.columns])


@contextmanager
def _exact_only():
    with mock.patch.object(relational, "_typed_columns", lambda *a, **k: None):
        yield


def _outcome(path, **options):
    """(table, report) or the error text of ``load_table``."""
    try:
        table = load_table(path, format="csv-table", **options)
    except DataFormatError as exc:
        return "error", str(exc)
    report = load_report(table)
    return _frame(table), report.warnings, report.details


def _agree(path, **options):
    fast = _outcome(path, **options)
    with _exact_only():
        exact = _outcome(path, **options)
    assert fast == exact, (path.read_bytes()[:400], options)
    return fast


def _write(path, columns, *, sep, header, end, extras, bom, final_end, ragged):
    n_rows = min(len(c) for c in columns)
    rows = [[c[i] for c in columns] for i in range(n_rows)]
    if ragged is not None and rows:
        row = rows[ragged % len(rows)]
        row.append("x") if ragged % 2 else row.pop()
    lines = ([sep.join(f"h{j}" for j in range(len(columns)))] if header else []) + [sep.join(r) for r in rows]
    text = ""
    for i, line in enumerate(lines):
        text += extras[i % len(extras)].replace("\n", end) + line + end
    if not final_end:
        text = text[: -len(end)]
    raw = text.encode("utf-8", "surrogatepass")
    path.write_bytes((codecs.BOM_UTF8 if bom else b"") + raw)


@SETTINGS
@given(columns=st.lists(_COLUMN, min_size=1, max_size=5), sep=st.sampled_from([",", ", ", ";", "\t", "|"]),
       header=st.booleans(), end=st.sampled_from(["\n", "\n", "\r\n", "\r"]),
       extras=st.lists(_EXTRA, min_size=1, max_size=4), bom=st.booleans(), final_end=st.booleans(),
       ragged=st.one_of(st.none(), st.integers(0, 20)),
       missing=st.sampled_from([("?",), ("?", "NA"), ("-1",), (" ?",), ()]))
@example(columns=[["?", "?"], ["a", "b"]], sep=",", header=False, end="\n", extras=[""], bom=False,
         final_end=True, ragged=None, missing=("?",))  # a column of missing values only is text
@example(columns=[["1", "2"], ["a", "b"]], sep=",", header=False, end="\n", extras=["", "\x0c\n"], bom=False,
         final_end=True, ragged=None, missing=("?",))  # a line of a form feed only is blank
@example(columns=[["1", "2"], ["a", "b"]], sep="\t", header=False, end="\n", extras=["", "\t\n"], bom=False,
         final_end=True, ragged=None, missing=("?",))  # a line of a tab only is blank
@example(columns=[[" a", "a"], ["b", "c"]], sep=",", header=False, end="\n", extras=[""], bom=False,
         final_end=True, ragged=None, missing=("?",))  # a space starting a line, dropped by both
def test_load_table_agrees_with_the_exact_reader(tmp_path, columns, sep, header, end, extras, bom, final_end,
                                                  ragged, missing):
    path = tmp_path / "t.csv"
    _write(path, columns, sep=sep, header=header, end=end, extras=extras, bom=bom, final_end=final_end,
           ragged=ragged)
    _agree(path, header=header, missing=missing)
    _agree(path, missing=missing)  # the header guessed


# Odd cells among numbers or words, each able to change its column's type or values under one reader only.
_ODD_NUMBER = ["007", "-01", "00.5", "+005", "True", "inf", "-inf", "1e400", "99999999999999999999999",
               "18446744073709551615", "nan", "?", "", " ", "5 ", "\t5", "5\x0c", "٣", "+5", "1_0", "-1", "-1.0",
               "1.5", "x", "NA", "\u30005"]
_ODD_WORD = ["a ", "b  ", "\tc", "d\t", "\x0ce", "f\x1f", "\u3000g", "h\u3000", "5", "5 ", "?", "? ", "", "nan",
             "NA", "Ünï", "x.", "007"]


_TYPED_COLUMN = st.one_of(_with_odd(st.integers(-99, 99).map(str), _ODD_NUMBER),
                          _with_odd(st.floats(-1e3, 1e3, allow_nan=False).map(repr), _ODD_NUMBER),
                          _with_odd(st.sampled_from(["Private", "State-gov", "Self emp", "?"]), _ODD_WORD),
                          _with_odd(st.sampled_from(["1", "2.5", "3e2", "-4"]), _ODD_WORD),
                          st.lists(st.integers(0, 9).map(str), min_size=1, max_size=8))


@SETTINGS
@given(columns=st.lists(_TYPED_COLUMN, min_size=1, max_size=4), sep=st.sampled_from([",", ", ", ";", "\t", "|"]),
       header=st.booleans(), missing=st.sampled_from([("?",), ("?", "NA"), ("NA",), ("-1",)]))
def test_columns_are_typed_as_the_exact_reader_types_them(tmp_path, columns, sep, header, missing):
    """Well-formed files (every row as long as the first, no quotes): what differs is only the cells."""
    path = tmp_path / "t.csv"
    _write(path, columns, sep=sep, header=header, end="\n", extras=[""], bom=False, final_end=True, ragged=None)
    _agree(path, header=header, missing=missing)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(columns=st.lists(_COLUMN, min_size=2, max_size=4), chunk=st.sampled_from([16, 61, 200]),
       extras=st.lists(_EXTRA, min_size=1, max_size=3))
def test_chunks_typed_apart_agree_with_the_exact_reader(tmp_path, columns, chunk, extras):
    """Chunks that pandas types differently (numbers in one, a missing value or text in another)."""
    path = tmp_path / "t.csv"
    long = [c * 12 for c in columns]
    _write(path, long, sep=",", header=True, end="\n", extras=extras, bom=False, final_end=True, ragged=None)
    with mock.patch.object(text_module, "CHUNK_BYTES", chunk):
        _agree(path, header=True)


def _fast(path, **options):
    """The fast reader's columns, or None when it leaves the file to the exact reader."""
    defaults = dict(header="auto", missing=("?",), sep=None, names=None, encoding=None, latin1_fallback=False,
                    progress=None)
    return relational._typed_columns(path, LoadReport(), **{**defaults, **options})


@pytest.mark.parametrize("name, content", [
    ("adult.data", "39, State-gov, 77516, Bachelors, <=50K\n50, ?, 83311, Bachelors, >50K\n\n"),
    ("adult.test", "|1x3 Cross validator\n39, State-gov, 77516, <=50K.\n50, ?, 83311, >50K.\n"),
    ("crlf.csv", "age,city\r\n30,Oslo\r\n41,Bergen\r\n"),
    ("bom.csv", "\ufeffage;city\n30;Oslo\n41;Bergen\n"),
    ("missing-number.csv", "age,city\n30,Oslo\n?,Bergen\n41,\n"),
    ("tabs.tsv", "age\tcity\n30\tOslo\n41\tBergen\n"),
    ("zip.csv", "zip,n\n02134,1\n10001,2\n"),
    ("flags.csv", "flag,n\nTrue,1\nFalse,2\n"),
    ("accents.csv", "city,n\nZürich,1\nMálaga,2\n"),
])
def test_common_files_take_the_fast_reader(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8"))
    assert _fast(path) is not None
    _agree(path)


@pytest.mark.parametrize("content, reason", [
    ('a,b\n"x, y",1\n', "quoted field"),
    ("a,b\n1,2\n3\n4,5\n", "short row"),
    ("a,b\n1,2\n3,4,5\n", "long row"),
    ("a\tb\n1\t2\n\t\n", "a line of tabs"),
    ("a,b\nZ\xfcrich,1\n", "not UTF-8"),
])
def test_files_the_fast_reader_leaves_to_the_exact_one(tmp_path, content, reason):
    path = tmp_path / "t.csv"
    path.write_bytes(content.encode("latin-1"))
    assert _fast(path) is None
    outcome = _agree(path)
    if reason in ("short row", "long row"):
        assert outcome[0] == "error" and "line 3" in outcome[1]


def test_the_exact_reader_names_the_line_of_a_short_row(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n3\n4,5\n")
    with pytest.raises(DataFormatError, match=r"t.csv, line 3: expected 2 fields \(as on line 1\) but found 1"):
        load_table(path)


def test_adult_as_pandas_reads_it(io_data):
    """The UCI sample through the fast reader: numbers as int64, '?' missing, text columns as pandas' str."""
    typed = _fast(io_data / "adult_sample.data")
    assert typed is not None
    names, frame, counts = typed
    raw = pd.read_csv(io_data / "adult_sample.data", header=None, skipinitialspace=True, na_values=["?"])
    assert frame.shape == raw.shape and list(frame.columns) == names
    for j, name in enumerate(names):
        assert frame[name].dtype == raw[j].dtype
        assert counts[name] == int(raw[j].isna().sum())
    assert np.array_equal(frame[names[0]].to_numpy(), raw[0].to_numpy())


def test_a_line_of_white_space_is_blank_whether_or_not_its_chunk_is_plain(tmp_path):
    """A form feed or U+3000 alone on a line is skipped like a blank line, also by pandas' split of a plain
    chunk (it made such a line a row of one missing value, the csv module skipped it)."""
    plain, quoted = tmp_path / "plain.csv", tmp_path / "quoted.csv"
    plain.write_text("n\n1\n\x0c\n2\n\u3000\n3\n")
    quoted.write_text('n\n"1"\n\x0c\n2\n\u3000\n3\n')
    for path in (plain, quoted):
        with _exact_only():
            assert load_table(path).frame["n"].tolist() == [1, 2, 3]
        _agree(path)


@pytest.mark.parametrize("names", [["age", "workclass", "class"], ["é", "名前", "", "a b"], ["x"]])
def test_column_names_are_the_index_pandas_makes_of_them(names):
    """The fast reader's column index, built from Arrow buffers, is ``pd.Index(names)``."""
    pd.testing.assert_index_equal(relational._text_index(names), pd.Index(names), exact=True)


def test_column_names_follow_pandas_when_it_keeps_text_as_objects():
    with warnings.catch_warnings():  # the option is deprecated in pandas 3, still honoured
        warnings.simplefilter("ignore")
        if "infer_string" not in dir(pd.options.future):
            pytest.skip("pandas no longer has the option")
        with pd.option_context("future.infer_string", False):
            pd.testing.assert_index_equal(relational._text_index(["a", "b"]), pd.Index(["a", "b"]), exact=True)


def test_a_plain_table_loads_without_pyarrows_pandas_layer(io_data):
    """A plain file's first load in a process builds no Arrow array from Python objects: the first such
    conversion sets up pyarrow's pandas layer, 3.5-4 ms of a 45 ms load of Adult, which pandas' own
    ``read_csv`` of the file does not pay either."""
    code = ("import sys, pandas\nfrom anonstudio.data.io import load_table\n"
            f"t = load_table({str(io_data / 'adult_sample.data')!r})\n"
            "print(t.n_rows, 'pyarrow.pandas_compat' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    n_rows, imported = out.stdout.split()
    assert int(n_rows) > 0 and imported == "False"
