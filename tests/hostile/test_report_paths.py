"""What travels holds no local details: the external report names files relative to the project."""
from __future__ import annotations

from anonstudio.cli import main
from anonstudio.data.datasets import ReadOptions, load_with_options
from anonstudio.methods.contract import get_method
from anonstudio.studio.project import Project

from .project_files import BASKETS


def test_the_external_report_holds_no_absolute_path(tmp_path, capsys):
    (tmp_path / "data").mkdir()
    (tmp_path / "side").mkdir()
    data_file = tmp_path / "data" / "baskets.dat"
    data_file.write_text(BASKETS, encoding="utf-8")
    sensitive = tmp_path / "side" / "sensitive.csv"
    sensitive.write_text("person,item\n1,0\n2,7\n", encoding="utf-8")
    project = Project()
    key = project.add_dataset(load_with_options(data_file, ReadOptions(format="fimi")))
    project.set_step("uniqueness", get_method("uniqueness").params(max_m=1, seed=4), key)
    project.set_step("rho", get_method("rho").params(sensitive=sensitive), key)
    (tmp_path / "proj").mkdir()
    path = project.save(tmp_path / "proj" / "study.toml")
    assert main(["report", str(path), "--html", str(tmp_path / "ext.html"), "--no-figures", "--quiet"]) == 0
    external = (tmp_path / "ext.html").read_text(encoding="utf-8")
    assert str(tmp_path) not in external
    assert "../data/baskets.dat" in external and "../side/sensitive.csv" in external and "study.toml" in external
    assert main(["report", str(path), "--html", str(tmp_path / "int.html"), "--internal", "--no-figures",
                 "--quiet"]) == 0
    assert str(data_file) in (tmp_path / "int.html").read_text(encoding="utf-8")
