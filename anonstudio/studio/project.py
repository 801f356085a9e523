"""Project files: everything needed to repeat a session's runs, in readable, diff-able TOML.

A project names its datasets (a bundled sample, or a file with the options it
is read with, its size and SHA-256, a table's column roles and the columns
read as numbers), one *step*
per workbench (the method, the dataset it runs on, every parameter, seed
included, and the params' schema version) and the comparison sweeps. Reading
it back never trusts a file blindly:

* a dataset file that is gone raises :class:`DatasetMissing` (the studio asks
  where it went, the CLI takes ``--relocate KEY=PATH``);
* a dataset whose bytes changed raises :class:`DatasetChanged`, naming the file:
  the project's parameters were chosen for the old data;
* parameters saved by an older schema go through the spec's
  ``migrate_params``; a newer project's are refused.

Paths inside the project's folder are stored relative to it, so a project
folder can be moved or shared as a whole.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__
from ..data.datasets import DatasetOrigin, ReadOptions, origin_of, reopen, table_with_roles
from ..data.io.atomic import atomic_write
from ..data.table import Role, Table
from ..methods.contract import MethodSpec, file_sha256, get_method
from ..methods.sweep import Axis
from ..params import ParameterError, from_dict, specs
from .command_line import NotReproducible

__all__ = ["Project", "DatasetEntry", "Step", "SweepEntry", "ProjectError", "DatasetMissing", "DatasetChanged",
           "PROJECT_SCHEMA", "PROJECT_FILTER", "PROJECT_SUFFIX"]

#: Folder next to a project file that holds the copies of files private to the studio (:meth:`Project.adopt_files`).
RELEASES_FOLDER = "releases"

#: Version of the file layout itself (the params carry their own schema per method).
PROJECT_SCHEMA = 1
PROJECT_SUFFIX = ".toml"
PROJECT_FILTER = "anonstudio project (*.toml)"

_HEADER = ("# anonstudio project: the datasets (path and SHA-256), each workbench's method and parameters,\n"
           "# and the comparison sweeps. Rerun every step with: anonstudio-cli run THIS_FILE --out FOLDER\n")


class ProjectError(ValueError):
    """A project file that cannot be used: one line naming the file and the reason."""


class DatasetMissing(ProjectError):
    """A dataset file of the project is no longer where the project says."""

    def __init__(self, message: str, entry: DatasetEntry):
        super().__init__(message)
        self.entry = entry


class DatasetChanged(ProjectError):
    """A dataset file's bytes differ from the ones the project was saved with."""

    def __init__(self, message: str, entry: DatasetEntry):
        super().__init__(message)
        self.entry = entry


# ------------------------------------------------------------------ datasets
@dataclass
class DatasetEntry:
    """One dataset of a project: where it is, how it is read, its fingerprint and a table's roles."""

    key: str
    origin: DatasetOrigin
    sha256: str | None = None
    size: int | None = None
    roles: dict[str, str] | None = None

    @property
    def file(self) -> Path | None:
        """The data file (a sample's own file for a bundled sample)."""
        if self.origin.sample is not None:
            from ..data.samples import get_sample

            try:
                return get_sample(self.origin.sample).data_path
            except KeyError:
                return None
        return self.origin.path

    @property
    def label(self) -> str:
        if self.origin.url is not None:
            return self.origin.url
        return self.origin.sample or (self.origin.path.name if self.origin.path else self.key)

    @classmethod
    def of(cls, key: str, data: Any) -> DatasetEntry:
        """The entry of a loaded dataset (raises NotReproducible for data built in memory)."""
        origin = origin_of(data)
        if origin is None:
            raise NotReproducible(f"{getattr(data, 'name', 'the dataset')} was built in memory; save it to a file "
                                  "and open that file before saving the project")
        entry = cls(key, origin)
        if origin.url is not None:  # a database: the fingerprint of the fetched rows stands for a file's hash
            entry.sha256 = origin.sha256
            if isinstance(data, Table):
                entry.roles = {str(c): Role(r).value for c, r in data.roles.items()}
            return entry
        file = entry.file
        if file is not None and Path(file).is_file():
            entry.sha256 = file_sha256(file)
            entry.size = Path(file).stat().st_size
        if isinstance(data, Table):
            entry.roles = {str(c): Role(r).value for c, r in data.roles.items()}
        return entry

    def check_file(self, path: Path | None = None) -> Path | None:
        """The data file after checking it is there and unchanged (``path``: where it moved to)."""
        if self.origin.sample is not None:
            file = self.file
            if file is None:
                raise DatasetMissing(f"dataset {self.key!r}: this anonstudio has no bundled sample named "
                                     f"{self.origin.sample!r}", self)
        else:
            file = Path(path) if path is not None else self.origin.path
            if file is None or not file.is_file():
                raise DatasetMissing(f"dataset {self.key!r}: {file} is not there any more (moved or deleted)", self)
        if self.sha256 and file_sha256(file) != self.sha256:
            what = f"the bundled sample {self.origin.sample!r}" if self.origin.sample else str(file)
            raise DatasetChanged(f"dataset {self.key!r}: {what} has changed since the project was saved (its "
                                 f"SHA-256 differs); the project's parameters and results belong to the old "
                                 f"data, so it is not opened in its place", self)
        return file

    def open(self, path: Path | None = None, progress: Any = None, password: str | None = None) -> Any:
        """Load the dataset after :meth:`check_file`, with the project's roles for a table.

        A database dataset is fetched again (``password`` if the URL needs one and no ``PGPASSWORD`` or
        ``.pgpass`` gives it); rows that changed since the project was saved raise DatasetChanged.
        """
        origin = self.origin
        if origin.url is not None:
            from ..data.datasets import DataChanged

            try:
                data = reopen(DatasetOrigin(url=origin.url, table=origin.table, query=origin.query,
                                            items_query=origin.items_query, sha256=self.sha256,
                                            options=origin.options),
                              progress=progress, password=password)
            except DataChanged as exc:
                raise DatasetChanged(f"dataset {self.key!r}: {exc}; the project's parameters and results belong "
                                     "to the old data, so it is not opened in its place", self) from None
        else:
            self.check_file(path)
            if path is not None and origin.sample is None:
                origin = DatasetOrigin(path=Path(path), options=origin.options)
            data = reopen(origin, progress=progress)
        if self.roles is not None and isinstance(data, Table):
            try:
                data = table_with_roles(data, self.roles)
            except ValueError as exc:
                raise ProjectError(f"dataset {self.key!r}: {exc}") from None
        return data

    def relocated(self, path: Path) -> DatasetEntry:
        """This entry pointing at ``path`` (after the user found the moved file)."""
        return DatasetEntry(self.key, DatasetOrigin(path=Path(path), options=self.origin.options), self.sha256,
                            self.size, self.roles)

    def to_toml(self, folder: Path | None) -> dict:
        doc: dict[str, Any] = {}
        if self.origin.sample is not None:
            doc["sample"] = self.origin.sample
        elif self.origin.url is not None:
            doc["url"] = _store_url(self.origin.url, folder)
            for name in ("table", "query", "items_query"):
                if getattr(self.origin, name) is not None:
                    doc[name] = getattr(self.origin, name)
        else:
            doc["path"] = _store_path(self.origin.path, folder)
            options = self.origin.options
            for name in ("format", "encoding", "sep", "header", "sheet"):
                if getattr(options, name) is not None:
                    doc[name] = getattr(options, name)
            if options.names:
                doc["columns"] = list(options.names)
        if self.origin.options.numeric:  # any source: a file, a sample or a database
            doc["numeric"] = list(self.origin.options.numeric)
        if self.sha256:
            doc["sha256"] = self.sha256
        if self.size is not None:
            doc["size"] = self.size
        if self.roles is not None:
            doc["roles"] = dict(sorted(self.roles.items()))
        return doc

    @classmethod
    def from_toml(cls, key: str, doc: Mapping, folder: Path | None, where: str) -> DatasetEntry:
        _only(doc, {"sample", "path", "format", "encoding", "sep", "header", "columns", "sheet", "sha256", "size",
                    "roles", "url", "table", "query", "items_query", "numeric"}, where)
        if sum(k in doc for k in ("sample", "path", "url")) != 1:
            raise ProjectError(f"{where}: give one of a sample, a path or a database url")
        for key_ in ("sample", "path", "format", "encoding", "sep", "sha256", "url", "table", "query", "items_query"):
            if key_ in doc:
                _text(doc[key_], f"{where}.{key_}")
        if "sep" in doc and len(doc["sep"]) != 1:
            raise ProjectError(f"{where}.sep: the separator must be one character (got {doc['sep']!r})")
        if "sheet" in doc and (isinstance(doc["sheet"], bool) or not isinstance(doc["sheet"], (str, int))):
            raise ProjectError(f"{where}.sheet: expected a sheet name or number, got {_kind(doc['sheet'])}")
        if "header" in doc and not isinstance(doc["header"], bool):
            raise ProjectError(f"{where}.header: expected true or false, got {_kind(doc['header'])}")
        if "size" in doc and _integer(doc["size"], f"{where}.size") < 0:
            raise ProjectError(f"{where}.size: a file's size in bytes cannot be negative (got {doc['size']})")
        if "://" in doc.get("path", ""):
            # Read as a file name it would be shown in messages, password and all.
            raise ProjectError(f"{where}.path: a database is named by `url` (with `table` or `query`), not `path`")
        if "sheet" in doc and "format" in doc and not str(doc["format"]).startswith("sheet-"):
            raise ProjectError(f"{where}.sheet: a sheet applies to a spreadsheet, and the format is "
                               f"{_short(doc['format'])}")
        columns = doc.get("columns", [])
        if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
            raise ProjectError(f"{where}.columns: expected a list of column names, got {_kind(columns)}")
        numeric = doc.get("numeric", [])
        if not isinstance(numeric, list) or not all(isinstance(c, str) and c.strip() for c in numeric):
            raise ProjectError(f"{where}.numeric: expected a list of column names, got {_kind(numeric)}")
        marks = ReadOptions(numeric=tuple(numeric))
        if "format" in doc:
            from ..data.io import formats

            known = sorted({f.name for f in formats()})
            if doc["format"] not in known:
                raise ProjectError(f"{where}.format: {_short(doc['format'])} is not a format (known: "
                                   f"{', '.join(known)})")
        if "sample" in doc:
            origin = DatasetOrigin(sample=str(doc["sample"]), options=marks)
        elif "url" in doc:
            from ..data.io.database import redact_url

            if ("table" in doc) == ("query" in doc):
                raise ProjectError(f"{where}: a database dataset needs a table or a query")
            origin = DatasetOrigin(url=_load_url(redact_url(str(doc["url"])), folder), table=doc.get("table"),
                                   query=doc.get("query"),
                                   items_query=doc.get("items_query"), sha256=doc.get("sha256"), options=marks)
        else:
            options = ReadOptions(format=doc.get("format"), encoding=doc.get("encoding"), sep=doc.get("sep"),
                                  header=doc.get("header"), names=tuple(columns),
                                  sheet=None if doc.get("sheet") is None else str(doc["sheet"]),
                                  numeric=marks.numeric)
            origin = DatasetOrigin(path=_load_path(doc["path"], folder), options=options)
        roles = doc.get("roles")
        if roles is not None:
            roles = _table_value(roles, f"{where}.roles")
            valid = {r.value for r in Role}
            bad = [r for r in roles.values() if r not in valid]
            if bad:
                raise ProjectError(f"{where}.roles: {bad[0]!r} is not a role ({', '.join(sorted(valid))})")
            roles = {str(c): str(r) for c, r in roles.items()}
        return cls(key, origin, doc.get("sha256"), doc.get("size"), roles)


# --------------------------------------------------------------------- steps
@dataclass
class Step:
    """One workbench's recipe: its method, the dataset it runs on and every parameter."""

    method: str
    params: Any
    dataset: str | None = None

    @property
    def spec(self) -> MethodSpec:
        return get_method(self.method)


@dataclass
class SweepEntry:
    """A comparison sweep: a method, a dataset, the axes of its grid, the seeds and the base parameters."""

    method: str
    dataset: str | None
    axes: tuple[Axis, ...]
    params: Any
    seeds: int = 1
    title: str = ""


@dataclass
class Project:
    """A studio session as a file: datasets, one step per workbench, sweeps."""

    datasets: dict[str, DatasetEntry] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    sweeps: list[SweepEntry] = field(default_factory=list)
    active: str | None = None
    path: Path | None = None
    version: str = __version__

    # ------------------------------------------------------------ building
    def add_dataset(self, data: Any) -> str:
        """The key of ``data``'s entry, added if the project does not hold the same dataset yet."""
        entry = DatasetEntry.of("", data)
        for key, known in self.datasets.items():
            if (known.origin, known.sha256, known.roles) == (entry.origin, entry.sha256, entry.roles):
                return key
        entry.key = _unique_key(_slug(entry.label), self.datasets)
        self.datasets[entry.key] = entry
        return entry.key

    def step(self, method: str) -> Step | None:
        return next((s for s in self.steps if s.method == method), None)

    def set_step(self, method: str, params: Any, dataset: str | None) -> None:
        """Record (or replace) the step of ``method``."""
        new = Step(method, params, dataset)
        self.steps = [new if s.method == method else s for s in self.steps]
        if self.step(method) is None:
            self.steps.append(new)

    def drop_unused_datasets(self) -> None:
        used = {s.dataset for s in self.steps} | {s.dataset for s in self.sweeps}
        self.datasets = {k: v for k, v in self.datasets.items() if k in used}

    # -------------------------------------------------------------- saving
    def to_toml(self) -> str:
        import tomli_w

        folder = self.path.parent if self.path is not None else None
        saved = _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()
        head: dict[str, Any] = {"version": __version__, "schema": PROJECT_SCHEMA, "saved": saved}
        if self.active:
            head["active"] = self.active
        doc: dict[str, Any] = {"anonstudio": head,
                               "datasets": {k: e.to_toml(folder) for k, e in self.datasets.items()},
                               "workbenches": {}}
        for step in self.steps:
            spec = step.spec
            values, unset = _params_doc(step.params, folder)
            entry: dict[str, Any] = {"schema": spec.params_schema}
            if step.dataset is not None:
                entry["dataset"] = step.dataset
            if unset:
                entry["unset"] = unset
            entry["params"] = values
            doc["workbenches"][step.method] = entry
        if self.sweeps:
            doc["sweeps"] = []
            for sweep in self.sweeps:
                values, unset = _params_doc(sweep.params, folder)
                item: dict[str, Any] = {"method": sweep.method, "schema": get_method(sweep.method).params_schema,
                                        "seeds": sweep.seeds}
                if sweep.title:
                    item["title"] = sweep.title
                if sweep.dataset is not None:
                    item["dataset"] = sweep.dataset
                item["grid"] = {a.name: [_plain_value(v, folder) for v in a.values] for a in sweep.axes}
                if unset:
                    item["unset"] = unset
                item["params"] = values
                doc["sweeps"].append(item)
        return _HEADER + tomli_w.dumps(doc)

    def save(self, path: str | Path | None = None, *, adopt: Iterable[Path] = ()) -> Path:
        """Write the project (atomically) to ``path`` (default: where it was opened or last saved).

        ``adopt``: folders private to this machine (the studio's releases of
        finished runs, written for an audit); files the parameters name there
        are copied next to the project first (:meth:`adopt_files`), so the
        project finds them relatively.
        """
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ProjectError("the project has no file yet; choose where to save it")
        previous, self.path = self.path, target.absolute()
        try:
            if adopt:
                self.adopt_files(adopt)
            text = self.to_toml()
            with atomic_write(self.path) as fh:
                fh.write(text)
        except Exception:
            self.path = previous
            raise
        return self.path

    def adopt_files(self, private: Iterable[Path], into: str = RELEASES_FOLDER) -> list[Path]:
        """Copy the files parameters name under a ``private`` folder next to the project; point at the copies.

        An audit of a finished run reads that run's release from the studio's
        own folder (``.../releases/kmanon-<hash>/release.dat``): saved as is,
        the project would hold an absolute path of this machine and be useless
        elsewhere. Each such file is copied to ``<project folder>/<into>/``
        under the same relative name (the run's subfolder is unique to it),
        and the step's or sweep's parameter then names the copy, stored
        relative to the project. Returns the copies made.
        """
        if self.path is None:
            return []
        roots = [Path(p).absolute() for p in private]
        target_root = self.path.parent / into
        copies: list[Path] = []

        def adopted(value: Path) -> Path:
            source = Path(value).absolute()
            for root in roots:
                try:
                    rel = source.relative_to(root)
                except ValueError:
                    continue
                if not source.is_file():
                    return value
                dest = target_root / rel
                if not dest.is_file() or file_sha256(dest) != file_sha256(source):
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    with atomic_write(dest, "wb") as fh:
                        fh.write(source.read_bytes())
                    copies.append(dest)
                return dest
            return value

        self.steps = [Step(s.method, _with_paths(s.params, adopted), s.dataset) for s in self.steps]
        self.sweeps = [dataclasses.replace(s, params=_with_paths(s.params, adopted)) for s in self.sweeps]
        return copies

    # ------------------------------------------------------------- reading
    @classmethod
    def load(cls, path: str | Path) -> Project:
        """Read a project file (datasets are checked when opened, not here).

        Raises
        ------
        ProjectError
            Naming the file and what is wrong: not TOML, a newer layout, an
            unknown method or parameter, a value of the wrong kind.
        """
        from ..data.datasets import require_regular_file
        from ..data.errors import DataFormatError

        path = Path(path)
        try:
            require_regular_file(path)
            raw = path.read_bytes()
        except DataFormatError as exc:
            raise ProjectError(str(exc)) from None
        except OSError as exc:
            raise ProjectError(f"{path}: cannot be read ({exc.strerror or exc})") from None
        try:
            doc = tomllib.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise ProjectError(f"{path}: not a project file (not UTF-8 text)") from None
        except tomllib.TOMLDecodeError as exc:
            raise ProjectError(f"{path}: not a valid project file ({exc})") from None
        except RecursionError:
            raise ProjectError(f"{path}: not a valid project file (values nested too deeply)") from None
        try:
            return cls._from_doc(doc, path.absolute())
        except (ParameterError, ProjectError) as exc:
            raise ProjectError(f"{path}: {exc}") from None
        except RecursionError:
            raise ProjectError(f"{path}: a value is nested too deeply to be a parameter") from None
        except (TypeError, ValueError, KeyError, AttributeError, OverflowError) as exc:
            # A value of a kind no field takes, caught where the explicit checks above did not expect it.
            raise ProjectError(f"{path}: a value of the wrong kind ({type(exc).__name__}: "
                               f"{' '.join(str(exc).split())[:200]})") from None

    @classmethod
    def _from_doc(cls, doc: Mapping, path: Path) -> Project:
        head = doc.get("anonstudio")
        if not isinstance(head, Mapping):
            raise ProjectError("not an anonstudio project (no [anonstudio] table)")
        schema = _integer(head.get("schema", 0), "anonstudio.schema")
        if schema > PROJECT_SCHEMA:
            raise ProjectError(f"saved by a newer anonstudio ({head.get('version', '?')}, layout {schema}); this "
                               f"is {__version__}, which reads layout {PROJECT_SCHEMA}")
        doc = migrate_project(dict(doc), schema)
        folder = path.parent
        active = head.get("active")
        project = cls(path=path, active=None if active is None else _text(active, "anonstudio.active"),
                      version=_text(head.get("version", ""), "anonstudio.version"))
        for key, entry in _table(doc, "datasets").items():
            project.datasets[key] = DatasetEntry.from_toml(key, _table_value(entry, f"datasets.{key}"), folder,
                                                           f"datasets.{key}")
        for method, entry in _table(doc, "workbenches").items():
            where = f"workbenches.{method}"
            entry = _table_value(entry, where)
            _only(entry, {"schema", "dataset", "unset", "params"}, where)
            spec = _method(method, where)
            params = _params_from(spec, entry, folder, where)
            project.steps.append(Step(method, params, project._dataset_key(entry.get("dataset"), f"{where}.dataset")))
        sweeps = doc.get("sweeps", [])
        if not isinstance(sweeps, list):
            raise ProjectError("sweeps: expected a list of tables ([[sweeps]])")
        for i, entry in enumerate(sweeps):
            where = f"sweeps[{i}]"
            entry = _table_value(entry, where)
            _only(entry, {"method", "schema", "seeds", "title", "dataset", "grid", "unset", "params"}, where)
            spec = _method(str(entry.get("method", "")), where)
            params = _params_from(spec, entry, folder, where)
            known = {p.name: p for p in specs(spec.params)}
            axes = []
            for name, values in _table_value(entry.get("grid", {}), f"{where}.grid").items():
                if name not in known:
                    raise ProjectError(f"{where}.grid: {spec.name} has no parameter {name!r}")
                from ..methods.sweep import parse_axis

                axes.append(parse_axis(spec.params, name, [_load_value(known[name], v, folder) for v in values]))
            seeds = _integer(entry.get("seeds", 1), f"{where}.seeds")
            if seeds < 1:
                raise ProjectError(f"{where}.seeds: must be at least 1 (got {seeds})")
            project.sweeps.append(SweepEntry(spec.name, project._dataset_key(entry.get("dataset"), f"{where}.dataset"),
                                             tuple(axes), params, seeds, _text(entry.get("title", ""),
                                                                               f"{where}.title")))
        return project

    def _dataset_key(self, key: Any, where: str) -> str | None:
        if key is None:
            return None
        if not isinstance(key, str):
            raise ProjectError(f"{where}: expected the name of a dataset, got {_kind(key)}")
        if key not in self.datasets:
            raise ProjectError(f"{where}: no dataset {key!r} in [datasets]")
        return str(key)

    def open_dataset(self, key: str, locate: Callable[[DatasetEntry], Path | None] | None = None, *,
                     password: str | None = None) -> Any:
        """Load dataset ``key``; when its file moved, ``locate(entry)`` may say where (the entry is updated).
        ``password``: a database's, when asked for (used for this connection only, never kept).

        Raises DatasetMissing (not found, or ``locate`` gave nothing), DatasetChanged, or the loader's
        DataFormatError.
        """
        entry = self.datasets[key]
        try:
            return entry.open(password=password)
        except DatasetMissing:
            if locate is None or entry.origin.sample is not None:
                raise
            new_path = locate(entry)
            if new_path is None:
                raise
            data = entry.open(Path(new_path))  # checks the hash: a different file is refused
            self.datasets[key] = entry.relocated(Path(new_path))
            return data


def migrate_project(doc: dict, schema: int) -> dict:
    """A project document of an older layout brought up to :data:`PROJECT_SCHEMA`.

    Layout 0 (written before the layout was versioned) kept each workbench's
    method inside its table and had no per-workbench params schema.
    """
    if schema < 1:
        benches = {}
        for key, entry in dict(doc.get("workbenches", {})).items():
            entry = dict(entry)
            method = str(entry.pop("method", key))
            entry.setdefault("schema", 1)
            benches[method] = entry
        doc["workbenches"] = benches
    return doc


# ------------------------------------------------------------------ helpers
def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-").lower() or "dataset"


def _unique_key(base: str, taken: Iterable[str]) -> str:
    taken = set(taken)
    key, n = base, 2
    while key in taken:
        key, n = f"{base}-{n}", n + 1
    return key


def _store_path(path: Path | str, folder: Path | None) -> str:
    path = Path(path).absolute()
    if folder is not None:
        try:
            return path.relative_to(folder.absolute()).as_posix()
        except ValueError:
            pass
    return str(path)


def _with_paths(params: Any, change: Callable[[Path], Path]) -> Any:
    """``params`` with ``change`` applied to every file it names (path and column-path parameters)."""
    if params is None:
        return params
    changed = {}
    for param_spec in specs(params):
        value = getattr(params, param_spec.name)
        if param_spec.kind == "path" and isinstance(value, Path):
            new = change(value)
        elif param_spec.kind == "column_paths" and value:
            new = tuple((c, change(Path(p))) for c, p in value)
        else:
            continue
        if new != value:
            changed[param_spec.name] = new
    return dataclasses.replace(params, **changed) if changed else params


def _sqlite_url(url: str):
    """The parsed URL when ``url`` names an SQLite database file, else None."""
    try:
        from sqlalchemy.engine import make_url

        parsed = make_url(url)
    except Exception:  # noqa: BLE001 (not a URL SQLAlchemy reads: stored as it is, without its password)
        return None
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return parsed


def _store_url(url: str, folder: Path | None) -> str:
    """A database URL as a project stores it: never a password; an SQLite file relative to the project.

    An SQLite database under the project's folder is written relative to it
    (``sqlite:///data/people.db``, read back against the project's folder,
    as file paths are); elsewhere it stays absolute, the only way to find it.
    """
    from ..data.io.database import redact_url

    url = redact_url(url)
    parsed = _sqlite_url(url)
    if parsed is None:
        return url
    database = Path(parsed.database).absolute()
    return parsed.set(database=_store_path(database, folder)).render_as_string(hide_password=False)


def _load_url(url: str, folder: Path | None) -> str:
    """A stored database URL as one to connect to: a relative SQLite file is taken from the project's folder."""
    parsed = _sqlite_url(url)
    if parsed is None or folder is None or Path(parsed.database).is_absolute():
        return url
    return parsed.set(database=str(_load_path(parsed.database, folder))).render_as_string(hide_password=False)


def _load_path(text: str, folder: Path | None) -> Path:
    path = Path(str(text)).expanduser()
    return path if path.is_absolute() or folder is None else folder / path


def _plain_value(value: Any, folder: Path | None) -> Any:
    if isinstance(value, Path):
        return _store_path(value, folder)
    if isinstance(value, tuple):
        return [_plain_value(v, folder) for v in value]
    return value


def _params_doc(params: Any, folder: Path | None) -> tuple[dict, list[str]]:
    values, unset = {}, []
    for param_spec in specs(params):
        value = getattr(params, param_spec.name)
        if value is None:
            unset.append(param_spec.name)
        else:
            values[param_spec.name] = _plain_value(value, folder)
    return values, unset


def _load_value(param_spec, value: Any, folder: Path | None) -> Any:
    if param_spec.kind == "path" and isinstance(value, str):
        return _load_path(value, folder)
    if param_spec.kind == "column_paths" and isinstance(value, list):
        return [(c, _load_path(p, folder)) for c, p in value]
    return value


def _params_from(spec: MethodSpec, entry: Mapping, folder: Path | None, where: str) -> Any:
    known = {p.name: p for p in specs(spec.params)}
    values = dict(_table_value(entry.get("params", {}), f"{where}.params"))
    unset = entry.get("unset", [])
    if not isinstance(unset, list) or not all(isinstance(n, str) for n in unset):
        raise ProjectError(f"{where}.unset: expected a list of parameter names")
    for name in unset:
        values[name] = None
    schema = _integer(entry.get("schema", spec.params_schema), f"{where}.schema")
    values = spec.migrate_params(values, schema)
    values = {k: _load_value(known[k], v, folder) if k in known else v for k, v in values.items()}
    try:
        return from_dict(spec.params, values, check=False)
    except ParameterError as exc:
        raise ProjectError(f"{where}: {exc}") from None


def _method(name: str, where: str) -> MethodSpec:
    try:
        return get_method(name)
    except (KeyError, ValueError):
        from ..methods.contract import discover_methods

        raise ProjectError(f"{where}: no method {name!r} in this anonstudio (known: "
                           f"{', '.join(sorted(discover_methods()))})") from None


def _kind(value: Any) -> str:
    """A TOML value's kind in words, for messages."""
    return {bool: "true/false", int: "a number", float: "a number", str: "text", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


def _integer(value: Any, where: str) -> int:
    """A whole number a project field holds (a layout, a count); ProjectError for anything else."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProjectError(f"{where}: expected a whole number, got {_kind(value)} {_short(value)}")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ProjectError(f"{where}: expected text, got {_kind(value)} {_short(value)}")
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _table(doc: Mapping, key: str) -> Mapping:
    return _table_value(doc.get(key, {}), key)


def _table_value(value: Any, where: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise ProjectError(f"{where}: expected a table")
    return value


def _only(doc: Mapping, allowed: set[str], where: str) -> None:
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise ProjectError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(allowed))})")
