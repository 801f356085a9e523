"""The import preview: what a file will load as, shown before it is loaded.

:func:`preview_file` runs the real loader on the first part of the file
(:func:`~anonstudio.data.io.text.reading_head`), so the records it shows are
exactly those a full load reads, with the format, separator, encoding and
header row it used. A wrong guess is visible before anything runs, and a
bad file gives one line naming the file, the line and the reason.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .datasets import ReadOptions, load_with_options, require_regular_file, table_with_numeric
from .errors import DataFormatError
from .table import Table

__all__ = ["Preview", "preview_file", "ENCODINGS", "SEPARATORS", "PREVIEW_BYTES", "describe_encoding",
           "error_line", "size_text"]

#: How much of a file the preview reads.
PREVIEW_BYTES = 256 * 1024
#: Lines of the file shown as text.
TEXT_LINES = 60

#: Encodings offered besides UTF-8 (codec name -> what users call it).
ENCODINGS = {
    "utf-8": "UTF-8",
    "latin-1": "Latin-1 (ISO-8859-1)",
    "cp1252": "Windows-1252 (Western Europe)",
    "iso-8859-15": "Latin-9 (ISO-8859-15)",
    "cp1250": "Windows-1250 (Central Europe)",
    "mac-roman": "Mac OS Roman",
}

#: Field separators (character -> its name).
SEPARATORS = {",": "comma", "\t": "tab", ";": "semicolon", "|": "vertical bar", " ": "space"}


@dataclass
class Preview:
    """What :func:`preview_file` found.

    Attributes
    ----------
    path
        The file.
    options
        The options the preview read it with.
    format, format_label, kind
        The format used (registry name and label), ``transactions`` or
        ``table``; empty when no format could be chosen.
    sniffed
        The format sniffing picks for this file ("" when none fits).
    encoding
        The text encoding, in words.
    separator
        The field separator used (None for formats without one).
    header
        Whether the first row was read as column names (None: not applicable).
    text
        The first lines of the file as text.
    data
        The first records (TransactionData) or rows (Table) as a full load
        reads them; None after an error.
    truncated
        The file is longer than what the preview read.
    bytes_read, file_size
        Bytes the preview read, and the file's size.
    error
        One line (file, line, reason); "" when the preview read fine.
    warnings
        What the loader noticed (duplicates, missing values...).
    """

    path: Path
    options: ReadOptions
    format: str = ""
    format_label: str = ""
    kind: str = ""
    sniffed: str = ""
    encoding: str = ""
    separator: str | None = None
    header: bool | None = None
    text: list[str] = field(default_factory=list)
    data: Any = None
    truncated: bool = False
    bytes_read: int = 0
    file_size: int = 0
    error: str = ""
    warnings: list[str] = field(default_factory=list)
    #: A workbook's sheets (number, name, rows, columns); empty for other files.
    sheets: list = field(default_factory=list)
    #: A table's column names as read, before any is read as numbers (known even when a numeric mark fails).
    columns: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.error and self.data is not None

    @property
    def count(self) -> int:
        """Records or rows read."""
        if self.data is None:
            return 0
        return self.data.n_rows if isinstance(self.data, Table) else self.data.n_records

    def extent(self) -> str:
        """``"all 40 records"`` or ``"the first 2,012 rows (256 KB of 3.8 MB)"``."""
        word = "rows" if self.kind == "table" else "records"
        if not self.truncated:
            return f"all {self.count:,} {word}"
        return f"the first {self.count:,} {word} ({size_text(self.bytes_read)} of {size_text(self.file_size)})"

    def facts(self) -> list[tuple[str, str]]:
        """(label, value) pairs: how the file was read, in words."""
        out = [("Format", f"{self.format_label} ({self.format})" if self.format else "not recognised")]
        if self.sniffed and self.sniffed != self.format:
            out.append(("Guessed format", self.sniffed))
        out.append(("Encoding", self.encoding))
        if self.separator is not None:
            name = SEPARATORS.get(self.separator)
            shown = self.separator not in ("\t", " ")
            out.append(("Separator", f"{name} ({self.separator})" if name and shown else name or repr(self.separator)))
        if self.header is not None:
            out.append(("Header row", "yes: the first row names the columns" if self.header
                        else "no: the first row is data"))
        return out


def size_text(n: int) -> str:
    """``3.8 MB``, ``12.0 KB``, ``512 bytes``."""
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:,} bytes"


def error_line(path: Path, exc: BaseException) -> str:
    """One line for any failure to read ``path``: file, line and reason; never a traceback."""
    if isinstance(exc, DataFormatError):
        text = str(exc)
    else:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        # A table's own messages (a column marked numeric) already begin with the file's name.
        text = reason if reason.startswith(f"{path.name}:") else f"{path.name}: {reason}"
    return " ".join(text.split())


def describe_encoding(raw: bytes, chosen: str | None) -> str:
    """The text encoding of a file's first bytes, in words (or the one chosen)."""
    if chosen:
        return f"{ENCODINGS.get(chosen, chosen)} (chosen)"
    if raw.startswith(b"PAR1"):
        return "binary (Parquet stores its own text encoding)"
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16: not readable; save the file as UTF-8"
    if raw.startswith(b"\xef\xbb\xbf"):
        return "UTF-8 (with a byte-order mark)"
    try:
        raw.decode("ascii")
        return "UTF-8 (plain ASCII)"
    except UnicodeDecodeError:
        pass
    try:
        raw.decode("utf-8")
        return "UTF-8"
    except UnicodeDecodeError as exc:
        return f"not UTF-8 (byte 0x{raw[exc.start]:02x}): choose the encoding, often Latin-1 or Windows-1252"


def _text_lines(raw: bytes, encoding: str | None, n: int) -> list[str]:
    """The first ``n`` lines as text (undecodable bytes shown as �); none for a binary file."""
    if raw.startswith(b"PAR1"):
        return []
    try:
        text = raw.decode(encoding or "utf-8-sig", errors="replace")
    except LookupError:  # an unknown encoding name: the loader's error says so
        text = raw.decode("utf-8-sig", errors="replace")
    return text.splitlines()[:n]


def preview_file(path: str | Path, options: ReadOptions | None = None, *,
                 max_bytes: int = PREVIEW_BYTES) -> Preview:
    """Read the first ``max_bytes`` of ``path`` as ``options`` say; never raises for a bad file.

    The returned :class:`Preview` holds the records or rows read, how they
    were read and, if the file cannot be read so, a one-line error.
    """
    from .io import load_report
    from .io.text import SNIFF_BYTES, read_bytes, reading_head

    path = Path(path)
    options = options or ReadOptions()
    preview = Preview(path, options)
    try:
        if not path.exists() and not path.is_symlink():
            raise DataFormatError(path, "no such file")
        require_regular_file(path)
        preview.file_size = path.stat().st_size
        raw = read_bytes(path, max(SNIFF_BYTES, 4096))
        preview.encoding = describe_encoding(raw, options.encoding)
        preview.text = _text_lines(raw, options.encoding, TEXT_LINES)
        try:
            preview.sniffed = ReadOptions(names=options.names).format_for(path).name
        except DataFormatError:
            preview.sniffed = ""
        fmt = options.format_for(path)
        preview.format, preview.format_label, preview.kind = fmt.name, fmt.label, fmt.kind
        if raw.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")):
            from .io.sheets import list_sheets, workbook_kind

            kind = workbook_kind(path, raw)
            if kind is not None:  # a workbook holds no text to show, and keeps its own encoding
                preview.encoding = "a workbook (no text encoding)"
                preview.text = []
            if kind not in (None, "encrypted"):
                preview.sheets = list_sheets(path)
                preview.text = [f"sheet {s.number}: {s.name} ({s.rows:,} rows × {s.columns:,} columns)"
                                for s in preview.sheets]
        # Columns marked numeric are converted after the read, so that a value that is no number still leaves
        # the format's facts and the column names to show beside the error.
        as_read = options.replace(numeric=())
        if raw.startswith(b"PAR1"):
            data, preview.truncated = _parquet_head(path, as_read, max_bytes)
            preview.bytes_read = preview.file_size if not preview.truncated else min(max_bytes, preview.file_size)
        else:
            with reading_head(max_bytes) as head:
                data = load_with_options(path, as_read)
            preview.truncated = head.truncated
            preview.bytes_read = min(max_bytes, preview.file_size)
    except (DataFormatError, ValueError, OSError, KeyError, LookupError, UnicodeError) as exc:
        preview.error = error_line(path, exc)
        return preview
    report = load_report(data)
    preview.separator = report.details.get("separator")
    preview.header = report.details.get("header")
    preview.warnings = list(report.warnings)
    if isinstance(data, Table):
        preview.columns = [str(c) for c in data.frame.columns]
    if options.numeric:
        try:
            data = table_with_numeric(data, options.numeric)
        except ValueError as exc:
            preview.error = error_line(path, exc)
            return preview
    preview.data = data
    return preview


def _parquet_head(path: Path, options: ReadOptions, max_bytes: int) -> tuple[Any, bool]:
    """The first rows of a Parquet file (about ``max_bytes`` of data), loaded by the real loader."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .io.report import attach_report, load_report

    try:
        source = pq.ParquetFile(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataFormatError(path, f"not a readable Parquet file ({exc})") from exc
    total = source.metadata.num_rows
    bytes_per_row = max(source.metadata.serialized_size, sum(
        source.metadata.row_group(i).total_byte_size for i in range(source.metadata.num_row_groups))) / max(total, 1)
    rows = max(1, min(total, int(max_bytes / max(bytes_per_row, 1.0))))
    if rows >= total:
        return load_with_options(path, options), False
    batch = next(source.iter_batches(batch_size=rows))
    head = pa.Table.from_batches([batch]).replace_schema_metadata(source.schema_arrow.metadata)
    with tempfile.TemporaryDirectory(prefix="anonstudio-preview-") as folder:
        copy = Path(folder) / path.name
        pq.write_table(head, copy)
        data = load_with_options(copy, options)
    report = load_report(data)
    report.path = path
    attach_report(data, report)
    return data, True
