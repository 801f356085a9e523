"""Rum-bound and Tum-bound anonymization of RT-data (Poulis et al., ECML/PKDD 2013).

Phases, the stages of the spec (:data:`~.params.STAGES`; each timed, cancel
is checked between chunks and merges):

1. ``prepare``: the RT-data of the run (:func:`~.inputs.rt_data_for`), its
   columns, hierarchies and sensitive items encoded.
2. ``cluster``: Cluster, k-member clusters of similar demographics.
   Rum-bound: if Rum > δ, stop: infeasible (*return false*) with Cluster's Rum.
3. ``generalize``: T on every cluster (Tum of the starting point).
4. ``btd``: bit-vector distances between clusters (merge t/rt, order btd).
5. ``merge``: RMERGE_* / TMERGE_* (:mod:`anonstudio.methods.rt.merge`).
6. ``are``: accuracy of the query workloads on the published data.

A cancelled run returns the current clusters with T applied (clusters whose
T had not run yet get the coarsest generalization, one item for all their
items), marked ``complete=False``.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from ...data.hierarchy import Hierarchy
from ...data.table import RTData, Table
from ...jobs import ChunkSizer, NullProgress, Progress
from ...metrics.ncp import weighted_total
from ..contract import StagedProgress
from .are import average_relative_errors, generate_workloads, load_workloads
from .btd import BTDMatrix
from .cluster import Clustering, cluster, clusters_from_assignment
from .inputs import rt_data_for
from .merge import EPS, MergeState, run_merges
from .params import STAGES, RTParams
from .prepare import RTProblem, prepare
from .result import RTResult
from .transaction import ClusterT, Generalizer, TFunction

__all__ = ["run_rt", "generalize_all"]


def generalize_all(T: TFunction, members: list[np.ndarray], progress: Progress | None = None) -> list[ClusterT]:
    """T of every cluster; on cancel the remaining clusters get the coarsest generalization."""
    progress = progress or NullProgress()
    out: list[ClusterT] = []
    sizer = ChunkSizer(initial=16)
    while len(out) < len(members):
        if progress.cancelled():
            break
        size = sizer.next_size()
        for rows in members[len(out):len(out) + size]:
            out.append(T(rows))
        sizer.done(size)
        progress.set(len(out) / max(len(members), 1), f"{len(out):,} of {len(members):,} clusters")
    for rows in members[len(out):]:
        out.append(T(rows, coarsest=True) if isinstance(T, Generalizer) else T(rows))
    return out


def _members(assignment: np.ndarray, n_clusters: int) -> list[np.ndarray]:
    order = np.argsort(assignment, kind="stable")
    return [np.sort(m) for m in np.split(order, np.cumsum(np.bincount(assignment, minlength=n_clusters))[:-1])]


def run_rt(data: Table | RTData, params: RTParams, progress: Progress | None = None, *,
           item_hierarchy: Hierarchy | None = None, T: TFunction | None = None,
           initial: np.ndarray | None = None) -> RTResult:
    """Anonymize ``data`` with ``params`` (see module docstring); the params are taken as validated.

    Parameters
    ----------
    data
        RT-data, or a people table whose items are in ``params.items_column``
        or in ``params.items_file`` (:func:`~.inputs.rt_data_for`).
    progress
        A plain Progress, or the spec's :class:`~anonstudio.methods.contract.StagedProgress`.
    item_hierarchy
        Use this item hierarchy instead of the file/built one.
    T
        Use this transaction generalization instead of AA / sets (tests).
    initial
        Start from this cluster assignment instead of running Cluster (tests).
    """
    if not isinstance(progress, StagedProgress):
        progress = StagedProgress(progress or NullProgress(), STAGES, params)
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    data = rt_data_for(data, params)
    problem = prepare(data, params, item_hierarchy=item_hierarchy)
    T = T if T is not None else Generalizer(problem, params.k, params.m, params.l)
    workloads = load_workloads(Path(params.queries), list(params.qi)) if params.queries is not None else None
    seconds["prepare"] = time.perf_counter() - t0
    progress.stage("prepare").set(1.0, f"{problem.n:,} people, {problem.transactions.n_items:,} items")

    t0 = time.perf_counter()
    if initial is None:
        clustering = cluster(problem, params.k, params.seed, progress.stage("cluster"))
    else:
        clustering = clusters_from_assignment(problem, initial)
    seconds["cluster"] = time.perf_counter() - t0
    initial_rum = clustering.rum()
    progress.partial({"phase": "cluster", "clusters": clustering.n_clusters, "rum": initial_rum})
    members = _members(clustering.assignment, clustering.n_clusters)

    if params.bound == "rum" and initial_rum > params.delta + EPS and clustering.complete:
        return _finish(data, params, problem, clustering, members, None, workloads, feasible=False, complete=True,
                       reason=f"Cluster's Rum {initial_rum:.4f} is above δ = {params.delta:g}; "
                              "no clustering this method builds can meet the bound",
                       initial_rum=initial_rum, initial_tum=None, seconds=seconds, progress=progress)

    t0 = time.perf_counter()
    tres = generalize_all(T, members, progress.stage("generalize"))
    seconds["generalize"] = time.perf_counter() - t0
    state = MergeState(problem, clustering, tres, T)
    initial_tum = state.tum()
    if progress.cancelled() or not clustering.complete:
        return _from_state(data, params, problem, state, None, initial_rum, initial_tum, seconds, progress,
                           workloads)

    btd = None
    if params.merge != "r" and params.order == "btd":
        t0 = time.perf_counter()
        btd = BTDMatrix(problem, state.members, progress.stage("btd"))
        seconds["btd"] = time.perf_counter() - t0
        if not btd.complete:
            return _from_state(data, params, problem, state, None, initial_rum, initial_tum, seconds, progress,
                               workloads)

    t0 = time.perf_counter()
    outcome = run_merges(state, bound=params.bound, merge=params.merge, order=params.order, delta=params.delta,
                         btd=btd, progress=progress.stage("merge"))
    seconds["merge"] = time.perf_counter() - t0
    return _from_state(data, params, problem, state, outcome, initial_rum, initial_tum, seconds, progress,
                       workloads)


def _from_state(data, params, problem, state: MergeState, outcome, initial_rum, initial_tum, seconds,
                progress, workloads) -> RTResult:
    ids = state.ids()
    assignment = np.empty(problem.n, dtype=np.int64)
    for new, c in enumerate(ids.tolist()):
        assignment[state.members[c]] = new
    clustering = Clustering(assignment, state.summaries.take(ids), state.ncp[ids].copy())
    members = [state.members[c] for c in ids.tolist()]
    tres = [state.tres[c] for c in ids.tolist()]
    if outcome is None:
        feasible, complete, reason = None, False, "cancelled"
    elif outcome.status == "cancelled":
        feasible, complete, reason = None, False, "cancelled"
    else:
        feasible, complete, reason = outcome.status == "ok", True, outcome.reason
    result = _finish(data, params, problem, clustering, members, tres, workloads, feasible=feasible,
                     complete=complete,
                     reason=reason, initial_rum=initial_rum, initial_tum=initial_tum, seconds=seconds,
                     progress=progress)
    if outcome is not None:
        result.merges = outcome.merges
        result.tum_trace = list(outcome.tum_trace)
        result.rum_trace = list(outcome.rum_trace)
    if feasible is False:
        # The paper's "return false": report Cluster's Rum (what the bound would have to allow).
        result.rum = initial_rum
    return result


def _finish(data: RTData, params: RTParams, problem: RTProblem, clustering: Clustering, members, tres, workloads,
            *, feasible, complete, reason, initial_rum, initial_tum, seconds, progress: StagedProgress) -> RTResult:
    """Renumber clusters by first appearance, measure, and run the query workloads."""
    first_row = np.asarray([int(m[0]) for m in members], dtype=np.int64)
    order = np.argsort(first_row, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    assignment = rank[clustering.assignment]
    summaries = clustering.summaries.take(order)
    ncp = clustering.ncp[order]
    tres = [tres[c] for c in order.tolist()] if tres is not None else []
    sizes = np.bincount(assignment, minlength=len(order)).astype(np.float64)
    rum = weighted_total(sizes, ncp) / problem.n
    tum = float(sum(t.ul_sum for t in tres) / problem.n) if tres else None
    result = RTResult(params=params, problem=problem, data=data, feasible=feasible, reason=reason,
                      complete=complete,
                      assignment=assignment, summaries=summaries, cluster_ncp=ncp, tres=tres, rum=rum, tum=tum,
                      initial_rum=initial_rum, initial_tum=initial_tum, seconds=seconds)
    if tres and feasible is not False and complete:
        t0 = time.perf_counter()
        progress.stage("are").set(0.0, "counting")
        if workloads is None:
            workloads = generate_workloads(data, list(params.qi), params.seed, params.n_queries)
        result.are, result.are_queries = average_relative_errors(problem, data, assignment, summaries, tres,
                                                                 workloads)
        seconds["are"] = time.perf_counter() - t0
    progress.stage("are").set(1.0, "done")
    return result
