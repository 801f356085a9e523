"""Errors raised for bad input files."""
from __future__ import annotations

from pathlib import Path

__all__ = ["DataFormatError", "LoadCancelled"]


class DataFormatError(ValueError):
    """A file that cannot be read as the expected format.

    The message always names the file and, where it applies, the 1-based line
    and the reason, e.g. ``"baskets.dat, line 12: 'x7' is not an integer item"``.
    """

    def __init__(self, path: str | Path | None, reason: str, line: int | None = None):
        self.path = Path(path) if path is not None else None
        self.line = line
        self.reason = reason
        where = self.path.name if self.path is not None else "input"
        if line is not None:
            where += f", line {line}"
        super().__init__(f"{where}: {reason}")


class LoadCancelled(Exception):
    """A load stopped because its :class:`~anonstudio.jobs.Progress` asked to cancel.

    Loaders check for a cancel between chunks of the file and raise this
    instead of returning: nothing is half-loaded, and the caller keeps what it
    had before (the GUI its current dataset, the CLI exits 130 without writing).
    """

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else None
        super().__init__(f"{self.path.name if self.path is not None else 'input'}: loading was cancelled")
