"""Test-wide set-up: Qt offscreen, fixed numba cache location, shared fixtures."""
from __future__ import annotations

import gc
import os
from pathlib import Path

# Before any Qt import: no display is needed, on CI or a developer machine.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

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


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """Small test files shipped with the repository (tests/data)."""
    return DATA


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    """Compile (or load from the cache) every numba kernel once, so test durations measure tests."""
    from anonstudio.kernels.warmup import warm_up_all

    return warm_up_all()


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path, monkeypatch):
    """Every test writes settings and cached results to temporary folders, never the user's.

    Closing a window with unsaved changes never waits for an answer either: a modal question
    with nobody to click it would hang the test (a window built outside tests/gui did).
    """
    from anonstudio.gui.settings import SETTINGS_ENV

    monkeypatch.setenv(SETTINGS_ENV, str(tmp_path / "settings"))
    monkeypatch.setenv("ANONSTUDIO_CACHE_DIR", str(tmp_path / "cache"))
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
        if was_enabled:
            gc.enable()
