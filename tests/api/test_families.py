"""The library API runs every family through the CLI's pipeline: same JSON, same files, same parameter checks.

The CLI runs in this process (``anonstudio.cli.main``), on the family's quick bundled-sample settings.
"""
from __future__ import annotations

import contextlib
import dataclasses
import html
import inspect
import io
import json
import math

import pytest

import anonstudio as an
from anonstudio.methods.contract import discover_methods, without_timings
from anonstudio.params import is_enabled, specs

SPECS = discover_methods()
NAMES = sorted(SPECS)

#: Families whose first sample takes long with its settings: the same check on the 6-person worked example.
SMALL_SAMPLE = {"rho": "sports-example"}


def _settings(name: str) -> tuple[str, dict]:
    """(sample, keyword arguments): the family's example params with its first sample's settings, as keywords
    for the fields that differ from the defaults."""
    spec = SPECS[name]
    _, params = spec.example()
    sample, settings = spec.samples[0]
    fields = {f.name for f in dataclasses.fields(params)}
    params = dataclasses.replace(params, **{k: v for k, v in settings.items() if k in fields})
    default = spec.params()
    current = {p.name: getattr(params, p.name) for p in specs(spec.params)}
    # Only what applies with these settings (the others would be named in a warning, by the CLI and here alike).
    values = {p.name: getattr(params, p.name) for p in specs(spec.params)
              if getattr(params, p.name) != getattr(default, p.name) and is_enabled(p, current)}
    return SMALL_SAMPLE.get(name, sample), values


def _flags(spec, values: dict) -> list[str]:
    argv = []
    for p in specs(spec.params):
        if p.name not in values:
            continue
        value = values[p.name]
        if p.kind == "bool":
            argv.append(p.cli_flag if value else "--no-" + p.cli_flag[2:])
        elif isinstance(value, tuple):
            argv += [p.cli_flag, ",".join(str(v) for v in value)]
        else:
            argv += [p.cli_flag, "none" if value is None else str(value)]
    return argv


def _cli(argv: list[str]) -> int:
    from anonstudio.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


# kmanon's is the issue's own check, with its files, below.
@pytest.mark.parametrize("name", [n for n in NAMES if n != "kmanon"])
def test_the_json_of_a_family_function_is_the_clis(name, tmp_path):
    spec = SPECS[name]
    sample, values = _settings(name)
    run = getattr(an, name.replace("-", "_"))(an.sample(sample), **values, progress=False)
    out = tmp_path / "cli.json"
    assert _cli([name, sample, *_flags(spec, values), "--json", str(out), "--quiet"]) == run.method_run.exit_code
    cli = json.loads(out.read_text(encoding="utf-8"))
    assert run.to_json(timings=False) == without_timings(cli)
    assert run.to_json()["run"]["seconds"] >= 0  # the timings are there, only left out of the comparison
    assert run.check == (run.method_run.description().check)
    assert set(run.summary()) == set(run.method_run.summary())
    _has_its_plot(name, run)


def _has_its_plot(name: str, run) -> None:
    """Every family shows its main figure in a notebook: labelled axes, points on every line, drawn inline."""
    figure = run.figure()
    assert figure is not None, f"{name} has no main figure"
    assert figure.title and figure.x_label and figure.y_label and figure.series
    for label, xs, ys in figure.series:
        assert label and len(xs) == len(ys) > 0 and all(math.isfinite(x) for x in xs)
    page = run._repr_html_()
    assert "<svg" in page and html.escape(figure.title) in page and html.escape(figure.y_label) in page


def test_the_issue_check_and_the_saved_files_are_the_clis(tmp_path):
    """an.kmanon(an.sample("small-city"), k=5, m=2, sigma=0.99, seed=1, constraint="free") is
    anonstudio-cli kmanon small-city --k 5 --m 2 --sigma 0.99 --seed 1 --constraint free, files included."""
    run = an.kmanon(an.sample("small-city"), k=5, m=2, sigma=0.99, seed=1, constraint="free", progress=False)
    assert run.check.startswith("Independent check passed") and run.status == "done"
    argv = ["kmanon", "small-city", "--k", "5", "--m", "2", "--sigma", "0.99", "--seed", "1", "--constraint", "free"]
    cli_dir, api_dir = tmp_path / "cli", tmp_path / "api"
    cli_dir.mkdir()
    api_dir.mkdir()
    assert _cli([*argv, "--json", str(cli_dir / "run.json"), "--out", str(cli_dir / "release.dat"),
                 "--map-out", str(cli_dir / "map.csv"), "--quiet"]) == 0
    assert run.to_json(timings=False) == without_timings(json.loads((cli_dir / "run.json").read_text("utf-8")))
    assert run.save(out=api_dir / "release.dat", map_out=api_dir / "map.csv", json=api_dir / "run.json") == []
    for name in ("release.dat", "map.csv"):
        assert (api_dir / name).read_bytes() == (cli_dir / name).read_bytes(), name
    assert json.loads((api_dir / "run.json").read_text("utf-8")) == run.to_json()
    # The release in memory is the file's: the same people with the same published items.
    release = run.release
    from anonstudio.data.io import load_transactions

    saved = load_transactions(api_dir / "release.dat")
    assert release.n_records == saved.n_records == 5000
    assert [release.record_labels(u) for u in range(0, 5000, 97)] == \
           [saved.record_labels(u) for u in range(0, 5000, 97)]
    frame = release.to_frame()
    assert list(frame.columns) == ["record", "item"] and frame["record"].iloc[0] == 1
    assert len(frame) == len(release.indices)


def test_save_refuses_an_output_the_family_does_not_have(tmp_path):
    run = an.rho(an.sample("sports-example"), **_settings("rho")[1], progress=False)
    with pytest.raises(TypeError, match="no output 'map_out'.*out, sensitive_out, rules_out, json"):
        run.save(map_out=tmp_path / "map.csv")
    assert not (tmp_path / "map.csv").exists()


@pytest.mark.parametrize("name", NAMES)
def test_a_bad_value_raises_parameter_error_naming_the_keyword(name):
    spec = SPECS[name]
    bounded = next(p for p in specs(spec.params) if p.kind in ("int", "float") and p.minimum is not None
                   and not p.enabled_when)
    bad = bounded.minimum - 1
    function = getattr(an, name.replace("-", "_"))
    with pytest.raises(an.ParameterError) as caught:
        function("a dataset that is never opened", **{bounded.name: bad}, progress=False)
    assert caught.value.name == bounded.name
    assert str(caught.value).startswith(f"{bounded.name} must be at least")


@pytest.mark.parametrize("name", NAMES)
def test_a_choice_outside_its_choices_names_the_keyword(name):
    spec = SPECS[name]
    choice = next((p for p in specs(spec.params) if p.kind == "choice"), None)
    if choice is None:
        pytest.skip(f"{name} has no choice parameter")
    with pytest.raises(an.ParameterError) as caught:
        getattr(an, name.replace("-", "_"))("never opened", **{choice.name: "no-such-choice"}, progress=False)
    assert caught.value.name == choice.name and "must be one of" in str(caught.value)


def test_a_limit_that_depends_on_the_data_names_the_keyword():
    with pytest.raises(an.ParameterError, match="^k = 50 is larger than the 6") as caught:
        an.kmanon(an.sample("sports-example"), k=50, m=1, constraint="free", progress=False)
    assert caught.value.name == "k"


def test_an_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError, match="kk"):
        an.kmanon(an.sample("sports-example"), kk=5)


@pytest.mark.parametrize("name", NAMES)
def test_signature_and_help_show_every_parameter_with_its_default(name):
    spec = SPECS[name]
    function = getattr(an, name.replace("-", "_"))
    signature = inspect.signature(function)
    for p in specs(spec.params):
        assert signature.parameters[p.name].default == p.default
        assert signature.parameters[p.name].kind is inspect.Parameter.KEYWORD_ONLY
        assert f"\n{p.name} : " in function.__doc__
    assert function.__name__ == name.replace("-", "_") and "progress" in signature.parameters


def test_the_package_lists_its_families_for_tab_completion():
    names = dir(an)
    for name in NAMES:
        assert name.replace("-", "_") in names
    assert {"open", "sample", "evaluate", "ParameterError"} <= set(names)
    assert an.ParameterError is __import__("anonstudio.params", fromlist=["x"]).ParameterError
    with pytest.raises(AttributeError):
        an.no_such_family  # noqa: B018
