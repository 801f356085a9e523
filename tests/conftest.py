"""Test-wide set-up: Qt offscreen, the ``gui`` marker, numba kernels compiled before the tests, shared fixtures."""
from __future__ import annotations

import contextlib
import gc
import itertools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Before any Qt import: no display is needed, on CI or a developer machine.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# An environment that sets PYTHONDONTWRITEBYTECODE makes every test process, xdist worker and CLI subprocess compile
# anonstudio's sources again (570 files, about 3 s of CPU each time). The suite caches bytecode as a plain run does;
# removed here, before the workers and subprocesses inherit the environment.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    sys.dont_write_bytecode = False

import pytest
from _pytest.mark.expression import Expression

try:
    import fcntl
except ImportError:  # Windows: no cross-worker lock; the grouped tests still run one after another
    fcntl = None

try:
    from hypothesis import settings as _hypothesis_settings
except ImportError:  # Hypothesis is a test extra; the property tests skip without it
    _hypothesis_settings = None
if _hypothesis_settings is not None:
    # The suite is a gate: the same examples on every run, so a red build always reproduces.
    # HYPOTHESIS_PROFILE=explore draws fresh examples (run it when hunting for new failures).
    _hypothesis_settings.register_profile("gate", derandomize=True, print_blob=True)
    _hypothesis_settings.register_profile("explore", derandomize=False, print_blob=True)
    _hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "gate"))

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
KERNELS = TESTS.parent / "anonstudio" / "kernels"

#: Every test in these folders needs Qt (the studio's widgets, or the report's plots drawn through the studio).
GUI_FOLDERS = (TESTS / "gui", TESTS / "report")
#: pytest-qt's fixtures: a test that requests one, directly or through another fixture, needs Qt.
QT_FIXTURES = frozenset({"qtbot", "qapp", "qapp_args", "qapp_cls", "qtlog", "qtmodeltester"})
#: ``anonstudio.gui.settings.SETTINGS_ENV``, named here because that module imports Qt
#: (tests/core/test_suite_setup.py checks the two agree).
SETTINGS_ENV = "ANONSTUDIO_SETTINGS_DIR"
#: Groups of tests that xdist runs on one worker, one after another (``pytest_xdist_make_scheduler``), by path under
#: tests/; every other test is scheduled on its own.
GROUPS = {
    # A Dask LocalCluster per module (two worker processes in test_cluster.py): started once, one at a time.
    "scale/test_cluster.py": "dask-cluster",
    "gui/test_settings_dialog.py": "dask-cluster",
    # Session fixtures that run every family and draw every plot: computed once, not once per worker.
    "report": "report",
}
#: A test marked ``alone`` bounds the wall-clock time of real work (a cancel reaches the cluster within 15 s): while it
#: runs, the other workers wait, so the bound holds on a 2-core machine too. Only such tests wait: a whole group
#: waiting left a worker idle for a fifth of a minute per test at the start of a run.
ALONE = "alone"


# --- the gui marker -------------------------------------------------------------------------------------------------

def needs_qt(item: pytest.Item) -> bool:
    """Whether ``item`` lives in a Qt folder or requests a pytest-qt fixture (directly or through its fixtures)."""
    path = Path(item.path)
    return any(path.is_relative_to(folder) for folder in GUI_FOLDERS) or bool(QT_FIXTURES & set(item.fixturenames))


def excludes_gui(markexpr: str) -> bool:
    """Whether the ``-m`` expression deselects every test marked ``gui``, whatever its other markers.

    Evaluated with ``gui`` true and every assignment of the expression's other names, so ``not gui``,
    ``not slow and not gui`` or ``not (gui or slow)`` exclude it and ``gui or slow`` or ``not slow`` do not.
    """
    if not markexpr:
        return False
    try:
        expr = Expression.compile(markexpr)
    except SyntaxError:
        return False  # pytest reports the bad expression itself
    names: list[str] = []
    unseen: set[str] = set()

    def selects(truth: dict[str, bool]) -> bool:
        def matcher(name: str, /, **kwargs) -> bool:
            if name not in truth:
                unseen.add(name)
            return truth.get(name, False)

        return expr.evaluate(matcher)

    while True:
        unseen.clear()
        if any(selects(dict(zip(names, values, strict=True), gui=True))
               for values in itertools.product((False, True), repeat=len(names))):
            return False
        if not unseen:
            return True
        names += sorted(unseen)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """With the gui tests deselected, nothing imports Qt: pytest-qt (which imports it at start-up) is left out."""
    if excludes_gui(config.option.markexpr):
        config.pluginmanager.unregister(name="pytest-qt")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With the gui tests deselected, their folders are not even imported (their modules import Qt)."""
    if collection_path in GUI_FOLDERS and excludes_gui(config.option.markexpr):
        return True
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every Qt test ``gui``, before ``-m`` selects."""
    for item in items:
        if needs_qt(item) and item.get_closest_marker("gui") is None:
            item.add_marker(pytest.mark.gui)


# --- parallel runs (pytest-xdist) ------------------------------------------------------------------------------------

def group_of(path: str) -> str | None:
    """The group (``GROUPS``) of the test file at ``path``, relative to the repository or absolute."""
    rel = Path(path).resolve().relative_to(TESTS.parent) if Path(path).is_absolute() else Path(path)
    for key, group in GROUPS.items():
        if rel.is_relative_to(Path("tests") / key):
            return group
    return None


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``--dist loadgroup`` with the groups of ``GROUPS``, each sent to one worker as a whole.

    xdist's own loadgroup reads ``xdist_group`` marks through a suffix it writes into node ids, which pytest 9.2
    no longer lets it write: the marks would be ignored without a word (pytest-xdist issue 1386). The scheduler
    groups by path instead.
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class PathGroupScheduling(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            group = group_of(nodeid.split("::", 1)[0])
            return f"group {group}" if group is not None else super()._split_scope(nodeid)

    return PathGroupScheduling(config, log)


class WorkerLock:
    """Lets a test of an exclusive group run alone across the xdist workers: a readers-writer lock on two files.

    Every other test holds it shared. An exclusive test waiting for it holds the turnstile, so tests starting
    meanwhile queue behind it instead of keeping it waiting for ever.
    """

    def __init__(self, folder: Path):
        # Open for the whole session: a lock is held on an open file.
        self._turnstile = open(folder / "tests.turnstile", "a")
        self._lock = open(folder / "tests.lock", "a")

    @contextlib.contextmanager
    def held(self, exclusive: bool):
        fcntl.flock(self._turnstile, fcntl.LOCK_EX)
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        finally:
            fcntl.flock(self._turnstile, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(self._lock, fcntl.LOCK_UN)

    def close(self) -> None:
        self._turnstile.close()
        self._lock.close()


_WORKER_LOCK = pytest.StashKey[WorkerLock]()


def pytest_configure(config: pytest.Config) -> None:
    """In an xdist worker, open the lock in the folder the run's workers share (the parent of their basetemp)."""
    if fcntl is not None and hasattr(config, "workerinput") and config.option.basetemp:
        config.stash[_WORKER_LOCK] = WorkerLock(Path(config.option.basetemp).parent)


def pytest_unconfigure(config: pytest.Config) -> None:
    lock = config.stash.get(_WORKER_LOCK, None)
    if lock is not None:
        lock.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """Each test holds the worker lock, exclusively when marked :data:`ALONE` (waiting is not timed out)."""
    lock = item.config.stash.get(_WORKER_LOCK, None)
    if lock is None:
        return (yield)
    with lock.held(item.get_closest_marker(ALONE) is not None):
        return (yield)


# --- fixtures --------------------------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def data_dir() -> Path:
    """Small test files shipped with the repository (tests/data)."""
    return DATA


# --- numba kernels ---------------------------------------------------------------------------------------------------

#: Run in each compiling process: claims kernel modules one at a time (a file created exclusively is a claim)
#: and runs their warm-up as ``anonstudio.kernels.warmup.warm_up_all`` does, which writes numba's cache.
_COMPILE = """
import importlib, os, sys
claims = sys.argv[1]
for name in sys.argv[2:]:
    try:
        os.close(os.open(os.path.join(claims, name), os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        continue
    hook = getattr(importlib.import_module("anonstudio.kernels." + name), "warm_up", None)
    if callable(hook):
        hook()
"""


def _kernel_modules() -> list[str]:
    """The kernel modules, largest source first (the longest to compile, roughly)."""
    paths = [p for p in KERNELS.glob("*.py") if p.stem not in ("__init__", "warmup")]
    return [p.stem for p in sorted(paths, key=lambda p: p.stat().st_size, reverse=True)]


def _cache_is_cold(modules: list[str]) -> bool:
    """Whether some kernel module has no numba index yet (a clean clone; a stale one is recompiled in the tests)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        found = {p.name.split(".")[0] for p in Path(os.environ["NUMBA_CACHE_DIR"]).rglob("*.nbi")}
    else:
        found = {p.name.split(".")[0] for p in (KERNELS / "__pycache__").glob("*.nbi")}
    return not set(modules) <= found


def pytest_sessionstart(session: pytest.Session) -> None:
    """On a cold numba cache, compile the kernels in parallel processes before any test starts.

    Compiling all of them takes minutes on one core. Done in the ``compiled_kernels`` fixture it would run
    inside the first test's timeout, and once per xdist worker at the same time; done here, each worker's
    fixture only loads the cache. Whatever these processes fail to compile, the fixture compiles (and reports).
    """
    config = session.config
    if hasattr(config, "workerinput") or config.option.collectonly:
        return
    modules = _kernel_modules()
    if not _cache_is_cold(modules):
        return
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    processes = max(1, min(cores, 4))  # past 4, the two longest modules (~1/5 of the work each) set the time
    t0 = time.perf_counter()
    path = [str(TESTS.parent), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    codes = []
    with tempfile.TemporaryDirectory(prefix="kernel-claims-") as claims:
        procs = [subprocess.Popen([sys.executable, "-c", _COMPILE, claims, *modules], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                 for _ in range(processes)]
        try:
            codes = [proc.wait(timeout=1800) for proc in procs]
        except subprocess.TimeoutExpired:
            pass
        finally:  # interrupted or too slow: the fixture compiles what is missing
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        failed = "" if codes and not any(codes) else "; a process failed, the tests compile what it left"
        reporter.write_line(f"numba cache was cold: compiled the kernels in {processes} processes in "
                            f"{time.perf_counter() - t0:.0f} s{failed}")


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    """Compile (or load from the cache) every numba kernel once, so test durations measure tests."""
    from anonstudio.kernels.warmup import warm_up_all

    timings = warm_up_all()
    # What lives for the whole session (modules, numba's compiled kernels and type caches: most of the heap) is
    # never garbage: frozen, no collection scans it again. A full collection after each Qt test took 0.2-0.5 s.
    gc.collect()
    gc.freeze()
    return timings


# --- settings and Qt -------------------------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def isolated_settings(request, tmp_path, monkeypatch):
    """Every test writes settings and cached results to temporary folders, never the user's.

    Closing a window with unsaved changes never waits for an answer either: a modal question
    with nobody to click it would hang the test (a window built outside tests/gui did). That needs
    the studio's modules, so it is done only where Qt is in use: a Qt-free test imports no Qt.
    """
    from anonstudio.studio.cache import CACHE_ENV

    monkeypatch.setenv(SETTINGS_ENV, str(tmp_path / "settings"))
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    if request.node.get_closest_marker("gui") is not None or "anonstudio.gui.project_controller" in sys.modules:
        from anonstudio.gui.project_controller import ProjectController

        monkeypatch.setattr(ProjectController, "ask_unsaved", lambda self: "discard")
    return tmp_path / "settings"


@pytest.fixture(autouse=True)
def qt_garbage_on_the_gui_thread(request):
    """In a test that uses Qt, Python's cyclic collector runs only on the GUI thread.

    Left automatic, it may run in a worker thread that happens to allocate, and destroy a Qt widget
    there; PySide then waits for the interpreter lock the collecting thread holds, and the test hangs
    (seen once in a full run). The studio does the same with pyqtgraph's GarbageCollector.
    """
    if not {"qtbot", "qapp"} & set(request.fixturenames):
        yield
        return
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.collect()
        # What survived the test (module-scoped fixtures, caches) is frozen too, so the next test's collection
        # scans only what that test made: Qt wrappers are slow to traverse, and a whole GUI module's leftovers
        # made each collection slower than the test before it.
        gc.freeze()
        if was_enabled:
            gc.enable()
