"""The studio's hint about missing X11 libraries, as a source install and as the desktop bundle see them."""
from __future__ import annotations

import ctypes.util

import pytest

from anonstudio import app


@pytest.fixture
def xcb_linux(monkeypatch):
    """A Linux session that would use Qt's xcb window platform."""
    monkeypatch.setattr(app.sys, "platform", "linux")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


def only_system_has(monkeypatch, *names):
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: f"lib{name}.so" if name in names else None)


def test_the_hint_names_exactly_the_missing_packages(xcb_linux, monkeypatch, capsys):
    only_system_has(monkeypatch, "xcb-cursor", "xkbcommon-x11", "xcb-shape")
    assert app.warn_missing_qt_libraries()
    err = capsys.readouterr().err
    assert "not installed: libxcb-icccm4, libxcb-keysyms1." in err
    assert "sudo apt install libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0" in err

    only_system_has(monkeypatch, *app.LINUX_QT_LIBRARIES)
    assert not app.warn_missing_qt_libraries()
    assert capsys.readouterr().err == ""


def test_the_bundle_counts_the_copies_it_carries(xcb_linux, monkeypatch, tmp_path, capsys):
    # The desktop bundle ships the X11 libraries its build machine had; a system
    # without libxcb-cursor0 still gets a window from it, so no false alarm.
    only_system_has(monkeypatch, "xkbcommon-x11", "xcb-icccm", "xcb-keysyms", "xcb-shape")
    (tmp_path / "libxcb-cursor.so.0").write_bytes(b"")
    monkeypatch.setattr(app.sys, "frozen", True, raising=False)
    monkeypatch.setattr(app.sys, "_MEIPASS", str(tmp_path), raising=False)
    assert not app.warn_missing_qt_libraries()

    # A library the build machine lacked is not in the bundle either: named as for a source install.
    (tmp_path / "libxcb-cursor.so.0").unlink()
    assert app.warn_missing_qt_libraries()
    assert "not installed: libxcb-cursor0." in capsys.readouterr().err


def test_a_source_install_does_not_look_into_a_stray_bundle_folder(xcb_linux, monkeypatch, tmp_path, capsys):
    only_system_has(monkeypatch)
    (tmp_path / "libxcb-cursor.so.0").write_bytes(b"")
    monkeypatch.setattr(app.sys, "_MEIPASS", str(tmp_path), raising=False)
    monkeypatch.delattr(app.sys, "frozen", raising=False)
    assert app.warn_missing_qt_libraries()
    assert "not installed: libxcb-cursor0, libxkbcommon-x11-0," in capsys.readouterr().err
