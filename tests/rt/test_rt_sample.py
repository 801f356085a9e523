"""The bundled small-clinic sample runs through the RT pipeline with the parameters its sample.json suggests."""
from __future__ import annotations

from anonstudio.data.samples import get_sample, load_sample
from anonstudio.methods.contract import get_method, run_and_verify
from anonstudio.params import from_dict


def test_small_clinic_with_its_suggested_parameters_is_published_and_verified():
    spec = get_method("rt")
    sample = get_sample("small-clinic")
    params = from_dict(spec.params, sample.method_params("rt"))
    assert params.k == 10 and params.categorical == ("race",) and params.hierarchies[0][0] == "zip3"
    run = run_and_verify(spec, load_sample(sample), params)
    assert run.status == "done" and run.verification.passed
    result = run.result
    assert result.initial_rum < params.delta and result.rum <= params.delta
    assert result.cluster_sizes.min() >= params.k
    cells = {row[3] for row in result.cells()}  # zip3 generalized along its hierarchy: a prefix, 0xx.. or *
    assert all(c == "*" or len(c) == 3 for c in cells)
