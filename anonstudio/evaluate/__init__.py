"""The independent evaluator: any release, measured against its original on one scale.

It reads the original (with anonstudio's data loaders) and a release of any
kind with its own readers (:mod:`.readers`), and shares no code with the
methods that make releases: a release made by anonstudio is checked the way a
release made elsewhere is. ``docs/evaluate.md`` defines every measure and
every kind's candidates.

Use::

    from anonstudio.evaluate import EvaluateOptions, evaluate, parse_claim
    ev = evaluate(original, "release.dat", options=EvaluateOptions(m=2, k=5, claims=(parse_claim("k=5,m=2"),)))
    ev.verdict()   # "Independent check passed: ..." / "... FAILED: ..." / "... incomplete: ..."
"""
from .claims import Claim, ClaimResult, parse_claim
from .evaluation import EvaluateOptions, Evaluation, candidates_of, evaluate
from .readers import KINDS, KNOWN, SideFiles, read_release, sniff_kind
from .risk import Level, Measure

__all__ = [
    "Claim", "ClaimResult", "parse_claim", "EvaluateOptions", "Evaluation", "evaluate", "candidates_of",
    "KINDS", "KNOWN", "SideFiles", "read_release", "sniff_kind", "Level", "Measure",
]
