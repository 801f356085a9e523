"""Finished runs kept in the user's cache folder, so a reopened project shows its results at once.

An entry is found by a key over everything that decides a run's outcome: the
anonstudio version, the method and its params schema, every parameter (seed
included), the dataset's fingerprint (its file's SHA-256, how it was read, a
table's roles) and the SHA-256 of every input file the parameters name. Any
change of those is a different key, so a stale entry is never found.

Each entry file holds a one-line JSON header (key, version, method and the
SHA-256 of the payload) and the pickled result and check. An entry whose
header, checksum or payload does not read back is deleted and reported as a
miss: it is recomputed, never trusted. Sweep cells are kept as small JSON
entries (their status and summary).

The folder is the user's own (``platformdirs.user_cache_dir``, or
``ANONSTUDIO_CACHE_DIR``); pickles are only read from there. The oldest
entries are removed once the folder exceeds its size limit.
"""
from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import pickle
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import __version__
from ..data.datasets import origin_of
from ..data.io.atomic import atomic_write
from ..data.table import Table
from ..methods.contract import MethodRun, MethodSpec, dataset_ref, file_sha256
from ..params import to_dict

__all__ = ["ResultCache", "CACHE_ENV", "dataset_fingerprint", "run_key", "default_cache_folder"]

CACHE_ENV = "ANONSTUDIO_CACHE_DIR"
#: Default size limit of the cache folder.
DEFAULT_LIMIT = 2 << 30
_RUN_SUFFIX = ".run"
_CELL_SUFFIX = ".cell.json"


def default_cache_folder() -> Path:
    """``ANONSTUDIO_CACHE_DIR``, else the platform's user cache folder for anonstudio."""
    folder = os.environ.get(CACHE_ENV)
    if folder:
        return Path(folder)
    import platformdirs

    return Path(platformdirs.user_cache_dir("anonstudio", appauthor=False)) / "runs"


def _digest(doc: Any) -> str:
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def dataset_fingerprint(data: Any) -> str | None:
    """What identifies a dataset's content: its file's hash, how it was read, a table's roles.

    None for data built in memory (not cacheable: nothing proves two such datasets equal).
    """
    ref = dataset_ref(data)
    if ref.sha256 is None:
        return None
    origin = origin_of(data)
    doc: dict[str, Any] = {"kind": ref.kind, "sha256": ref.sha256, "name": ref.name}
    if origin is not None:
        doc["sample"] = origin.sample
        doc["options"] = dataclasses.asdict(origin.options)
    if isinstance(data, Table):
        doc["roles"] = sorted((str(c), r.value) for c, r in data.roles.items())
        doc["rows"] = int(data.n_rows)
    return _digest(doc)


def run_key(spec: MethodSpec, params: Any, data: Any) -> str | None:
    """The cache key of running ``spec`` with ``params`` on ``data`` (None when the data is not cacheable)."""
    fingerprint = dataset_fingerprint(data)
    if fingerprint is None:
        return None
    inputs = {}
    for name, path in spec.input_files(params).items():
        if not Path(path).is_file():
            return None  # the run fails anyway; nothing to look up
        inputs[name] = file_sha256(path)
    return _digest({"anonstudio": __version__, "method": spec.name, "schema": spec.params_schema,
                    "params": to_dict(params), "dataset": fingerprint, "inputs": inputs})


_DATASET_ID = "dataset"


def _dumps(stored: dict, data: Any) -> bytes:
    """Pickle a run's parts, writing the dataset they refer to as a reference, not its records."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.persistent_id = lambda obj: _DATASET_ID if obj is data else None
    pickler.dump(stored)
    return buffer.getvalue()


def _loads(payload: bytes, data: Any) -> Any:
    unpickler = pickle.Unpickler(io.BytesIO(payload))

    def load(pid: Any) -> Any:
        if pid != _DATASET_ID:
            raise pickle.UnpicklingError(f"unknown reference {pid!r}")
        return data

    unpickler.persistent_load = load
    return unpickler.load()


class ResultCache:
    """Runs and sweep cells stored by key in ``folder`` (default: :func:`default_cache_folder`)."""

    def __init__(self, folder: str | Path | None = None, *, limit: int = DEFAULT_LIMIT):
        self.folder = Path(folder) if folder is not None else default_cache_folder()
        self.limit = int(limit)
        self._lock = threading.Lock()
        #: Entries found broken and removed since this cache was opened (for tests and the status bar).
        self.discarded = 0

    # ---------------------------------------------------------------- runs
    def get(self, spec: MethodSpec, params: Any, data: Any) -> MethodRun | None:
        """The stored run of ``spec`` with ``params`` on ``data``, rebuilt around them; None on a miss."""
        key = run_key(spec, params, data)
        if key is None:
            return None
        path = self.folder / (key + _RUN_SUFFIX)
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        stored = self._payload(path, raw, key, data)
        if stored is None:
            return None
        self._touch(path)
        run = MethodRun(spec, params, data, stored["dataset"], result=stored["result"],
                        verification=stored["verification"], cancelled=False, seconds=stored["seconds"],
                        started=stored["started"], inputs=stored["inputs"], cached=True)
        return run

    def put(self, run: MethodRun) -> bool:
        """Store a complete run (a cancelled one is not kept); False when it cannot be (data built in memory)."""
        if not run.complete or run.result is None:
            return False
        key = run_key(run.spec, run.params, run.data)
        if key is None:
            return False
        stored = {"result": run.result, "verification": run.verification, "seconds": run.seconds,
                  "started": run.started, "inputs": run.inputs, "dataset": run.dataset}
        try:
            payload = _dumps(stored, run.data)
        except (pickle.PicklingError, TypeError, AttributeError):
            return False  # a result holding something unpicklable is simply not cached
        header = {"key": key, "anonstudio": __version__, "method": run.spec.name,
                  "sha256": hashlib.sha256(payload).hexdigest(), "bytes": len(payload)}
        self._write(self.folder / (key + _RUN_SUFFIX), json.dumps(header).encode("utf-8") + b"\n" + payload)
        return True

    def _payload(self, path: Path, raw: bytes, key: str, data: Any) -> dict | None:
        try:
            head, _, payload = raw.partition(b"\n")
            header = json.loads(head.decode("utf-8"))
            if (header.get("key") != key or header.get("anonstudio") != __version__
                    or header.get("sha256") != hashlib.sha256(payload).hexdigest()):
                raise ValueError("header does not match")
            stored = _loads(payload, data)
            if not isinstance(stored, dict) or not {"result", "verification", "dataset"} <= set(stored):
                raise ValueError("payload does not hold a run")
            return stored
        except Exception:  # noqa: BLE001 - any failure to read back means the entry is not trusted
            self._discard(path)
            return None

    # --------------------------------------------------------------- cells
    def get_cell(self, spec: MethodSpec, params: Any, data: Any) -> dict | None:
        """A stored sweep cell (``{"status", "summary", "seconds"}``) or None."""
        key = run_key(spec, params, data)
        if key is None:
            return None
        path = self.folder / (key + _CELL_SUFFIX)
        try:
            doc = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            self._discard(path)
            return None
        if (not isinstance(doc, dict) or doc.get("key") != key or not isinstance(doc.get("summary"), dict)
                or doc.get("status") not in ("done", "not-met", "unverified", "failed")):
            self._discard(path)
            return None
        self._touch(path)
        return doc

    def put_cell(self, spec: MethodSpec, params: Any, data: Any, status: str, summary: dict, seconds: float,
                 error: str = "", check: str = "") -> bool:
        if status == "cancelled":
            return False
        key = run_key(spec, params, data)
        if key is None:
            return False
        doc = {"key": key, "anonstudio": __version__, "method": spec.name, "status": status,
               "summary": summary, "seconds": seconds, "error": error, "check": check}
        self._write(self.folder / (key + _CELL_SUFFIX), json.dumps(doc, default=float).encode("utf-8"))
        return True

    def sweep_hooks(self, spec: MethodSpec, data: Any) -> tuple[Callable, Callable]:
        """``(cached, on_cell)`` for :func:`~anonstudio.methods.sweep.run_sweep`: stored cells are not run again,
        new ones are stored as they finish."""
        from ..methods.sweep import CellResult

        def cached(cell: Any) -> CellResult | None:
            doc = self.get_cell(spec, cell.params, data)
            if doc is None:
                return None
            return CellResult(cell, doc["status"], dict(doc["summary"]), float(doc.get("seconds", 0.0)),
                              str(doc.get("error", "")), check=str(doc.get("check", "")))

        def on_cell(result: Any) -> None:
            self.put_cell(spec, result.cell.params, data, result.status, result.summary, result.seconds,
                          result.error, result.check)

        return cached, on_cell

    # ----------------------------------------------------------- the folder
    def size(self) -> int:
        return sum(p.stat().st_size for p in self._entries())

    def clear(self) -> None:
        for path in self._entries():
            path.unlink(missing_ok=True)

    def _entries(self) -> list[Path]:
        if not self.folder.is_dir():
            return []
        return [p for p in self.folder.iterdir() if p.name.endswith((_RUN_SUFFIX, _CELL_SUFFIX)) and p.is_file()]

    def _write(self, path: Path, data: bytes) -> None:
        with self._lock:
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                with atomic_write(path, "wb", encoding=None) as fh:
                    fh.write(data)
            except OSError:
                return  # a full disk or a read-only cache folder must not fail the run itself
            self._prune()

    def _prune(self) -> None:
        entries = []
        for path in self._entries():
            try:
                st = path.stat()
            except OSError:
                continue
            entries.append((st.st_mtime, st.st_size, path))
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= self.limit:
                break
            path.unlink(missing_ok=True)
            total -= size

    def _discard(self, path: Path) -> None:
        self.discarded += 1
        try:
            path.unlink(missing_ok=True)
        except OSError:
            pass

    @staticmethod
    def _touch(path: Path) -> None:
        try:
            os.utime(path)  # most recently used entries survive pruning
        except OSError:
            pass
