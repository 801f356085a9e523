"""The entry point of the threat family: make (or read) the release, then learn from it and attack it."""
from __future__ import annotations

from ...data.table import Table
from ...jobs import NullProgress, PartialRelay, Progress, SubProgress
from ...params import ParameterError
from ..group_anonymize.algorithm import run_group_anonymize
from ..group_anonymize.params import PUBLISHED
from .analysis import analyze_threat
from .params import ThreatParams
from .result import ThreatResult

__all__ = ["run_threat", "analysed_rows"]


def analysed_rows(params: ThreatParams) -> int | None:
    """How many complete rows are analysed (None: all); a published CSV always covers every row."""
    return params.rows if params.scheme != PUBLISHED else None


def run_threat(data: Table, params: ThreatParams, progress: Progress | None = None) -> ThreatResult:
    """Anonymize ``data`` as ``params`` say (or read their published CSV) and run the relative threat analysis.

    ``progress`` may be the spec's staged progress: the release is made in its ``release`` stage and sampled in
    its ``sample`` stage; a plain Progress gives the release its first tenth. Partial results (a
    :class:`ThreatResult` with
    the current estimates) go to ``progress.partial`` while sampling; a cancel returns what was sampled.

    Raises
    ------
    ParameterError
        No release can meet k and ℓ, or the release cannot be analysed (a known column that is no quasi-identifier).
    """
    progress = progress or NullProgress()
    if hasattr(progress, "stage"):  # the pipeline's StagedProgress
        making, sampling = progress.stage("release"), progress.stage("sample")
    else:
        making, sampling = SubProgress(progress, 0.0, 0.1), SubProgress(progress, 0.1, 1.0)
    release = run_group_anonymize(data, params.group_params(), making, rows=analysed_rows(params))
    result = ThreatResult(release)
    if release.release is None or progress.cancelled():
        return result
    progress.partial(ThreatResult(release))
    relay = PartialRelay(sampling, lambda estimates: ThreatResult(release, estimates))
    try:
        result.estimates = analyze_threat(release.table, release.release, params, relay)
    except ValueError as exc:
        raise ParameterError(str(exc)) from None
    return result
