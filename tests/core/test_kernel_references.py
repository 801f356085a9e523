"""Every numba kernel module names the slow, obvious reference that checks it, and that reference is used.

A kernel module's docstring holds a line ``Slow reference: tests/reference/<file>.py::<function>`` (several
separated by ", ", over several lines if need be). This test checks that each module has one, that each named
function exists in
``tests/reference/``, and that some test outside ``tests/reference/`` calls it.
"""
from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

from anonstudio import kernels

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
# The references may run on over several lines, up to the next blank line.
LINE = re.compile(r"^Slow reference: (.+?)(?:\n\s*\n|\Z)", re.M | re.S)
#: Modules of the package that hold no kernel of their own.
NOT_KERNELS = {"warmup"}


def _kernel_modules() -> list[str]:
    return sorted(info.name for info in pkgutil.iter_modules(kernels.__path__) if info.name not in NOT_KERNELS)


def _references(module_name: str) -> list[tuple[str, str]]:
    doc = importlib.import_module(f"{kernels.__name__}.{module_name}").__doc__ or ""
    found = LINE.search(doc)
    if found is None:
        return []
    return [tuple(part.strip().split("::", 1)) for part in " ".join(found.group(1).split()).split(",")]


def _test_sources() -> str:
    return "\n".join(p.read_text("utf-8") for p in TESTS.rglob("*.py") if "reference" not in p.parts)


@pytest.mark.parametrize("module_name", _kernel_modules())
def test_each_kernel_module_names_a_slow_reference_that_a_test_uses(module_name):
    refs = _references(module_name)
    assert refs, f"anonstudio/kernels/{module_name}.py names no 'Slow reference: tests/reference/...::...'"
    sources = _test_sources()
    for path, function in refs:
        file = ROOT / path
        assert file.is_file() and file.parent == TESTS / "reference", f"{module_name}: no file {path}"
        defined = {node.name for node in ast.walk(ast.parse(file.read_text("utf-8")))
                   if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        assert function in defined, f"{module_name}: {path} defines no {function}"
        assert re.search(rf"\b{re.escape(function)}\b", sources), \
            f"{module_name}: no test uses {path}::{function}"
