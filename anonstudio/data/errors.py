"""Errors raised for bad input files."""
from __future__ import annotations

from pathlib import Path

__all__ = ["DataFormatError"]


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
