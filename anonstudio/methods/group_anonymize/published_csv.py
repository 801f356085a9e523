"""Group-anonymized tables as CSV: export and import (one format both ways).

Layout: one CSV with a header and one line per cleartext row::

    [id,] gid, qi_1, ..., qi_d, sensitive

- ``gid`` (name configurable) labels the row's group; the exporter writes
  1..G in order of the groups' first rows.
- Horizontal releases (k-anonymity, l-diversity): every quasi-identifier cell
  holds the group's generalized cell, the same on every line of the group:
  ``*``, a set ``{a|b}``, an inclusive range ``[20-29]``, a mask ``4550*``
  (prefix of the value's text) or a plain value (see :mod:`.cells`). The
  sensitive column holds the row's own value (it may be left out on import).
  Without a gid column on import, lines with identical cells form a group.
- Vertical releases (Anatomy): quasi-identifier cells hold the row's exact
  values; the sensitive column holds the group's sensitive *multiset*, e.g.
  ``{Flu|Heart}``, repeated on every line of the group, so no line is linked
  to its own sensitive value. This single-file form was chosen over Anatomy's
  two tables (QIT and ST) because it keeps one line per cleartext row and so
  aligns with the cleartext table like horizontal files. On import, plain
  sensitive values are accepted too (``scheme="vertical"``): the group's
  multiset is then the multiset of its lines' values. Lines of a vertical
  group are exchangeable, so the importer checks each group's quasi-identifier
  tuples and sensitive values as multisets against its cleartext rows; a table
  whose lines were permuted within groups (paper 004, Table I(c)) reads fine.

Lines follow the cleartext order, unless an id column names the cleartext row
of each line: the value of the cleartext column of that name, or the 1-based
row number when the cleartext table has no such column.

Domains (the values a ``*``, mask or range stands for) are the cleartext
column's values unless a domain file (CSV ``column,value``) lists them.

Any contradiction (a cleartext value outside its group's cell, lines of one
group publishing different cells, unknown or repeated ids, a wrong number of
lines, sensitive values that differ from the cleartext) raises
:class:`~anonstudio.data.errors.DataFormatError` naming the file and line.
"""
from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ...data.errors import DataFormatError
from ...data.io import atomic_write
from ...data.table import Table, value_text
from .cells import CellError, cell_text, multiset_text, parse_cell, parse_multiset
from .domains import build_domains, column_domain, encode_column, is_numeric_domain
from .release import GroupRelease, canonical_group_ids, member_cells

__all__ = ["export_release", "import_release", "load_domain_file", "group_multisets", "horizontal_cell_texts",
           "DEFAULT_GID_COLUMN"]

DEFAULT_GID_COLUMN = "gid"


# ----------------------------------------------------------------------------- export
def horizontal_cell_texts(release: GroupRelease, column: str) -> list[str]:
    """Cell text per group: the recorded label when it reads back to the same cell."""
    domain = release.domains[column]
    numeric = is_numeric_domain(domain)
    texts = [value_text(v) for v in domain]
    labels = release.labels.get(column)
    cells = release.cells[column]
    out: list[str | None] = [None] * release.n_groups
    if labels is not None:
        # Labels repeat across groups: parse each distinct one once and compare it with the cells of all its
        # groups at once (a comparison per group was half of writing Adult's release).
        groups_of: dict[str, list[int]] = {}
        for g in range(release.n_groups):
            if labels[g] is not None:
                groups_of.setdefault(labels[g], []).append(g)
        for text, groups in groups_of.items():
            try:
                mask = parse_cell(text, domain, numeric, texts)
            except CellError:
                continue
            rows = np.asarray(groups, dtype=np.int64)
            for g in rows[(cells[rows] == mask[None, :]).all(axis=1)].tolist():
                out[g] = text
    return [text if text is not None else cell_text(domain, cells[g], numeric) for g, text in enumerate(out)]


def column_texts(series) -> list[str]:
    """``value_text`` of every cell of ``series``, worded once per distinct value.

    pandas' factorize merges values that compare equal, whose texts are then equal too, except in an object
    column (``True == 1`` but their texts differ): such a column is worded cell by cell. Missing cells are
    worded one by one as well (NaN, None and pd.NA have their own texts).
    """
    import pandas as pd

    if series.dtype == object:
        return [value_text(v) for v in series]
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    texts = [value_text(u) for u in uniques.tolist()]
    out = [texts[c] if c >= 0 else None for c in codes.tolist()]
    if not (codes < 0).any():
        return out
    return [t if t is not None else value_text(v) for t, v in zip(out, series)]


def _row_ids(table: Table, id_column: str) -> list[str]:
    if id_column in table.frame.columns:
        return [value_text(v) for v in table.frame[id_column]]
    return [str(i + 1) for i in range(table.n_rows)]


def group_multisets(release: GroupRelease, table: Table) -> list[str]:
    """Each group's sensitive values as published by Anatomy: ``{Flu|Flu|Heart}``, per group."""
    domain = release.domains[release.sensitive]
    s_codes = encode_column(table.frame[release.sensitive], domain)
    # Rows sorted by (group, sensitive code): each group's multiset is one contiguous run.
    order = np.lexsort((s_codes, release.row_group))
    bounds = np.searchsorted(release.row_group[order], np.arange(release.n_groups + 1))
    return [multiset_text([domain[c] for c in s_codes[order[bounds[g]:bounds[g + 1]]]])
            for g in range(release.n_groups)]


def export_release(release: GroupRelease, table: Table, path: str | Path, *,
                   gid_column: str = DEFAULT_GID_COLUMN, id_column: str | None = None) -> None:
    """Write ``release`` (aligned with ``table``) as CSV, atomically. See the module docstring."""
    header, columns = _release_columns(release, table, gid_column=gid_column, id_column=id_column)
    # Each distinct cell text is encoded once, by the csv module itself (quoted when it holds a comma, a quote or
    # a line break), and the lines are joined a block at a time: the same bytes as csv.writer's writerows, whose
    # per-cell checks were most of writing Adult's release.
    encoded = [_csv_fields(column) for column in columns]
    n = len(encoded[0]) if encoded else 0
    with atomic_write(path) as fh:
        csv.writer(fh, lineterminator="\n").writerow(header)
        for start in range(0, n, _BLOCK):
            block = zip(*(column[start:start + _BLOCK] for column in encoded))
            fh.write("".join([",".join(cells) + "\n" for cells in block]))


_BLOCK = 65536


def _csv_fields(texts: list[str]) -> list[str]:
    """Each text as csv.writer writes it inside a line of several fields."""
    import io

    fields: dict[str, str] = {}
    out = []
    for text in texts:
        field = fields.get(text)
        if field is None:
            buffer = io.StringIO()
            csv.writer(buffer, lineterminator="\n").writerow([text, ""])
            field = fields[text] = buffer.getvalue()[:-2]  # without the ',' of the empty field and the line end
        out.append(field)
    return out


def release_frame(release: GroupRelease, table: Table, *, gid_column: str = DEFAULT_GID_COLUMN,
                  id_column: str | None = None) -> Any:
    """The rows :func:`export_release` writes, as a DataFrame typed as anonstudio reads the file."""
    from ...data.io.relational import frame_of_text_rows

    return frame_of_text_rows(*release_rows(release, table, gid_column=gid_column, id_column=id_column))


def release_rows(release: GroupRelease, table: Table, *, gid_column: str = DEFAULT_GID_COLUMN,
                 id_column: str | None = None) -> tuple[list[str], Iterator[list[str]]]:
    """The header and the rows (cells as text) :func:`export_release` writes: the library API's release too."""
    header, columns = _release_columns(release, table, gid_column=gid_column, id_column=id_column)
    return header, map(list, zip(*columns))


def _release_columns(release: GroupRelease, table: Table, *, gid_column: str,
                     id_column: str | None) -> tuple[list[str], list[list[str]]]:
    """The header and the columns of cell texts of :func:`release_rows`."""
    if release.n_rows != table.n_rows:
        raise ValueError(f"the release has {release.n_rows} rows but the table has {table.n_rows}")
    frame = table.frame
    header = ([id_column] if id_column else []) + [gid_column, *release.qi, release.sensitive]
    ids = _row_ids(table, id_column) if id_column else None
    groups = release.row_group.tolist()
    # Column by column, then zipped: a cell is a list lookup (30,162 Adult rows x 10 cells went through a
    # lambda each before, about a third of the export).
    columns = [ids] if ids is not None else []
    gid_text = [str(g + 1) for g in range(release.n_groups)]
    columns.append([gid_text[g] for g in groups])
    if release.scheme == "horizontal":
        for c in release.qi:
            texts = horizontal_cell_texts(release, c)
            columns.append([texts[g] for g in groups])
        columns.append(column_texts(frame[release.sensitive]))
    else:
        multisets = group_multisets(release, table)
        columns.extend(column_texts(frame[c]) for c in release.qi)
        columns.append([multisets[g] for g in groups])
    return header, columns


# ----------------------------------------------------------------------------- import
def _read_csv(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    import io

    from ...data.io.text import read_text

    text = read_text(path)  # a regular file, decoded, NUL-free, line ends normalised (or a one-line error)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if header is None:
            raise DataFormatError(path, "the file is empty", None)
        header = [h.strip() for h in header]
        records = []
        for row in reader:
            if not any(f.strip() for f in row):
                continue
            if len(row) != len(header):
                raise DataFormatError(path, f"{len(row)} fields but the header has {len(header)}", reader.line_num)
            records.append((reader.line_num, row))
    except csv.Error as exc:
        raise DataFormatError(path, f"cannot be parsed as CSV ({exc})", reader.line_num) from None
    dupes = [h for h, n in Counter(header).items() if n > 1]
    if dupes:
        raise DataFormatError(path, f"column {dupes[0]!r} appears twice in the header", 1)
    return header, records


def load_domain_file(path: str | Path) -> dict[str, list[str]]:
    """Read a domain file: CSV with header ``column,value``, one line per domain value."""
    path = Path(path)
    header, records = _read_csv(path)
    if header[:2] != ["column", "value"]:
        raise DataFormatError(path, "a domain file needs the header 'column,value'", 1)
    out: dict[str, list[str]] = {}
    for line, row in records:
        column, value = row[0].strip(), row[1].strip()
        if not column or not value:
            raise DataFormatError(path, "empty column name or value", line)
        out.setdefault(column, []).append(value)
    return out


def _typed(texts: Sequence[str], numeric: bool) -> list:
    if not numeric:
        return list(texts)
    out = []
    for t in texts:
        f = float(t)
        out.append(int(f) if f.is_integer() else f)
    return out


def _domains(table: Table, columns: list[str], domain_path: str | Path | None) -> dict[str, list]:
    domains = build_domains(table, columns)
    if domain_path is None:
        return domains
    listed = load_domain_file(domain_path)
    for column, texts in listed.items():
        if column not in domains:
            continue
        numeric = is_numeric_domain(domains[column])
        try:
            extra = _typed(texts, numeric)
        except ValueError as exc:
            raise DataFormatError(domain_path, f"column {column!r} is numeric but lists a non-number ({exc})",
                                  None) from None
        known = {value_text(v) for v in extra}
        absent = [value_text(v) for v in domains[column] if value_text(v) not in known]
        if absent:
            raise DataFormatError(domain_path, f"column {column!r} lacks the cleartext value {absent[0]!r}", None)
        domains[column] = column_domain(table.frame[column].iloc[:0], extra)
    return domains


def _align(path: Path, records, table: Table, header: list[str], id_column: str | None) -> np.ndarray:
    """Cleartext row index of every CSV line."""
    n = table.n_rows
    if id_column is None:
        if len(records) != n:
            if len(records) > n:
                raise DataFormatError(path, f"line beyond the cleartext table's {n} rows", records[n][0])
            raise DataFormatError(path, f"the file has {len(records)} rows but the cleartext table has {n}; "
                                        f"cleartext row {len(records) + 1} has no line", None)
        return np.arange(n, dtype=np.int64)
    if id_column not in header:
        raise DataFormatError(path, f"no id column {id_column!r} in the header", 1)
    at = header.index(id_column)
    ids = _row_ids(table, id_column)
    index = {}
    for r, key in enumerate(ids):
        if key in index:
            raise DataFormatError(path, f"the cleartext id {key!r} names two rows ({index[key] + 1} and {r + 1})", None)
        index[key] = r
    rows = np.empty(len(records), dtype=np.int64)
    seen: dict[int, int] = {}
    for i, (line, row) in enumerate(records):
        key = row[at].strip()
        if key not in index:
            raise DataFormatError(path, f"id {key!r} names no cleartext row", line)
        r = index[key]
        if r in seen:
            raise DataFormatError(path, f"id {key!r} already appeared on line {seen[r]}", line)
        seen[r] = line
        rows[i] = r
    if len(records) != n:
        first = next(r for r in range(n) if r not in seen)
        raise DataFormatError(path, f"cleartext row {first + 1} (id {ids[first]!r}) has no line", None)
    return rows


class _CellParser:
    """Parses cell texts of one column, caching each distinct text."""

    def __init__(self, path: Path, column: str, domain: list):
        self.path, self.column, self.domain = path, column, domain
        self.numeric = is_numeric_domain(domain)
        self.texts = [value_text(v) for v in domain]
        self.cache: dict[str, np.ndarray] = {}

    def __call__(self, text: str, line: int) -> np.ndarray:
        mask = self.cache.get(text)
        if mask is None:
            try:
                mask = parse_cell(text, self.domain, self.numeric, self.texts)
            except CellError as exc:
                raise DataFormatError(self.path, f"column {self.column!r}: {exc}", line) from None
            self.cache[text] = mask
        return mask


def published_columns(path: str | Path, table: Table, *, sensitive: str, gid_column: str = DEFAULT_GID_COLUMN,
                      id_column: str | None = None) -> list[str]:
    """The quasi-identifiers a published CSV shares with ``table``: its header's columns of the table, less the
    sensitive, group and id columns (what :func:`import_release` reads when not told)."""
    header, _ = _read_csv(Path(path))
    skip = {gid_column, id_column, sensitive}
    return [c for c in header if c not in skip and c in table.frame.columns]


def import_release(
    path: str | Path,
    table: Table,
    *,
    qi: Sequence[str] | str | None = None,
    sensitive: str | None = None,
    gid_column: str = DEFAULT_GID_COLUMN,
    id_column: str | None = None,
    scheme: str | None = None,
    domain_path: str | Path | None = None,
) -> GroupRelease:
    """Read a group-anonymized CSV into a :class:`GroupRelease` aligned with ``table``.

    Parameters
    ----------
    qi
        Quasi-identifier columns; default: the header's columns that are
        quasi-identifiers of the cleartext table (other than gid, id, sensitive).
    sensitive
        Sensitive column; default: the table's column marked sensitive.
    scheme
        ``"horizontal"`` or ``"vertical"``; default: vertical when the
        sensitive column holds ``{...}`` multisets, else horizontal.

    Raises
    ------
    DataFormatError
        Malformed or contradictory input, naming the line.
    """
    path = Path(path)
    header, records = _read_csv(path)
    if not sensitive:
        marked = table.sensitive
        if len(marked) != 1:
            raise DataFormatError(path, "name the sensitive column (the cleartext table does not mark one)", None)
        sensitive = marked[0]
    if isinstance(qi, str):
        qi = [c.strip() for c in qi.split(",") if c.strip()]
    skip = {gid_column, id_column, sensitive}
    qi = list(qi) if qi else [c for c in header if c not in skip and c in table.quasi_identifiers]
    for c in qi:
        if c not in header:
            raise DataFormatError(path, f"no column {c!r} in the header", 1)
        if c not in table.frame.columns:
            raise DataFormatError(path, f"column {c!r} is not in the cleartext table", 1)
    if sensitive not in table.frame.columns:
        raise DataFormatError(path, f"the sensitive column {sensitive!r} is not in the cleartext table", None)
    if not qi:
        raise DataFormatError(path, "no quasi-identifier column shared with the cleartext table", 1)
    has_sensitive = sensitive in header
    at = {c: header.index(c) for c in header}
    if scheme is None:
        multiset = has_sensitive and any(row[at[sensitive]].strip().startswith("{") for _, row in records)
        scheme = "vertical" if multiset else "horizontal"
    if scheme not in ("horizontal", "vertical"):
        raise ValueError(f"unknown scheme {scheme!r}")
    if scheme == "vertical" and not has_sensitive:
        raise DataFormatError(path, f"a vertical (Anatomy) file needs the sensitive column {sensitive!r}", 1)
    if gid_column != DEFAULT_GID_COLUMN and gid_column not in header:
        raise DataFormatError(path, f"no group column {gid_column!r} in the header (columns: {', '.join(header)})", 1)
    if scheme == "vertical" and gid_column not in header:
        raise DataFormatError(path, f"a vertical (Anatomy) file needs the group column {gid_column!r}", 1)

    domains = _domains(table, [*qi, sensitive], domain_path)
    rows = _align(path, records, table, header, id_column)
    frame = table.frame
    clear = {c: encode_column(frame[c], domains[c]) for c in [*qi, sensitive]}
    for c in [*qi, sensitive]:
        bad = np.flatnonzero(clear[c][rows] < 0)
        if len(bad):
            i = int(bad[0])
            raise DataFormatError(path, f"cleartext row {rows[i] + 1} has no value for {c!r}", records[i][0])

    # Group of every line, numbered by first appearance in cleartext order.
    if gid_column in header:
        keys = [row[at[gid_column]].strip() for _, row in records]
        for (line, _), key in zip(records, keys):
            if not key:
                raise DataFormatError(path, f"empty group id in column {gid_column!r}", line)
    else:
        keys = ["\x1f".join(row[at[c]].strip() for c in qi) for _, row in records]
    key_ids = np.unique(np.asarray(keys, dtype=object).astype(str), return_inverse=True)[1].reshape(-1)
    by_row = np.empty(len(records), dtype=np.int64)
    by_row[rows] = key_ids
    row_group = canonical_group_ids(by_row)  # indexed by cleartext row
    line_group = row_group[rows]  # indexed by CSV line
    n_groups = int(row_group.max()) + 1 if len(row_group) else 0
    gid_text = {}
    for i, key in enumerate(keys):
        gid_text.setdefault(int(line_group[i]), key)

    parsers = {c: _CellParser(path, c, domains[c]) for c in qi}
    if scheme == "horizontal":
        cells, labels = _horizontal_cells(path, records, qi, at, parsers, clear, rows, line_group, n_groups,
                                          gid_text, domains)
    else:
        _check_vertical_qi(path, records, qi, at, parsers, clear, rows, line_group, gid_text)
        cells = {c: member_cells(row_group, clear[c], n_groups, len(domains[c])) for c in qi}
        labels = {}
    if has_sensitive:
        _check_sensitive(path, records, at[sensitive], rows, line_group, gid_text,
                         [value_text(v) for v in domains[sensitive]], clear[sensitive], scheme)
    return GroupRelease(scheme, list(qi), sensitive, domains, row_group, cells, labels)


def _horizontal_cells(path: Path, records, qi, at, parsers, clear, rows, line_group, n_groups, gid_text, domains):
    """Each group's published cells; every line must agree with them and fit its cleartext row."""
    cells: dict[str, np.ndarray] = {}
    labels: dict[str, list[str]] = {}
    for c in qi:
        group_mask: list[np.ndarray | None] = [None] * n_groups
        group_label: list[str] = [""] * n_groups
        group_line = [0] * n_groups
        col, code = at[c], clear[c]
        for i, (line, row) in enumerate(records):
            text = row[col].strip()
            mask = parsers[c](text, line)
            g, r = int(line_group[i]), int(rows[i])
            if not mask[code[r]]:
                raise DataFormatError(
                    path, f"cleartext row {r + 1} has {c} = {value_text(domains[c][code[r]])!r}, "
                          f"which is not in the published cell {text!r} (group {gid_text[g]})", line)
            if group_mask[g] is None:
                group_mask[g], group_label[g], group_line[g] = mask, text, line
            elif mask is not group_mask[g] and not np.array_equal(mask, group_mask[g]):
                raise DataFormatError(
                    path, f"column {c!r}: cell {text!r} differs from {group_label[g]!r} published for "
                          f"group {gid_text[g]} on line {group_line[g]}", line)
        cells[c] = np.stack(group_mask) if n_groups else np.zeros((0, len(domains[c])), dtype=bool)
        labels[c] = group_label
    return cells, labels


def _check_vertical_qi(path: Path, records, qi, at, parsers, clear, rows, line_group, gid_text) -> None:
    """Each group's published quasi-identifier tuples must be its cleartext tuples, in any order.

    Lines within a vertical group are exchangeable (Anatomy may permute them),
    so the check compares multisets per group rather than line by line.
    """
    exact: dict[tuple[str, str], int] = {}  # (column, text) -> the one domain code it names

    def code_of(c: str, text: str, line: int) -> int:
        code = exact.get((c, text))
        if code is None:
            hits = np.flatnonzero(parsers[c](text, line))
            if len(hits) != 1:
                raise DataFormatError(path, f"column {c!r}: a vertical (Anatomy) file publishes exact values, "
                                            f"not {text!r}", line)
            code = exact[(c, text)] = int(hits[0])
        return code

    published: dict[int, Counter] = {}
    truth: dict[int, Counter] = {}
    first_line: dict[int, int] = {}
    columns = [(c, at[c], clear[c]) for c in qi]
    for i, (line, row) in enumerate(records):
        g, r = int(line_group[i]), int(rows[i])
        published.setdefault(g, Counter())[tuple(code_of(c, row[col].strip(), line) for c, col, _ in columns)] += 1
        truth.setdefault(g, Counter())[tuple(int(codes[r]) for _, _, codes in columns)] += 1
        first_line.setdefault(g, line)
    for g, want in truth.items():
        if published[g] != want:
            raise DataFormatError(path, f"group {gid_text[g]} publishes quasi-identifier tuples that are not "
                                        f"those of its cleartext rows", first_line[g])


def _check_sensitive(path: Path, records, col: int, rows: np.ndarray, line_group: np.ndarray, gid_text: dict,
                     texts: list[str], codes: np.ndarray, scheme: str) -> None:
    """Published sensitive values must match the cleartext (per row, or per group multiset)."""
    if scheme == "horizontal":
        for i, (line, row) in enumerate(records):
            want = texts[codes[rows[i]]]
            if row[col].strip() != want:
                raise DataFormatError(path, f"sensitive value {row[col].strip()!r} but cleartext row "
                                            f"{rows[i] + 1} has {want!r}", line)
        return
    published: dict[int, Counter] = {}
    first_line: dict[int, tuple[int, str]] = {}
    plain: dict[int, Counter] = {}
    for i, (line, row) in enumerate(records):
        g = int(line_group[i])
        text = row[col].strip()
        if text.startswith("{"):
            if g not in published:
                published[g], first_line[g] = Counter(parse_multiset(text)), (line, text)
            elif text != first_line[g][1] and Counter(parse_multiset(text)) != published[g]:
                raise DataFormatError(path, f"sensitive multiset {text!r} differs from {first_line[g][1]!r} on line "
                                            f"{first_line[g][0]} of the same group {gid_text[g]}", line)
        else:
            plain.setdefault(g, Counter())[text] += 1
            first_line.setdefault(g, (line, text))
    truth: dict[int, Counter] = {}
    for i in range(len(records)):
        truth.setdefault(int(line_group[i]), Counter())[texts[codes[rows[i]]]] += 1
    for g, want in truth.items():
        got = published.get(g, plain.get(g, Counter()))
        if g in published and g in plain:
            raise DataFormatError(path, f"group {gid_text[g]} mixes multisets and plain sensitive values",
                                  first_line[g][0])
        if got != want:
            show = lambda bag: "{" + "|".join(sorted(bag.elements())) + "}"  # noqa: E731
            raise DataFormatError(path, f"group {gid_text[g]} publishes sensitive values {show(got)} but its "
                                        f"cleartext rows have {show(want)}", first_line[g][0])
