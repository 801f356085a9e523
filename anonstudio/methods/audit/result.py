"""The result of an audit: the evaluator's :class:`~anonstudio.evaluate.Evaluation`, and its claim as a check."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...evaluate import ClaimResult, Evaluation
from ...glossary import meaning

__all__ = ["AuditResult", "ClaimCheck"]


def _names_only(doc: Any) -> Any:
    """The evaluator's JSON with every file named by its name only: a run's JSON holds no folder of this machine."""
    if isinstance(doc, dict):
        return {k: (Path(v).name if k == "path" and isinstance(v, str) else _names_only(v)) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_names_only(v) for v in doc]
    return doc


@dataclass(eq=False)
class AuditResult:
    """What an audit measured.

    Attributes
    ----------
    evaluation
        The evaluator's figures: one :class:`~anonstudio.evaluate.Level` per m
        finished, the utility measures (after the last m), the claims.
    release_name
        The release file's name, or ``"the original"`` when the original was
        measured as its own release.
    source
        Where the release came from in the studio (``"file"``, or the tab whose
        finished run it is), for the texts.
    """

    evaluation: Evaluation
    release_name: str
    complete: bool = True
    source: str = "file"
    notes: list[str] = field(default_factory=list)
    #: The evaluator's JSON, made when the run ended (it hashes the release file, which may move later).
    doc: dict = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, evaluation: Evaluation, release_name: str) -> AuditResult:
        doc = _names_only(evaluation.to_json())
        doc["release"]["name"] = release_name
        return cls(evaluation, release_name, complete=evaluation.complete, doc=doc)

    @property
    def levels(self):
        return self.evaluation.levels

    @property
    def counterexample(self) -> dict | None:
        """The first failed claim's counterexample (person numbered from 1, known set, candidates), or None."""
        return next((c.counterexample for c in self.evaluation.claims
                     if c.status == "failed" and c.counterexample is not None), None)

    def to_json(self) -> dict:
        """The evaluator's JSON, plus ``measure_meanings``: each summary measure's meaning from the evaluator's
        glossary entries (the report looks a family's measures up under its own name)."""
        doc = dict(self.doc)
        doc["measure_meanings"] = {key: meaning(re.sub(r"_m\d+$", "", key), "evaluate") for key in self.summary()}
        return doc

    def summary(self) -> dict[str, float]:
        """Per m the three risk figures (``prosecutor_risk_m2``...), then the two utility measures."""
        out: dict[str, float] = {}
        for level in self.evaluation.levels:
            out[f"prosecutor_risk_m{level.m}"] = level.prosecutor_risk.value
            out[f"share_at_risk_m{level.m}"] = level.share_at_risk.value
            if level.attribute_disclosure is not None:
                out[f"attribute_disclosure_m{level.m}"] = level.attribute_disclosure.value
        for key in ("count_query_error", "frequency_distortion"):
            value = (getattr(self.evaluation, key) or {}).get("value")
            if value is not None and math.isfinite(value):
                out[key] = float(value)
        return {k: float(v) for k, v in out.items() if v is not None and math.isfinite(v)}


@dataclass(eq=False)
class ClaimCheck:
    """The audited claim as the contract's verification: passed, FAILED (with a counterexample) or incomplete."""

    claims: list[ClaimResult]

    @property
    def complete(self) -> bool:
        # A claim found false is settled whatever else was not counted.
        return self.failed or all(c.status == "passed" for c in self.claims)

    @property
    def failed(self) -> bool:
        return any(c.status == "failed" for c in self.claims)

    @property
    def passed(self) -> bool:
        return not self.failed

    @property
    def counterexample(self) -> dict | None:
        return next((c.counterexample for c in self.claims if c.counterexample is not None), None)

    def lines(self) -> list[str]:
        return [c.detail for c in self.claims]

    def summary(self) -> dict[str, float]:
        # A measure for comparison tables; the counterexample is in the JSON and the verdict, not a measure.
        return {"passed": 0.0 if self.failed else 1.0}

    def to_json(self) -> dict:
        return {"passed": self.passed, "complete": self.complete, "claims": [c.to_json() for c in self.claims]}
