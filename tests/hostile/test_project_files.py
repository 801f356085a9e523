"""Hostile project files: ``run`` and ``report`` refuse each in one line naming the file (exit 2, nothing written),
and the studio shows an error dialog instead of raising."""
from __future__ import annotations

import pytest

from anonstudio.cli import main

from .project_files import hostile_variants, valid_project

#: Variants the studio may open (the value is only refused when the step or sweep runs).
STUDIO_OPENS = {"sweep-billion-seeds"}


@pytest.fixture(scope="module")
def variants(tmp_path_factory):
    folder = tmp_path_factory.mktemp("projects")
    text = valid_project(folder).read_text(encoding="utf-8")
    paths = {}
    for name, variant in hostile_variants(text).items():
        path = folder / f"{name}.toml"
        path.write_text(variant, encoding="utf-8", errors="surrogateescape")
        paths[name] = path
    return paths


@pytest.mark.parametrize("command", ["run", "report"])
def test_run_and_report_refuse_every_hostile_project(variants, tmp_path, capsys, command):
    for name, path in variants.items():
        if command == "report" and name.startswith("sweep-billion"):
            continue  # a report runs no sweep
        before = path.read_bytes()
        out = tmp_path / name
        argv = (["run", str(path), "--out", str(out), "--quiet"] if command == "run"
                else ["report", str(path), "--html", str(tmp_path / f"{name}.html"), "--no-figures", "--quiet"])
        code = main(argv)
        err = capsys.readouterr().err
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert code == 2, (name, err)
        assert "s3cret" not in err  # a password never reaches a message
        assert len(lines) == 1 and ": error: " in lines[0] and path.name in lines[0], (name, lines)
        assert path.read_bytes() == before
        assert not list(out.rglob("*.json")) and not (tmp_path / f"{name}.html").exists(), name


def test_the_studio_shows_an_error_for_every_hostile_project(variants, qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from anonstudio.gui.main_window import MainWindow

    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text, *a, **k: shown.append(text))
    for method in ("warning", "information", "question"):
        monkeypatch.setattr(QMessageBox, method, lambda *a, **k: QMessageBox.StandardButton.Ok)
    window = MainWindow(warm_up=False, restore_layout=False)
    qtbot.addWidget(window)
    for name, path in variants.items():
        shown.clear()
        job = window.open_project(path)
        if job is not None:
            qtbot.waitUntil(lambda job=job: job.state.finished, timeout=20000)
            qtbot.wait(50)
        if name in STUDIO_OPENS:
            continue
        assert len(shown) == 1 and "\n" not in shown[0].strip() and path.name in shown[0], (name, shown)
