"""Persistent settings (recent files, window layout) via QSettings.

``ANONSTUDIO_SETTINGS_DIR`` redirects the settings to an INI file in that
folder; tests and the ``--demo`` mode use it so they never touch the user's
real settings.
"""
from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSettings

__all__ = ["ORGANIZATION", "APPLICATION", "SETTINGS_ENV", "open_settings", "RecentFiles"]

ORGANIZATION = "anonstudio"
APPLICATION = "anonstudio"
SETTINGS_ENV = "ANONSTUDIO_SETTINGS_DIR"
MAX_RECENT = 10


def open_settings() -> QSettings:
    """The studio's settings store (redirected by ``ANONSTUDIO_SETTINGS_DIR``)."""
    folder = os.environ.get(SETTINGS_ENV)
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        return QSettings(str(Path(folder) / f"{APPLICATION}.ini"), QSettings.IniFormat)
    return QSettings(ORGANIZATION, APPLICATION)


class RecentFiles:
    """Most-recently-opened dataset paths, newest first, without duplicates."""

    KEY = "recent_files"

    def __init__(self, settings: QSettings, limit: int = MAX_RECENT):
        self.settings = settings
        self.limit = limit

    def paths(self) -> list[str]:
        value = self.settings.value(self.KEY, [])
        if isinstance(value, str):  # QSettings returns a bare string for one entry
            value = [value]
        return [str(v) for v in (value or [])]

    def add(self, path: str | Path) -> list[str]:
        path = str(Path(path).resolve())
        paths = [path] + [p for p in self.paths() if p != path]
        paths = paths[: self.limit]
        self.settings.setValue(self.KEY, paths)
        return paths

    def remove(self, path: str) -> None:
        self.settings.setValue(self.KEY, [p for p in self.paths() if p != path])

    def clear(self) -> None:
        self.settings.setValue(self.KEY, [])
