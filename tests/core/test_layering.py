"""The layers hold: the Qt-free core imports no Qt, and the import-linter contracts of pyproject.toml are kept."""
import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import anonstudio

CORE = ["api", "data", "kernels", "metrics", "samplers", "verifiers", "methods", "studio", "jobs.py", "params.py",
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


def test_import_linter_contracts_are_kept():
    """The contracts of pyproject.toml: the layers, no Qt below the GUI, independent families and
    workbenches, verifiers that share no code with what they check."""
    from importlinter.cli import lint_imports

    config = PACKAGE.parent / "pyproject.toml"
    assert lint_imports(config_filename=str(config), no_cache=True, no_logo=True) == 0


def _contract(name_start: str) -> dict:
    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = [c for c in config["tool"]["importlinter"]["contracts"] if c["name"].startswith(name_start)]
    assert len(contracts) == 1, name_start
    return contracts[0]


def _packages(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}


def test_the_independence_contracts_cover_every_family_and_workbench_by_wildcard():
    """A new family or tab is covered without a line in pyproject.toml: the contracts name the folders."""
    assert _contract("method families are independent")["modules"] == ["anonstudio.methods.*"]
    assert _contract("workbenches are independent")["modules"] == ["anonstudio.gui.workbenches.*"]
    assert _packages(PACKAGE / "methods") and _packages(PACKAGE / "gui" / "workbenches")


#: Kernels of the data layer (parsing FIMI files, drawing the synthetic city): no method's logic, so a verifier
#: may read its input through them.
DATA_KERNELS = {"anonstudio.kernels.fimi", "anonstudio.kernels.synth_city"}


def test_verifiers_are_forbidden_every_kernel_of_the_methods_and_samplers():
    """A new method kernel joins the verifiers' forbidden list; a verifier kernel (``*_verify``) never does."""
    import grimp

    graph = grimp.build_graph("anonstudio", cache_dir=None)
    reached = set()
    for layer in ("anonstudio.methods", "anonstudio.samplers"):
        reached |= {m for m in graph.find_upstream_modules(layer, as_package=True)
                    if m.startswith("anonstudio.kernels.")}
    verifier_kernels = {m for m in graph.modules if m.startswith("anonstudio.kernels.") and m.endswith("_verify")}
    assert verifier_kernels, "the verifiers' kernels are named *_verify"
    method_kernels = reached - verifier_kernels - DATA_KERNELS
    forbidden = set(_contract("a verifier shares no code")["forbidden_modules"])
    assert {"anonstudio.methods", "anonstudio.samplers"} <= forbidden
    assert sorted(method_kernels - forbidden) == []
    assert sorted(forbidden & verifier_kernels) == []
