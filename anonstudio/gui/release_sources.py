"""Releases of finished runs as files the evaluator reads: a run of any tab becomes an audit's release.

A tab's run is offered to the other tabs when it finishes (the main window's hand-over); the Audit tab keeps the
runs that have a release export and, on request, writes that release and its side files (an item map, an item
hierarchy, the sensitive items, the column hierarchies the run's parameters name) to a private folder, then fills
its release fields with them. The release is written even when the run's own check failed: an auditor measures
what was made, and the files never leave that folder.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..methods.contract import MethodRun, write_outputs
from ..params import to_dict

__all__ = ["has_release", "run_label", "write_release"]

#: Export keys of a run, and the audit parameter each one fills.
SIDE_EXPORTS = {"release": "release", "map": "map", "hierarchy": "item_hierarchy", "sensitive": "sensitive"}


def has_release(run: MethodRun) -> bool:
    """Whether ``run`` made a release the evaluator can read (a finished run with a release export)."""
    if run is None or run.result is None or not run.complete or run.spec.name == "audit":
        return False
    return any(e.key == "release" and e.offered(run) for e in run.spec.exports)


def run_label(run: MethodRun) -> str:
    """"σ-k^m anonymity 14:03:10 (k = 5, m = 2) — passed": how the source list names a run."""
    from ..methods.contract import verdict_head

    when = run.started[11:19] if len(run.started) >= 19 else run.started
    outcome = (verdict_head(run) or run.status).removeprefix("Independent check ")
    shown = []
    for key in ("k", "m", "sigma", "rho", "l", "scheme"):
        value = getattr(run.params, key, None)
        if value is not None and value != "":
            shown.append(f"{key} = {value:g}" if isinstance(value, float) else f"{key} = {value}")
    return f"{run.spec.title} {when} ({', '.join(shown[:3]) or 'defaults'}) — {outcome}"


def write_release(run: MethodRun, folder: Path) -> dict[str, Any]:
    """Write ``run``'s release and side files under ``folder``; the audit parameters that name them.

    The files go to a subfolder named after the run (its method, start and parameters), so two runs never
    share one and the same run is written once.
    """
    recipe = json.dumps([run.spec.name, run.started, to_dict(run.params)], sort_keys=True, default=str)
    stamp = hashlib.sha256(recipe.encode("utf-8")).hexdigest()[:12]
    target = Path(folder) / f"{run.spec.name}-{stamp}"
    target.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for export in run.spec.exports:
        if export.key in SIDE_EXPORTS and export.offered(run):
            paths[export.key] = target / f"{export.key}{export.extensions[0]}"
    skipped = write_outputs(run, paths, allow_unverified=True)
    values: dict[str, Any] = {"kind": "auto"}
    for key, path in paths.items():
        if path.is_file():
            values[SIDE_EXPORTS[key]] = path
    hierarchies = getattr(run.params, "hierarchies", None)
    if hierarchies:
        values["hierarchies"] = tuple(hierarchies)
    if "release" not in values:
        raise RuntimeError(skipped[0] if skipped else f"{run.spec.title}: the run wrote no release")
    return values
