"""The start-up warm-up compiles what real runs need: a run on a loaded sample compiles no new kernel signature.

numba compiles a kernel once per argument type, and read-only arrays (a loaded dataset's) are a type of their
own: a warm-up on writable arrays only would leave the first real run to compile inside its timed work.
"""
from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import pytest

import anonstudio.kernels as kernels
from anonstudio.data.samples import load_sample
from anonstudio.methods.contract import discover_methods, run_and_verify

#: Each family on the bundled samples it declares (``MethodSpec.samples``), with its quick settings.
CASES = [(spec.name, sample, settings) for spec in discover_methods().values() for sample, settings in spec.samples]


def _signatures() -> dict[str, int]:
    out = {}
    for info in pkgutil.iter_modules(kernels.__path__):
        module = importlib.import_module(f"{kernels.__name__}.{info.name}")
        for name, obj in vars(module).items():
            if hasattr(obj, "signatures") and getattr(obj, "__module__", "") == module.__name__:
                out[f"{info.name}.{name}"] = len(obj.signatures)
    return out


def test_every_family_declares_a_sample():
    assert {name for name, _sample, _settings in CASES} == set(discover_methods())


@pytest.mark.parametrize(("name", "sample", "settings"), CASES, ids=[f"{n}-{s}" for n, s, _ in CASES])
def test_a_run_on_a_loaded_sample_compiles_nothing_new(name, sample, settings):
    spec = discover_methods()[name]
    data = load_sample(sample)
    _example, params = spec.example()
    fields = {f.name for f in dataclasses.fields(params)}
    params = dataclasses.replace(params, **{k: v for k, v in settings.items() if k in fields})
    before = _signatures()
    run_and_verify(spec, data, params)
    after = _signatures()
    assert {k: (before.get(k, 0), v) for k, v in after.items() if v != before.get(k, 0)} == {}
