"""The CLI's start-up: the garbage collector is off until the work starts, and back on (as it was) after."""
from __future__ import annotations

import gc
import subprocess
import sys

from anonstudio.cli import main, startup
from anonstudio.methods.kmanon.spec import SPEC


def test_a_method_runs_with_the_collector_on_and_main_leaves_it_as_it_found_it(data_dir, tmp_path, monkeypatch):
    seen = {}
    run = type(SPEC).run

    def recording_run(self, data, params, progress):
        seen["enabled"] = gc.isenabled()
        return run(self, data, params, progress)

    monkeypatch.setattr(type(SPEC), "run", recording_run)
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    d = data_dir / "kmanon"
    assert main(["kmanon", str(d / "table1.sets.csv"), "--hierarchy", str(d / "table1_hierarchy.csv"), "--k", "2",
                 "--m", "2", "--sigma", "1", "--quiet", "--json", str(tmp_path / "out.json")]) == 0
    assert seen == {"enabled": True}
    assert gc.isenabled() and not startup._paused
    assert gc.get_freeze_count() <= frozen  # nothing of a caller of main() is frozen (some frozen ones were freed)

    gc.disable()  # a caller that had it off gets it back off
    try:
        assert main(["kmanon", str(d / "table1.sets.csv"), "--hierarchy", str(d / "table1_hierarchy.csv"),
                     "--k", "2", "--m", "1", "--sigma", "1", "--quiet"]) == 0
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_failing_command_gives_the_collector_back(tmp_path):
    assert main(["kmanon", str(tmp_path / "missing.dat"), "--k", "2", "--quiet"]) == 2
    assert gc.isenabled() and not startup._paused


def test_the_cli_process_freezes_its_start_up_and_collects_during_the_work(data_dir):
    d = data_dir / "kmanon"
    code = ("import gc, sys\n"
            "from anonstudio.methods.kmanon.spec import SPEC\n"
            "run = type(SPEC).run\n"
            "def recording(self, *a):\n"
            "    print('run:', gc.isenabled(), gc.get_freeze_count() > 10000, file=sys.stderr)\n"
            "    return run(self, *a)\n"
            "type(SPEC).run = recording\n"
            "import anonstudio.cli\n"
            "sys.argv = ['anonstudio-cli', 'kmanon', sys.argv[1], '--hierarchy', sys.argv[2], '--k', '2', '--m', '2',"
            " '--sigma', '1', '--quiet']\n"
            "anonstudio.cli.run()\n")
    out = subprocess.run([sys.executable, "-c", code, str(d / "table1.sets.csv"), str(d / "table1_hierarchy.csv")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "run: True True" in out.stderr

