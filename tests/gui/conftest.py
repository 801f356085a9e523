"""GUI test set-up: a runner, a window; no real dialogs (settings are isolated by tests/conftest.py)."""
from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")


@pytest.fixture
def dialogs(monkeypatch):
    """Capture QMessageBox.critical/warning/about calls instead of blocking on them."""
    from PySide6.QtWidgets import QMessageBox

    shown: list[tuple[str, str, str]] = []

    def fake(kind):
        def show(parent, title, text, *args, **kwargs):
            shown.append((kind, title, text))
            return QMessageBox.Ok
        return show

    for kind in ("critical", "warning", "information", "about"):
        monkeypatch.setattr(QMessageBox, kind, fake(kind))
    return shown


@pytest.fixture
def runner(qtbot, dialogs):
    from anonstudio.gui.workers import JobRunner

    r = JobRunner()
    yield r
    assert r.shutdown(10000)


@pytest.fixture
def window(qtbot, dialogs):
    from anonstudio.gui.main_window import MainWindow

    w = MainWindow(warm_up=False, restore_layout=False)
    qtbot.addWidget(w)
    w.show()
    yield w
    w.runner.shutdown(10000)


@pytest.fixture
def wait_job(qtbot):
    """``wait_job(job)`` blocks (processing events) until the job reached a final state."""

    def wait(job, timeout=20000):
        qtbot.waitUntil(lambda: job.state.finished, timeout=timeout)

    return wait
