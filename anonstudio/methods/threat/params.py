"""Parameters of the relative threat analysis (GUI panel and CLI share them)."""
from __future__ import annotations

from dataclasses import dataclass

from ...params import ParameterError, param, seed_param

__all__ = ["ThreatParams"]


@dataclass(frozen=True)
class ThreatParams:
    iterations: int = param(
        20_000, label="Iterations", minimum=2, maximum=100_000_000, step=1000, log_scale=True,
        tooltip="Sweeps of the sampler per chain, burn-in included. One sweep redraws the population "
                "parameters and every hidden value of the table once. The paper used 100,000.")
    burn_in: int = param(
        10_000, label="Burn-in", minimum=0, maximum=100_000_000, step=1000,
        tooltip="First sweeps of every chain that are thrown away while the chain forgets its random start.")
    thinning: int = param(
        10, label="Thinning", minimum=1, maximum=10_000,
        tooltip="Keep one sweep in this many after burn-in for the estimates. Larger is faster, "
                "with fewer (but less correlated) samples.")
    chains: int = param(
        2, label="Chains", minimum=1, maximum=64,
        tooltip="Independent chains run side by side (one per core) and pooled. Different chains "
                "agreeing is evidence that the sampler has converged.")
    seed: int = seed_param()
    prior_alpha: float = param(
        1.0, label="Prior weight of sensitive values", minimum=1e-6, maximum=1e6, decimals=3,
        tooltip="Dirichlet prior on how common each sensitive value is, as pseudo-counts added to each value. "
                "1 = uniform, no prior knowledge.")
    prior_beta: float = param(
        1.0, label="Prior weight of attribute values", minimum=1e-6, maximum=1e6, decimals=3,
        tooltip="Dirichlet prior on each quasi-identifier value given the sensitive value, as pseudo-counts. "
                "1 = uniform over the column's whole domain.")
    known_qi: tuple[str, ...] = param(
        (), label="Attacker knows", kind="columns", flag="--known", none_means="every quasi-identifier",
        tooltip="Quasi-identifiers the attacker knows about the victim. Empty: all of them. "
                "The learner is compared on the same knowledge.")
    learner: str = param(
        "predictive", label="Learner estimate", choices=("predictive", "average"),
        choice_labels=("condition the learned joint distribution", "average of f(s | r, pi)"),
        advanced=True,
        tooltip="How p_L(s | r) is read off the learned model: conditioning the posterior predictive joint "
                "(reproduces the paper's Table III) or averaging the conditional over the chain (eq. 24).")
    proposal: str = param(
        "swap", label="Anatomy proposal", choices=("swap", "permutation"),
        choice_labels=("swap two rows of a group", "shuffle the whole group"),
        tooltip="How the sampler proposes a new pairing of sensitive values inside an Anatomy group. "
                "Swaps are accepted far more often.")
    moves_per_group: int = param(
        1, label="Proposals per group", minimum=1, maximum=1000, advanced=True,
        tooltip="Metropolis proposals per Anatomy group in every sweep (the paper uses one).")
    etv_samples: int = param(
        20_000, label="Faithfulness sample", minimum=100, maximum=10_000_000, advanced=True,
        tooltip="Points drawn from the ideal distribution to estimate total variation (ETV, Remark 4) "
                "when the table's value space is too large to enumerate.")
    exact_tv_limit: int = param(
        200_000, label="Exact faithfulness up to", minimum=0, maximum=50_000_000, advanced=True,
        tooltip="Compute total variation exactly over every (sensitive, quasi-identifier) combination "
                "when there are at most this many.")
    tracked_rows: int = param(
        10, label="Rows to diagnose", minimum=0, maximum=1000, advanced=True,
        tooltip="Rows whose hidden values are recorded at every kept sample for the chi-square convergence test.")

    def check(self) -> None:
        if self.burn_in >= self.iterations:
            raise ParameterError(f"Burn-in must be smaller than Iterations (got {self.burn_in:,} ≥ "
                                 f"{self.iterations:,})", name="burn_in")



