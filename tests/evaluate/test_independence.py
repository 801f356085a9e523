"""The evaluator reads releases with its own code: no method, verifier or method kernel (pyproject.toml's
import-linter contract covers the packages; this test covers the kernels, which share one package)."""
from __future__ import annotations

import ast
from pathlib import Path

import anonstudio

PACKAGE = Path(anonstudio.__file__).parent


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(("." * node.level) + node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_the_evaluator_uses_only_its_own_kernels():
    kernels = set()
    for path in sorted((PACKAGE / "evaluate").glob("*.py")):
        for module in _imports(path):
            parts = module.lstrip(".").split(".")
            if "kernels" in parts:
                kernels.add(parts[-1])
            assert "methods" not in parts or parts[-1] == "contract", (path.name, module)
            assert "verifiers" not in parts and "samplers" not in parts, (path.name, module)
    assert kernels == {"evaluate_risk", "evaluate_utility"}
    for name in kernels:
        used = {m.lstrip(".") for m in _imports(PACKAGE / "kernels" / f"{name}.py")}
        assert used <= {"__future__", "math", "numpy", "numba", "rng"}, (name, used)

