"""The format registry: one entry per file format anonstudio reads and writes.

A format module registers a :class:`Format` at import time. Sniffing scores
every registered format on the first part of the file (:class:`Head`) and
picks the most confident one, so a new format never edits a shared list of
rules.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..errors import DataFormatError
from .text import SNIFF_BYTES, decode_text, read_bytes

__all__ = ["Format", "Head", "register", "get_format", "formats", "sniff_format", "format_for_extension",
           "dialog_filters"]

#: Lines starting with these are comments / metadata in FIMI, SPMF and Adult files.
COMMENT_PREFIXES = ("#", "%", "@", "|")


@dataclass(frozen=True)
class Head:
    """The beginning of a file, as the sniffers see it."""

    path: Path
    raw: bytes
    lines: list[str]  # first non-blank, non-comment lines (line ends removed)

    @property
    def extension(self) -> str:
        """The file name's suffix, looking through a ``.gz``."""
        return Path(self.path.name.lower().removesuffix(".gz")).suffix

    @classmethod
    def read(cls, path: Path) -> "Head":
        raw = read_bytes(path, SNIFF_BYTES)
        if raw.startswith(b"PAR1"):
            return cls(path, raw, [])
        if not raw.strip():
            raise DataFormatError(path, "the file is empty")
        if len(raw) == SNIFF_BYTES:
            # Drop a possibly cut multi-byte character and the cut last line.
            raw = raw[: raw.rfind(b"\n") + 1] or raw
        text = decode_text(raw, path, latin1_fallback=True)
        lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith(COMMENT_PREFIXES)]
        return cls(path, raw, lines[:500])


@dataclass(frozen=True)
class Format:
    """One readable/writable file format.

    Parameters
    ----------
    name
        Registry key used by ``format=...`` and the CLI (``fimi``, ``csv-long``...).
    label
        Human name for file dialogs.
    kind
        ``"transactions"`` or ``"table"``.
    extensions
        Usual file name endings (with dot); the first is used for saving.
    sniff
        ``sniff(head) -> float`` confidence in [0, 1] that the file is in this format.
    load
        ``load(path, report, **options)``.
    save
        ``save(obj, path, **options)``; writes atomically.
    """

    name: str
    label: str
    kind: str
    extensions: tuple[str, ...]
    sniff: Callable[[Head], float]
    load: Callable[..., Any]
    save: Callable[..., None]
    description: str = field(default="", compare=False)


_FORMATS: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    _FORMATS[fmt.name] = fmt
    return fmt


def formats(kind: str | None = None) -> list[Format]:
    """Registered formats, optionally only those of one kind."""
    return [f for f in _FORMATS.values() if kind is None or f.kind == kind]


def dialog_filters(kind: str | None = None) -> list[str]:
    """File-dialog filters, e.g. ``"FIMI / SPMF itemsets (*.dat *.txt *.fimi)"``, one per format."""
    return [f"{fmt.label} ({' '.join('*' + ext for ext in fmt.extensions)})" for fmt in formats(kind)]


def get_format(name: str, kind: str | None = None) -> Format:
    fmt = _FORMATS.get(name)
    if fmt is None or (kind is not None and fmt.kind != kind):
        known = ", ".join(f.name for f in formats(kind))
        raise ValueError(f"unknown format {name!r}; known: {known}")
    return fmt


def format_for_extension(path: Path, kind: str) -> Format | None:
    """The format of ``kind`` with the longest extension the file name ends with."""
    name = Path(path).name.lower().removesuffix(".gz")
    matches = [(len(ext), -i, fmt) for i, fmt in enumerate(formats(kind)) for ext in fmt.extensions
               if name.endswith(ext)]
    return max(matches, key=lambda t: t[:2])[2] if matches else None


def sniff_format(path: str | Path, kind: str | None = None) -> Format:
    """The most plausible format for ``path`` (optionally among one kind).

    Raises DataFormatError (missing, empty, binary file) or when no format
    recognises the content.
    """
    path = Path(path)
    head = Head.read(path)
    scored = sorted(((fmt.sniff(head), i, fmt) for i, fmt in enumerate(formats(kind))),
                    key=lambda t: (-t[0], t[1]))
    if not scored or scored[0][0] < 0.1:
        # Nothing fits well (often a broken file): trust the file name, so that
        # the matching loader reports what exactly is wrong, and where.
        by_name = format_for_extension(path, kind) if kind else None
        if by_name is not None:
            return by_name
    if not scored or scored[0][0] <= 0:
        raise DataFormatError(path, "format not recognised; choose one explicitly")
    return scored[0][2]
