"""Outputs that would clobber each other or an input are refused before any work, through links too.

Every case: exit status 2, one error line naming both files, nothing written,
every input byte-identical afterwards.
"""
from __future__ import annotations

import os

import pytest

from anonstudio.cli import main
from anonstudio.data.datasets import ReadOptions, load_with_options
from anonstudio.methods.contract import get_method
from anonstudio.outputs import OutputClash, check_distinct, file_identity
from anonstudio.studio.project import Project

BASKETS = "".join(" ".join(str((i * 7 + j) % 13) for j in range(1 + i % 4)) + "\n" for i in range(60))


def _one_error(capsys, *names: str) -> str:
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ": error: " in ln]
    assert len(errors) == 1 and "Traceback" not in "\n".join(lines), lines
    for name in names:
        assert name in errors[0], (name, errors[0])
    return errors[0]


@pytest.fixture
def baskets(tmp_path):
    path = tmp_path / "baskets.dat"
    path.write_text(BASKETS, encoding="utf-8")
    return path


def test_identity_follows_symlinks_and_hard_links(tmp_path):
    a = tmp_path / "a.txt"
    a.write_text("x")
    (tmp_path / "soft").symlink_to(a)
    os.link(a, tmp_path / "hard")
    assert file_identity(a) == file_identity(tmp_path / "soft") == file_identity(tmp_path / "hard")
    (tmp_path / "dangling").symlink_to(tmp_path / "new.txt")
    assert file_identity(tmp_path / "dangling") == file_identity(tmp_path / "sub" / ".." / "new.txt")
    assert file_identity(tmp_path / "other.txt") != file_identity(tmp_path / "new.txt")
    with pytest.raises(OutputClash, match="--out new.txt.*--json"):
        check_distinct([("--json x", tmp_path / "new.txt"), ("--out new.txt", tmp_path / "dangling")])
    check_distinct([("--out", a), ("--json", None), ("--csv", tmp_path / "b.txt")], [("data", tmp_path / "c")])


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink", "dotted"])
def test_two_outputs_of_one_method_command(baskets, tmp_path, capsys, how):
    first = tmp_path / "release.dat"
    second = first
    if how == "symlink":
        second = tmp_path / "link.dat"
        second.symlink_to(first)
    elif how == "hardlink":
        first.write_text("old\n")
        second = tmp_path / "hard.dat"
        os.link(first, second)
    elif how == "dotted":
        second = tmp_path / "." / "sub" / ".." / "release.dat"
        (tmp_path / "sub").mkdir()
    code = main(["kmanon", str(baskets), "--k", "2", "--m", "1", "--quiet", "--out", str(first),
                 "--json", str(second)])
    assert code == 2
    _one_error(capsys, "--out", "--json", "same file")
    assert not first.exists() or first.read_text() == "old\n"


def test_an_output_on_the_dataset_through_a_hard_link(baskets, tmp_path, capsys):
    alias = tmp_path / "alias.json"
    os.link(baskets, alias)
    assert main(["uniqueness", str(baskets), "--m", "1", "--quiet", "--json", str(alias)]) == 2
    _one_error(capsys, "--json", "the dataset")
    assert baskets.read_text() == BASKETS


def test_an_output_on_a_side_file(baskets, tmp_path, capsys):
    sensitive = tmp_path / "sensitive.csv"
    sensitive.write_text("person,item\n1,0\n2,7\n", encoding="utf-8")
    link = tmp_path / "out.csv"
    link.symlink_to(sensitive)
    assert main(["rho", str(baskets), "--sensitive", str(sensitive), "--quiet", "--sensitive-out", str(link)]) == 2
    _one_error(capsys, "--sensitive-out", "--sensitive")
    assert sensitive.read_text() == "person,item\n1,0\n2,7\n"


@pytest.mark.parametrize("argv", [
    ["info", "{data}", "--json", "{data}"],
    ["convert", "{data}", "{data}"],
    ["attack", "{data}", "--record", "1", "--json", "{link}"],
    ["synth-city", "--towers", "20", "--users", "50", "--out", "{new}", "--json", "{new}"],
])
def test_tool_commands(baskets, tmp_path, capsys, argv):
    link = tmp_path / "data-link"
    link.symlink_to(baskets)
    argv = [a.format(data=baskets, link=link, new=tmp_path / "new.dat") for a in argv]
    assert main(argv) == 2
    _one_error(capsys, "same file")
    assert baskets.read_text() == BASKETS and not (tmp_path / "new.dat").exists()


@pytest.fixture
def project(tmp_path, baskets):
    data = load_with_options(baskets, ReadOptions(format="fimi"))
    project = Project()
    key = project.add_dataset(data)
    project.set_step("uniqueness", get_method("uniqueness").params(max_m=1, seed=4), key)
    project.set_step("kmanon", get_method("kmanon").params(k=3, m=1, verify_samples=50), key)
    return project.save(tmp_path / "study.toml")


def test_run_out_dir_never_overwrites_the_project_or_a_dataset(project, tmp_path, capsys):
    # The project's dataset sits where the kmanon step's release would go.
    out = tmp_path / "o"
    (out / "kmanon").mkdir(parents=True)
    doc = project.read_text()
    baskets = tmp_path / "baskets.dat"
    os.link(baskets, out / "kmanon" / "kmanon-release.dat")
    assert main(["run", str(project), "--out", str(out), "--quiet"]) == 2
    _one_error(capsys, "kmanon-release.dat", "the dataset")
    assert baskets.read_text() == BASKETS and project.read_text() == doc
    # The project file itself where a step's JSON would go (a symbolic link to it).
    (out / "kmanon" / "kmanon-release.dat").unlink()
    (out / "uniqueness").mkdir()
    (out / "uniqueness" / "uniqueness.json").symlink_to(project)
    assert main(["run", str(project), "--out", str(out), "--quiet"]) == 2
    _one_error(capsys, "uniqueness.json", "the project")
    assert project.read_text() == doc
    assert sorted(p.name for p in out.rglob("*") if p.is_file() and not p.is_symlink()) == []


def test_report_outputs_against_the_project_and_each_other(project, tmp_path, capsys):
    doc = project.read_text()
    assert main(["report", str(project), "--html", str(project), "--quiet"]) == 2
    _one_error(capsys, "--html", "the project")
    link = tmp_path / "r.pdf"
    link.symlink_to(tmp_path / "r.html")
    assert main(["report", str(project), "--html", str(tmp_path / "r.html"), "--pdf", str(link), "--quiet"]) == 2
    _one_error(capsys, "--html", "--pdf")
    assert project.read_text() == doc and not (tmp_path / "r.html").exists()
