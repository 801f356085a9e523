"""The ``anonstudio`` entry point: argument parsing and the headless demo."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from anonstudio.app import build_parser


def test_parser_defaults_and_options():
    args = build_parser().parse_args([])
    assert (args.sample, args.dataset, args.demo, args.screenshot, args.max_m) == (None, None, False, None, None)
    args = build_parser().parse_args(["data.dat", "--demo", "--screenshot", "s.png", "--max-m", "3"])
    assert (args.dataset, args.demo, args.screenshot, args.max_m) == ("data.dat", True, "s.png", 3)


def test_window_size_option():
    assert build_parser().parse_args(["--window-size", "1280x720"]).window_size == (1280, 720)
    assert build_parser().parse_args([]).window_size is None
    for bad in ("1280", "axb", "100x100"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["--window-size", bad])


def test_screenshot_requires_demo(capsys):
    from anonstudio.app import main

    with pytest.raises(SystemExit) as exc:
        main(["--screenshot", "x.png"])
    assert exc.value.code == 2


def run_demo(tmp_path, *extra):
    shot = tmp_path / "studio.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ANONSTUDIO_SETTINGS_DIR=str(tmp_path / "settings"))
    proc = subprocess.run([sys.executable, "-m", "anonstudio.app", "--demo", "--screenshot", str(shot), *extra],
                          env=env, capture_output=True, text=True, timeout=120)
    return proc, shot


@pytest.mark.slow
def test_demo_on_the_chess_sample(tmp_path):
    proc, shot = run_demo(tmp_path, "--sample", "chess", "--max-m", "2", "--window-size", "1280x720")
    assert proc.returncode == 0, proc.stderr
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    # The PNG's header gives the window size: the studio fits a 1280x720 screen.
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1280, 720)


@pytest.mark.slow
def test_demo_fails_with_status_1_on_a_bad_file(tmp_path, data_dir):
    proc, shot = run_demo(tmp_path, str(data_dir / "gui" / "bad.dat"))
    assert proc.returncode == 1
    assert "bad.dat, line 3: 'x7' is not an integer item" in proc.stderr
    assert not shot.exists()


def test_missing_x11_libraries_are_named_before_qt_aborts(monkeypatch, capsys):
    import ctypes.util

    from anonstudio import app

    monkeypatch.setattr(app.sys, "platform", "linux")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    assert app.warn_missing_qt_libraries()
    assert "libxcb-cursor0" in capsys.readouterr().err
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert not app.warn_missing_qt_libraries()


def test_the_studio_has_its_icon(qapp):
    from anonstudio.app import _set_window_icon

    _set_window_icon(qapp)
    sizes = {(s.width(), s.height()) for s in qapp.windowIcon().availableSizes()}
    assert {(48, 48), (256, 256)} <= sizes


def test_the_studio_takes_no_abbreviated_options():
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--window", "1280x720"])
