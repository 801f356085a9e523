"""The warm-up compiles what a run on a loaded file needs: the first real run compiles nothing more."""
from __future__ import annotations

from anonstudio.data.io import load_transactions
from anonstudio.kernels import rho_suppressor
from anonstudio.methods.contract import discover_methods, run_and_verify

KERNELS = ("exact_chunk", "active_users", "record_bits", "draw_and_check", "repair_rules")


def _signatures() -> dict[str, int]:
    return {name: len(getattr(rho_suppressor, name).signatures) for name in KERNELS}


def test_a_run_on_a_loaded_file_needs_no_new_compilation(data_dir):
    rho_suppressor.warm_up()
    before = _signatures()
    data = load_transactions(data_dir / "rho" / "example_b.dat")
    assert not data.indptr.flags.writeable  # loaded data is read-only, which numba types apart
    spec = discover_methods()["rho"]
    for extra in ({"m": 2}, {"m": 2, "epsilon": 0.2, "delta": 0.2}):
        run_and_verify(spec, data, spec.params(rho="0.5", setting="fixed", sensitive_fraction=0.5, **extra))
    assert _signatures() == before
