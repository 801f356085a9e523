"""anonstudio: anonymize set-valued data and see what an attacker can still learn."""
import sys
from pathlib import Path

__version__ = "0.1.0"


def _find_resources() -> Path:
    # A source checkout (or a PyInstaller bundle) keeps resources/ next to the
    # package; a wheel installs it as data files under <prefix>/share/anonstudio.
    beside = Path(__file__).resolve().parent.parent / "resources"
    installed = Path(sys.prefix) / "share" / "anonstudio" / "resources"
    return beside if beside.is_dir() or not installed.is_dir() else installed


#: Folder with bundled sample datasets.
RESOURCES = _find_resources()


# ------------------------------------------------------------------ the library API (``import anonstudio as an``)
# Resolved on first use, so that ``import anonstudio`` (and every CLI start, which imports it) stays light: the API
# pulls in the data model (numpy, pandas) and each family's spec. Only these names are looked up there; any other
# missing attribute (a submodule not imported yet) is an AttributeError at once.
_API = frozenset({"open", "sample", "samples", "families", "ParameterError", "Run", "EvaluationRun"})


def _family_names() -> set[str]:
    """The method families' function names: the packages under ``methods/`` with a ``spec.py`` (no import)."""
    folder = Path(__file__).resolve().parent / "methods"
    try:
        return {entry.name for entry in folder.iterdir() if (entry / "spec.py").is_file()}
    except OSError:
        return set()


def __getattr__(name: str):
    import importlib

    if name == "evaluate":
        # The evaluator's package is itself callable as an.evaluate (see anonstudio.evaluate).
        return importlib.import_module("anonstudio.evaluate")
    if name in _API or (not name.startswith("_") and name in _family_names()):
        return getattr(importlib.import_module("anonstudio.api"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _API | _family_names() | {"evaluate"})
