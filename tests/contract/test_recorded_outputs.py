"""Same seed, same bytes: every family's files on its bundled sample, compared with a recording.

``tests/data/recorded_outputs.json`` holds, per family, the SHA-256 of each file
a run on the family's first bundled sample (``MethodSpec.samples``, its quick
settings) writes: every release and report export and the run's JSON without
wall-clock fields. It was recorded before the speed work of issue 20: an
optimisation (a faster kernel, fewer threads, less memory, a vectorised writer)
must leave every byte as it was. A deliberate change of what a family
publishes re-records it (``python tests/contract/test_recorded_outputs.py``)
and says why in its commit.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

RECORDED = Path(__file__).resolve().parents[1] / "data" / "recorded_outputs.json"


def _cases() -> list[tuple[str, str, dict]]:
    from anonstudio.methods.contract import discover_methods

    return [(spec.name, *spec.samples[0]) for spec in discover_methods().values()]


def _outputs(name: str, sample: str, settings: dict, folder: Path) -> dict[str, str]:
    """SHA-256 of every file a run of ``name`` on ``sample`` writes (release, report exports, JSON)."""
    from anonstudio.data.samples import load_sample
    from anonstudio.methods.contract import get_method, run_and_verify, write_outputs

    spec = get_method(name)
    _example, params = spec.example()
    fields = {f.name for f in dataclasses.fields(params)}
    params = dataclasses.replace(params, **{k: v for k, v in settings.items() if k in fields})
    run = run_and_verify(spec, load_sample(sample), params)
    paths = {export.key: folder / f"{export.key}{export.extensions[0]}" for export in spec.exports
             if export.kind in ("release", "report") and export.offered(run)}
    skipped = write_outputs(run, paths, folder / "run.json", timings=False)
    assert skipped == [], skipped
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(folder.iterdir())}


@pytest.mark.parametrize(("name", "sample", "settings"), _cases(), ids=[c[0] for c in _cases()])
def test_files_are_the_recorded_ones(name, sample, settings, tmp_path):
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    assert name in recorded, f"{name}: no recording (python tests/contract/test_recorded_outputs.py records it)"
    assert _outputs(name, sample, settings, tmp_path) == recorded[name]


def _numpy_dispatch() -> list[str]:
    """The SIMD extensions numpy may dispatch to at run time (beyond its baseline); none if it does not say."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__
    except ImportError:  # numpy 1.x keeps it under numpy.core
        try:
            from numpy.core._multiarray_umath import __cpu_dispatch__
        except ImportError:
            return []
    return list(__cpu_dispatch__)


@pytest.mark.slow
@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="OpenBLAS core types are x86-64's")
def test_the_recording_does_not_depend_on_the_cpu():
    """The same files with OpenBLAS forced to its oldest x86-64 kernel and numpy to its baseline instructions.

    Both pick their code by CPU: OpenBLAS its ``dot`` kernel, numpy its SIMD loops (sorts, ``exp``, ``log``).
    A loss summed with ``@`` changed in its last bits from one machine to the next (the RT run's JSON did, on
    an AVX-512 machine), so no published number may go through either.
    """
    env = dict(os.environ, OPENBLAS_CORETYPE="Prescott", NPY_DISABLE_CPU_FEATURES=" ".join(_numpy_dispatch()))
    test = f"{Path(__file__).resolve()}::test_files_are_the_recorded_ones"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", test],
                          env=env, cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True,
                          timeout=240)
    assert proc.returncode == 0, proc.stdout[-3000:]


if __name__ == "__main__":  # re-record (only for a deliberate change of what a family publishes)
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    doc = {}
    for case in _cases():
        with tempfile.TemporaryDirectory() as folder:
            doc[case[0]] = _outputs(*case, Path(folder))
    RECORDED.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
