"""Publication, ℓ-diversity (ring and greedy), CAHD and the utility measures."""

import numpy as np
import pytest

from anonstudio.data.io.record_labels import RecordLabels
from anonstudio.data.transactions import TransactionData
from anonstudio.kernels import read_only
from anonstudio.kernels.nonreciprocal_diversity import spaced_order, windows_distinct
from anonstudio.methods.nonreciprocal.algorithm import run_nonreciprocal
from anonstudio.methods.nonreciprocal.cahd import CANDIDATE_FACTOR, cahd
from anonstudio.methods.nonreciprocal.diversity import (
    NotEligibleError,
    _block_layout,
    check_eligible,
    label_spaced_order,
    tighten_spacing,
)
from anonstudio.methods.nonreciprocal.metrics import error_rate, query_error
from anonstudio.methods.nonreciprocal.params import NonreciprocalParams
from anonstudio.methods.nonreciprocal.publish import group_preimages, preimages, publish
from anonstudio.methods.nonreciprocal.walk import extract_assignments, ring_graph
from anonstudio.verifiers.nonreciprocal import verify_result
from tests.nonreciprocal.helpers import labels_file
from tests.reference import nonreciprocal_reference as ref


def random_data(seed, n, b, density=0.25):
    rng = np.random.default_rng(seed)
    return TransactionData.from_id_lists([np.flatnonzero(rng.random(b) < density) for _ in range(n)], n_items=b)


def skewed_labels(seed, n, n_labels, l, tight=True):
    """Labels whose largest share is as large as the diverse ring allows (when tight)."""
    rng = np.random.default_rng(seed)
    w = 2 * l - 1
    cap = n // w
    n_labels = max(n_labels, -(-n // cap) + 1)  # enough labels to fit under the cap
    counts = np.zeros(n_labels, dtype=int)
    if tight:
        counts[0] = cap
        counts[1] = cap
    while counts.sum() < n:
        lab = int(rng.integers(n_labels))
        if counts[lab] < cap:
            counts[lab] += 1
    codes = np.repeat(np.arange(n_labels), counts)
    rng.shuffle(codes)
    return RecordLabels(codes, tuple(f"L{i}" for i in range(n_labels)))


@pytest.mark.parametrize("seed", range(4))
def test_publication_equals_the_reference_vote(seed):
    data = random_data(seed, 40, 10)
    nbr = ring_graph(np.random.default_rng(seed).permutation(40), 2 + seed)
    pre_indptr, pre = preimages(nbr)
    pub = publish(data, pre_indptr, pre)
    recs = ref.records_of(data)
    edges = {(x, int(nbr[x, c])) for x in range(40) for c in range(nbr.shape[1])}
    expect = ref.publish_reference(recs, edges)
    for j, (b, d, t) in enumerate(expect):
        assert set(pub.base(j).tolist()) == b and set(pub.distance(j).tolist()) == d and pub.threshold[j] == t
    # ER against the reference, under one extracted assignment
    alpha = extract_assignments(nbr, seed).assignments[0]
    assert error_rate(data, pub, alpha)[0] == pytest.approx(ref.error_rate(recs, expect, alpha.tolist()))


def test_query_error_counts_against_brute_force():
    data = random_data(1, 60, 12, density=0.4)
    nbr = ring_graph(np.arange(60), 3)
    pub = publish(data, *preimages(nbr))
    qe = query_error(data, pub, 2, 3, 50, seed=5)
    # recompute with sets, drawing the same queries
    from anonstudio.jobs import derive_seed
    rng = np.random.default_rng(derive_seed(5, "qe"))
    present = np.flatnonzero(data.item_frequencies)
    q_in = [set(rng.choice(present, size=2, replace=False).tolist()) for _ in range(50)]
    q_ex = [set(rng.choice(present, size=3, replace=False).tolist()) for _ in range(50)]
    bases = [frozenset(pub.base(j).tolist()) for j in range(60)]
    t1, t2 = ref.query_error(ref.records_of(data), bases, q_in, q_ex)
    assert qe.type1 == pytest.approx(t1) and qe.type2 == pytest.approx(t2)


@pytest.mark.parametrize("l", [2, 3, 4, 6])
def test_spaced_order_windows_distinct_at_the_eligibility_limit(l):
    for seed in range(15):
        n = int(np.random.default_rng(seed).integers(4 * l, 300))
        labels = skewed_labels(seed, n, 3 * l, l, tight=seed % 2 == 0)
        check_eligible(labels, l, "ring")
        order = np.random.default_rng(seed + 100).permutation(n)
        out, how = label_spaced_order(order, labels, l)
        assert sorted(out.tolist()) == list(range(n))
        assert windows_distinct(out, labels.codes, labels.n_labels, 2 * l - 1)
        assert ref.windows_distinct(out.tolist(), labels.codes.tolist(), 2 * l - 1)  # every cyclic window


def test_block_layout_is_valid_where_the_greedy_spacing_may_fail():
    for seed in range(30):
        l = 2 + seed % 4
        n = int(np.random.default_rng(seed).integers(2 * l - 1, 120))
        labels = skewed_labels(seed, n, 2 * l + 2, l)
        out = _block_layout(np.arange(n), labels.codes, labels.n_labels, 2 * l - 1)
        assert sorted(out.tolist()) == list(range(n))
        assert windows_distinct(out, labels.codes, labels.n_labels, 2 * l - 1)
        assert ref.windows_distinct(out.tolist(), labels.codes.tolist(), 2 * l - 1)


def test_a_failing_strategy_returns_empty():
    # three labels, l = 2 (windows of 3): the only valid patterns rotate all three labels
    labels = read_only(np.array([0, 0, 0, 1, 1, 1, 2, 2, 2]))  # label codes are read-only, as the method's are
    out = spaced_order(np.arange(9), labels, 3, 3, 0)
    assert len(out) in (0, 9)
    if len(out):
        assert windows_distinct(out, labels, 3, 3)


def test_eligibility_errors_name_the_label():
    labels = RecordLabels.from_names(["flu"] * 5 + ["cold", "hay", "rash", "gout", "acne"])
    with pytest.raises(NotEligibleError, match="'flu' holds 5 of 10"):
        check_eligible(labels, 2, "ring")  # at most 10 // 3 = 3 per label
    with pytest.raises(NotEligibleError, match="'flu'"):
        check_eligible(labels, 3, "greedy")
    check_eligible(labels, 2, "greedy")


@pytest.mark.parametrize("seed", range(3))
def test_diverse_ring_guarantees_l_distinct_published_labels(seed, tmp_path):
    data = random_data(seed, 150, 14, density=0.2)
    for l in (2, 3, 4):
        labels = skewed_labels(seed + l, 150, 9, l)
        res = run_nonreciprocal(data, NonreciprocalParams(l=l, labels=labels_file(tmp_path, labels), seed=seed,
                                                          seg_min=20, seg_max=30))
        assert res.complete and res.label_failures == 0 and res.l_diverse is True
        v = verify_result(data, res)
        assert v.passed and v.label_failures == 0 and v.label_mismatches == 0
        # under every extracted assignment, not only the chosen one
        for alpha in res.assignments:
            slot_labels = np.empty(150, dtype=np.int64)
            slot_labels[alpha] = labels.codes
            assert all(len(set(slot_labels[res.graph[i]].tolist())) == l for i in range(150))


def test_greedy_reports_failures_and_never_claims_diversity(tmp_path):
    data = random_data(3, 300, 20, density=0.15)
    rng = np.random.default_rng(0)
    labels = RecordLabels(rng.integers(0, 6, 300), tuple("ABCDEF"))
    res = run_nonreciprocal(data, NonreciprocalParams(l=3, labels=labels_file(tmp_path, labels), l_method="greedy",
                                                      seed=2, seg_min=30, seg_max=40))
    assert res.complete and res.label_failures is not None
    # recount independently: distinct published labels among each original's matches
    fails = sum(len(set(res.slot_labels[res.graph[i]].tolist())) < 3 for i in range(300))
    assert res.label_failures == fails
    assert res.l_diverse is (fails == 0)
    v = verify_result(data, res)
    assert v.label_failures == fails and v.passed is (fails == 0)
    if fails:
        assert any("fewer than 3 different published labels" in line for line in v.lines())
    # the greedy graph: index labels of each record's slots are distinct
    assert all(len(set(labels.codes[res.graph[i]].tolist())) == 3 for i in range(300))


def test_greedy_refuses_when_stuck_naming_the_label(tmp_path):
    data = random_data(0, 40, 8)
    labels = RecordLabels(np.arange(40) % 3 == 0, ("no", "yes"))  # two labels cannot give 3 distinct
    with pytest.raises(NotEligibleError):
        run_nonreciprocal(data, NonreciprocalParams(l=3, labels=labels_file(tmp_path, labels), l_method="greedy",
                                                    greedy_restarts=3))


@pytest.mark.parametrize("seed", range(3))
def test_cahd_groups_are_l_diverse_and_published_by_vote(seed):
    data = random_data(seed, 200, 15)
    for l in (2, 3, 5):
        labels = skewed_labels(seed, 200, 8, l, tight=False)
        order = np.random.default_rng(seed).permutation(200)
        res = cahd(data, labels, l, order, seed, queries=20)
        group, n_groups = ref.cahd_groups(order.tolist(), labels.codes.tolist(), labels.n_labels, l,
                                          CANDIDATE_FACTOR, ref.records_of(data))
        assert res.group.tolist() == group and res.n_groups == n_groups  # the kernel's groups, step by step
        sizes = res.group_sizes()
        assert sizes.sum() == 200 and sizes.min() >= l
        for g in range(res.n_groups):
            members = np.flatnonzero(res.group == g)
            counts = np.bincount(labels.codes[members])
            assert counts.max() * l <= len(members)
        pre_indptr, pre = group_preimages(res.group)
        recs = ref.records_of(data)
        for j in range(200):
            members = [recs[x] for x in np.flatnonzero(res.group == res.group[j])]
            b, d, t = ref.vote(members)
            assert set(res.published.base(j).tolist()) == b and int(res.published.threshold[j]) == t
        # alpha stays inside groups; published labels are the true preimages'
        assert (res.group[res.alpha] == res.group).all()
        assert (res.slot_labels[res.alpha] == labels.codes).all()


@pytest.mark.parametrize("seed", range(6))
def test_cahd_groups_equal_the_reference_when_labels_turn_critical(seed):
    """One label on exactly 1/ℓ of the records: groups must take it (the critical paths of the kernel)."""
    rng = np.random.default_rng(seed)
    l = 2 + seed % 3
    n = 15 * l
    data = random_data(seed, n, 12)
    codes = np.concatenate([np.zeros(n // l, dtype=np.int64), np.arange(n - n // l) % (2 * l - 1) + 1])
    rng.shuffle(codes)
    labels = RecordLabels(codes, tuple(f"s{i}" for i in range(2 * l)))
    order = rng.permutation(n)
    res = cahd(data, labels, l, order, seed, queries=10)
    assert (res.group.tolist(), res.n_groups) == ref.cahd_groups(order.tolist(), codes.tolist(), labels.n_labels, l,
                                                                 CANDIDATE_FACTOR, ref.records_of(data))
    for g in range(res.n_groups):
        assert np.bincount(codes[res.group == g]).max() * l <= np.count_nonzero(res.group == g)


def test_same_label_swaps_keep_the_spacing_and_shorten_the_windows():
    data = random_data(5, 400, 20, density=0.15)
    labels = skewed_labels(5, 400, 10, 3)
    order = np.random.default_rng(5).permutation(400)
    spaced, _ = label_spaced_order(order, labels, 3)
    tight = tighten_spacing(data, spaced, labels, 3)
    assert (labels.codes[tight] == labels.codes[spaced]).all()  # the label of every position is kept
    recs = ref.records_of(data)

    def window_cost(o):
        return sum(ref.hamming(recs[o[t]], recs[o[(t + d) % 400]]) for t in range(400) for d in (1, 2))

    assert window_cost(tight.tolist()) < window_cost(spaced.tolist())
