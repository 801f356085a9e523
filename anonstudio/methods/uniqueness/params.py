"""Parameters of the uniqueness curves (itemset uniqueness and person unicity vs m): the whole recipe of a run."""
from __future__ import annotations

from dataclasses import dataclass

from ...params import ParameterError, param, seed_param

__all__ = ["UniquenessParams", "MEASURES", "PROPOSALS", "EXPLANATION", "PERSON_EXPLANATION"]

#: The proposals of :class:`~anonstudio.samplers.mcmc_sampler.ItemsetSampler` (a test checks they agree),
#: written out so that reading the parameters imports no sampler and no kernel.
PROPOSALS = ("size-weighted", "uniform-record")

#: Plain-language meaning of the itemset-level curve (for tooltips and plot captions).
EXPLANATION = (
    "Uniqueness(m): of all combinations of m items that occur in the data, the share "
    "that belongs to exactly one person. An attacker who knows such a combination "
    "about someone can single that person out."
)

#: Plain-language meaning of the person-level curve.
PERSON_EXPLANATION = (
    "Unicity(m): chance that a person is unique given m of their items -- pick a person "
    "with at least m items at random and m of their items at random; how often does "
    "no one else have all m? This is the person-level measure of de Montjoye et al. It "
    "is a different quantity from itemset uniqueness: it weights each person equally, "
    "so combinations shared by many people are drawn more often, and Acs et al. point "
    "out that it therefore comes out lower than the share of unique itemsets."
)

MEASURES = ("both", "itemset", "person")


@dataclass(frozen=True)
class UniquenessParams:
    """Settings of the uniqueness curves (itemset uniqueness and person unicity vs m)."""

    measure: str = param("both", label="Measure", choices=MEASURES,
                         choice_labels=("Both curves", "Itemset uniqueness", "Person unicity"),
                         choice_tooltips=(EXPLANATION + " Then: " + PERSON_EXPLANATION, EXPLANATION,
                                          PERSON_EXPLANATION),
                         tooltip="Itemset uniqueness: the share of m-item combinations in the data held by one "
                                 "person. Person unicity: the chance that a person is unique given m of their "
                                 "items. They answer different questions; both are shown side by side.")
    max_m: int = param(5, label="Largest m", minimum=1, maximum=30, flag="--m", metavar="M",
                       tooltip="Compute uniqueness for itemsets of up to this many items (m = items the "
                               "attacker knows).")
    min_m: int = param(1, label="Smallest m", minimum=1, maximum=30, advanced=True,
                       tooltip="Start the curves at itemsets of this many items.")
    epsilon: float = param(0.01, label="Error ε", minimum=0.001, maximum=0.5, step=0.005, decimals=3,
                           tooltip="Sampled estimates are within ±ε of the true value (with confidence 1-δ). "
                                   "Halving ε needs four times as many samples.")
    delta: float = param(0.01, label="Failure chance δ", minimum=1e-6, maximum=0.5, step=0.005, decimals=4,
                         tooltip="Chance that a sampled estimate misses the ±ε band.")
    seed: int = seed_param(tooltip="Same seed, same samples: runs can be repeated exactly.")
    method: str = param("auto", label="Method", choices=("auto", "exact", "mcmc"),
                        choice_labels=("Automatic", "Exact (enumerate all)", "Sampling (MCMC)"),
                        choice_tooltips=("Count exactly when the records hold at most 'exact budget' "
                                         "combinations and the counting fits in memory; sample otherwise.",
                                         "Enumerate and count every m-item combination (exact, can be slow).",
                                         "Estimate from a uniform sample of itemsets (Algorithm 1's Markov "
                                         "chain), within ±ε with confidence 1-δ."),
                        tooltip="Exact counts every combination; sampling estimates from a uniform sample. "
                                "Automatic counts exactly when that is cheap enough (see exact budget).")
    exact_budget: int = param(100_000_000, label="Exact budget (combinations)", minimum=1,
                              maximum=1_000_000_000_000, log_scale=True, advanced=True,
                              enabled_when={"method": ("auto", "exact")},
                              tooltip="Count exactly only if the records hold at most this many m-item "
                                      "combinations in total (counting takes about 1 second per 15 million).")
    max_memory_gib: float | None = param(None, label="Exact memory limit (GiB)", minimum=0.001, maximum=4096.0,
                                         step=0.5, decimals=3, optional=True, advanced=True,
                                         none_means="a quarter of this computer's memory",
                                         flag="--max-memory", metavar="GIB",
                                         enabled_when={"method": ("auto", "exact")},
                                         tooltip="Exact counting sorts every combination in memory; refuse it (and "
                                                 "let Automatic sample instead) when it would need more than this. "
                                                 "Unset: a quarter of this computer's memory.")
    max_sample_factor: float = param(8.0, label="Sample budget ×", minimum=1.0, maximum=100.0, advanced=True,
                                     tooltip="When samples are correlated, keep sampling until they are worth "
                                             "as many independent ones as ε and δ ask for, up to this many times "
                                             "that number (1: never draw more).")
    proposal: str = param("size-weighted", label="Sampler proposal", choices=PROPOSALS, advanced=True,
                          choice_labels=("Records weighted by size (faster mixing)", "Records uniform (paper)"),
                          tooltip="How the sampler proposes itemsets. Both give uniform samples; weighting "
                                  "records by their number of combinations rejects fewer proposals.")

    def check(self) -> None:
        if self.min_m > self.max_m:
            raise ParameterError(f"Smallest m ({self.min_m}) is larger than largest m ({self.max_m})",
                                 name="min_m")
