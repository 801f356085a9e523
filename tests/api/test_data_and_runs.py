"""an.open / an.sample, the run object's display and interrupts, an.evaluate, and what ``import anonstudio`` costs."""
from __future__ import annotations

import contextlib
import io
import json
import signal

import pytest

import anonstudio as an
from anonstudio.methods.contract import without_timings

RHO = {"m": 2, "sensitive_fraction": 0.5, "seed": 3}


def _cli(argv: list[str]) -> int:
    from anonstudio.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


# ---------------------------------------------------------------------------------------------------- opening data
def test_open_reads_a_file_as_the_cli_does(tmp_path):
    from anonstudio.data.datasets import open_dataset

    path = tmp_path / "baskets.csv"
    path.write_text("record,item\n1,bread\n1,milk\n2,beer\n3,bread\n", encoding="utf-8")
    data = an.open(path)
    same = open_dataset(path)
    assert data.vocab == same.vocab and data.indptr.tolist() == same.indptr.tolist()
    assert data.record_labels(0) == ["bread", "milk"]
    with pytest.raises(ValueError, match="no option|takes no"):
        an.open(path, sep=";", header=True, format="fimi")


def test_open_takes_the_reading_options_of_the_cli(tmp_path):
    path = tmp_path / "people.txt"
    path.write_text("34;F;flu\n51;M;cold\n", encoding="utf-8")
    table = an.open(path, format="csv-table", sep=";", columns=["age", "sex", "illness"],
                    roles={"illness": "sensitive"})
    assert list(table.frame.columns) == ["age", "sex", "illness"] and table.sensitive == ["illness"]
    assert table.frame["age"].tolist() == [34, 51]


def test_open_a_dataframe_and_a_list_of_item_sets():
    import pandas as pd

    frame = pd.DataFrame({"age": [30, 40, 50], 7: ["a", "b", "a"]}, index=[10, 11, 12])
    table = an.open(frame, roles="age=quasi-identifier,7=sensitive", name="people")
    assert table.name == "people" and list(table.frame.columns) == ["age", "7"]
    assert table.frame.index.tolist() == [0, 1, 2] and table.sensitive == ["7"]
    frame.loc[10, "age"] = 99  # the table is a copy
    assert table.frame["age"].tolist() == [30, 40, 50]
    sets = an.open([{"bread", "milk"}, ["beer"], set()])
    assert sets.n_records == 3 and sets.record_labels(0) == ["bread", "milk"] and sets.record_labels(2) == []
    with pytest.raises(TypeError, match="record 2 is 'beer'"):
        an.open([{"bread"}, "beer"])
    with pytest.raises(ValueError, match="roles apply to tables"):
        an.open([{"a"}], roles={"a": "sensitive"})


def test_sample_and_samples():
    assert "chess" in an.samples()
    data = an.sample("sports-example")
    assert data.n_records == 6
    with pytest.raises(KeyError, match="bundled samples: .*chess"):
        an.sample("no-such-sample")


def test_a_family_opens_a_path_the_way_its_cli_command_does(tmp_path):
    # A sample name given as text goes through the family's own opener, like the CLI's DATASET argument.
    run = an.rho("sports-example", **RHO, progress=False)
    assert run.data.name == "sports-example" and run.status == "done"


def test_to_frame_in_both_forms():
    data = an.open([{"b", "a"}, set(), {"c"}])
    long = data.to_frame()
    assert long.to_dict("list") == {"record": [1, 1, 3], "item": ["a", "b", "c"]}
    sets = data.to_frame("sets")
    assert sets["items"].tolist() == [("a", "b"), (), ("c",)] and sets["record"].tolist() == [1, 2, 3]


# ------------------------------------------------------------------------------------------------- runs and display
def test_a_table_release_is_a_dataframe_and_the_html_shows_the_verdict(tmp_path):
    adult = an.sample("adult")
    # A DataFrame goes in as a table: the first 3,000 people of Adult, with the sample's column roles.
    people = an.open(adult.frame.head(3000), roles={c: r.value for c, r in adult.roles.items()}, name="adult-3000")
    run = an.group_anonymize(people, k=5, progress=False)
    release = run.release
    assert type(release).__name__ == "DataFrame" and 0 < len(release) <= run.data.n_rows
    run.save(out=tmp_path / "release.csv")
    assert len((tmp_path / "release.csv").read_text("utf-8").splitlines()) == len(release) + 1
    html = run._repr_html_()
    assert "Independent check passed" in html and "#1b7f3b" in html and "<table" in html
    assert "<svg" in html and "Group sizes on adult-3000" in html
    sizes, groups = run.figure().series[0][1:]
    assert min(sizes) >= 5 and sum(s * g for s, g in zip(sizes, groups)) == len(release)


def test_rho_plots_its_passes_and_a_run_without_a_plot_shows_its_measures(monkeypatch):
    run = an.rho(an.sample("sports-example"), **RHO, progress=False)
    figure = run.figure()
    passes = run.result.passes
    assert figure.series[0][1] == tuple(float(x) for x in range(len(passes) + 1))
    assert figure.series[0][2][-1] == passes[-1].suppressed_total and "<svg" in run._repr_html_()
    monkeypatch.setattr(type(run.spec), "figure", lambda self, method_run: None)
    assert run.figure() is None and "<svg" not in run._repr_html_() and "<table" in run._repr_html_()
    assert "Independent check passed" in repr(run)
    assert str(run).splitlines() == run.lines() and run.check in run.lines()


def test_saving_an_audit_file_warns_as_the_cli_does(tmp_path):
    run = an.rho(an.sample("sports-example"), **RHO, progress=False)
    with pytest.warns(UserWarning, match="^sensitive_out writes an audit file: it lists what each person wants"):
        assert run.save(sensitive_out=tmp_path / "e.csv") == []
    assert (tmp_path / "e.csv").read_text("utf-8").startswith("person,item")


def test_a_measurement_has_no_release_and_no_verdict():
    run = an.uniqueness(an.sample("sports-example"), max_m=2, progress=False)
    assert run.release is None and run.check == "" and run.status == "done"
    html = run._repr_html_()
    assert "<table" in html and "<svg" in html and "Uniqueness vs m on sports-example" in html
    figure = run.figure()
    assert [name for name, _, _ in figure.series] == ["itemsets", "people"] and figure.series[0][1] == (1.0, 2.0)


def test_the_main_plot_is_an_svg_with_labelled_axes_and_a_legend_beside_the_data():
    from anonstudio.api.plot import LEFT, RIGHT, WIDTH, figure_svg
    from anonstudio.methods.contract import Figure

    svg = figure_svg(Figure("Title", "m (items)", "share unique", (("a", (1.0, 2.0, 3.0), (0.1, 0.5, float("nan"))),
                                                                  ("b", (1.0, 3.0), (0.2, 0.3))), y_range=(0, 1)))
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert ">m (items)</text>" in svg and ">share unique</text>" in svg and svg.count("<polyline") == 2
    assert svg.count("<circle") == 4  # the NaN point is left out
    legend_x = WIDTH - RIGHT + 10
    assert f'<line x1="{legend_x}"' in svg and WIDTH - RIGHT > LEFT  # the legend starts right of the plot area
    assert ">1.5<" not in svg  # whole-number x values get whole-number ticks
    # Every point lies inside the plot area, whatever the data's range (the axes end on a tick beyond it).
    import re

    for low, high in ((0.0, 113.0), (5.0, 16.0), (1e-5, 4.2e-5)):
        svg = figure_svg(Figure("T", "x", "y", (("s", (low, (low + high) / 2, high), (low, high, (low + high) / 2)),)))
        frame = re.search(r'<rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"', svg).groups()
        left, top, width, height = map(float, frame)
        for cx, cy in re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)"', svg):
            assert left - 0.1 <= float(cx) <= left + width + 0.1 and top - 0.1 <= float(cy) <= top + height + 0.1


def _interrupt_at_progress(monkeypatch, times: int) -> None:
    """Send this process SIGINT (as Ctrl-C or the notebook's stop button do) at the run's first ``times`` progress
    reports."""
    from anonstudio.api import progress as bar_module

    original = bar_module.BarProgress.set
    sent = []

    def set_and_interrupt(self, fraction, status=""):
        original(self, fraction, status)
        if fraction > 0 and len(sent) < times:
            sent.append(fraction)
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(bar_module.BarProgress, "set", set_and_interrupt)


def test_an_interrupt_returns_the_partial_run_marked_incomplete(monkeypatch, tmp_path):
    # The handler the run found, put back after it: Python's own, or "ignore" when the suite runs as a
    # background job of a shell (which starts it with SIGINT ignored).
    before = signal.getsignal(signal.SIGINT)
    _interrupt_at_progress(monkeypatch, 1)
    run = an.kmanon(an.sample("small-city"), k=5, m=2, sigma=0.99, seed=1, constraint="free", progress=False)
    assert run.status == "cancelled" and not run.complete
    assert run.check.startswith("Independent check incomplete")
    assert run.result is not None and run.to_json()["complete"] is False
    assert run.release is None  # a stopped run publishes nothing
    assert run.save(out=tmp_path / "release.dat", json=tmp_path / "run.json")[0].startswith("--out")
    assert not (tmp_path / "release.dat").exists() and (tmp_path / "run.json").exists()
    assert signal.getsignal(signal.SIGINT) is before  # the handler is put back


@pytest.mark.parametrize("name, values", [("rho", RHO), ("uniqueness", {"max_m": 2}), ("nonreciprocal", {"k": 2})])
def test_a_second_interrupt_still_returns_a_run_marked_incomplete(monkeypatch, name, values):
    _interrupt_at_progress(monkeypatch, 2)
    run = getattr(an, name)(an.sample("sports-example"), **values, progress=False)
    assert run.status == "cancelled" and not run.complete
    if run.spec.guarantee:
        assert run.check.startswith("Independent check incomplete")
    # It shows itself like any run, also when it stopped before it had a result to describe.
    assert "cancelled" in run._repr_html_() and run.lines() and run.to_json()["complete"] is False


def test_the_progress_bar_draws_and_closes(capsys):
    run = an.rho(an.sample("sports-example"), **RHO)
    assert run.status == "done"
    assert "rho" in capsys.readouterr().err


# -------------------------------------------------------------------------------------------------------- evaluate
def test_evaluate_is_the_clis(tmp_path):
    run = an.rho(an.sample("sports-example"), **RHO, progress=False)
    run.save(out=tmp_path / "suppressed.dat")
    ev = an.evaluate(an.sample("sports-example"), release=tmp_path / "suppressed.dat", m=2, k=2,
                     claim=["k=2,m=1"], progress=False)
    out = tmp_path / "cli.json"
    code = _cli(["evaluate", "sports-example", "--release", str(tmp_path / "suppressed.dat"), "--m", "2", "--k", "2",
                 "--claim", "k=2,m=1", "--json", str(out), "--quiet"])
    assert code == (3 if ev.status == "not-met" else 0)
    assert ev.to_json(timings=False) == without_timings(json.loads(out.read_text("utf-8")))
    assert ev.check.startswith("Independent check") and "prosecutor_risk_m2" in ev.summary()
    ev.save(json=tmp_path / "api.json", csv=tmp_path / "api.csv")
    assert json.loads((tmp_path / "api.json").read_text("utf-8")) == ev.to_json()
    assert (tmp_path / "api.csv").read_text("utf-8").startswith("m,method,")
    with pytest.raises(an.ParameterError, match="^m must be in 1..") as caught:
        an.evaluate(an.sample("sports-example"), release=tmp_path / "suppressed.dat", m=0, k=2, progress=False)
    assert caught.value.name == "m"
    with pytest.raises(an.ParameterError) as caught:
        an.evaluate(an.sample("sports-example"), release=tmp_path / "suppressed.dat", m=2, k=2, method="guess")
    assert caught.value.name == "method"
    with pytest.raises(TypeError, match="'k'"):
        an.evaluate(an.sample("sports-example"), release=tmp_path / "suppressed.dat", m=2)


def test_evaluate_is_one_callable_whether_or_not_its_package_was_imported():
    import anonstudio.evaluate as package

    assert an.evaluate is package and callable(an.evaluate)
    import inspect

    assert "claim" in inspect.signature(an.evaluate).parameters


def test_a_keyword_the_settings_make_irrelevant_is_named_in_a_warning():
    with pytest.warns(UserWarning, match="rho: noise is ignored: it only applies when .*setting is 'fixed\\+'"):
        run = an.rho(an.sample("sports-example"), **RHO, noise=0.05, progress=False)
    assert run.status == "done"


@pytest.mark.parametrize("name", sorted(__import__("anonstudio.methods.contract", fromlist=["x"]).discover_methods()))
def test_a_run_stopped_before_any_result_still_shows_itself(name):
    # What an interrupt that arrives while no handler of ours is installed leaves: the recipe, no result.
    from anonstudio.api.run import Run
    from anonstudio.methods.contract import MethodRun, dataset_ref, get_method

    spec = get_method(name)
    data, params = spec.example()
    if isinstance(data, type(an.sample("sports-example"))):
        data = an.sample("sports-example")  # smaller than kmanon's example city, which takes seconds to build
    run = Run(MethodRun(spec, params, data, dataset_ref(data), cancelled=True))
    assert run.status == "cancelled" and run.release is None and run.summary() == {"seconds": 0.0}
    assert spec.title in run._repr_html_() and run.lines()[0] == spec.title
    assert run.to_json()["complete"] is False
