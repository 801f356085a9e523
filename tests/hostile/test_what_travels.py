"""What travels holds no local details: projects, external reports and run JSONs name no absolute path."""
from __future__ import annotations

import json
import sqlite3

import pytest

from anonstudio.cli import main
from anonstudio.data.datasets import DatasetOrigin, ReadOptions, load_with_options, open_dataset
from anonstudio.methods.contract import get_method
from anonstudio.outputs import shared_path
from anonstudio.studio.project import DatasetEntry, Project

from .project_files import BASKETS

pytest.importorskip("sqlalchemy")


def _sqlite(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE people (id INTEGER, age INTEGER, sex TEXT, city TEXT)")
    con.executemany("INSERT INTO people VALUES (?, ?, ?, ?)",
                    [(i, 20 + i % 30, "MF"[i % 2], ["Rome", "Paris", "Oslo"][i % 3]) for i in range(40)])
    con.commit()
    con.close()
    return path


def test_an_sqlite_database_under_the_project_folder_is_stored_relative_to_it(tmp_path, monkeypatch):
    db = _sqlite(tmp_path / "study" / "data" / "people.db")
    project = Project()
    key = project.add_dataset(open_dataset(f"sqlite:///{db}", table="people"))
    saved = project.save(tmp_path / "study" / "study.toml")
    text = saved.read_text()
    assert 'url = "sqlite:///data/people.db"' in text and str(tmp_path) not in text
    # The folder moves, and the project is opened from elsewhere: the database is found beside it.
    moved = tmp_path / "moved"
    (tmp_path / "study").rename(moved)
    monkeypatch.chdir(tmp_path)
    table = Project.load(moved / "study.toml").open_dataset(key)
    assert table.n_rows == 40


def test_an_sqlite_database_elsewhere_stays_absolute(tmp_path):
    db = _sqlite(tmp_path / "shared" / "people.db")
    project = Project()
    project.add_dataset(open_dataset(f"sqlite:///{db}", table="people"))
    (tmp_path / "study").mkdir()
    text = project.save(tmp_path / "study" / "study.toml").read_text()
    assert f'url = "sqlite:///{db}"' in text  # the only way to find it again


@pytest.mark.parametrize("url", ["postgresql://ann:s3cret-pw@db.example.org:5432/clinic",
                                 "mysql+pymysql://ann:s3cret-pw@db.example.org/clinic?password=s3cret-pw"])
def test_a_database_password_is_never_saved(tmp_path, url):
    project = Project()
    project.datasets["db"] = DatasetEntry("db", DatasetOrigin(url=url, table="people"), "0" * 64, None, None)
    text = project.save(tmp_path / "study.toml").read_text()
    assert "s3cret-pw" not in text and "ann@db.example.org" in text
    assert "s3cret-pw" not in Project.load(tmp_path / "study.toml").datasets["db"].origin.url


def test_an_audit_of_a_finished_run_is_saved_with_its_release_beside_the_project(tmp_path, monkeypatch):
    # The studio writes a finished run's release to its own folder (see gui.release_sources).
    private = tmp_path / "cache" / "releases"
    run_folder = private / "kmanon-0123456789ab"
    run_folder.mkdir(parents=True)
    (run_folder / "release.dat").write_text("1 2\n2 3\n", encoding="utf-8")
    (run_folder / "map.csv").write_text("item,published\n1,1\n", encoding="utf-8")
    data_file = tmp_path / "study" / "baskets.dat"
    data_file.parent.mkdir()
    data_file.write_text(BASKETS, encoding="utf-8")
    project = Project()
    key = project.add_dataset(load_with_options(data_file, ReadOptions(format="fimi")))
    audit = get_method("audit").params(release=run_folder / "release.dat", map=run_folder / "map.csv", m=1)
    project.set_step("audit", audit, key)
    path = project.save(tmp_path / "study" / "study.toml", adopt=[private])
    text = path.read_text()
    assert str(tmp_path) not in text
    assert 'release = "releases/kmanon-0123456789ab/release.dat"' in text
    copy = tmp_path / "study" / "releases" / "kmanon-0123456789ab" / "release.dat"
    assert copy.read_text() == "1 2\n2 3\n"
    # Saved again: the copy is reused, not duplicated; reopened elsewhere, the step names the copy.
    assert project.save(adopt=[private]) == path and path.read_text().count("releases/") == 2
    monkeypatch.chdir(tmp_path / "cache")
    step = Project.load(path).step("audit")
    assert step.params.release == copy and step.params.map.is_file()


def test_no_absolute_path_in_a_project_its_external_report_or_a_run_json(tmp_path, monkeypatch):
    (tmp_path / "data").mkdir()
    data_file = tmp_path / "data" / "baskets.dat"
    data_file.write_text(BASKETS, encoding="utf-8")
    sensitive = tmp_path / "data" / "sensitive.csv"
    sensitive.write_text("person,item\n1,0\n2,7\n", encoding="utf-8")
    project = Project()
    key = project.add_dataset(load_with_options(data_file, ReadOptions(format="fimi")))
    project.set_step("rho", get_method("rho").params(sensitive=sensitive), key)
    path = project.save(tmp_path / "study.toml")
    assert main(["report", str(path), "--html", str(tmp_path / "ext.html"), "--no-figures", "--quiet"]) == 0
    # Absolute paths on the command line, from a folder the files are not under, and from their own folder.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for cwd, name in ((elsewhere, "a.json"), (tmp_path, "b.json")):
        monkeypatch.chdir(cwd)
        for argv in (["rho", str(data_file), "--sensitive", str(sensitive)], ["kmanon", str(data_file), "--k", "2"],
                     ["evaluate", str(data_file), "--release", str(data_file), "--k", "2", "--m", "1"]):
            out = tmp_path / f"{argv[0]}-{name}"
            assert main([*argv, "--json", str(out), "--quiet"]) in (0, 3)
            doc = json.loads(out.read_text())
            text = out.read_text()
            assert str(tmp_path) not in text, (argv[0], cwd)
            if argv[0] != "evaluate":
                run = doc["run"]
                assert run["input"]["path"] == shared_path(data_file) and len(run["input"]["sha256"]) == 64
                if argv[0] == "rho":
                    assert run["input_files"]["sensitive"]["sha256"]
                    assert run["params"]["sensitive"] == ("data/sensitive.csv" if cwd == tmp_path else "sensitive.csv")
    for written in (path, tmp_path / "ext.html"):
        assert str(tmp_path) not in written.read_text(encoding="utf-8"), written.name
