"""Results of probabilistic k^m-anonymization, one snapshot per level.

A run to ``m = M`` passes levels 1..M in order; the state after level ``l`` is
itself a valid sigma-k^l-anonymization, so one run yields the result for every
``m <= M`` (paper Figures 4-6 plot them against m).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ...data.transactions import TransactionData

__all__ = ["LevelResult", "TrialResult", "KmAnonResult"]


@dataclass(frozen=True)
class LevelResult:
    """The generalization after level ``level`` of one trial.

    Attributes
    ----------
    labels
        int32 item -> partition id (the smallest item id in the partition).
    names
        Partition id -> display name (hierarchy node label), where the
        constraint provides one.
    mode
        ``"sampling"`` (Theorem 1, gamma consecutive k-anonymous samples),
        ``"exact"`` (all itemsets enumerated, sigma = 1), ``"empty"`` (no record
        has ``level`` items) or ``"single"`` (one partition already).
    samples
        Itemsets checked at this level (drawn samples or enumerated itemsets).
    violations
        Checked itemsets that were not k-anonymous (each triggered merges).
    merges
        Merges at this level.
    unfixable
        Violating itemsets no allowed merge could repair (contiguity over a
        disconnected map); 0 means the level's guarantee holds.
    seconds
        Time since the trial started, at the end of this level.
    support_checks
        Generalized support checks run at this level.
    sampling_seconds, check_seconds
        Time of this level spent drawing samples (burn-in included) and
        checking generalized supports; the rest is merging and enumeration.
    complete
        False if the level was cut short by a cancel.
    """

    level: int
    k: int
    sigma: float
    gamma: int
    mode: str
    samples: int
    violations: int
    merges: int
    partitions: int
    error: float
    avg_area_km2: float | None
    seconds: float
    support_checks: int
    unfixable: int
    complete: bool
    labels: np.ndarray = field(repr=False)
    names: dict = field(default_factory=dict, repr=False)
    sampling_seconds: float = 0.0
    check_seconds: float = 0.0

    def summary(self) -> dict:
        """The JSON fields of this level (without the map)."""
        return {
            "level": self.level,
            "k": self.k,
            "sigma": self.sigma,
            "gamma": self.gamma,
            "mode": self.mode,
            "samples": self.samples,
            "violations": self.violations,
            "merges": self.merges,
            "unfixable": self.unfixable,
            "partitions": self.partitions,
            "error": self.error,
            "avg_partition_area_km2": self.avg_area_km2,
            "seconds": round(self.seconds, 4),
            "support_checks": self.support_checks,
            "sampling_seconds": round(self.sampling_seconds, 4),
            "check_seconds": round(self.check_seconds, 4),
            "complete": self.complete,
        }


@dataclass(frozen=True)
class TrialResult:
    """All level snapshots of one trial."""

    trial: int
    seed: int
    levels: tuple[LevelResult, ...]
    complete: bool
    seconds: float
    support_checks: int
    check_seconds: float

    @property
    def final(self) -> LevelResult | None:
        return self.levels[-1] if self.levels else None


@dataclass(frozen=True)
class KmAnonResult:
    """Best-of-r results for every m up to the requested one, and what they were computed on.

    ``levels[l - 1]`` is the least-error trial's snapshot after level ``l``
    among the trials that finished level ``l``; ``best_trial[l - 1]`` says which.
    A run (:func:`~.algorithm.run_kmanon`) also records ``data``, the dataset the
    partitions refer to (with coordinates attached, items without coordinates
    dropped when asked), and for touching-towers merging the Voronoi ``cells``
    of its items and the ``projection`` of latitude/longitude input.
    """

    levels: tuple[LevelResult, ...]
    best_trial: tuple[int, ...]
    trials: tuple[TrialResult, ...]
    complete: bool
    constraint: str
    error_name: str
    error_unit: str
    m: int
    seconds: float = 0.0
    stopped_reason: str = ""
    #: In a partial result: the running level of each busy trial (for live plots).
    current: tuple[LevelResult, ...] = ()
    #: Which uniform itemset sampler the sampling levels used (``KmAnonParams.sampler``).
    sampler: str = ""
    data: TransactionData | None = field(default=None, repr=False)
    cells: Any = field(default=None, repr=False)
    projection: Any = field(default=None, repr=False)

    @property
    def final(self) -> LevelResult | None:
        """The generalization to publish: the last finished level."""
        return self.levels[-1] if self.levels else None

    @property
    def item_word(self) -> str:
        """What an item is called in texts: a tower on a map, else an item."""
        return "tower" if self.constraint == "contiguity" else "item"

    def contiguous(self) -> bool | None:
        """Whether every published partition is one connected area (None without cells)."""
        if self.cells is None or self.final is None:
            return None
        from ...data.geo import PartitionGeometry

        return bool(PartitionGeometry(self.cells, self.final.labels).contiguous.all())

    @property
    def support_checks_per_second(self) -> float:
        checks = sum(t.support_checks for t in self.trials)
        secs = sum(t.check_seconds for t in self.trials)
        return checks / secs if secs > 0 else 0.0

    def level(self, m: int) -> LevelResult:
        """The result for background knowledge of ``m`` items."""
        return self.levels[m - 1]

    def summary(self) -> dict[str, float]:
        """The scalars a comparison table shows: levels finished, and the published level's figures."""
        final = self.final
        if final is None:
            return {"levels_finished": 0.0}
        return {"levels_finished": float(len(self.levels)), "partitions": float(final.partitions),
                "error": final.error, "merges": float(sum(lv.merges for lv in self.levels))}

    def to_json(self) -> dict:
        """Per-level summary (samples, violations, merges, partitions, error, seconds, gamma) plus run data;
        for a run, the dataset and whether every partition is contiguous (touching-towers merging)."""
        doc = {
            "complete": self.complete,
            "stopped_reason": self.stopped_reason,
            "constraint": self.constraint,
            "sampler": self.sampler,
            "error": {"name": self.error_name, "unit": self.error_unit},
            "m": self.m,
            "seconds": round(self.seconds, 4),
            "support_checks_per_second": self.support_checks_per_second,
            "levels": [dict(lv.summary(), best_trial=t) for lv, t in zip(self.levels, self.best_trial)],
            "trials": [
                {
                    "trial": t.trial,
                    "seed": t.seed,
                    "complete": t.complete,
                    "seconds": round(t.seconds, 4),
                    "levels": [lv.summary() for lv in t.levels],
                }
                for t in self.trials
            ],
        }
        if self.data is not None:
            doc["dataset"] = {"name": self.data.name, "records": self.data.n_records, "items": self.data.n_items}
        contiguous = self.contiguous()
        if contiguous is not None:
            doc["all_partitions_contiguous"] = contiguous
        return doc
