"""The Qt-free core must import without PySide6 or pyqtgraph."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

import anonstudio

CORE = ["data", "kernels", "metrics", "samplers", "verifiers", "methods", "studio", "jobs.py", "params.py",
        "parallel.py"]
FORBIDDEN = {"PySide6", "pyqtgraph", "shiboken6"}
PACKAGE = Path(anonstudio.__file__).parent


def _core_files():
    for name in CORE:
        path = PACKAGE / name
        yield from ([path] if path.is_file() else sorted(path.rglob("*.py")))


def test_core_sources_do_not_import_qt():
    offenders = []
    for path in _core_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.relative_to(PACKAGE)}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []


@pytest.mark.slow
def test_core_modules_import_in_a_process_without_qt():
    modules = sorted(
        "anonstudio." + ".".join(p.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
        for p in _core_files()
    )
    code = (
        "import sys, importlib\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_import_linter_layer_contracts_are_kept():
    """Front ends > studio > methods > verifiers, samplers > metrics > data > kernels > jobs, params (pyproject.toml).
    """
    from importlinter.cli import lint_imports

    config = PACKAGE.parent / "pyproject.toml"
    assert lint_imports(config_filename=str(config), no_cache=True, no_logo=True) == 0


def test_verifiers_use_no_kernel_of_a_method():
    """A verifier shares no code with what it checks: the only kernels it may use are verifier kernels."""
    offenders = []
    for path in sorted((PACKAGE / "verifiers").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                module = node.module
                if "kernels" in module.split(".") and "verify" not in module.split(".")[-1]:
                    offenders.append(f"{path.name}: {module}")
                if module.split(".")[0] in ("methods", "samplers") or ".methods" in f".{module}":
                    offenders.append(f"{path.name}: {module}")
    assert offenders == []
