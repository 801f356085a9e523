"""σ-k^m's independent trials as tasks on a Dask cluster.

Each trial is a seeded stream of Algorithm 2 (:class:`~.trial.Trial`)
that needs nothing from the others, so a trial is one task: the dataset, the
merge rule and the error function go to the workers once (scattered), every
task runs one trial with its own seed and returns its levels. The numbers are
those of the same trial run here.

Progress is counted in finished trials; each finished trial's levels are
published at once (the plots fill in trial by trial). A cancel raises a
:class:`~anonstudio.parallel.ClusterFlag` that the running trials read between
chunks, as they read the local cancel: they stop and return what they reached,
and the run's result is partial, as on this machine.
"""
from __future__ import annotations

import time
from typing import Any

from ...jobs import CancelOnly, Progress
from ...parallel import ClusterFlag, on_worker
from .constraints.base import Constraint, ErrorFunction
from .params import KmAnonParams
from .result import TrialResult
from .trial import Trial, TrialHub

__all__ = ["run_trials_on_cluster"]

#: Seconds to wait after a cancel for running trials to hand back what they reached.
CANCEL_GRACE = 10.0
_POLL = 0.05


def _remote_trial(data, constraint: Constraint, error: ErrorFunction, params: KmAnonParams, trial: int, seed: int,
                  factory, chains: int, n_trials: int, flag: ClusterFlag) -> tuple[TrialResult, str]:
    """One trial on a cluster worker: (its result, why it stopped early or "")."""
    with on_worker():
        hub = TrialHub(CancelOnly(flag.is_set), n_trials, params.m)
        runner = Trial(data, constraint, error, params, trial, seed, hub, factory, chains)
        return runner.run(), runner.stopped_reason


def run_trials_on_cluster(client: Any, data, constraint: Constraint, error: ErrorFunction, params: KmAnonParams,
                          seeds: list[int], hub, factory, chains: int) -> tuple[list[TrialResult], list[str]]:
    """Run every trial as a task through ``client``; results in trial order, as the local pool returns them.

    ``hub`` is the run's local fan-in (:class:`~.trial.TrialHub`): it gets
    each trial's levels when the trial comes back and answers the cancel.
    """
    r = len(seeds)
    progress: Progress = hub.progress
    address = getattr(getattr(client, "scheduler", None), "address", "the cluster")
    flag = ClusterFlag(client)
    shared = client.scatter([data, constraint, error], broadcast=True)
    futures = {client.submit(_remote_trial, *shared, params, t, seeds[t], factory, chains, r, flag, pure=False): t
               for t in range(r)}
    results: list[TrialResult | None] = [None] * r
    reasons = [""] * r
    progress.set(0.0, f"{r} trials sent to {address}")
    cancelled_at: float | None = None
    try:
        while futures:
            if cancelled_at is None and hub.cancelled():
                flag.set()
                cancelled_at = time.monotonic()
            if cancelled_at is not None and time.monotonic() - cancelled_at > CANCEL_GRACE:
                client.cancel(list(futures))
                break
            done = [f for f in futures if f.done()]
            for future in done:
                t = futures.pop(future)
                results[t], reasons[t] = future.result()
                hub.trial_done(t, results[t].levels)
                finished = sum(res is not None for res in results)
                progress.set(finished / r, f"trial {t + 1} came back from the cluster ({finished} of {r})")
            if not done:
                time.sleep(_POLL)
    finally:
        if futures:
            client.cancel(list(futures))
        flag.clear()
    # Trials that never came back (cancelled before they could answer) count as not started.
    out = [res if res is not None else TrialResult(t, seeds[t], (), False, 0.0, 0, 0.0)
           for t, res in enumerate(results)]
    return out, reasons
