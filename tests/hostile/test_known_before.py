"""Whether an output format can hold the release is known before the run, in kmanon and in ``run``."""
from __future__ import annotations

import time

from anonstudio.cli import main
from anonstudio.data.datasets import ReadOptions, load_with_options
from anonstudio.methods.contract import get_method
from anonstudio.studio.project import Project

RECORDS = "".join(" ".join(str(1 + (i * 3 + j) % 8) for j in range(1 + i % 3)) + "\n" for i in range(60))
HIERARCHY = "".join(f"{i};g{(i - 1) // 4};*\n" for i in range(1, 9))


def _files(tmp_path):
    data, hierarchy = tmp_path / "s.dat", tmp_path / "h.csv"
    data.write_text(RECORDS)
    hierarchy.write_text(HIERARCHY)
    return data, hierarchy


def test_a_fimi_release_of_hierarchy_groups_is_refused_at_once(tmp_path, capsys):
    data, hierarchy = _files(tmp_path)
    started = time.monotonic()
    assert main(["kmanon", str(data), "--k", "3", "--m", "2", "--item-hierarchy", str(hierarchy), "--constraint",
                 "hierarchy", "--out", str(tmp_path / "r.dat"), "--json", str(tmp_path / "r.json"),
                 "--quiet"]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and "--out r.dat" in err[0] and "integer items only" in err[0] and ".tmp" not in err[0]
    assert not (tmp_path / "r.json").exists() and time.monotonic() - started < 5
    assert main(["kmanon", str(data), "--k", "3", "--m", "2", "--item-hierarchy", str(hierarchy), "--constraint",
                 "hierarchy", "--out", str(tmp_path / "r.csv"), "--quiet"]) == 0


def test_run_writes_a_hierarchy_steps_release_in_a_format_that_holds_it(tmp_path, capsys):
    data, hierarchy = _files(tmp_path)
    project = Project()
    key = project.add_dataset(load_with_options(data, ReadOptions(format="fimi")))
    project.set_step("kmanon", get_method("kmanon").params(k=3, m=2, item_hierarchy=hierarchy,
                                                            constraint="hierarchy", verify_samples=100), key)
    path = project.save(tmp_path / "p.toml")
    assert main(["run", str(path), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    written = sorted(p.name for p in (tmp_path / "o" / "kmanon").iterdir())
    assert "kmanon-release.csv" in written and "kmanon-release.dat" not in written
