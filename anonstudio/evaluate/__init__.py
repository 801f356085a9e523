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

From the library API the package is also a function, ``an.evaluate(original, release=..., m=2, k=5,
claim=["k=5,m=2"])``, with the keywords of ``anonstudio-cli evaluate`` (:mod:`anonstudio.api.evaluation`):
``import anonstudio as an`` names this package ``an.evaluate``, so the package itself answers the call.
"""
import importlib
import sys
import types

from .claims import Claim, ClaimResult, parse_claim
from .evaluation import EvaluateOptions, Evaluation, candidates_of, evaluate
from .readers import KINDS, KNOWN, SideFiles, read_release, sniff_kind
from .risk import Level, Measure

__all__ = [
    "Claim", "ClaimResult", "parse_claim", "EvaluateOptions", "Evaluation", "evaluate", "candidates_of",
    "KINDS", "KNOWN", "SideFiles", "read_release", "sniff_kind", "Level", "Measure",
]


class _EvaluateModule(types.ModuleType):
    """This package, callable as the library's ``an.evaluate`` (a package and a function cannot share the name
    ``anonstudio.evaluate`` otherwise: importing the package replaces the attribute)."""

    def __call__(self, *args, **kwargs):
        # By name: the evaluator imports no front end (the library API is one).
        return importlib.import_module("anonstudio.api.evaluation").evaluate(*args, **kwargs)

    @property
    def __signature__(self):
        return importlib.import_module("anonstudio.api.evaluation").evaluate.__signature__


sys.modules[__name__].__class__ = _EvaluateModule
