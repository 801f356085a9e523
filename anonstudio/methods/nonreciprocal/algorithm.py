"""Nonreciprocal recoding end to end (paper §4): order, graph, assignments, publication, measures.

1. Gray order (then Gray-TSP: DP segmentation and a fixed-end TSP per segment).
2. The m-regular generalization graph: the ring over the order (k), the ring
   over the label-spaced order (ℓ, default) or the union of Alg. 2's greedy
   rounds (ℓ, the paper's method).
3. m disjoint assignments by random closed walks (Alg. 1); the true one, α,
   drawn uniformly.
4. Base, distance and threshold of every slot by bit vote; labels by α.
5. ER and QE (for ℓ, also of the CAHD baseline on the same order).

Cancel is checked between phases, between TSP batches and between chunks of
walks; a cancelled run returns what is done with ``complete=False``.
"""
from __future__ import annotations

import time

import numpy as np

from ...data.io.report import load_report
from ...data.transactions import TransactionData
from ...jobs import NullProgress, Progress, derive_seed
from .cahd import cahd
from .diversity import (
    NotEligibleError,
    label_spaced_order,
    published_label_failures,
    records_share,
    tighten_spacing,
)
from .labels import labels_for
from .metrics import error_rate, query_error, query_sizes
from .order import cyclic_hamming, gray_order, segment_bounds
from .params import NonreciprocalParams
from .publish import preimages, publish
from .result import NonreciprocalResult
from .stages import staged
from .tsp import improve_order
from .walk import GreedyStuck, extract_assignments, greedy_assignments, ring_graph

__all__ = ["run_nonreciprocal"]


def run_nonreciprocal(data: TransactionData, params: NonreciprocalParams,
                      progress: Progress | None = None) -> NonreciprocalResult:
    """Anonymize ``data`` by nonreciprocal recoding.

    The pipeline (:func:`~anonstudio.methods.contract.run_and_verify`) has
    validated ``params`` and checked them against the data (k at most the
    records, an ℓ-eligible labels file) before this runs.

    Parameters
    ----------
    data
        The records.
    params
        The recipe (:class:`NonreciprocalParams`); the labels file of
        ``params.labels`` is read once (:func:`.labels.labels_for`).
    progress
        Fraction, status, partial results (after every phase) and cancel; a
        ``StagedProgress`` over the spec's stages, or any Progress.

    Raises
    ------
    NotEligibleError
        Greedy ℓ: a walk found no admissible slot (the most frequent label
        named in the message).
    DataFormatError
        A bad labels file.
    """
    progress = staged(progress or NullProgress(), params)
    labels = labels_for(data, params)
    m = params.m
    seed = int(params.seed)
    ids = load_report(data).record_ids
    res = NonreciprocalResult(
        complete=False, stage="", m=m, mode=params.mode, method=params.l_method if params.mode == "l" else "ring",
        order_kind=params.order, seed=seed, n_records=data.n_records,
        n_items=int(np.count_nonzero(data.item_frequencies)), vocab=data.vocab,
        record_names=tuple(ids) if ids is not None else None, seg_min=params.seg_min, seg_max=params.seg_max,
        labels=labels, labels_file=params.labels, include_assignment=params.include_assignment,
    )

    def stop(reason: str = "cancelled") -> NonreciprocalResult:
        res.stopped_reason = reason
        progress.partial(res)
        return res

    def done(stage: str) -> None:
        res.stage = stage
        progress.partial(res)

    # 1. order
    t = time.perf_counter()
    sp = progress.stage("sort")
    sp.set(0.0, "Gray order")
    res.gray_order = gray_order(data)
    res.hamming_before = cyclic_hamming(data)
    res.hamming_gray = cyclic_hamming(data, res.gray_order)
    res.order = res.gray_order
    res.hamming_after = res.hamming_gray
    res.seconds["sort"] = time.perf_counter() - t
    sp.set(1.0, "Gray order")
    done("sort")
    if params.order == "gray-tsp":
        if progress.cancelled():
            return stop()
        t = time.perf_counter()
        res.segments, res.cut_hamming = segment_bounds(data, res.gray_order, params.seg_min, params.seg_max)
        tsp = improve_order(data, res.gray_order, res.segments, seed, params.tsp_kicks, params.threads,
                            progress.stage("tsp"))
        res.seconds["tsp"] = time.perf_counter() - t
        if not tsp.complete:
            return stop()
        res.order = tsp.order
        res.hamming_after = cyclic_hamming(data, res.order)
        done("tsp")
    if progress.cancelled():
        return stop()

    # 2. graph
    t = time.perf_counter()
    gp = progress.stage("graph")
    if params.mode == "k":
        res.ring_order = res.order
        res.graph = ring_graph(res.order, m)
    elif params.l_method == "ring":
        spaced, res.spacing = label_spaced_order(res.order, labels, m)  # type: ignore[arg-type]
        res.ring_order = tighten_spacing(data, spaced, labels, m)  # type: ignore[arg-type]
        res.hamming_ring = cyclic_hamming(data, res.ring_order)
        res.graph = ring_graph(res.ring_order, m)
    else:
        try:
            greedy = greedy_assignments(data, res.order, labels.codes, m, seed,  # type: ignore[union-attr]
                                        params.greedy_restarts, gp)
        except GreedyStuck as exc:
            counts = labels.counts()  # type: ignore[union-attr]
            top = int(np.argmax(counts))
            raise NotEligibleError(
                f"data not ℓ-eligible for the greedy method: {exc.restarts} walks found no admissible slot in "
                f"round {exc.round + 1} of {m}; the most frequent label {labels.names[top]!r} "  # type: ignore
                f"holds {records_share(int(counts[top]), data.n_records)}; try a smaller ℓ or the ring method"
            ) from exc
        res.greedy_steps = list(greedy.steps)
        res.greedy_abandoned = list(greedy.abandoned)
        if not greedy.complete:
            res.seconds["graph"] = time.perf_counter() - t
            return stop()
        res.graph = np.ascontiguousarray(greedy.assignments.T)
    res.seconds["graph"] = time.perf_counter() - t
    gp.set(1.0, "generalization graph")
    done("graph")
    if progress.cancelled():
        return stop()

    # 3. assignments
    t = time.perf_counter()
    walk_order = res.ring_order if res.ring_order is not None else res.order
    ext = extract_assignments(res.graph, seed, progress.stage("assignments"), order=walk_order)
    res.assignments = ext.assignments
    res.walk_steps = list(ext.steps)
    res.walks = list(ext.walks)
    res.seconds["assignments"] = time.perf_counter() - t
    if not ext.complete:
        return stop()
    rng = np.random.default_rng(derive_seed(seed, "alpha"))
    res.chosen = int(rng.integers(m))
    done("assignments")
    if progress.cancelled():
        return stop()

    # 4. publication
    t = time.perf_counter()
    pre_indptr, pre = preimages(res.graph)
    res.published = publish(data, pre_indptr, pre)
    if labels is not None:
        slot_labels = np.empty(data.n_records, dtype=np.int64)
        slot_labels[res.alpha] = labels.codes
        res.slot_labels = slot_labels
        if params.mode == "l":
            res.label_failures = int(published_label_failures(res.graph, slot_labels, m).sum())
    res.seconds["publish"] = time.perf_counter() - t
    progress.stage("publish").set(1.0, "published")
    done("publish")
    if progress.cancelled():
        return stop()

    # 5. measures
    t = time.perf_counter()
    res.error_rate, res.empty_records = error_rate(data, res.published, res.alpha)
    a, b = query_sizes(data, params.qe_in, params.qe_ex)
    res.query_error = query_error(data, res.published, a, b, params.queries, seed)
    res.seconds["metrics"] = time.perf_counter() - t
    if params.mode == "l" and params.cahd_baseline:
        # The paper's reciprocal baseline on the same order, labels and seed (a tenth of the run's time or
        # less): measured for the comparison, never published.
        t = time.perf_counter()
        res.cahd = cahd(data, labels, m, res.order, seed, qe_in=params.qe_in, qe_ex=params.qe_ex,  # type: ignore
                        queries=params.queries)
        res.seconds["cahd"] = time.perf_counter() - t
    progress.stage("metrics").set(1.0, "measured")
    res.complete = True
    done("metrics")
    return res
