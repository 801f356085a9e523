"""Hypothesis fuzz of the side files and of project files: whatever they hold, one line and exit 0, 2 or 3.

Side files: sensitive items (rho), labels (nonreciprocal), queries, column and item hierarchies (rt), item
hierarchies and coordinates (kmanon). Project files: every field of a valid project given a TOML value of
every type, run through ``run`` and ``report``. The commands run in-process (the kernels load once) on tiny
data, with few examples each, so the whole module takes seconds.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from anonstudio.cli import main  # noqa: E402

from .project_files import valid_project  # noqa: E402

RT_EXAMPLE = Path(__file__).parents[1] / "data" / "rt" / "example.csv"
BASKETS = "".join(" ".join(str((i * 7 + j) % 13) for j in range(1 + i % 4)) + "\n" for i in range(30))
FAST = settings(max_examples=12, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

CHARS = list("0123456789,;*\t \"'#-.eE+xyzgabAB") + ["\n", "\n", "\n", "\r\n", "\x00", "é", "\u2028", "1e308"]
TEXT = st.lists(st.sampled_from(CHARS), max_size=80).map("".join)
#: Well-formed lines with hostile values, so the fuzz reaches past the first parse error.
HEADER_ROWS = {
    "sensitive": ("person,item\n", st.tuples(st.sampled_from(["1", "2", "*", "0", "99", "-1", "x", ""]),
                                             st.sampled_from(["0", "1", "7", "99", "", "a", "1e3"]))),
    "labels": ("record,label\n", st.tuples(st.sampled_from(["1", "2", "30", "0", "31", "x"]),
                                           st.sampled_from(["a", "b", "", "1", "é"]))),
    "coords": ("item,x,y\n", st.tuples(st.sampled_from([str(i) for i in range(13)] + ["99", "x"]),
                                       st.sampled_from(["0", "1.5", "-3", "1e308", "nan", "inf", "", "1e6"]),
                                       st.sampled_from(["0", "2", "1e7", "-inf", "x"]))),
    "item-hierarchy": ("", st.tuples(st.sampled_from([str(i) for i in range(13)] + ["g", "x"]),
                                     st.sampled_from(["g1", "g2", "0", "1", "*", ""]), st.sampled_from(["*", "g1"]))),
    "hierarchy": ("", st.tuples(st.sampled_from(["19", "22", "28", "39", "x", ""]),
                                st.sampled_from(["young", "old", "19", "*"]), st.sampled_from(["*", "young"]))),
}


def _content(kind: str):
    header, row = HEADER_ROWS[kind]
    sep = ";" if "hierarchy" in kind else ","
    rows = st.lists(row, max_size=12).map(lambda rs: "".join(sep.join(r) + "\n" for r in rs))
    return st.one_of(TEXT, st.tuples(st.booleans(), rows).map(lambda t: (header if t[0] else "") + t[1]))


def _queries():
    value = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.text(max_size=4),
                                   st.floats()), lambda inner: st.lists(inner, max_size=3)
                         | st.dictionaries(st.sampled_from(["rel", "items", "age", "workloads", "a"]), inner,
                                           max_size=3), max_leaves=12)
    return st.one_of(TEXT, value.map(json.dumps),
                     st.fixed_dictionaries({"workloads": st.dictionaries(st.sampled_from(["a", "b"]), value,
                                                                         max_size=2)}).map(json.dumps))


def _argv(kind: str, side: Path, folder: Path) -> list[str]:
    data = folder / "b.dat"
    data.write_text(BASKETS)
    rt = ["rt", str(RT_EXAMPLE), "--qi", "age,gender", "--items-column", "items", "--k", "2", "--m", "1"]
    return {
        "sensitive": ["rho", str(data), "--sensitive", str(side), "--m", "2"],
        "labels": ["nonreciprocal", str(data), "--k", "2", "--labels", str(side)],
        "coords": ["kmanon", str(data), "--k", "2", "--m", "1", "--coords", str(side), "--verify-samples", "50"],
        "item-hierarchy": ["kmanon", str(data), "--k", "2", "--m", "1", "--item-hierarchy", str(side),
                           "--verify-samples", "50"],
        "hierarchy": rt + ["--hierarchy", f"age={side}"],
        "queries": rt + ["--queries", str(side)],
    }[kind] + ["--quiet", "--json", str(folder / "run.json")]


def _assert_clean(code: int, err: str, argv: list[str]) -> None:
    assert "internal error" not in err and "Traceback" not in err, (argv, err)
    assert code in (0, 2, 3), (argv, code, err)
    if code == 2:
        errors = [ln for ln in err.splitlines() if ": error: " in ln]
        assert len(errors) == 1, (argv, err)


@pytest.mark.parametrize("kind", sorted(HEADER_ROWS) + ["queries"])
def test_any_side_file_gets_a_clean_answer(kind, tmp_path_factory, capsys):
    strategy = _queries() if kind == "queries" else _content(kind)

    @FAST
    @given(content=strategy)
    def check(content):
        folder = tmp_path_factory.mktemp(kind)
        side = folder / ("side.json" if kind == "queries" else "side.csv")
        side.write_text(content, encoding="utf-8", errors="surrogatepass")
        before = side.read_bytes()
        argv = _argv(kind, side, folder)
        code = main(argv)
        _assert_clean(code, capsys.readouterr().err, argv)
        assert side.read_bytes() == before
        if code == 2:
            assert not (folder / "run.json").exists()

    check()


TOML_VALUES = st.one_of(
    st.sampled_from(['"abc"', '""', "nan", "inf", "-inf", "0", "-1", "99999999999999999999", "1.5", "true",
                     "1979-05-27", "07:32:00", "[]", "[1, 2]", '["a"]', "{}", "{a = 1}", "[[1], [2]]", '"*"',
                     '"1/3"', '"fimi"', "1e308"]),
    st.integers(-2**70, 2**70).map(str),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6).map(json.dumps),
)


def test_any_toml_value_in_any_project_field(tmp_path_factory, capsys):
    folder = tmp_path_factory.mktemp("project")
    text = valid_project(folder).read_text(encoding="utf-8")
    lines = text.splitlines()
    fields = [i for i, ln in enumerate(lines) if " = " in ln and not ln.startswith("#")]

    @settings(max_examples=40, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(field=st.sampled_from(fields), value=TOML_VALUES, command=st.sampled_from(["run", "report"]))
    def check(field, value, command):
        changed = list(lines)
        changed[field] = changed[field].split(" = ", 1)[0] + " = " + value
        path = folder / "fuzz.toml"
        path.write_text("\n".join(changed) + "\n", encoding="utf-8")
        out = folder / "out"
        argv = (["run", str(path), "--out", str(out), "--quiet", "--no-sweeps"] if command == "run"
                else ["report", str(path), "--html", str(folder / "r.html"), "--no-figures", "--quiet"])
        code = main(argv)
        _assert_clean(code, capsys.readouterr().err, argv)

    check()
