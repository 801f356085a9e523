"""Project files: every workbench's recipe survives a round trip; moved, changed and old files are handled."""
from __future__ import annotations

import shutil

import pytest

from anonstudio.data.datasets import ReadOptions, load_with_options
from anonstudio.methods.contract import run_and_verify
from anonstudio.methods.sweep import Axis
from anonstudio.studio.project import DatasetChanged, DatasetMissing, Project, ProjectError, SweepEntry, migrate_project

from .conftest import NAMES


def _project_of(examples, names=NAMES) -> Project:
    project = Project()
    for name in names:
        spec, data, params = examples[name]
        project.set_step(name, params, project.add_dataset(data))
    return project


def test_every_workbench_round_trips(examples, tmp_path):
    project = _project_of(examples)
    project.active = "kmanon"
    project.sweeps.append(SweepEntry("uniqueness", project.step("uniqueness").dataset,
                                     (Axis("max_m", (1, 2)), Axis("epsilon", (0.1, 0.05))),
                                     examples["uniqueness"][2], seeds=2, title="m and epsilon"))
    path = project.save(tmp_path / "study.toml")
    again = Project.load(path)
    assert [s.method for s in again.steps] == NAMES
    for step in again.steps:
        assert step.params == examples[step.method][2]
        assert again.datasets[step.dataset].sha256 == project.datasets[step.dataset].sha256
    assert again.active == "kmanon"
    (sweep,) = again.sweeps
    assert sweep.axes == project.sweeps[0].axes and sweep.seeds == 2 and sweep.title == "m and epsilon"
    assert sweep.params == examples["uniqueness"][2]
    # Saving what was read gives the same text, apart from the time of saving.
    first = [ln for ln in path.read_text().splitlines() if not ln.startswith("saved")]
    again.save(tmp_path / "again.toml")
    second = [ln for ln in (tmp_path / "again.toml").read_text().splitlines() if not ln.startswith("saved")]
    assert first == second


@pytest.mark.parametrize("name", NAMES)
def test_a_reopened_dataset_gives_the_same_run(name, examples, tmp_path):
    project = _project_of(examples, [name])
    path = project.save(tmp_path / "p.toml")
    again = Project.load(path)
    step = again.steps[0]
    data = again.open_dataset(step.dataset)
    spec, original, params = examples[name]
    first = run_and_verify(spec, original, params).to_json(timings=False)
    second = run_and_verify(step.spec, data, step.params).to_json(timings=False)
    assert first == second


def test_paths_inside_the_project_folder_are_relative(tmp_path):
    folder = tmp_path / "study"
    folder.mkdir()
    data_file = folder / "baskets.dat"
    data_file.write_text("1 2 3\n2 3\n1 3 4\n", encoding="utf-8")
    data = load_with_options(data_file, ReadOptions(format="fimi"))
    from anonstudio.methods.contract import get_method

    project = Project()
    project.set_step("uniqueness", get_method("uniqueness").params(max_m=2), project.add_dataset(data))
    project.save(folder / "p.toml")
    text = (folder / "p.toml").read_text()
    assert 'path = "baskets.dat"' in text and str(tmp_path) not in text
    moved = tmp_path / "elsewhere"
    shutil.move(str(folder), str(moved))
    again = Project.load(moved / "p.toml")
    assert again.open_dataset(again.steps[0].dataset).n_records == 3


def _baskets_project(tmp_path):
    data_file = tmp_path / "baskets.dat"
    data_file.write_text("1 2 3\n2 3\n1 3 4\n", encoding="utf-8")
    data = load_with_options(data_file, ReadOptions(format="fimi"))
    from anonstudio.methods.contract import get_method

    project = Project()
    project.set_step("uniqueness", get_method("uniqueness").params(max_m=2), project.add_dataset(data))
    project.save(tmp_path / "projects" / "p.toml" if (tmp_path / "projects").mkdir() is None else None)
    return data_file, tmp_path / "projects" / "p.toml"


def test_a_moved_dataset_is_asked_for_and_checked(tmp_path):
    data_file, path = _baskets_project(tmp_path)
    new_home = tmp_path / "moved.dat"
    data_file.rename(new_home)
    project = Project.load(path)
    key = project.steps[0].dataset
    with pytest.raises(DatasetMissing, match="not there any more"):
        project.open_dataset(key)
    asked = []
    data = project.open_dataset(key, locate=lambda entry: asked.append(entry.key) or new_home)
    assert asked == [key] and data.n_records == 3
    assert project.datasets[key].origin.path == new_home
    # A different file offered in its place is refused by its hash.
    other = tmp_path / "other.dat"
    other.write_text("9 9\n", encoding="utf-8")
    project2 = Project.load(path)
    with pytest.raises(DatasetChanged, match="has changed"):
        project2.open_dataset(key, locate=lambda entry: other)


def test_a_modified_dataset_is_refused_naming_the_file(tmp_path):
    data_file, path = _baskets_project(tmp_path)
    data_file.write_text("1 2 3\n2 3\n1 3 5\n", encoding="utf-8")
    project = Project.load(path)
    with pytest.raises(DatasetChanged, match="baskets.dat has changed since the project was saved"):
        project.open_dataset(project.steps[0].dataset)


def test_a_project_of_the_unversioned_layout_is_migrated(tmp_path):
    path = tmp_path / "old.toml"
    path.write_text(
        '[anonstudio]\nversion = "0.0.9"\n\n[datasets.chess]\nsample = "chess"\n\n'
        '[workbenches.uniqueness]\nmethod = "uniqueness"\ndataset = "chess"\n\n'
        '[workbenches.uniqueness.params]\nmax_m = 2\nseed = 5\n', encoding="utf-8")
    project = Project.load(path)
    (step,) = project.steps
    assert step.method == "uniqueness" and step.params.max_m == 2 and step.params.seed == 5
    assert migrate_project({"workbenches": {}}, 0) == {"workbenches": {}}


def test_a_family_renaming_a_parameter_migrates_old_projects(tmp_path, monkeypatch):
    from anonstudio.methods.contract import get_method

    spec = get_method("uniqueness")

    def migrate(values, schema):
        values = dict(values)
        if schema < 2 and "largest_m" in values:
            values["max_m"] = values.pop("largest_m")
        return values

    monkeypatch.setattr(spec, "params_schema", 2)
    monkeypatch.setattr(spec, "migrate_params", migrate)
    path = tmp_path / "v1.toml"
    path.write_text('[anonstudio]\nschema = 1\n[datasets.chess]\nsample = "chess"\n'
                    '[workbenches.uniqueness]\nschema = 1\ndataset = "chess"\n'
                    '[workbenches.uniqueness.params]\nlargest_m = 3\n', encoding="utf-8")
    assert Project.load(path).steps[0].params.max_m == 3


@pytest.mark.parametrize("text, message", [
    ("not toml = = =", "not a valid project file"),
    ('[anonstudio]\nschema = 99\nversion = "9.0"\n', "saved by a newer anonstudio"),
    ("[other]\n", r"no \[anonstudio\] table"),
    ('[anonstudio]\nschema = 1\n[workbenches.nosuch]\n', "no method 'nosuch'"),
    ('[anonstudio]\nschema = 1\n[workbenches.uniqueness]\n[workbenches.uniqueness.params]\nmax_mm = 2\n',
     "unknown parameter"),
    ('[anonstudio]\nschema = 1\n[workbenches.uniqueness]\ndataset = "x"\n', "no dataset 'x'"),
    ('[anonstudio]\nschema = 1\n[workbenches.uniqueness]\nschema = 7\n', "newer anonstudio"),
    ('[anonstudio]\nschema = 1\n[datasets.a]\npath = "a"\nsample = "chess"\n', "a path or a database url"),
    ('[anonstudio]\nschema = 1\n[datasets.a]\nsample = "adult"\nroles = {age = "secret"}\n', "not a role"),
])
def test_bad_project_files_are_one_line_errors_naming_the_file(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProjectError, match=message) as info:
        Project.load(path)
    assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)


def test_a_project_that_is_not_a_regular_file_is_refused(tmp_path):
    with pytest.raises(ProjectError, match="is a folder"):
        Project.load(tmp_path)
    with pytest.raises(ProjectError, match="no such file"):
        Project.load(tmp_path / "none.toml")


def test_data_built_in_memory_cannot_join_a_project():
    from anonstudio.data.transactions import TransactionData
    from anonstudio.studio.command_line import NotReproducible

    with pytest.raises(NotReproducible, match="built in memory"):
        Project().add_dataset(TransactionData.from_records([["a"]]))


def test_the_same_dataset_is_listed_once(examples):
    project = Project()
    spec, data, params = examples["uniqueness"]
    assert project.add_dataset(data) == project.add_dataset(data)
    assert len(project.datasets) == 1
