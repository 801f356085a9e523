"""Per-row quantities of a threat result, ready for the tables, scatters and the inspector (Qt-free)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ....methods.threat.analysis import ThreatEstimates
from ....methods.threat.model import text_of

__all__ = ["RowView", "log2_or_inf"]


def log2_or_inf(values: np.ndarray) -> np.ndarray:
    """log2 of positive values; zeros become -inf without a warning."""
    with np.errstate(divide="ignore"):
        return np.log2(np.asarray(values, dtype=float))


@dataclass(eq=False)
class RowView:
    """Rows in analysed order. ``p_A``, ``p_L`` and ``p_RW`` are the probabilities of each row's *true*
    sensitive value; ``ti = p_A / p_L`` (inf where p_L is 0)."""

    frame: Any
    qi: list[str]
    sensitive: str
    s_names: list[str]
    s_true: np.ndarray
    group: np.ndarray
    p_A: np.ndarray
    p_L: np.ndarray
    p_RW: np.ndarray
    ti: np.ndarray
    threatened_A: np.ndarray
    threatened_L: np.ndarray

    @classmethod
    def of(cls, frame: Any, row_group: np.ndarray, result: ThreatEstimates) -> RowView:
        measures = result.rows()
        rows = np.arange(result.n_rows)
        return cls(frame, list(result.qi), result.sensitive, [text_of(v) for v in result.sensitive_values],
                   result.s_true, row_group, measures["p_A"], measures["p_L"], result.p_RW[rows, result.s_true],
                   measures["Ti"], measures["threatened_A"], measures["threatened_L"])

    @property
    def log2_ti(self) -> np.ndarray:
        return log2_or_inf(self.ti)
