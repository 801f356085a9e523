"""What ``anonstudio-cli --help`` and friends import: the parser is built from the specs, not their algorithms.

Each check runs the command in a fresh interpreter and reads its ``sys.modules``: an import pulled in at start-up
by mistake (a kernel, a verifier, scipy, numba) fails here, whatever the machine's speed.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Modules no help text needs: a family's algorithm, the kernels (numba), the independent verifiers, scipy.
HEAVY = re.compile(r"(\.algorithm$|^anonstudio\.kernels(\.|$)|^anonstudio\.verifiers(\.|$)|^scipy(\.|$)|^numba(\.|$))")

#: What parsing a tool command (``info --help``) needs even less: no loader, no pandas, no pyarrow.
LOADERS = re.compile(r"^(anonstudio\.data\.io(\.|$)|pandas$|pyarrow$)")

#: Libraries no help text needs either: the specs name the data classes, whose numpy and pandas load with data.
LIBRARIES = ("numpy", "pandas", "pyarrow", "numba", "scipy", "tqdm", "llvmlite")

_RUN = """
import contextlib, io, json, sys
from anonstudio.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
print(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted(sys.modules)}))
"""

_DISCOVER = """
import json, sys
from anonstudio.methods.contract import discover_methods
seen, by_family = set(sys.modules), {}
for info in __import__("pkgutil").iter_modules(__import__("anonstudio.methods", fromlist=["x"]).__path__):
    if info.ispkg:
        __import__(f"anonstudio.methods.{info.name}.spec")
        by_family[info.name] = sorted(set(sys.modules) - seen)
        seen = set(sys.modules)
discover_methods()
print(json.dumps({"modules": sorted(sys.modules), "by_family": by_family}))
"""


def _python(code: str, *args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cli(*args: str) -> dict:
    return _python(_RUN, *args)


def _heavy(modules) -> list[str]:
    return sorted(m for m in modules if HEAVY.search(m))


def _libraries(modules) -> list[str]:
    return sorted({m.split(".")[0] for m in modules} & set(LIBRARIES))


@pytest.fixture(scope="module")
def discovery() -> dict:
    """What importing every family's spec.py costs on its own (the part the CLI cannot avoid)."""
    return _python(_DISCOVER)


def test_every_family_spec_is_light_to_import(discovery):
    # The parser is built from the specs: a spec.py that imports its algorithm, a verifier or a kernel at
    # module level makes every command's start-up pay for it.
    heavy = {family: _heavy(mods) + _libraries(mods) for family, mods in discovery["by_family"].items()
             if _heavy(mods) or _libraries(mods)}
    assert heavy == {}
    assert _heavy(discovery["modules"]) == [] and _libraries(discovery["modules"]) == []


@pytest.mark.parametrize("argv", [["--help"], ["kmanon", "--help"], ["group-anonymize", "--help"]],
                         ids=["help", "kmanon-help", "group-anonymize-help"])
def test_help_imports_no_algorithm_kernel_verifier_scipy_numba_numpy_or_pandas(argv):
    run = _cli(*argv)
    assert run["code"] == 0 and "usage: anonstudio-cli" in run["out"]
    assert _heavy(run["modules"]) == []
    assert _libraries(run["modules"]) == []


@pytest.mark.parametrize("command", ["kmanon", "group-anonymize"])
def test_method_help_imports_only_its_own_family(command):
    # A method's --help is built from its own spec: the other families' specs are not imported.
    run = _cli(command, "--help")
    assert run["code"] == 0 and f"usage: anonstudio-cli {command}" in run["out"]
    families = {m.split(".")[2] for m in run["modules"] if m.startswith("anonstudio.methods.") and m.count(".") >= 3}
    assert families == {command.replace("-", "_")}


@pytest.mark.parametrize("argv", [["--version"], ["info", "--help"], ["convert", "--help"]],
                         ids=["version", "info-help", "convert-help"])
def test_version_and_tool_help_import_no_family_and_no_loader(argv):
    run = _cli(*argv)
    assert run["code"] == 0 and run["out"]
    modules = run["modules"]
    assert [m for m in modules if m.startswith("anonstudio.methods.")] == []
    assert _heavy(modules) == [] and [m for m in modules if LOADERS.search(m)] == []


def test_tool_command_help_matches_the_full_parser():
    # The parser built for one argv lists and parses the same as the full one.
    from anonstudio.cli import build_parser

    full = build_parser()
    for argv in (["--help"], ["info", "--help"], ["kmanon", "--help"], ["group-anonymize", "--help"],
                 ["threat", "--help"]):
        lazy = build_parser(argv)
        assert _help_of(lazy, argv) == _help_of(full, argv), argv


def _help_of(parser, argv) -> str:
    sub = next(a for a in parser._actions if a.dest == "command")
    target = parser if argv[0].startswith("-") else sub.choices[argv[0]]
    return target.format_help()


def test_import_anonstudio_imports_no_library_api_data_model_or_family():
    # ``import anonstudio as an`` (a notebook's first cell, and every CLI start) resolves the library API's names on
    # first use; listing them (tab completion) reads the methods folder, not the families.
    run = _python("import json, sys, anonstudio as an; names = dir(an); "
                  "print(json.dumps({'modules': sorted(sys.modules), 'names': names}))")
    heavy = [m for m in run["modules"] if m.split(".")[0] in ("numpy", "pandas", "numba", "scipy", "pyarrow", "tqdm")
             or m.startswith(("anonstudio.api", "anonstudio.methods", "anonstudio.data", "anonstudio.cli"))]
    assert heavy == []
    assert {"open", "sample", "kmanon", "group_anonymize", "evaluate", "ParameterError"} <= set(run["names"])


def test_info_on_a_small_fimi_file_imports_no_numba_pandas_or_scipy():
    # A bundled sample of 3,196 records is read line by line: importing numba and loading the FIMI kernel from
    # its cache (and numba's target pulling in scipy.linalg) would cost more than the whole read.
    run = _cli("info", "chess")
    assert run["code"] == 0 and "records: 3,196" in run["out"]
    assert _libraries(run["modules"]) == ["numpy"]
    assert [m for m in run["modules"] if m.startswith("anonstudio.kernels")] == []


def test_studio_window_imports_only_the_first_tab_and_no_numba_pandas_or_scipy():
    # The tabs are built when first shown, and their modules imported then: the window shown at start-up has
    # imported the first tab's workbench only (the others' plots pull in numba, scipy, shapely and pandas).
    code = ("import json, os, sys, tempfile\n"
            "os.environ.setdefault('QT_QPA_PLATFORM', 'offscreen')\n"
            "os.environ['ANONSTUDIO_SETTINGS_DIR'] = tempfile.mkdtemp()\n"
            "from PySide6.QtWidgets import QApplication\n"
            "from anonstudio.gui.main_window import MainWindow\n"
            "app = QApplication.instance() or QApplication(sys.argv[:1])\n"
            "window = MainWindow(warm_up=False, restore_layout=False)\n"
            "window.show(); app.processEvents()\n"
            "print(json.dumps({'modules': sorted(sys.modules)}))\n")
    modules = _python(code)["modules"]
    assert _libraries(modules) == ["numpy"]
    tabs = {m.split(".")[3] for m in modules if m.startswith("anonstudio.gui.workbenches.") and m.count(".") >= 3}
    assert tabs == {"uniqueness"}


def test_the_cli_under_a_profiler_exits_normally_so_the_profile_is_written(tmp_path):
    """The CLI skips the interpreter's teardown to end sooner, but not under cProfile: its data is written at exit."""
    profile = tmp_path / "cli.prof"
    done = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "anonstudio.cli", "samples"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert profile.is_file() and profile.stat().st_size > 0
