from dataclasses import dataclass

import numpy as np
import pytest

from anonstudio.jobs import ChunkSizer, RecordingProgress, SubProgress, derive_seed, kernel_seeds
from anonstudio.params import ParameterError, param, specs, validate


@dataclass(frozen=True)
class _P:
    k: int = param(5, label="k", minimum=2, maximum=100, tooltip="group size")
    sigma: float = param(0.99, label="σ", minimum=0.5, maximum=1.0, tooltip="confidence")
    method: str = param("auto", label="estimator", choices=("auto", "exact"), tooltip="how")
    seed: int | None = param(None, label="seed", optional=True, tooltip="random seed")


def test_specs_carry_metadata_in_order():
    s = specs(_P)
    assert [x.name for x in s] == ["k", "sigma", "method", "seed"]
    assert s[0].kind == "int" and s[1].kind == "float" and s[2].choices == ("auto", "exact")
    assert s[3].optional


@pytest.mark.parametrize(
    "kwargs, message",
    [({"k": 1}, "k must be at least 2"), ({"sigma": 1.5}, "σ must be at most 1"),
     ({"method": "x"}, "estimator must be one of auto, exact"), ({"k": 2.5}, "whole number")],
)
def test_validate_names_parameter_and_bound(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        validate(_P(**kwargs))


def test_validate_accepts_defaults():
    assert validate(_P()) == _P()


def test_subprogress_maps_fraction_and_forwards_cancel():
    parent = RecordingProgress()
    sub = SubProgress(parent, 0.5, 1.0, prefix="m=2: ")
    sub.set(0.5, "half")
    assert parent.fractions == [0.75] and parent.statuses == ["m=2: half"]
    parent.cancel()
    assert sub.cancelled()


def test_recording_progress_cancels_after_partials():
    p = RecordingProgress(cancel_after_partials=2)
    p.partial(1)
    assert not p.cancelled()
    p.partial(2)
    assert p.cancelled()


def test_seeds_are_reproducible_and_streams_differ():
    assert derive_seed(7, "chain", 0) == derive_seed(7, "chain", 0)
    assert derive_seed(7, "chain", 0) != derive_seed(7, "chain", 1)
    assert derive_seed(7, "chain", 0) != derive_seed(8, "chain", 0)
    a, b = kernel_seeds(3, 2, "x"), kernel_seeds(3, 2, "x")
    assert a.dtype == np.uint64 and np.array_equal(a, b) and a[0] != a[1]


def test_chunk_sizer_grows_towards_target_but_at_most_4x():
    s = ChunkSizer(initial=100, target=0.1)
    s.done(100, seconds=0.001)  # 1e5 units/s -> wants 1e4, capped at 400
    assert s.size == 400
    s.done(400, seconds=1.0)  # too slow -> shrink to 40 but not below size//4 = 100
    assert s.size == 100


def test_stream_names_sharing_a_prefix_get_independent_seeds():
    names = ["kmanon-exact", "kmanon-sampler", "kmanon-trial", "independent-sampler",
             "independent-sampler-pilot", "threat-gibbs", "threat-etv"]
    seeds = {derive_seed(1, name) for name in names}
    assert len(seeds) == len(names)
    assert derive_seed(1, "kmanon-exact") != derive_seed(1, "kmanon-sampler")
    # A name never collides with an int part, and the same stream always gives the same seed.
    assert derive_seed(1, "a", 2) == derive_seed(1, "a", 2) != derive_seed(1, "a", 3)
    assert list(kernel_seeds(7, 3, "x")) == list(kernel_seeds(7, 3, "x"))
