"""Every method family has the one shape: adding a family adds files and edits nothing central.

For each discovered family ``<name>`` (its package name: the CLI command with ``_`` for ``-``):
``methods/<name>/`` holds ``params.py``, ``algorithm.py`` (a public ``run_<name>``), ``result.py`` and
``spec.py`` (whose ``run`` is one call); a family with a promise has ``verifiers/<name>.py`` (or names
the one that checks it, ``MethodSpec.verified_by``); the studio
has ``gui/workbenches/<name>/workbench.py``; the tests live in ``tests/<name>/``; the spec declares its
bundled samples and its glossary terms.
"""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from anonstudio.methods.contract import discover_methods

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "anonstudio"
SPECS = discover_methods()


def package_of(name: str) -> str:
    return name.replace("-", "_")


@pytest.mark.parametrize("name", sorted(SPECS))
def test_the_family_has_the_one_shape(name):
    spec = SPECS[name]
    pkg = package_of(name)
    folder = PACKAGE / "methods" / pkg
    assert type(spec).__module__ == f"anonstudio.methods.{pkg}.spec", "the package is named as the command"
    for module in ("params", "algorithm", "result", "spec"):
        assert (folder / f"{module}.py").is_file(), f"methods/{pkg}/{module}.py is missing"
    algorithm = importlib.import_module(f"anonstudio.methods.{pkg}.algorithm")
    assert callable(getattr(algorithm, f"run_{pkg}", None)), f"methods/{pkg}/algorithm.py has no run_{pkg}"
    if spec.guarantee:
        verifier = spec.verified_by or pkg
        assert (PACKAGE / "verifiers" / f"{verifier}.py").is_file(), f"verifiers/{verifier}.py is missing"
    assert (PACKAGE / "gui" / "workbenches" / pkg / "workbench.py").is_file(), f"no workbench for {name}"
    assert (ROOT / "tests" / pkg).is_dir(), f"tests/{pkg}/ is missing"
    assert spec.samples, f"{name} declares no bundled sample"
    assert spec.terms, f"{name} declares no glossary terms"


@pytest.mark.parametrize("name", sorted(SPECS))
def test_the_spec_runs_its_family_in_one_call(name):
    pkg = package_of(name)
    tree = ast.parse((PACKAGE / "methods" / pkg / "spec.py").read_text("utf-8"))
    runs = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == "run"]
    assert len(runs) == 1, f"methods/{pkg}/spec.py defines run {len(runs)} times"
    body = [stmt for stmt in runs[0].body
            if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))]  # the docstring
    body = [stmt for stmt in body if not isinstance(stmt, (ast.Import, ast.ImportFrom))]
    assert len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Call), \
        f"methods/{pkg}/spec.py: run should be one call of run_{pkg}"
    assert ast.unparse(body[0].value.func).endswith(f"run_{pkg}")


@pytest.mark.parametrize("name", sorted(SPECS))
def test_the_spec_leaves_the_verdict_words_to_the_contract(name):
    spec = SPECS[name]
    for hook in ("describe", "report_lines"):
        assert hook not in type(spec).__dict__, f"{name} overrides {hook}: override promise / check_figures / notes"
