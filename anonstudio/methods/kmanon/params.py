"""Parameters of probabilistic k^m-anonymization (paper 000, Algorithm 2)."""
from __future__ import annotations

from dataclasses import dataclass

from ...params import ParameterError, param, validate
from .gamma import BOUND_EXPLANATION, BOUND_LABELS, BOUNDS

__all__ = ["KmAnonParams", "parse_levels", "SAMPLERS"]

#: Uniform samplers over Omega^ell of the original data (line 8 of Algorithm 2).
SAMPLERS = ("independent", "mcmc")
SAMPLER_LABELS = ("independent (rejection)", "MCMC (Algorithm 1)")


def parse_levels(text: str, m: int, default: float, kind: type, name: str) -> list:
    """Per-level values from ``"20,20,10"``; empty means ``default`` for all levels.

    A shorter list is padded with its last value (so ``"1,1,1,1,0.99"`` also
    covers m = 8 with 0.99 for levels 5-8).
    """
    text = (text or "").strip()
    if not text:
        return [kind(default)] * m
    try:
        values = [kind(float(v)) if kind is int else kind(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ParameterError(f"{name} must be comma-separated numbers (got {text!r})") from None
    if kind is int and any(float(v) != int(float(v)) for v in text.split(",") if v.strip()):
        raise ParameterError(f"{name} must be whole numbers (got {text!r})")
    if not values:
        return [kind(default)] * m
    return (values + [values[-1]] * m)[:m]


@dataclass(frozen=True)
class KmAnonParams:
    """What Algorithm 2 needs besides the data and the constraint."""

    k: int = param(20, label="k", minimum=2, maximum=1_000_000,
                   tooltip="Every itemset an attacker may know must be shared by at least k people.")
    m: int = param(5, label="m (attacker knows up to m items)", minimum=1, maximum=30,
                   tooltip="Largest number of items of one person the attacker is assumed to know.")
    sigma: float = param(0.99, label="sigma", minimum=0.5, maximum=1.0, decimals=4, step=0.001,
                         tooltip="Probability that a random itemset known to the attacker is k-anonymous. "
                                 "1 checks every itemset (exact, slow for large m).")
    k_levels: str = param("", label="k per level", advanced=True,
                          tooltip="Optional comma-separated k for itemset sizes 1, 2, ... (e.g. 20,20,10). "
                                  "Missing levels repeat the last value; empty: k for all levels.")
    sigma_levels: str = param("", label="sigma per level", advanced=True,
                              tooltip="Optional comma-separated sigma for sizes 1, 2, ... (e.g. 1,1,1,1,0.99: "
                                      "exact for up to 4 items, probabilistic above). Empty: sigma for all.")
    bound: str = param("conservative", label="sample bound", choices=BOUNDS, choice_labels=BOUND_LABELS,
                       tooltip=BOUND_EXPLANATION)
    sampler: str = param("independent", label="itemset sampler", choices=SAMPLERS, choice_labels=SAMPLER_LABELS,
                         advanced=True,
                         tooltip="How itemsets are drawn uniformly from the original data. Independent: exact, "
                                 "independent draws by rejection (default, about 10x faster on large data). "
                                 "MCMC: the paper's Markov chain (Algorithm 1), with burn-in and thinning.")
    trials: int = param(1, label="trials (r)", minimum=1, maximum=1000,
                        tooltip="Independent randomized runs; the one with the least error is kept.")
    seed: int | None = param(1, label="seed", minimum=0, maximum=2**63 - 1, optional=True,
                             tooltip="Same seed, same result. Empty: a fresh random seed.")
    threads: int = param(2, label="threads", minimum=1, maximum=64, advanced=True,
                         tooltip="Trials run in parallel on this many threads.")
    exact_when_cheaper: bool = param(True, label="exact when cheaper", advanced=True,
                                     tooltip="Check every itemset (sigma = 1, a stronger guarantee) instead of "
                                             "sampling at levels where enumerating them costs less than "
                                             "drawing the gamma samples.")
    exact_budget: int = param(250_000_000, label="exact enumeration budget", minimum=1000, maximum=2_000_000_000,
                              advanced=True, log_scale=True,
                              tooltip="Most generalized itemsets a sigma = 1 level may enumerate "
                                      "(8 bytes each: the default 250 million takes 2 GB); above it a sigma = 1 "
                                      "level stops the run with an explanation.")

    def k_vector(self) -> list[int]:
        return parse_levels(self.k_levels, self.m, self.k, int, "k per level")

    def sigma_vector(self) -> list[float]:
        return parse_levels(self.sigma_levels, self.m, self.sigma, float, "sigma per level")

    def checked(self) -> "KmAnonParams":
        """Validate ranges and the per-level vectors; return self."""
        validate(self)
        for v in self.k_vector():
            if v < 2:
                raise ParameterError(f"k per level must be at least 2 (got {v})")
        for s in self.sigma_vector():
            if not 0.5 <= s <= 1.0:
                raise ParameterError(f"sigma per level must be in [0.5, 1] (got {s:g})")
        return self
