"""Running personalized ρ-uncertainty end to end: E, the suppressor, the utilities."""
from __future__ import annotations

import time

from ...data.transactions import TransactionData
from ...jobs import NullProgress, Progress, SubProgress
from ...params import ParameterError
from .params import RhoParams, parse_exact
from .result import RhoResult
from .sensitive import SensitiveConstraint, generate_sensitive, load_sensitive
from .suppressor import adversary_count, suppress_exact, suppress_sampled
from .utility import util_dist, util_info, util_mining

__all__ = ["run_rho", "sensitive_for", "check_data"]


def sensitive_for(data: TransactionData, params: RhoParams) -> SensitiveConstraint:
    """E for this run: read from ``params.sensitive`` or drawn in ``params.setting``."""
    if params.sensitive is not None:
        return load_sensitive(params.sensitive, data)
    return generate_sensitive(data, params.setting, params.sensitive_fraction, params.seed, params.noise)


def check_data(data: TransactionData, params: RhoParams) -> None:
    """Limits that depend on the data (raises :class:`ParameterError`).

    The exact algorithm examines Σ_u Σ_ℓ C(|D_u|, ℓ) adversaries per pass:
    refuse it when that exceeds ``max_adversaries`` (e.g. unbounded m on
    BMS-WebView-1, whose longest record has 267 items).
    """
    if params.sampled:
        return
    longest = int(data.lengths.max()) if data.n_records else 0
    top = longest if params.m is None else min(params.m, longest)
    count = adversary_count(data.lengths, top)
    if count > params.max_adversaries:
        what = "any number of items" if params.m is None else f"up to {params.m} items"
        raise ParameterError(
            f"checking every attacker who knows {what} means {count:.3g} (person, itemset) pairs per pass "
            f"(records up to {longest} items), above the limit of {params.max_adversaries:,}; set a smaller m, "
            "or ε and δ for the sampled algorithm", name="m")


def run_rho(data: TransactionData, params: RhoParams, progress: Progress | None = None,
            constraint: SensitiveConstraint | None = None) -> RhoResult:
    """Suppress items of ``data`` until personalized ρ-uncertainty holds (see the suppressor module).

    Parameters
    ----------
    data
        The original set-valued data D.
    params
        The recipe; ``params.epsilon``/``delta`` select SAMPLESUPPRESSOR.
    progress
        Progress, partial results (one :class:`SuppressionProgress` per
        pass) and cancel. A cancel returns the current state with
        ``complete=False``.
    constraint
        E, if already built (otherwise from the params).

    Raises
    ------
    ParameterError
        For inconsistent parameters or data beyond the exact algorithm's limit.
    DataFormatError
        For a bad sensitive-items file.
    """
    progress = progress or NullProgress()
    t0 = time.perf_counter()
    params.checked()
    check_data(data, params)
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
    if sup.complete:
        progress.set(0.95, "mining association rules for the utility")
        mining = util_mining(data, published, parse_exact(params.minsup, "minsup"),
                             parse_exact(params.minconf, "minconf"), params.mining_max_length)
    progress.set(1.0, "done" if sup.complete else "stopped")
    return RhoResult(data, published, e, params, sup, info, dist, mining, time.perf_counter() - t0, sup.complete)
