"""``anonstudio-cli run PROJECT``: every step rerun headlessly, byte-identical JSON, datasets checked first."""
from __future__ import annotations

import pytest

from anonstudio.cli import main
from anonstudio.data.datasets import ReadOptions, load_with_options
from anonstudio.methods.contract import get_method
from anonstudio.methods.sweep import Axis
from anonstudio.studio.project import Project, SweepEntry


@pytest.fixture
def project_file(tmp_path):
    data_file = tmp_path / "baskets.dat"
    data_file.write_text("".join(" ".join(str((i * 7 + j) % 13) for j in range(1 + i % 4)) + "\n"
                                 for i in range(60)), encoding="utf-8")
    data = load_with_options(data_file, ReadOptions(format="fimi"))
    project = Project()
    key = project.add_dataset(data)
    project.set_step("uniqueness", get_method("uniqueness").params(max_m=2, seed=4), key)
    project.set_step("kmanon", get_method("kmanon").params(k=3, m=2, verify_samples=200), key)
    project.sweeps.append(SweepEntry("kmanon", key, (Axis("k", (2, 3)),),
                                     get_method("kmanon").params(m=1, verify_samples=100)))
    return project.save(tmp_path / "study.toml"), data_file


def test_two_reruns_write_byte_identical_outputs(project_file, tmp_path, capsys):
    path, _ = project_file
    assert main(["run", str(path), "--out", str(tmp_path / "a"), "--quiet"]) == 0
    assert main(["run", str(path), "--out", str(tmp_path / "b"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "uniqueness: done" in out and "kmanon: done" in out and "sweep 1 (kmanon): 2 of 2 cells" in out
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert {str(f) for f in files} >= {"uniqueness/uniqueness.json", "kmanon/kmanon.json",
                                       "kmanon/kmanon-release.dat", "sweeps/1-kmanon.csv", "timings.json"}
    for f in files:
        if f.name != "timings.json":
            assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


def test_the_default_folder_is_beside_the_project(project_file):
    path, _ = project_file
    assert main(["run", str(path), "--step", "uniqueness", "--quiet"]) == 0
    assert (path.parent / "study-outputs" / "uniqueness" / "uniqueness.json").is_file()
    assert not (path.parent / "study-outputs" / "kmanon").exists()


def test_a_moved_dataset_needs_relocate(project_file, tmp_path, capsys):
    path, data_file = project_file
    moved = tmp_path / "moved.dat"
    data_file.rename(moved)
    assert main(["run", str(path), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "not there any more" in err and "--relocate" in err
    key = Project.load(path).steps[0].dataset
    assert main(["run", str(path), "--out", str(tmp_path / "o"), "--quiet", "--no-sweeps",
                 "--relocate", f"{key}={moved}"]) == 0


def test_a_changed_dataset_is_refused_before_any_output(project_file, tmp_path, capsys):
    path, data_file = project_file
    data_file.write_text(data_file.read_text() + "1 2\n", encoding="utf-8")
    assert main(["run", str(path), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    assert "has changed since the project was saved" in capsys.readouterr().err
    assert not list((tmp_path / "o").rglob("*.json"))


def test_bad_arguments_exit_2_with_one_line(project_file, tmp_path, capsys):
    path, _ = project_file
    assert main(["run", str(path), "--step", "nosuch"]) == 2
    assert main(["run", str(path), "--relocate", "nokey=/x"]) == 2
    assert main(["run", str(tmp_path / "none.toml")]) == 2
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["run", str(path), "--out", str(blocker)]) == 2
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln]
    assert len(lines) == 4 and all(ln.startswith("anonstudio-cli run: error:") for ln in lines)


class _BrokenCheck:
    """A verification that finds the promise broken (a planted fault)."""

    passed = False
    complete = True

    def lines(self):
        return ["planted fault: the promise does not hold"]

    def summary(self):
        return {}

    def to_json(self):
        return {"passed": False}


def test_a_broken_promise_exits_3_and_writes_no_release(project_file, tmp_path, monkeypatch):
    from anonstudio.methods.kmanon.spec import KmAnonSpec

    monkeypatch.setattr(KmAnonSpec, "verify", lambda self, data, result, params, progress: _BrokenCheck())
    path, _ = project_file
    assert main(["run", str(path), "--out", str(tmp_path / "o"), "--quiet", "--no-sweeps"]) == 3
    assert (tmp_path / "o" / "kmanon" / "kmanon.json").is_file()
    assert not (tmp_path / "o" / "kmanon" / "kmanon-release.dat").exists()
    assert (tmp_path / "o" / "uniqueness" / "uniqueness.json").is_file()
