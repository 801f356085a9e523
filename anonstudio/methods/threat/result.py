"""What a threat run returns: the analysed release and the estimates drawn from it."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...data.table import Table
from ..group_anonymize.result import GroupAnonymizeResult
from .analysis import ThreatEstimates

__all__ = ["ThreatResult"]


@dataclass(eq=False)
class ThreatResult:
    """One analysis: the release (with the rows it covers) and the estimates (None until sampling has any)."""

    release: GroupAnonymizeResult
    estimates: ThreatEstimates | None = None

    @property
    def complete(self) -> bool:
        return self.release.complete and self.estimates is not None and self.estimates.complete

    @property
    def table(self) -> Table:
        return self.release.table

    def to_json(self) -> dict:
        """Measures, diagnostics and the release; the per-row distributions are an audit export of their own."""
        doc = self.estimates.to_json() if self.estimates is not None else {}
        doc.pop("rows", None)
        doc["release"] = self.release.to_json()
        doc["complete"] = self.complete
        return doc

    def summary(self) -> dict[str, float]:
        out = dict(self.release.summary())
        if self.estimates is not None:
            out.update({k: float(v) for k, v in self.estimates.measures.items()
                        if isinstance(v, (int, float, np.floating))})
        return out
