"""The evaluator against the slow, obvious reference on random tiny data of every release kind."""
from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from anonstudio.evaluate import EvaluateOptions, candidates_of, evaluate, parse_claim, read_release, sniff_kind
from anonstudio.evaluate.utility import answers, frequency_distortion, workload
from tests.evaluate.tiny import VOCAB, all_cases
from tests.reference.evaluate_reference import (
    candidates,
    fewest_candidates,
    holds,
    query_estimate,
    risk_measures,
    total_variation,
    true_count,
    world_share,
)

SEEDS = (1, 2, 3)
K, RHO, M = 2, 0.5, 3


@pytest.fixture(scope="module", params=SEEDS)
def cases(request, tmp_path_factory):
    return all_cases(tmp_path_factory.mktemp(f"seed{request.param}"), request.param)


def _evaluate(case, **kw):
    options = EvaluateOptions(m=kw.pop("m", M), k=kw.pop("k", K), rho=kw.pop("rho", RHO), queries=50, **kw)
    return evaluate(case.original, case.release, kind=case.kind, side=case.side, options=options)


def test_kind_is_sniffed(cases):
    for case in cases:
        assert sniff_kind(case.original, case.release, case.side) == case.kind, case.name


def test_exact_risk_equals_the_reference(cases):
    for case in cases:
        ev = _evaluate(case, method="exact")
        assert [level.m for level in ev.levels] == [1, 2, 3]
        for level in ev.levels:
            pr, risk, attr = risk_measures(case.records, case.people, case.own, level.m, K, RHO)
            assert level.method == "exact" and level.prosecutor_risk.exact
            assert level.prosecutor_risk.value == pytest.approx(pr, abs=1e-12), (case.name, level.m)
            assert level.share_at_risk.value == pytest.approx(risk, abs=1e-12), (case.name, level.m)
            if case.sensitive:
                assert level.attribute_disclosure.value == pytest.approx(attr, abs=1e-12), (case.name, level.m)
            else:
                assert level.attribute_disclosure is None


def test_candidates_equal_the_reference(cases):
    rng = random.Random(5)
    for case in cases:
        people, published = read_release(case.original, case.release, case.kind, case.side)
        for u, person in enumerate(case.people):
            pool = sorted(person.pool)
            for size in range(0, min(len(pool), 3) + 1):
                for known in itertools.combinations(pool, size):
                    if rng.random() > 0.3:
                        continue
                    ids = sorted(people.atoms.item_labels.index(x) for x in known)
                    got = candidates_of(people, published, u, ids).tolist()
                    assert got == candidates(case.records, person, known), (case.name, u, known)


def test_sampled_estimates_lie_in_their_intervals(cases):
    for case in cases:
        ev = _evaluate(case, method="sampled", epsilon=0.05, delta=0.001, seed=11)
        for level in ev.levels:
            pr, risk, attr = risk_measures(case.records, case.people, case.own, level.m, K, RHO)
            assert level.method == "sampled" and not level.prosecutor_risk.exact
            assert level.samples >= 1000
            assert level.prosecutor_risk.low <= pr <= level.prosecutor_risk.high, (case.name, level.m)
            assert level.share_at_risk.low <= risk <= level.share_at_risk.high, (case.name, level.m)
            assert level.prosecutor_risk.high - level.prosecutor_risk.low <= 0.1 + 1e-12
            if case.sensitive:
                ad = level.attribute_disclosure
                assert ad.low <= attr <= ad.high, (case.name, level.m)


def test_k_claim_passes_at_the_fewest_candidates_and_fails_one_above(cases):
    for case in cases:
        fewest = fewest_candidates(case.records, case.people, case.own, 2)
        if fewest is None:
            continue
        ok = _evaluate(case, m=2, method="exact", claims=(parse_claim(f"k={fewest},m=2"),))
        assert ok.claims[0].status == "passed", (case.name, ok.claims[0].detail)
        assert ok.exit_code == 0
        bad = _evaluate(case, m=2, method="exact", claims=(parse_claim(f"k={fewest + 1},m=2"),))
        result = bad.claims[0]
        assert result.status == "failed" and bad.exit_code == 3
        example = result.counterexample
        assert example["candidates"] == fewest
        u = example["person"] - 1
        known = example["known_items"]
        ref = candidates(case.records, case.people[u], known)
        assert len(ref) == fewest and case.own[u] in ref
        assert example["candidate_records"] == [j + 1 for j in ref][:20]


def test_rho_claim_agrees_with_the_reference(cases):
    for case in cases:
        if not case.sensitive:
            continue
        worst = 0.0
        for u, person in enumerate(case.people):
            for m in (1, 2):
                for known in ([tuple(sorted(person.pool))] if len(person.pool) <= m else
                              itertools.combinations(sorted(person.pool), m)):
                    cands = candidates(case.records, person, known)
                    if case.own[u] not in cands:
                        continue
                    for s in person.sensitive - set(known):
                        worst = max(worst, sum(holds(case.records[j], s) for j in cands) / len(cands))
        rho = round(worst, 6)
        ev = _evaluate(case, m=2, method="exact", claims=(parse_claim(f"rho={min(rho + 1e-6, 1)},m=2"),))
        assert ev.claims[0].status == "passed", (case.name, ev.claims[0].detail)
        if worst > 0.01:
            ev = _evaluate(case, m=2, method="exact", claims=(parse_claim(f"rho={worst - 0.005},m=2"),))
            assert ev.claims[0].status == "failed", case.name
            assert ev.claims[0].counterexample["confidence"] == pytest.approx(worst, abs=1e-9)


def _decode(people, atoms):
    """A query's atoms as reference arguments: items, and column -> value."""
    a = people.atoms
    items, values = [], {}
    for x in atoms.tolist():
        if x < a.n_items:
            items.append(a.item_labels[x])
        elif x < a.qi_base:
            values[a.sensitive_column] = a.sensitive_domain.texts[x - a.n_items]
        else:
            column, value = a.label(x).split(" = ", 1)
            values[column] = value
    return items, values


def test_count_queries_equal_the_reference(cases):
    for case in cases:
        people, published = read_release(case.original, case.release, case.kind, case.side)
        q_indptr, q_atoms = workload(people, 60, 7, 1)
        true, estimate = answers(people, published, q_indptr, q_atoms)
        assert len(true) == 60
        sens_col = people.atoms.sensitive_column
        for i in range(len(true)):
            items, values = _decode(people, q_atoms[q_indptr[i]:q_indptr[i + 1]])
            assert 1 <= len(items) + len(values) <= 3
            assert true[i] == true_count(case.people, items, values, sens_col), (case.name, items, values)
            assert estimate[i] == pytest.approx(query_estimate(case.records, items, values), abs=1e-9), \
                (case.name, items, values)


def test_workload_depends_only_on_the_original_and_the_seed(cases):
    for case in cases:
        people, _ = read_release(case.original, case.release, case.kind, case.side)
        first, again = workload(people, 30, 3, 1), workload(people, 30, 3, 1)
        assert all(np.array_equal(a, b) for a, b in zip(first, again))
        other = workload(people, 30, 4, 1)
        assert not all(np.array_equal(a, b) for a, b in zip(first, other))


def test_frequency_distortion_equals_the_reference(cases):
    for case in cases:
        people, published = read_release(case.original, case.release, case.kind, case.side)
        got = frequency_distortion(people, published)
        if case.kind in ("plain", "generalized", "nonreciprocal", "rt"):
            orig = {x: sum(x in p.items for p in case.people) for x in VOCAB}
            if case.kind == "nonreciprocal":
                rel = {x: sum(world_share(r, [x]) for r in case.records) for x in VOCAB}
            else:
                rel = {x: sum(r.items.get(x, 0.0) for r in case.records) for x in VOCAB}
            assert got["parts"]["items"] == pytest.approx(total_variation(orig, rel), abs=1e-9), case.name
        for column in people.atoms.qi:
            orig, rel = {}, {}
            for p in case.people:
                orig[p.qi[column]] = orig.get(p.qi[column], 0) + 1
            for r in case.records:
                for v, share in r.qi[column].items():
                    rel[v] = rel.get(v, 0.0) + share
            assert got["parts"][column] == pytest.approx(total_variation(orig, rel), abs=1e-9), (case.name, column)


def test_posting_lists_and_bit_sets_give_the_same_figures(cases):
    """Releases of one class are counted on bit sets unless they would not fit; both paths agree."""
    from anonstudio.evaluate.risk import Context, exact_level, sampled_level

    for case in cases:
        people, published = read_release(case.original, case.release, case.kind, case.side)
        bits, lists = Context(people, published), Context(people, published, bits_limit=0)
        assert not lists.uses_bits
        assert bits.uses_bits == (published.n_classes == 1)
        for m in (1, 2, 3):
            a, b = exact_level(bits, m, K, RHO), exact_level(lists, m, K, RHO)
            for key in ("risk", "attr", "min_count", "min_at"):
                assert np.array_equal(a.detail["per_person"][key], b.detail["per_person"][key]), (case.name, m, key)
            for key in ("pr", "max_conf"):  # sums of 1/|g| in another order
                assert np.allclose(a.detail["per_person"][key], b.detail["per_person"][key], atol=1e-12), \
                    (case.name, m, key)
            s1, s2 = sampled_level(bits, m, K, RHO, 500, 3, 0.05), sampled_level(lists, m, K, RHO, 500, 3, 0.05)
            for key in ("target", "count", "own"):
                assert np.array_equal(s1.detail[key], s2.detail[key]), (case.name, m, key)
            assert np.allclose(s1.detail["conf"], s2.detail["conf"], atol=1e-12), (case.name, m)
