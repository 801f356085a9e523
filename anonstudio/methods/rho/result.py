"""The result of a ρ-uncertainty run: published data, how it was reached, and its utility."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...data.transactions import TransactionData
from .params import RhoParams
from .sensitive import SensitiveConstraint
from .suppressor import PassRecord, RepairLog, Suppression
from .utility import MiningUtility

__all__ = ["RhoResult"]


@dataclass(frozen=True, eq=False)
class RhoResult:
    """One run of SUPPRESSOR or SAMPLESUPPRESSOR.

    Attributes
    ----------
    original
        The input data D.
    published
        D': the same records in the same order, each a subset of the original.
    constraint
        The sensitive constraint E used (loaded or drawn).
    params
        The recipe of the run.
    suppression
        Passes, repair log and timing of the algorithm.
    util_info, util_dist, mining
        Utility loss (eq. 5, 6, 12); ``util_dist`` is None when D' is empty,
        ``mining`` None when the run was cancelled before it was computed.
    seconds
        Wall time of the whole run (E, algorithm, utilities).
    complete
        False when the run was cancelled: D' is then the state after the
        passes done so far and may still break ρ.
    """

    original: TransactionData
    published: TransactionData
    constraint: SensitiveConstraint
    params: RhoParams
    suppression: Suppression
    util_info: float
    util_dist: float | None
    mining: MiningUtility | None
    seconds: float
    complete: bool

    # ----------------------------------------------------------- derived
    @property
    def algorithm(self) -> str:
        return self.suppression.algorithm

    @property
    def iterations(self) -> int:
        return self.suppression.iterations

    @property
    def suppressed_items(self) -> int:
        return int(len(self.original.indices) - len(self.published.indices))

    @property
    def passes(self) -> tuple[PassRecord, ...]:
        return self.suppression.passes

    @property
    def log(self) -> RepairLog:
        return self.suppression.log

    def suppressed_of(self, u: int) -> np.ndarray:
        """Item ids removed from record ``u``."""
        return np.setdiff1d(self.original.record(u), self.published.record(u), assume_unique=True)

    # ------------------------------------------------------------- JSON
    def to_json(self) -> dict:
        """The issue's JSON contract: parameters, suppression, utilities, passes (verification added by callers)."""
        p = self.params
        rho = p.rho_fraction
        e = self.constraint
        sizes = e.sizes()
        mining = self.mining.to_json() if self.mining is not None else {
            "util_mining": None, "minsup": p.minsup, "minconf": p.minconf, "rules_original": None,
            "rules_published": None, "rules_common": None, "util_mining_note": "not computed: run cancelled"}
        doc = {
            "method": "rho",
            "algorithm": self.algorithm,
            "complete": self.complete,
            "rho": float(rho),
            "rho_exact": f"{rho.numerator}/{rho.denominator}",
            "m": p.m,
            "epsilon": p.epsilon,
            "delta": p.delta,
            "sampler": p.sampler if p.sampled else None,
            "setting": e.setting,
            "sensitive_fraction": e.fraction,
            "sensitive_noise": e.noise,
            "sensitive_file": str(e.source) if e.source is not None else None,
            "sensitive_per_record_mean": float(sizes.mean()) if len(sizes) else 0.0,
            "sensitive_shared_items": int(len(e.global_items)),
            "seed": p.seed,
            "samples_per_level": self.suppression.samples_per_level,
            "levels": self.suppression.levels,
            "records": self.original.n_records,
            "occurrences": int(len(self.original.indices)),
            "suppressed_items": self.suppressed_items,
            "util_info": self.util_info,
            "util_dist": self.util_dist,
            **mining,
            "iterations": self.iterations,
            "seconds": round(self.seconds, 4),
            "suppressor_seconds": round(self.suppression.seconds, 4),
            "repaired_rules": len(self.log),
            "passes": [rec.to_json() for rec in self.passes],
        }
        return doc

    def summary(self) -> dict[str, float]:
        """Scalars for comparison tables."""
        out = {
            "suppressed_items": float(self.suppressed_items),
            "util_info": self.util_info,
            "iterations": float(self.iterations),
            "seconds": round(self.seconds, 4),
        }
        if self.util_dist is not None:
            out["util_dist"] = self.util_dist
        if self.mining is not None and self.mining.value is not None:
            out["util_mining"] = self.mining.value
        return out
