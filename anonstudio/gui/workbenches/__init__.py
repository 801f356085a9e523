"""Centre-tab workbenches, one package per method family, found by :func:`discover_workbenches`.

To add a tab, add a package ``<family>/`` here whose ``workbench.py`` defines a
:class:`~anonstudio.gui.method_workbench.MethodWorkbench` subclass (plots,
tables and inspectors of the family live beside it in the package); see that
module's docstring for a complete example.
"""
from __future__ import annotations

import importlib
import logging
import pkgutil
import traceback

__all__ = ["discover_workbenches"]

log = logging.getLogger(__name__)


def discover_workbenches() -> tuple[list[type], list[tuple[str, str]]]:
    """Every Workbench subclass defined in this package, sorted by ``ORDER``.

    Returns the classes and ``(module name, traceback)`` of modules that failed.

    A module that fails to import is skipped and reported (so one broken tab
    never keeps the studio from starting); the main window logs the problems.
    """
    from ..workbench import Workbench

    classes: list[type] = []
    problems: list[tuple[str, str]] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        name = f"{__name__}.{info.name}.workbench" if info.ispkg else f"{__name__}.{info.name}"
        try:
            module = importlib.import_module(name)
        except Exception:
            problems.append((name, traceback.format_exc()))
            log.exception("workbench module %s failed to import", name)
            continue
        for obj in vars(module).values():
            if (isinstance(obj, type) and issubclass(obj, Workbench) and obj is not Workbench
                    and obj.__module__ == module.__name__ and not obj.__dict__.get("ABSTRACT", False)):
                classes.append(obj)
    classes.sort(key=lambda cls: (cls.ORDER, cls.TITLE))
    return classes, problems
