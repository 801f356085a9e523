"""Centre-tab workbenches, one package per method family, found by :func:`discover_workbenches`.

To add a tab, add a package ``<family>/`` here whose ``workbench.py`` defines a
:class:`~anonstudio.gui.method_workbench.MethodWorkbench` subclass (plots,
tables and inspectors of the family live beside it in the package); see that
module's docstring for a complete example.
"""
from __future__ import annotations

import ast
import importlib
import logging
import pkgutil
import re
import traceback
from pathlib import Path
from typing import Any

__all__ = ["discover_workbenches", "workbench_declarations", "WorkbenchDeclaration"]

log = logging.getLogger(__name__)


def discover_workbenches() -> tuple[list[type], list[tuple[str, str]]]:
    """Every Workbench subclass defined in this package, sorted by ``ORDER``.

    Returns the classes and ``(module name, traceback)`` of modules that failed.

    A module that fails to import is skipped and reported (so one broken tab
    never keeps the studio from starting); the main window logs the problems.
    """
    classes: list[type] = []
    problems: list[tuple[str, str]] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        name = f"{__name__}.{info.name}.workbench" if info.ispkg else f"{__name__}.{info.name}"
        found, failed = _classes_of(name)
        classes.extend(found)
        problems.extend(failed)
    classes.sort(key=lambda cls: (cls.ORDER, cls.TITLE))
    return classes, problems


def _classes_of(name: str) -> tuple[list[type], list[tuple[str, str]]]:
    """The Workbench subclasses module ``name`` defines, imported now (or the traceback of its failure)."""
    from ..workbench import Workbench

    try:
        module = importlib.import_module(name)
    except Exception:
        log.exception("workbench module %s failed to import", name)
        return [], [(name, traceback.format_exc())]
    return [obj for obj in vars(module).values()
            if isinstance(obj, type) and issubclass(obj, Workbench) and obj is not Workbench
            and obj.__module__ == module.__name__ and not obj.__dict__.get("ABSTRACT", False)], []


#: The class attributes the main window and the start page read before a tab is built.
DECLARED = ("TITLE", "ORDER", "SPEC", "OFFERS_ATTACK_DEMO")


class WorkbenchDeclaration:
    """A workbench class before its module is imported: what its tab and the start page need to know.

    The attributes of :data:`DECLARED` are read from the class body in the module's source (plain literals),
    so that the studio's window appears without importing every family's plots and what they import (numba,
    scipy, shapely, pandas): a workbench's module is imported when its tab is first built (:meth:`load`).
    A declaration equals the class it stands for.
    """

    # Workbench's own defaults, for what a class body leaves out (SPEC: only method workbenches have one).
    TITLE = "Workbench"
    ORDER = 100
    OFFERS_ATTACK_DEMO = False

    def __init__(self, module: str, class_name: str, attributes: dict[str, Any]):
        self.module = module
        self.__name__ = class_name
        for name, value in attributes.items():
            setattr(self, name, value)

    def load(self) -> type:
        """The class itself (its module imported now)."""
        return getattr(importlib.import_module(self.module), self.__name__)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.load()(*args, **kwargs)

    def _key(self) -> tuple[str, str]:
        return self.module, self.__name__

    def __eq__(self, other: object) -> bool:
        if isinstance(other, WorkbenchDeclaration):
            return self._key() == other._key()
        if isinstance(other, type):
            return (other.__module__, other.__name__) == self._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"<workbench {self.module}.{self.__name__} (not imported yet)>"


#: A class statement at the top level, and an assignment of one of :data:`DECLARED` (or ``ABSTRACT``) on one line
#: of its body: read with a pattern, not by parsing the module (parsing the eight took a tenth of a second).
_CLASS = re.compile(r"^class (\w+)\b")
_ASSIGNMENT = re.compile(r"^    (TITLE|ORDER|SPEC|OFFERS_ATTACK_DEMO|ABSTRACT)\s*(?::[^=]*)?=\s*(.+?)\s*(?:#.*)?$")


def _declared(module: str, path: Path) -> WorkbenchDeclaration | None:
    """The declaration of the one workbench class of ``path``, or None when its source does not say it plainly
    (then the module is imported)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, ValueError):
        return None
    found: list[tuple[str, dict[str, Any]]] = []
    current: dict[str, Any] | None = None  # the body of the class being read, None outside a class
    for line in lines:
        start = _CLASS.match(line)
        if start:
            found.append((start.group(1), {}))
            current = found[-1][1]
            continue
        if line[:1] not in ("", " ", "#", ")"):  # another top-level statement: the class body ended
            current = None
        assignment = _ASSIGNMENT.match(line)
        if assignment and current is not None:
            name, text = assignment.groups()
            if name in current:
                return None  # assigned twice: only importing the module tells which value holds
            try:
                current[name] = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                return None  # computed, or spread over lines
    declared = [WorkbenchDeclaration(module, name, values) for name, values in found
                if "TITLE" in values and "ORDER" in values and not values.pop("ABSTRACT", False)]
    return declared[0] if len(declared) == 1 else None


def workbench_declarations() -> tuple[list[Any], list[tuple[str, str]]]:
    """Every workbench of this package as a :class:`WorkbenchDeclaration` (or the class itself when its
    source does not declare it plainly), sorted by ``ORDER`` like :func:`discover_workbenches`.

    Returns the entries and ``(module name, traceback)`` of the modules that had to be imported and failed.
    """
    entries: list[Any] = []
    problems: list[tuple[str, str]] = []
    folder = Path(__file__).resolve().parent
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        name = f"{__name__}.{info.name}.workbench" if info.ispkg else f"{__name__}.{info.name}"
        source = folder / info.name / "workbench.py" if info.ispkg else folder / f"{info.name}.py"
        declaration = _declared(name, source)
        if declaration is not None:
            entries.append(declaration)
            continue
        classes, failed = _classes_of(name)
        entries.extend(classes)
        problems.extend(failed)
    entries.sort(key=lambda cls: (cls.ORDER, cls.TITLE))
    return entries, problems
