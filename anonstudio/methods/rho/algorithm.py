"""Running personalized ρ-uncertainty end to end: E, the suppressor, the utilities."""
from __future__ import annotations

import time

from ...data.transactions import TransactionData
from ...jobs import NullProgress, Progress, SubProgress
from ...params import ParameterError
from ..contract import StagedProgress
from .params import RhoParams, parse_exact
from .result import RhoResult
from .sensitive import SensitiveConstraint, generate_sensitive, load_sensitive, sensitive_count
from .suppressor import suppress_exact, suppress_sampled
from .utility import MiningCancelled, util_dist, util_info, util_mining

__all__ = ["run_rho", "sensitive_for"]


def sensitive_for(data: TransactionData, params: RhoParams) -> SensitiveConstraint:
    """E for this run: read from ``params.sensitive`` or drawn in ``params.setting``."""
    if params.sensitive is not None:
        return load_sensitive(params.sensitive, data)
    held = int((data.item_frequencies > 0).sum())
    drawn = None
    if params.setting in ("fixed", "personalized") and sensitive_count(params.sensitive_fraction, held) == 0:
        pass  # draws nothing: refused below without drawing
    else:
        drawn = generate_sensitive(data, params.setting, params.sensitive_fraction, params.seed, params.noise)
    if drawn is None or (len(drawn.global_items) == 0 and len(drawn.add_items) == 0):
        # Nothing sensitive: every release would pass, and the promise says nothing.
        raise ParameterError(f"sensitive fraction {params.sensitive_fraction:g} draws no sensitive item from the "
                             f"{data.n_items:,} items (setting {params.setting}): ρ would promise nothing; give a "
                             "larger fraction or a sensitive-items file", name="sensitive_fraction")
    return drawn


def run_rho(data: TransactionData, params: RhoParams, progress: Progress | None = None, *,
            constraint: SensitiveConstraint | None = None) -> RhoResult:
    """Suppress items of ``data`` until personalized ρ-uncertainty holds (see the suppressor module).

    The pipeline (:func:`~anonstudio.methods.contract.run_and_verify`) has
    validated ``params`` and checked them against the data (the exact
    algorithm's size limit) before this runs.

    Parameters
    ----------
    data
        The original set-valued data D.
    params
        The recipe; ``params.epsilon``/``delta`` select SAMPLESUPPRESSOR.
    progress
        Progress, partial results (one :class:`SuppressionProgress` per
        pass) and cancel; of a ``StagedProgress`` (the pipeline's) the run
        takes its ``run`` stage. A cancel returns the current state with
        ``complete=False``.
    constraint
        E, if already built (otherwise read or drawn from the params).

    Raises
    ------
    ParameterError
        Sensitive items made for another number of records.
    DataFormatError
        For a bad sensitive-items file.
    """
    progress = progress or NullProgress()
    if isinstance(progress, StagedProgress):
        progress = progress.stage("run")
    t0 = time.perf_counter()
    rho = params.rho_fraction
    progress.set(0.0, "preparing the sensitive items")
    e = constraint if constraint is not None else sensitive_for(data, params)
    if e.n_records != data.n_records:
        raise ParameterError(f"the sensitive items are for {e.n_records:,} records, the data has "
                             f"{data.n_records:,}", name="sensitive")
    sub = SubProgress(progress, 0.02, 0.95)
    if params.sampled:
        sup = suppress_sampled(data, e, rho, params.m, params.samples_per_level, params.sampler, params.seed, sub)
    else:
        sup = suppress_exact(data, e, rho, params.m, params.seed, sub)
    published = sup.published
    info = util_info(data, published)
    dist = util_dist(data, published)
    mining = None
    complete = sup.complete
    if complete:
        progress.set(0.95, "mining association rules for the utility")
        try:
            mining = util_mining(data, published, parse_exact(params.minsup, "minsup"),
                                 parse_exact(params.minconf, "minconf"), params.mining_max_length,
                                 progress.cancelled)
        except MiningCancelled:  # the run stops as a whole: nothing is released from a cancelled run
            complete = False
    progress.set(1.0, "done" if complete else "stopped")
    return RhoResult(data, published, e, params, sup, info, dist, mining, time.perf_counter() - t0, complete)
