"""The start-up warm-up compiles what real runs need: a run on a loaded sample compiles no new kernel signature.

numba compiles a kernel once per argument type, and read-only arrays (a loaded dataset's) are a type of their
own: a warm-up on writable arrays only would leave the first real run to compile inside its timed work (and the
installed app, whose bundled cache holds what the warm-up compiled, to compile on the user's machine).
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from anonstudio.methods.contract import discover_methods

#: Each family on the bundled samples it declares (``MethodSpec.samples``), with its quick settings.
CASES = [(spec.name, sample, settings) for spec in discover_methods().values() for sample, settings in spec.samples]

#: Run in a fresh interpreter: in the test process, a kernel variant that another test had already compiled or
#: loaded would hide a gap in the warm-up (the signature count would not change).
_PROBE = """
import dataclasses, importlib, json, pkgutil, sys
import anonstudio.kernels as kernels
from anonstudio.data.samples import get_sample, load_sample
from anonstudio.kernels.warmup import warm_up_all
from anonstudio.methods.contract import discover_methods, run_and_verify

def signatures():
    out = {}
    for info in pkgutil.iter_modules(kernels.__path__):
        module = importlib.import_module(f"{kernels.__name__}.{info.name}")
        for name, obj in vars(module).items():
            if hasattr(obj, "signatures") and getattr(obj, "__module__", "") == module.__name__:
                out[f"{info.name}.{name}"] = len(obj.signatures)
    return out

warm_up_all()
report = []
for spec in discover_methods().values():
    for sample, settings in spec.samples:
        data = load_sample(sample)
        _example, params = spec.example()
        fields = {f.name for f in dataclasses.fields(params)}
        folder, files = get_sample(sample).path, get_sample(sample).files.values()
        values = {k: folder / v if isinstance(v, str) and v in files else v for k, v in settings.items()}
        params = dataclasses.replace(params, **{k: v for k, v in values.items() if k in fields})
        before = signatures()
        run = run_and_verify(spec, data, params)
        new = {k: [before.get(k, 0), v] for k, v in signatures().items() if v != before.get(k, 0)}
        report.append([spec.name, sample, repr(settings), run.status, new])
print(json.dumps(report))
"""


def test_every_family_declares_a_sample():
    assert {name for name, _sample, _settings in CASES} == set(discover_methods())


@pytest.mark.slow
def test_a_run_on_every_declared_sample_compiles_nothing_new():
    proc = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.splitlines()[-1])
    assert len(report) == len(CASES)
    assert [row for row in report if row[3] != "done"] == []
    # Each row: family, sample, settings, {kernel: [signatures before, after]} for kernels the run compiled.
    assert [row for row in report if row[4]] == []
