"""The suite's own set-up (tests/conftest.py): Qt tests are marked ``gui``, and a run without them imports no Qt."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import SETTINGS_ENV, WorkerLock, excludes_gui, fcntl

ROOT = Path(__file__).resolve().parents[2]
CASES = "tests/core/qt_marking_cases.py"

#: Runs pytest in a fresh interpreter, then prints which Qt modules that interpreter imported.
_RUN = (
    "import json, sys, pytest\n"
    "code = pytest.main(sys.argv[1:])\n"
    "qt = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph'))\n"
    "print('QT-MODULES', json.dumps(qt))\n"
    "sys.exit(code)\n"
)


def _pytest(*args: str) -> tuple[int, list[str], list[str], str]:
    """``(exit code, node ids listed, Qt modules imported, output)`` of ``pytest args`` in a fresh process, serially."""
    proc = subprocess.run([sys.executable, "-c", _RUN, "-n", "0", "-p", "no:cacheprovider", "-q", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    out = proc.stdout
    ids = [line.strip() for line in out.splitlines() if "::" in line and not line.startswith(("ERROR", "FAILED"))]
    qt = json.loads(out.rsplit("QT-MODULES", 1)[1]) if "QT-MODULES" in out else ["(no report)"]
    return proc.returncode, ids, qt, out + proc.stderr


@pytest.mark.parametrize(("expression", "excluded"), [
    ("not gui", True), ("not slow and not gui", True), ("not (gui or slow)", True), ("(not gui) and slow", True),
    ("", False), ("gui", False), ("slow", False), ("not slow", False), ("gui or slow", False),
    ("not gui or slow", False),
])
def test_an_expression_excludes_the_gui_tests_whatever_their_other_markers(expression, excluded):
    assert excludes_gui(expression) is excluded


@pytest.mark.slow
def test_qt_fixtures_and_qt_folders_mark_a_test_gui():
    code, ids, _qt, out = _pytest("--collect-only", "-m", "gui", CASES, "tests/report/test_report_cli.py")
    assert code == 0, out
    names = {i.rsplit("::", 1)[1] for i in ids if i.startswith(CASES)}
    assert names == {"test_requests_qtbot", "test_requests_a_fixture_that_needs_qt", "test_marked_by_hand"}
    # Every test in tests/report is gui, even one that draws no plot (the report renders through the studio).
    report = [i for i in ids if i.startswith("tests/report/")]
    assert any("test_output_paths_are_checked_before_any_work" in i for i in report), out

    code, ids, qt, out = _pytest("--collect-only", "-m", "not gui", CASES)
    assert code == 0, out
    assert ids == [f"{CASES}::test_plain"]
    assert qt == []


@pytest.mark.slow
def test_a_run_without_the_gui_tests_imports_no_qt():
    """The whole tree collected with ``-m "not gui"``, and one test run through every autouse fixture."""
    code, _ids, qt, out = _pytest("-m", "not gui", "-k", "test_core_sources_do_not_import_qt", "tests")
    assert code == 0, out
    assert "1 passed" in out and "deselected" in out
    assert qt == []


@pytest.mark.gui
def test_the_settings_folder_variable_is_the_studios():
    """tests/conftest.py names the variable itself, to set it without importing the studio's Qt modules."""
    from anonstudio.gui.settings import SETTINGS_ENV as studio

    assert SETTINGS_ENV == studio


@pytest.mark.skipif(fcntl is None, reason="the worker lock needs fcntl (POSIX)")
def test_an_exclusive_test_runs_alone_and_shared_ones_together(tmp_path):
    """Two locks on the same folder stand for two xdist workers."""
    first, second = WorkerLock(tmp_path), WorkerLock(tmp_path)
    started = threading.Event()

    def other_worker(exclusive: bool) -> None:
        with second.held(exclusive):
            started.set()

    try:
        with first.held(exclusive=True):
            thread = threading.Thread(target=other_worker, args=(False,), daemon=True)
            thread.start()
            assert not started.wait(0.5)  # an ordinary test waits while the exclusive one runs
        assert started.wait(10)
        thread.join(10)
        started.clear()
        with first.held(exclusive=False):
            thread = threading.Thread(target=other_worker, args=(False,), daemon=True)
            thread.start()
            assert started.wait(10)  # two ordinary tests run side by side
            thread.join(10)
            started.clear()
            thread = threading.Thread(target=other_worker, args=(True,), daemon=True)
            thread.start()
            assert not started.wait(0.5)  # an exclusive test waits for the ordinary one to end
        assert started.wait(10)
        thread.join(10)
    finally:
        first.close()
        second.close()
