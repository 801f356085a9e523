"""The library API: anonstudio from notebooks and scripts (``import anonstudio as an``).

* :func:`open` and :func:`sample` load data (a file, a sample, a database URL, a pandas
  DataFrame, a list of item sets);
* one function per method family, named as its CLI command with ``_`` for ``-`` (``kmanon``,
  ``group_anonymize``, ...), built from the family's spec when first used (:mod:`.functions`),
  and :func:`evaluate` for the independent evaluator;
* each returns a :class:`Run` (or an :class:`EvaluationRun`): ``.check``, ``.summary()``,
  ``.release``, ``.to_json()``, ``.save(...)``, shown as HTML in Jupyter.

It is a front end like the CLI: the same loaders, the same pipeline
(:func:`~anonstudio.methods.contract.run_and_verify`), the same writers. ``docs/api.md`` has examples.
"""
from __future__ import annotations

import threading
from typing import Any

from ..params import ParameterError
from .data import open, sample
from .evaluation import EvaluationRun, evaluate
from .run import Run

__all__ = ["open", "sample", "samples", "evaluate", "families", "ParameterError", "Run", "EvaluationRun"]

_FUNCTIONS: dict[str, Any] = {}
_LOCK = threading.Lock()


def families() -> list[str]:
    """The names of the family functions (every discovered method family, ``_`` for ``-``)."""
    from ..methods.contract import discover_methods

    return sorted(name.replace("-", "_") for name in discover_methods())


def samples() -> list[str]:
    """The names of the bundled samples, for :func:`sample` (``anonstudio-cli samples`` describes them)."""
    from ..data.samples import list_samples

    return [s.name for s in list_samples()]


def family(name: str) -> Any:
    """The function of the family ``name`` (``kmanon``, ``group_anonymize`` or ``group-anonymize``)."""
    from ..methods.contract import discover_methods
    from .functions import family_function

    specs = {n.replace("-", "_"): spec for n, spec in discover_methods().items()}
    key = name.replace("-", "_")
    if key not in specs:
        raise AttributeError(f"anonstudio has no method family {name!r}; families: {', '.join(sorted(specs))}")
    with _LOCK:
        if key not in _FUNCTIONS:
            _FUNCTIONS[key] = family_function(specs[key])
        return _FUNCTIONS[key]


def __getattr__(name: str) -> Any:
    if name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return family(name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(families()))
