"""Parameters of the relative threat analysis: the release to analyse and the sampler (GUI panel, CLI, projects).

The release is described by the group-anonymization family's own fields
(:class:`~anonstudio.methods.group_anonymize.params.GroupAnonymizeParams`):
each is declared here with :func:`~anonstudio.params.reuse_param`, so its
label, range and tooltip follow that family, and :meth:`ThreatParams.group_params`
builds the group-anonymization recipe from them.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from ...params import ParameterError, param, reuse_param, seed_param, validate
from ..group_anonymize.params import SCHEMES, SECTION_COLUMNS, GroupAnonymizeParams

__all__ = ["ThreatParams", "SECTION_SAMPLER"]

SECTION_SAMPLER = "Sampler"
#: The schemes that anonymize here (not "published"): only they read k, ℓ and the row limit.
_ANONYMIZING = {"scheme": SCHEMES}
#: Anatomy's sampler settings apply to Anatomy releases and to published ones (which may be Anatomy releases).
_VERTICAL = {"scheme": ("anatomy", "published")}


@dataclass(frozen=True)
class ThreatParams:
    """The release to analyse (anonymize the table, or read a published CSV) and the sampler's settings."""

    scheme: str = reuse_param(GroupAnonymizeParams, "scheme", label="Anonymization",
                              tooltip="How the table is anonymized before the analysis, or 'published' to analyse "
                                      "an anonymized CSV you choose below.")
    k: int = reuse_param(GroupAnonymizeParams, "k", enabled_when=_ANONYMIZING)
    l: int | None = reuse_param(GroupAnonymizeParams, "l", default=4, label="ℓ (diversity)",
                                enabled_when=_ANONYMIZING)
    qi: tuple[str, ...] = reuse_param(GroupAnonymizeParams, "qi")
    sensitive: str = reuse_param(GroupAnonymizeParams, "sensitive")
    known: tuple[str, ...] = param(
        (), label="Attacker knows", kind="columns", flag="--known", section=SECTION_COLUMNS,
        none_means="every quasi-identifier",
        tooltip="Quasi-identifiers the attacker knows about the victim. Empty: all of them. "
                "The learner is compared on the same knowledge.")
    rows: int | None = param(
        None, label="Rows analysed", minimum=10, maximum=100_000_000, step=500, optional=True,
        none_means="every complete row", enabled_when=_ANONYMIZING,
        tooltip="Only the first this many rows with no missing value in the chosen columns are anonymized and "
                "analysed (the paper used 5,692 rows of Adult). Not set: every complete row.")
    hierarchies: tuple = reuse_param(GroupAnonymizeParams, "hierarchies")
    max_suppression: float = reuse_param(GroupAnonymizeParams, "max_suppression")
    published: Path | None = reuse_param(GroupAnonymizeParams, "published")
    domains: Path | None = reuse_param(GroupAnonymizeParams, "domains")
    id_column: str | None = reuse_param(GroupAnonymizeParams, "id_column")
    group_column: str = reuse_param(GroupAnonymizeParams, "group_column")
    iterations: int = param(
        20_000, label="Iterations", minimum=2, maximum=100_000_000, step=1000, log_scale=True,
        section=SECTION_SAMPLER,
        tooltip="Sweeps of the sampler per chain, burn-in included. One sweep redraws the population "
                "parameters and every hidden value of the table once. The paper used 100,000.")
    burn_in: int = param(
        10_000, label="Burn-in", minimum=0, maximum=100_000_000, step=1000, section=SECTION_SAMPLER,
        tooltip="First sweeps of every chain that are thrown away while the chain forgets its random start.")
    thinning: int = param(
        10, label="Thinning", minimum=1, maximum=10_000, section=SECTION_SAMPLER,
        tooltip="Keep one sweep in this many after burn-in for the estimates. Larger is faster, "
                "with fewer (but less correlated) samples.")
    chains: int = param(
        2, label="Chains", minimum=1, maximum=64, section=SECTION_SAMPLER,
        tooltip="Independent chains run side by side (one per core) and pooled. Different chains "
                "agreeing is evidence that the sampler has converged.")
    #: One seed for the whole run: Anatomy's draws and the sampler's chains (separate streams of it).
    seed: int = seed_param()
    prior_alpha: float = param(
        1.0, label="Prior α (sensitive)", minimum=1e-6, maximum=1e6, decimals=3, section=SECTION_SAMPLER,
        tooltip="Dirichlet prior on how common each sensitive value is, as pseudo-counts added to each value. "
                "1 = uniform, no prior knowledge.")
    prior_beta: float = param(
        1.0, label="Prior β (attributes)", minimum=1e-6, maximum=1e6, decimals=3, section=SECTION_SAMPLER,
        tooltip="Dirichlet prior on each quasi-identifier value given the sensitive value, as pseudo-counts. "
                "1 = uniform over the column's whole domain.")
    learner: str = param(
        "predictive", label="Learner estimate", choices=("predictive", "average"),
        choice_labels=("condition the learned joint distribution", "average of f(s | r, pi)"),
        advanced=True,
        tooltip="How p_L(s | r) is read off the learned model: conditioning the posterior predictive joint "
                "(reproduces the paper's Table III) or averaging the conditional over the chain (eq. 24).")
    proposal: str = param(
        "swap", label="Anatomy proposal", choices=("swap", "permutation"),
        choice_labels=("swap two rows of a group", "shuffle the whole group"), advanced=True,
        enabled_when=_VERTICAL,
        tooltip="How the sampler proposes a new pairing of sensitive values inside an Anatomy group. "
                "Swaps are accepted far more often.")
    moves_per_group: int = param(
        1, label="Proposals per group", minimum=1, maximum=1000, advanced=True, enabled_when=_VERTICAL,
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

    def group_params(self) -> GroupAnonymizeParams:
        """The group-anonymization recipe of the analysed release (the fields both classes declare)."""
        return GroupAnonymizeParams(**{f.name: getattr(self, f.name) for f in dataclasses.fields(GroupAnonymizeParams)
                                       if hasattr(self, f.name)})

    def check(self) -> None:
        validate(self.group_params())
        if self.burn_in >= self.iterations:
            raise ParameterError(f"Burn-in must be smaller than Iterations (got {self.burn_in:,} ≥ "
                                 f"{self.iterations:,})", name="burn_in")
        unknown = [c for c in self.known if self.qi and c not in self.qi]
        if unknown:
            raise ParameterError(f"The attacker can only know quasi-identifiers; {', '.join(unknown)} is not one",
                                 name="known")
