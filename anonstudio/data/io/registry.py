"""The format registry: one entry per file format anonstudio reads and writes.

A format module registers a :class:`Format` at import time. Sniffing scores
every registered format on the first part of the file (:class:`Head`) and
picks the most confident one, so a new format never edits a shared list of
rules.
"""
from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import DataFormatError
from .documents import refuse_documents
from .text import SNIFF_BYTES, decode_text, read_bytes, split_records

__all__ = ["Format", "Head", "register", "get_format", "formats", "sniff_format", "format_for_extension",
           "dialog_filters"]

#: Lines starting with these are comments / metadata in FIMI, SPMF and Adult files.
COMMENT_PREFIXES = ("#", "%", "@", "|")


@dataclass(frozen=True)
class Head:
    """The beginning of a file, as the sniffers see it."""

    path: Path
    raw: bytes
    lines: list[str]  # first non-blank, non-comment records (line ends removed; quoted line ends kept)
    sheet: str | int | None = None  # the sheet of a workbook the sniffers look at (None: the first)

    @property
    def extension(self) -> str:
        """The file name's suffix, looking through a ``.gz``."""
        return Path(self.path.name.lower().removesuffix(".gz")).suffix

    @classmethod
    def read(cls, path: Path, encoding: str | None = None, sheet: str | int | None = None) -> Head:
        raw = read_bytes(path, SNIFF_BYTES)
        refuse_documents(path, raw)
        # Binary containers: Parquet, zip (a workbook), OLE2 (an encrypted workbook); their sniffers read them.
        if raw.startswith((b"PAR1", b"PK\x03\x04", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")):
            return cls(path, raw, [], sheet)
        full = len(raw) == SNIFF_BYTES
        # Not final when the read was cut: a multi-byte character may be cut too.
        text = decode_text(raw, path, encoding=encoding, latin1_fallback=True, final=not full)
        if not text.strip():
            raise DataFormatError(path, "the file is empty")
        if full:
            text = text[: text.rfind("\n") + 1] or text  # drop the cut last line
        # Quoted CSV fields may hold line ends: the sniffers see one entry per record.
        lines = [ln for ln in split_records(text) if ln.strip() and not ln.startswith(COMMENT_PREFIXES)]
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


def _extension_length(path: Path, fmt: Format) -> int:
    """Length of the longest of ``fmt``'s extensions the file name ends with (0: none)."""
    name = Path(path).name.lower().removesuffix(".gz")
    return max((len(ext) for ext in fmt.extensions if name.endswith(ext)), default=0)


def format_for_extension(path: Path, kind: str | None) -> Format | None:
    """The format (of ``kind``, or any) with the longest extension the file name ends with."""
    matches = [(_extension_length(path, fmt), -i, fmt) for i, fmt in enumerate(formats(kind))]
    best = max(matches, key=lambda t: t[:2], default=None)
    return best[2] if best is not None and best[0] > 0 else None


#: Below this sniff confidence the file name decides (see :func:`sniff_format`).
CONFIDENT = 0.1


def _sniff_score(fmt: Format, head: Head) -> float:
    """``fmt``'s score for ``head``; a sniffer that stumbles over the text has simply not recognised it.

    Sniffers parse arbitrary text with helpers such as the csv module, which raises on some inputs
    (an unquoted line break after a quote); guessing must never turn into an error of its own.
    """
    try:
        return fmt.sniff(head)
    except (csv.Error, ValueError, IndexError, UnicodeError):
        return 0.0


def sniff_format(path: str | Path, kind: str | None = None, *, encoding: str | None = None,
                 sheet: str | int | None = None) -> Format:
    """The most plausible format for ``path`` (optionally among one kind).

    The format whose sniffer is most confident wins. When none is confident
    (often a broken file) the file name decides: among the formats with the
    longest matching extension, the one whose sniffer scored highest (so
    ``.csv`` picks ``csv-long`` or ``csv-table``), because that format's
    loader then reports what exactly is wrong, and where. Only without such
    an extension does a weak guess stand.

    ``sheet`` is the sheet of a workbook to look at (None: the first).
    Raises DataFormatError (missing, empty, binary file) or when no format
    recognises the content.
    """
    path = Path(path)
    head = Head.read(path, encoding, sheet)
    scored = sorted(((_sniff_score(fmt, head), i, fmt) for i, fmt in enumerate(formats(kind))),
                    key=lambda t: (-t[0], t[1]))
    if scored and scored[0][0] >= CONFIDENT:
        return scored[0][2]
    longest = max((_extension_length(path, fmt) for _, _, fmt in scored), default=0)
    if longest:
        return next(fmt for _, _, fmt in scored if _extension_length(path, fmt) == longest)
    if not scored or scored[0][0] <= 0:
        raise DataFormatError(path, "format not recognised; choose one explicitly")
    return scored[0][2]
