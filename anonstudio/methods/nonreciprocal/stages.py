"""The progress stages of a nonreciprocal run: the phases of the algorithm, then the independent check.

The spec declares them (``NonreciprocalSpec.stages``) and
:func:`~anonstudio.methods.nonreciprocal.algorithm.run_nonreciprocal` reports each phase
through ``StagedProgress.stage(key)``.
"""
from __future__ import annotations

from typing import Any

from ..contract import Stage, StagedProgress

__all__ = ["STAGES", "PHASE_STAGES", "staged"]

#: Share of the anonymizing part of the bar per phase, for Gray-TSP runs (Gray-only runs skip "tsp" and share
#: the same part among the others).
_SHARES = {"sort": 0.04, "tsp": 0.46, "graph": 0.08, "assignments": 0.2, "publish": 0.1, "metrics": 0.12}
#: The anonymizing phases against the independent check: 3 to 2.
_ANONYMIZE, _VERIFY = 3.0, 2.0


def _weight(key: str):
    def weight(params: Any) -> float:
        if params.order != "gray-tsp":
            return 0.0 if key == "tsp" else _ANONYMIZE * _SHARES[key] / (1.0 - _SHARES["tsp"])
        return _ANONYMIZE * _SHARES[key]
    return weight


#: The phases of the algorithm, in run order.
PHASE_STAGES = tuple(Stage(key, key, _weight(key)) for key in _SHARES)
#: Every stage of a run: the phases, then the independent check.
STAGES = PHASE_STAGES + (Stage("verify", "independent check", _VERIFY),)


def staged(progress: Any, params: Any) -> StagedProgress:
    """``progress`` as a :class:`StagedProgress` over the phases (as it is when the pipeline passes one)."""
    if isinstance(progress, StagedProgress):
        return progress
    return StagedProgress(progress, PHASE_STAGES, params)
