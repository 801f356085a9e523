"""Contiguity constraint on a small synthetic city: every partition is one polygon."""
import numpy as np
import pytest
import shapely

from anonstudio.data.geo import build_voronoi
from anonstudio.data.synth_city import SynthCityParams, generate_city
from anonstudio.methods.kmanon.algorithm import kmanonymize
from anonstudio.methods.kmanon.constraints import Contiguity
from anonstudio.methods.kmanon.params import SAMPLERS, KmAnonParams
from anonstudio.verifiers.kmanon import verify_km


@pytest.fixture(scope="module")
def city():
    c = generate_city(SynthCityParams(towers=120, area_km2=4.0, users=1200, seed=3))
    return c.data, build_voronoi(c.data.coords, c.boundary)


def _weighted_error(data, cells, labels):
    # Independent recomputation of the paper's error: each occurrence of an item
    # displaced to the centroid of its partition's merged polygon; an unmerged
    # item is published as itself and keeps its position (no error).
    freq = data.item_frequencies.astype(float)
    total = 0.0
    for p in np.unique(labels):
        members = np.flatnonzero(labels == p)
        if len(members) == 1:
            continue
        c = shapely.union_all(cells.cells[members]).centroid
        total += (freq[members] * np.hypot(data.coords[members, 0] - c.x, data.coords[members, 1] - c.y)).sum()
    return total / freq.sum()


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_partitions_are_contiguous_and_itemsets_k_anonymous(city, sampler):
    data, cells = city
    params = KmAnonParams(k=8, m=3, sigma=0.9, trials=2, seed=2, sampler=sampler, exact_when_cheaper=False)
    res = kmanonymize(data, Contiguity(cells), params)
    assert res.complete
    assert res.final.partitions < data.n_items, "the city needs merging at k = 8"
    for lv in res.levels:
        for p in np.unique(lv.labels):
            union = shapely.union_all(cells.cells[lv.labels == p])
            assert union.geom_type == "Polygon", f"partition {p} at m={lv.level} is not one polygon"
        assert lv.error == pytest.approx(_weighted_error(data, cells, lv.labels), rel=1e-6, abs=1e-6)
        assert lv.avg_area_km2 is not None and lv.avg_area_km2 > 0
    check = verify_km(data, res.final.labels, 8, 3, samples=3000, seed=1)
    # gamma = 321 consecutive passes at sigma = 0.9: the verifier's lower bound must clear 0.9
    assert all(p.ci_low >= 0.9 for p in check.points)


def test_error_grows_and_area_grows_with_m(city):
    data, cells = city
    res = kmanonymize(data, Contiguity(cells), KmAnonParams(k=8, m=3, sigma=0.9, trials=1, seed=5))
    errors = [lv.error for lv in res.levels]
    areas = [lv.avg_area_km2 for lv in res.levels]
    assert errors == sorted(errors) and areas == sorted(areas)
