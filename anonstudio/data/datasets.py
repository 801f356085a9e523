"""Open a dataset the way every front end names one: a file path or a bundled sample's name.

:class:`~.origin.ReadOptions` is how a file is read (format, encoding, header row,
separator, column names); the CLI's ``--format``, ``--encoding`` and
``--columns`` and the studio's import preview both fill one, and
:func:`load_with_options` reads a file with it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import DataFormatError
from .origin import DatasetOrigin, ReadOptions, applicable_options, attach_origin, origin_of
from .samples import list_samples, load_sample

# ReadOptions, DatasetOrigin and the origin registry live in .origin (below .samples); they are
# re-exported here, where the front ends and the studio look for them.
__all__ = ["open_dataset", "reopen", "ReadOptions", "load_with_options", "require_regular_file",
           "applicable_options", "DatasetOrigin", "attach_origin", "origin_of", "parse_roles", "table_with_roles"]


def load_with_options(path: str | Path, options: ReadOptions | None = None, *, report=None,
                      progress: Any = None) -> Any:
    """Load ``path`` (a TransactionData or a Table) as ``options`` say.

    Raises DataFormatError naming file, line and reason; ValueError for an
    unknown format name; :class:`~anonstudio.data.errors.LoadCancelled` when
    ``progress`` is cancelled (nothing is returned).
    """
    from .io import load_table, load_transactions

    options = options or ReadOptions()
    fmt = options.format_for(path)
    kwargs = options.loader_options(fmt)
    if fmt.kind == "table":
        data = load_table(path, format=fmt.name, report=report, progress=progress, **kwargs)
    else:
        data = load_transactions(path, format=fmt.name, report=report, progress=progress, **kwargs)
    attach_origin(data, DatasetOrigin(path=Path(path), options=options))
    return data


def reopen(origin: DatasetOrigin, path: Path | None = None, progress: Any = None) -> Any:
    """Load the dataset ``origin`` names again (from ``path`` instead when the file moved)."""
    if origin.sample is not None:
        return load_sample(origin.sample)
    target = Path(path or origin.path)
    require_regular_file(target)
    return load_with_options(target, origin.options, progress=progress)


def open_dataset(spec: str | Path, *, format: str | None = None, encoding: str | None = None,
                 columns: str | None = None, sep: str | None = None, header: bool | None = None,
                 progress: Any = None) -> Any:
    """Load a regular file (sniffed or in ``format``) or, when no such file exists, a bundled sample.

    ``columns`` (comma-separated names) names a table's columns; without
    ``header=True`` the file then has no header row. ``sep`` and ``header``
    override the guessed separator and header row of a delimited file.
    Raises :class:`DataFormatError` naming the file and the reason: no such
    file or sample, a folder, pipe or device instead of a file, or a bad
    file; ValueError for an unknown format name or an option the format
    does not take. With a ``progress``, loading reports the share read and a
    cancel raises :class:`~anonstudio.data.errors.LoadCancelled` between
    chunks (nothing is returned: the caller keeps what it had).
    """
    path = Path(spec)
    if path.exists() or path.is_symlink():
        require_regular_file(path)
        names = tuple(c.strip() for c in columns.split(",") if c.strip()) if columns else ()
        if names and header is None:
            header = False
        options = ReadOptions(format=format, encoding=encoding, header=header, sep=sep, names=names)
        fmt = options.format_for(path)
        taken = options.loader_options(fmt)
        if names and "names" not in taken:
            raise ValueError(f"column names apply to a CSV table; format {fmt.name!r} takes none")
        for what, value, key in (("separator", sep, "sep"), ("header choice", header, "header")):
            if value is not None and key not in taken:
                raise ValueError(f"format {fmt.name!r} takes no {what}")
        return load_with_options(path, options, progress=progress)
    if not path.suffix and str(spec) in {s.name for s in list_samples()}:
        return load_sample(str(spec))
    raise DataFormatError(path, "no such file or bundled sample (anonstudio-cli samples lists the samples)")


def parse_roles(text: str) -> dict[str, str]:
    """``"occupation=sensitive,fnlwgt=insensitive"`` as a dict (``"none"``: no roles); ValueError naming a bad
    entry."""
    from .table import Role

    text = text.strip()
    if text.lower() in ("none", ""):
        return {}
    valid = {r.value for r in Role}
    roles = {}
    for entry in text.split(","):
        column, eq, role = entry.partition("=")
        column, role = column.strip(), role.strip().lower()
        if not eq or not column:
            raise ValueError(f"roles: {entry.strip()!r} is not COLUMN=ROLE")
        if role not in valid:
            raise ValueError(f"roles: {role!r} is not a role ({', '.join(sorted(valid))})")
        roles[column] = role
    return roles


def table_with_roles(table: Any, roles: dict[str, Any]) -> Any:
    """``table`` (same rows) with exactly these column roles, keeping its load report and origin.

    Raises ValueError for a column the table does not have.
    """
    from .io.report import attach_report, load_report
    from .table import Role, Table

    unknown = sorted(set(roles) - {str(c) for c in table.frame.columns})
    if unknown:
        raise ValueError(f"{table.name} has no column {unknown[0]!r} to give a role; columns: "
                         f"{', '.join(map(str, table.frame.columns))}")
    marked = Table(table.frame, {str(c): Role(r) for c, r in roles.items()}, table.name, table.source)
    attach_report(marked, load_report(table))
    origin = origin_of(table)
    if origin is not None:
        attach_origin(marked, origin)
    return marked


def require_regular_file(path: Path) -> None:
    """DataFormatError unless ``path`` is a regular file (or a link to one)."""
    from .io.text import require_regular_file as check

    check(path)
