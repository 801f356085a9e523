"""Probabilistic k^m-anonymization by greedy constrained generalization (Algorithm 2 of Acs et al.).

Levels ``l = 1..m`` run in order on one generalization (item -> partition):

* sampling level (sigma_l < 1): draw ell-itemsets uniformly from the ORIGINAL
  data, map them through the current partitions and check that at least ``k_l``
  generalized records contain them. A failing sample triggers the least-error
  neighbour merge at one of its partitions (lines 13-14) and resets the run of
  k-anonymous samples to ``{s}`` (line 15). The level ends after ``gamma``
  consecutive k-anonymous samples (Theorem 1, see :mod:`.gamma`) or when one
  partition is left.
* exact level (sigma_l = 1, Section VI-D): every generalized itemset that is
  the image of an ell-itemset of some record is enumerated (apriori style,
  counted by sorting packed keys) and each one with support below ``k_l`` is
  repaired the same way. Merging only ever raises supports, so one pass over
  the violators of the enumeration leaves every ell-itemset k-anonymous.
  Counting uses dense counters indexed by the combinatorial number system
  when ``sum_j C(P, j)`` fits the budget (P partitions), sorted packed keys
  otherwise. With ``exact_when_cheaper`` a sigma < 1 level is enumerated
  instead when a deterministic cost model says that is cheaper than sampling
  (typically l = 1, 2): the guarantee is then sigma = 1, which implies sigma.

Reading of line 8: the paper draws with its Markov chain (Algorithm 1,
:class:`~anonstudio.samplers.mcmc_sampler.ItemsetSampler`, ``sampler="mcmc"``).
Theorem 1 needs the samples uniform and independent, which a chain only
approximates after burn-in and thinning. By default we draw them with
:class:`~anonstudio.samplers.independent_sampler.IndependentItemsetSampler`,
which gives exactly that (rejection with the chain's own proposal) and is about
ten times faster on a million people, where the chain's steps dominated the run.

Reading of line 15: the paper puts ``s`` into ``S`` right after one merge, but
one merge need not make ``s`` k-anonymous (e.g. when two of its items sit in
rare partitions), and a non-k-anonymous member of ``S`` breaks Condition 2 of
Theorem 1. We re-check ``s`` after each merge and merge again until it passes;
when one merge suffices (as in Example 1) this is exactly the paper's step.

``r`` independent trials (seeded streams) run on up to ``threads`` threads,
within the studio's thread budget (:mod:`anonstudio.parallel`); the support
kernels and the sampler release the GIL. When a Dask scheduler is chosen for
the run (``--scheduler``, the studio's setting), the trials run as tasks on
that cluster instead (:mod:`.cluster`); either way a trial's numbers depend on
its seed only. Per level, the trial with the least error is reported, so one
run to ``m = M`` gives results for all ``m <= M``.
"""
from __future__ import annotations

import dataclasses
import time

from ...data.transactions import TransactionData
from ...jobs import NullProgress, PartialRelay, Progress, derive_seed
from ...parallel import budget, remote_client
from ..contract import StagedProgress
from .cluster import run_trials_on_cluster
from .constraints.base import Constraint, ErrorFunction
from .inputs import prepare_run
from .params import KmAnonParams
from .result import KmAnonResult, LevelResult, TrialResult
from .trial import SamplerFactory, Trial, TrialHub

__all__ = ["run_kmanon", "kmanonymize", "SamplerFactory", "SAMPLER_FACTORIES"]


def mcmc_sampler_factory(data: TransactionData, ell: int, seed: int, chains: int):
    """The MCMC sampler of Algorithm 1 over the original data."""
    from ...samplers.mcmc_sampler import ItemsetSampler

    return ItemsetSampler(data, ell, seed, chains=chains)


def independent_sampler_factory(data: TransactionData, ell: int, seed: int, chains: int):
    """Exactly uniform, independent draws over the original data (rejection; no chain)."""
    from ...samplers.independent_sampler import IndependentItemsetSampler

    return IndependentItemsetSampler(data, ell, seed, streams=chains)


#: ``KmAnonParams.sampler`` -> factory.
SAMPLER_FACTORIES: dict[str, SamplerFactory] = {
    "independent": independent_sampler_factory,
    "mcmc": mcmc_sampler_factory,
}


def _best_per_level(finished: list[list[LevelResult]], m: int) -> tuple[tuple[LevelResult, ...], tuple[int, ...]]:
    levels: list[LevelResult] = []
    best: list[int] = []
    for ell in range(1, m + 1):
        cands = [(not lv[ell - 1].complete, lv[ell - 1].error, t) for t, lv in enumerate(finished) if len(lv) >= ell]
        if not cands:
            break
        incomplete, _, t = min(cands)
        levels.append(finished[t][ell - 1])
        best.append(t)
        if incomplete:
            break
    return tuple(levels), tuple(best)


def kmanonymize(
    data: TransactionData,
    constraint: Constraint,
    params: KmAnonParams,
    progress: Progress | None = None,
    *,
    error: ErrorFunction | None = None,
    sampler_factory: SamplerFactory | None = None,
) -> KmAnonResult:
    """Run Algorithm 2 ``params.trials`` times and keep the least-error result per level.

    Parameters
    ----------
    data
        The original set-valued data.
    constraint
        Which merges are allowed (:mod:`.constraints`).
    params
        k, m, sigma (or per-level vectors), bound, trials, seed.
    progress
        Receives progress, a partial :class:`KmAnonResult` after every level
        (and every second within one), and may cancel: the result then holds
        the generalization reached so far, marked incomplete.
    error
        Error function; default: the constraint's own.
    sampler_factory
        Uniform sampler over Omega^ell of the original data (default: the one
        ``params.sampler`` names).

    The params are not validated here: the pipeline (:func:`anonstudio.methods.contract.run_and_verify`)
    does it once, before any work.
    """
    progress = progress or NullProgress()
    error = error or constraint.default_error()
    factory = sampler_factory or SAMPLER_FACTORIES[params.sampler]
    r = params.trials
    # Sampler streams per trial depend on the trials only, never on the
    # threads: a performance knob must not change the data.
    chains = 2 if r == 1 else 1
    hub = TrialHub(progress, r, params.m)
    t0 = time.perf_counter()

    def summarize(finished, current=(), trials=(), complete=False, reason=""):
        levels, best = _best_per_level(finished, params.m)
        if not trials:
            # Partial results carry every trial's finished levels too, so the
            # per-trial points of the plots vs m fill in while trials run.
            trials = tuple(TrialResult(t, seeds[t], tuple(done), False, 0.0, 0, 0.0)
                           for t, done in enumerate(finished) if done)
        return KmAnonResult(
            levels=levels, best_trial=best, trials=tuple(trials), complete=complete,
            constraint=constraint.name, error_name=error.name, error_unit=error.unit, m=params.m,
            seconds=time.perf_counter() - t0, stopped_reason=reason, current=tuple(current),
            sampler=params.sampler if sampler_factory is None else getattr(factory, "__name__", "custom"),
        )

    hub.summarize = summarize
    seeds = [derive_seed(params.seed, "kmanon-trial", t) for t in range(r)]
    # One trial gains nothing from a cluster (its streams are threads of one process): it runs here.
    client = remote_client() if r > 1 else None
    if client is not None:
        results, reasons = run_trials_on_cluster(client, data, constraint, error, params, seeds, hub, factory,
                                                 chains)
    else:
        trials = [Trial(data, constraint, error, params, t, seeds[t], hub, factory, chains) for t in range(r)]
        # Trials one after another (each then has the whole thread budget for its streams) or side by side,
        # each with its share: the threads parameter caps the trials at once, the budget caps the threads.
        at_once = min(params.threads or r, r)  # unset: as many trials at once as the budget allows
        if budget.workers(at_once) == 1:
            results = [t.run() for t in trials]
        else:
            with budget.pool(at_once, "kmanon-trial") as pool:
                results = list(pool.map(lambda t: t.run(), trials))
        reasons = [t.stopped_reason for t in trials]
    finished = [list(res.levels) for res in results]
    reason = next((text for text in reasons if text), "")
    complete = all(res.complete for res in results) and not reason
    out = summarize(finished, (), results, complete, reason)
    progress.set(1.0, "done" if complete else "stopped")
    return out


def run_kmanon(data: TransactionData, params: KmAnonParams, progress: Progress | None = None) -> KmAnonResult:
    """Anonymize ``data`` as ``params`` say: load the merge rule's files, then run :func:`kmanonymize`.

    The result (and every partial result published through ``progress``) carries the dataset the
    partitions refer to and, for touching-towers merging, the items' cells. Given the pipeline's
    :class:`~anonstudio.methods.contract.StagedProgress`, the work reports in its ``anonymize`` stage.
    """
    progress = progress or NullProgress()
    if isinstance(progress, StagedProgress):
        progress = progress.stage("anonymize")
    prepared = prepare_run(data, params)

    def attach(result: KmAnonResult) -> KmAnonResult:
        return dataclasses.replace(result, data=prepared.data, cells=prepared.cells, projection=prepared.projection)

    result = kmanonymize(prepared.data, prepared.constraint, params, PartialRelay(progress, attach))
    return attach(result)
