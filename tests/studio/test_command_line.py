"""A run's command line, parsed by the real CLI, gives back the same parameters and the same dataset."""
from __future__ import annotations

import shlex

import pytest

from anonstudio.cli import build_parser, main
from anonstudio.cli.datasets import dataset_options, load_dataset_argument
from anonstudio.cli.method_command import params_from_args
from anonstudio.data.datasets import ReadOptions, load_with_options
from anonstudio.data.table import Role, Table
from anonstudio.data.transactions import TransactionData
from anonstudio.methods.contract import run_and_verify
from anonstudio.params import specs
from anonstudio.studio.command_line import NotReproducible, command_line, dataset_arguments, run_command_line

from .conftest import NAMES


def _parse(line: str):
    tokens = shlex.split(line)
    assert tokens[0] == "anonstudio-cli"
    args = build_parser().parse_args(tokens[1:])
    return args


@pytest.mark.parametrize("name", NAMES)
def test_the_command_line_of_a_run_parses_to_the_same_params_and_data(name, examples):
    spec, data, params = examples[name]
    run = run_and_verify(spec, data, params)
    args = _parse(run_command_line(run))
    assert args.command == spec.name
    assert params_from_args(spec, args) == params
    again = load_dataset_argument(args.dataset, **dataset_options(args), opener=spec.open_dataset)
    assert type(again) is type(data)
    if isinstance(data, TransactionData):
        assert again.vocab == data.vocab and (again.indices == data.indices).all()
    else:
        # The RT command reads text columns as plain objects, the studio as strings: same values.
        assert again.frame.astype(object).equals(data.frame.astype(object)) and again.roles == data.roles


@pytest.mark.parametrize("name", NAMES)
def test_every_parameter_written_out_parses_back(name, examples):
    spec, data, params = examples[name]
    line = command_line(spec, params, dataset_arguments(data), all_params=True)
    args = _parse(line)
    assert params_from_args(spec, args) == params
    tokens = shlex.split(line)
    # An empty list of COLUMN=FILE pairs is written as no flag at all (the flag is repeated once per pair).
    missing = [p.cli_flag for p in specs(spec.params)
               if p.cli_flag not in tokens and f"--no-{p.cli_flag[2:]}" not in tokens
               and not (p.kind == "column_paths" and not getattr(params, p.name))]
    assert missing == []


def test_reading_options_and_edited_roles_are_on_the_line(tmp_path):
    path = tmp_path / "people.txt"
    path.write_text("31|F|nurse\n45|M|baker\n27|F|nurse\n", encoding="utf-8")
    options = ReadOptions(format="csv-table", sep="|", header=False, names=("age", "sex", "job"))
    table = load_with_options(path, options)
    from anonstudio.data.datasets import table_with_roles

    marked = table_with_roles(table, {"job": Role.SENSITIVE})
    args_line = " ".join(shlex.quote(a) for a in dataset_arguments(marked))
    assert "--sep '|'" in args_line and "--columns age,sex,job" in args_line and "--roles job=sensitive" in args_line
    args = build_parser().parse_args(["info", *dataset_arguments(marked)])
    again = load_dataset_argument(args.dataset, **dataset_options(args))
    assert again.frame.equals(marked.frame) and again.roles == marked.roles


def test_a_sample_with_its_own_roles_needs_no_roles_flag():
    from anonstudio.data.samples import load_sample

    adult = load_sample("adult")
    assert dataset_arguments(adult) == ["adult"]
    from anonstudio.data.datasets import table_with_roles

    cleared = table_with_roles(adult, {})
    assert dataset_arguments(cleared) == ["adult", "--roles", "none"]


def test_data_built_in_memory_has_no_command_line():
    data = TransactionData.from_records([["a", "b"], ["b"]], name="generated")
    with pytest.raises(NotReproducible, match="built in memory"):
        dataset_arguments(data)
    table = Table(__import__("pandas").DataFrame({"a": [1, 2]}))
    with pytest.raises(NotReproducible):
        dataset_arguments(table)


def test_running_the_line_gives_the_same_json_as_the_run(examples, tmp_path):
    import json

    from anonstudio.data.io.jsonfile import dumps
    from anonstudio.methods.contract import without_timings

    spec, data, params = examples["uniqueness"]
    run = run_and_verify(spec, data, params)
    out = tmp_path / "again.json"
    assert main(shlex.split(run_command_line(run))[1:] + ["--json", str(out), "--quiet"]) == 0
    again = without_timings(json.loads(out.read_text()))
    assert dumps(again) == dumps(run.to_json(timings=False))


def test_bad_roles_and_separators_are_one_line_errors(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n3,4\n", encoding="utf-8")
    assert main(["info", str(path), "--roles", "a=secret"]) == 2
    assert "not a role" in capsys.readouterr().err
    assert main(["info", str(path), "--roles", "zz=sensitive"]) == 2
    assert "no column 'zz'" in capsys.readouterr().err
    assert main(["info", str(path), "--sep", ";;"]) == 2
    assert "one character" in capsys.readouterr().err
    assert main(["info", "chess", "--roles", "a=sensitive"]) == 2
    assert "applies to tables" in capsys.readouterr().err
