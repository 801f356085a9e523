"""Bundled sample datasets, discovered from ``resources/samples/<name>/sample.json``.

Each sample folder holds its data file(s), a ``sample.json`` and a
``LICENSE.md``. ``sample.json`` keys: ``name``, ``title``, ``kind``
(``"transactions"``, ``"table"`` or ``"location"``), ``files`` (role ->
file name), ``description``, ``records``, ``license``; optional ``format``
(loader format name), ``options`` (loader options) and, for UCI tables,
``class_column``; optional ``roles`` (column -> identifier, quasi-identifier,
sensitive or insensitive) are applied to a table sample; optional ``params``
(method name -> parameter values) are the settings a method's tab starts from
on this sample (:meth:`Sample.method_params`). File roles understood by :func:`load_sample`:

* ``transactions`` (or ``data``): set-valued data;
* ``table``: a relational CSV, with ``names`` a UCI ``.names`` file giving the
  column names (the class column is then named ``class_column``);
* ``coords`` (or ``coordinates``): item coordinates, attached to the
  transactions of a ``location`` sample.
* ``labels``: a ``record,label`` CSV of sensitive labels, which workbenches
  that take such a file offer as its default (:meth:`Sample.file`).

Adding a sample never edits code: drop a folder in ``resources/samples``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import RESOURCES
from .origin import DatasetOrigin, attach_origin, origin_of
from .table import Table
from .transactions import TransactionData

__all__ = ["Sample", "list_samples", "get_sample", "load_sample", "sample_of", "SAMPLES_DIR"]

SAMPLES_DIR = RESOURCES / "samples"
KINDS = ("transactions", "table", "location")


@dataclass(frozen=True)
class Sample:
    """One bundled dataset, as described by its ``sample.json``."""

    name: str
    title: str
    kind: str
    path: Path  # the sample's folder
    files: dict[str, str]
    description: str = ""
    records: int | None = None
    license: str = ""
    meta: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def file(self, role: str) -> Path | None:
        """Path of the file playing ``role`` (e.g. ``"transactions"``), if any."""
        name = self.files.get(role)
        return self.path / name if name else None

    @property
    def data_path(self) -> Path:
        """The main data file (what File > Open would open)."""
        for role in ("transactions", "data", "table"):
            if role in self.files:
                return self.path / self.files[role]
        raise KeyError(f"sample {self.name!r} names no data file")

    @property
    def license_path(self) -> Path:
        return self.path / "LICENSE.md"

    def method_params(self, method: str) -> dict[str, Any]:
        """The parameter values ``sample.json`` suggests for ``method`` ({} if none).

        A value naming one of the sample's files (also inside lists, such as
        ``[["zip3", "zip3_hierarchy.csv"]]``) becomes that file's full path.
        """
        raw = self.meta.get("params", {})
        values = raw.get(method, {}) if isinstance(raw, dict) else {}
        names = set(self.files.values())

        def resolve(value: Any) -> Any:
            if isinstance(value, str) and value in names:
                return str(self.path / value)
            if isinstance(value, list):
                return [resolve(v) for v in value]
            return value

        return {str(k): resolve(v) for k, v in values.items()} if isinstance(values, dict) else {}


def _read_sample(folder: Path) -> Sample | None:
    meta_path = folder / "sample.json"
    if not meta_path.is_file():
        return None
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        sample = Sample(
            name=str(meta.get("name", folder.name)),
            title=str(meta.get("title", folder.name)),
            kind=str(meta["kind"]),
            path=folder,
            files={str(k): str(v) for k, v in meta["files"].items()},
            description=str(meta.get("description", "")),
            records=int(meta["records"]) if meta.get("records") is not None else None,
            license=str(meta.get("license", "")),
            meta=meta,
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None  # a broken sample folder must not break the sample list
    return sample if sample.kind in KINDS else None


def list_samples(root: Path | None = None) -> list[Sample]:
    """All valid sample folders under ``root`` (default: the bundled ones), by name."""
    root = Path(root) if root is not None else SAMPLES_DIR
    if not root.is_dir():
        return []
    found = (_read_sample(folder) for folder in sorted(root.iterdir()) if folder.is_dir())
    return sorted((s for s in found if s is not None), key=lambda s: s.name)


def get_sample(name: str, root: Path | None = None) -> Sample:
    """The sample called ``name`` (KeyError listing the known names otherwise)."""
    samples = list_samples(root)
    for sample in samples:
        if sample.name == name:
            return sample
    known = ", ".join(s.name for s in samples) or "none"
    raise KeyError(f"no sample named {name!r}; bundled samples: {known}")


def load_sample(name: str | Sample, root: Path | None = None) -> TransactionData | Table:
    """Load a bundled sample: a TransactionData (with coordinates for location samples) or a Table."""
    # Imported here: the io package registers every format on import, which
    # listing samples does not need.
    from .io import attach_coordinates, load_coordinates, load_table, load_transactions
    from .io.relational import uci_attribute_names
    from .io.report import attach_report, load_report

    sample = name if isinstance(name, Sample) else get_sample(name, root)
    options = dict(sample.meta.get("options", {}))
    fmt = sample.meta.get("format")
    if sample.kind == "table":
        names_file = sample.file("names")
        if names_file is not None and "names" not in options:
            options["names"] = [*uci_attribute_names(names_file), sample.meta.get("class_column", "class")]
        table = load_table(sample.data_path, format=fmt, **options)
        table.name = sample.name
        roles = {c: r for c, r in sample.meta.get("roles", {}).items() if c in table.frame.columns}
        if not roles:
            return _from_sample(table, sample.name)
        marked = table.with_roles(**roles)
        attach_report(marked, load_report(table))  # keep the loader's warnings (missing values)
        return _from_sample(marked, sample.name)
    data = load_transactions(sample.data_path, format=fmt, **options)
    coords_file = sample.file("coords") or sample.file("coordinates")
    if coords_file is not None:
        data = attach_coordinates(data, load_coordinates(coords_file), drop_missing=True)
    named = TransactionData(data.indptr, data.indices, data.vocab, coords=data.coords, name=sample.name,
                            source=data.source)
    attach_report(named, load_report(data))
    return _from_sample(named, sample.name)


def _from_sample(data: Any, name: str) -> Any:
    attach_origin(data, DatasetOrigin(sample=name))
    return data


def sample_of(dataset: Any, root: Path | None = None) -> Sample | None:
    """The bundled sample ``dataset`` was loaded from (its recorded origin, or the same name and data file)."""
    origin = origin_of(dataset)
    if origin is not None and origin.sample is not None:
        try:
            return get_sample(origin.sample, root)
        except KeyError:
            return None
    name = getattr(dataset, "name", None)
    source = getattr(dataset, "source", None)
    if not name or source is None:
        return None
    for sample in list_samples(root):
        if sample.name == name:
            try:
                same = Path(source).resolve() == sample.data_path.resolve()
            except (KeyError, OSError):
                same = False
            return sample if same else None
    return None
