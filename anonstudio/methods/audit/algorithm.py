"""Run an audit: the evaluator on the original and a release, with the params' claim."""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from ...data.table import RTData, Table
from ...data.transactions import TransactionData
from ...evaluate import EvaluateOptions, SideFiles, evaluate, parse_claim
from ...jobs import NullProgress, Progress
from ...params import ParameterError
from .params import AuditParams
from .result import AuditResult

__all__ = ["run_audit", "options_of", "side_files_of", "ORIGINAL_AS_RELEASE"]

#: How the texts name the original when it is measured as its own release.
ORIGINAL_AS_RELEASE = "the original (as its own release)"


def options_of(params: AuditParams) -> EvaluateOptions:
    """The evaluator's options for ``params`` (the CLI's defaults for everything the tab does not show)."""
    claims = (parse_claim(params.claim_text),) if params.claim_text else ()
    return EvaluateOptions(m=params.m, k=params.k, rho=params.rho, queries=params.queries, seed=params.seed,
                           claims=claims)


def side_files_of(params: AuditParams) -> SideFiles:
    return SideFiles(map=params.map, item_hierarchy=params.item_hierarchy, hierarchies=dict(params.hierarchies),
                     sensitive=params.sensitive, sensitive_column=params.sensitive_column)


def _write_original(data: Any, folder: Path) -> tuple[Path, str]:
    """The original written as a release file (for the baseline audit of the original itself) and its kind."""
    from ...data.io import save_table, save_transactions

    if isinstance(data, TransactionData):
        path = folder / "original.sets.csv"
        save_transactions(data, path)
        return path, "plain"
    if isinstance(data, Table):
        path = folder / "original.csv"
        save_table(data, path)
        return path, "table"
    kind = "a table with items" if isinstance(data, RTData) else "this kind of data"
    raise ParameterError(f"choose a release file: {kind} is audited against a release only", name="release")


def run_audit(data: Any, params: AuditParams, progress: Progress | None = None) -> AuditResult:
    """Measure the release ``params.release`` (None: the original itself) against ``data``.

    Raises :class:`~anonstudio.data.errors.DataFormatError` for a release the
    evaluator cannot read or that contradicts the original. A cancel returns the
    m values finished, ``complete=False``.
    """
    progress = progress or NullProgress()
    options = options_of(params)
    side = side_files_of(params)
    kind = None if params.kind == "auto" else params.kind
    name = getattr(data, "name", None)
    if params.release is not None:
        ev = evaluate(data, params.release, kind=kind, side=side, options=options, progress=progress,
                      original_name=name)
        return AuditResult.of(ev, Path(params.release).name)
    with tempfile.TemporaryDirectory(prefix="anonstudio-audit-") as folder:
        path, own_kind = _write_original(data, Path(folder))
        ev = evaluate(data, path, kind=kind or own_kind, side=side, options=options, progress=progress,
                      original_name=name)
        return AuditResult.of(ev, ORIGINAL_AS_RELEASE)
