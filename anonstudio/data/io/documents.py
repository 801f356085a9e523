"""Files that are documents, not datasets: JSON, HTML, XML, PDF, a zip archive that is no workbook.

Any text can be split into fields, so without this check a web page loads as
a one-column table whose header is ``<!DOCTYPE html>`` and a JSON result as
a table of braces. :func:`refuse_documents` looks at the first bytes of the
file (its content, never its name) and raises a one-line
:class:`~anonstudio.data.errors.DataFormatError` saying what the file is
and that it is not a dataset. Every loader entry point calls it, also when
the format is given explicitly.
"""
from __future__ import annotations

import codecs
import json
import re
import zipfile
import zlib
from pathlib import Path

from ..errors import DataFormatError

__all__ = ["document_kind", "refuse_documents", "workbook_kind"]

#: Bytes looked at; a document announces itself in its first line.
HEAD_BYTES = 64 * 1024

_ZIP = b"PK\x03\x04"
_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_MARKUP = re.compile(r"<(?:!doctype\s+html|html[\s>]|head[\s>]|body[\s>]|\?xml[\s?]|svg[\s>]|!--)", re.I)
_ELEMENT = re.compile(r"<[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")


def workbook_kind(path: Path, raw: bytes | None = None) -> str | None:
    """``"xlsx"``, ``"ods"``, ``"encrypted"`` or None (not a workbook), from the file's content."""
    if raw is None:
        with open(path, "rb") as fh:
            raw = fh.read(64 * 1024)
    if raw.startswith(_OLE2):
        # An encrypted OOXML workbook is an OLE2 container with an EncryptedPackage stream (names are UTF-16).
        return "encrypted" if "EncryptedPackage".encode("utf-16-le") in _ole2_names(path, raw) else None
    if not raw.startswith(_ZIP):
        return None
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            if "[Content_Types].xml" in names:
                types = zf.read("[Content_Types].xml")[:200_000]
                return "xlsx" if b"spreadsheetml" in types or b"ms-excel.sheet" in types else None
            if "mimetype" in names:
                mime = zf.read("mimetype")[:100].strip()
                if mime == b"application/vnd.oasis.opendocument.spreadsheet":
                    return "ods"
                if b"opendocument.spreadsheet" in mime:
                    return "ods"
    except (zipfile.BadZipFile, OSError, KeyError, zlib.error, NotImplementedError):
        return None
    return None


def _ole2_names(path: Path, raw: bytes) -> bytes:
    """Enough of an OLE2 file to find its directory's stream names (they sit in the first sectors usually)."""
    if len(raw) >= 64 * 1024:
        try:
            with open(path, "rb") as fh:
                return fh.read(4 * 1024 * 1024)
        except OSError:
            return raw
    return raw


def _text_head(raw: bytes) -> str:
    """The first characters of ``raw`` as text, leading blanks and any byte-order mark removed."""
    for bom, name in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                      (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if raw.startswith(bom):
            return raw.decode(name, errors="ignore").lstrip()
    return raw.removeprefix(codecs.BOM_UTF8).decode("utf-8", errors="ignore").lstrip()


def _is_json(text: str, whole: bool) -> bool:
    """Whether ``text`` starts with a JSON object or array (one document, or JSON Lines)."""
    if not text or text[0] not in "{[":
        return False
    try:
        value, end = json.JSONDecoder().raw_decode(text)
    except ValueError:
        # A document cut by the read: an object ({"key" ...) or an array of arrays, objects or strings.
        # "[19-22],M" (a published range) and "{a|b} c" (a published item set) are no JSON at all.
        return not whole and bool(re.match(r'\{\s*"|\[\s*[\[{"]', text))
    if not isinstance(value, (dict, list)):
        return False
    rest = text[end:].lstrip(" \t\r")
    return not rest.strip() or (rest[:1] == "\n" and rest.lstrip()[:1] in "{[")  # JSON Lines


def document_kind(path: str | Path, raw: bytes, *, whole: bool | None = None) -> str | None:
    """What non-dataset document ``raw`` (the first bytes of ``path``) begins, e.g. ``"a JSON document"``.

    None when the file may be a dataset. ``whole`` says whether ``raw`` is the
    whole file (default: whether it is shorter than :data:`HEAD_BYTES`).
    """
    if raw.startswith(b"%PDF-"):
        return "a PDF document"
    if raw.startswith(_ZIP):
        return None if workbook_kind(Path(path), raw) is not None else "a zip archive (not a spreadsheet)"
    if raw.startswith((b"{\\rtf", b"\x89PNG", b"\xff\xd8\xff", b"GIF8")):
        return "a picture or rich-text document"
    text = _text_head(raw[:HEAD_BYTES])
    if _is_json(text, len(raw) < HEAD_BYTES if whole is None else whole):
        return "a JSON document"
    if text.startswith("<") and (_MARKUP.match(text) or _ELEMENT.match(text)):
        lowered = text[:2000].lower()
        if "<html" in lowered or "<!doctype html" in lowered:
            return "an HTML page"
        return "an XML document"
    return None


def refuse_documents(path: str | Path, raw: bytes | None = None) -> None:
    """Raise a one-line DataFormatError when ``path`` is a document, not a dataset (module docstring).

    ``raw``: its first bytes if already read (decompressed if gzip). Files
    that cannot be read are left to the loader, which names the problem.
    """
    if raw is None:
        from .text import read_bytes

        try:
            raw = read_bytes(path, HEAD_BYTES)
        except DataFormatError:
            return
    kind = document_kind(path, raw)
    if kind is not None:
        raise DataFormatError(Path(path), f"is {kind}, not a dataset (a dataset is a FIMI, CSV or Parquet "
                                          "file or a spreadsheet)")
