"""Parameters of probabilistic k^m-anonymization (paper 000, Algorithm 2): the whole recipe of a run."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...params import ParameterError, param, seed_param
from .gamma import BOUND_EXPLANATION, BOUND_LABELS, BOUND_TIPS, BOUNDS

__all__ = ["KmAnonParams", "SAMPLERS", "CONSTRAINTS", "expand_levels"]

#: Uniform samplers over Omega^ell of the original data (line 8 of Algorithm 2).
SAMPLERS = ("independent", "mcmc")
SAMPLER_LABELS = ("independent (rejection)", "MCMC (Algorithm 1)")

#: Which partitions may merge. "auto": a hierarchy when one is given, else
#: touching towers when the items have coordinates, else any two.
CONSTRAINTS = ("auto", "contiguity", "hierarchy", "free")
CONSTRAINT_LABELS = ("automatic", "touching towers only", "cuts of an item hierarchy", "any two partitions")
CONSTRAINT_TIPS = (
    "A hierarchy file when one is given; touching towers when the items have coordinates; otherwise any two.",
    "Partitions are unions of touching Voronoi cells of the items' coordinates (cell towers): a published "
    "partition is one contiguous area. Error = distance to the partition's centre in metres.",
    "Partitions are nodes of an item hierarchy (e.g. product → category → department). "
    "Error = information loss of the tree nodes (NCP).",
    "Any two partitions may merge (no map, no hierarchy). Error = information loss (NCP).",
)
SECTION_MERGE = "Merge rule"
SECTION_LEVELS = "k and σ per itemset size ℓ"
SECTION_CHECK = "Independent check"


def expand_levels(values: tuple, m: int, default: float) -> list:
    """Per-level values for ℓ = 1..m: empty means ``default`` everywhere; a short list repeats its last value."""
    if not values:
        return [default] * m
    return (list(values) + [values[-1]] * m)[:m]


@dataclass(frozen=True)
class KmAnonParams:
    """What Algorithm 2 needs besides the data: privacy levels, merge rule, sampler, trials, check."""

    k: int = param(20, label="k", minimum=2, maximum=1_000_000,
                   tooltip="Every itemset an attacker may know must be shared by at least k people.")
    m: int = param(5, label="m (attacker knows up to m items)", minimum=1, maximum=30,
                   tooltip="Largest number of items of one person the attacker is assumed to know.")
    sigma: float = param(0.99, label="σ", minimum=0.5, maximum=1.0, decimals=4, step=0.001,
                         tooltip="Probability that a random itemset known to the attacker is k-anonymous. "
                                 "1 checks every itemset (exact, slow for large m).")
    k_levels: tuple[int, ...] = param((), label="k per level", kind="levels", element=int, minimum=2,
                                      maximum=1_000_000, section=SECTION_LEVELS, per_level=("m", "k"),
                                      tooltip="Optional k for itemset sizes ℓ = 1, 2, ... (e.g. 20,20,10). "
                                              "Missing levels repeat the last value; empty: k for all levels.")
    sigma_levels: tuple[float, ...] = param((), label="σ per level", kind="levels", element=float, minimum=0.5,
                                            maximum=1.0, section=SECTION_LEVELS, per_level=("m", "sigma"),
                                            tooltip="Optional σ for sizes ℓ = 1, 2, ... (e.g. 1,1,1,1,0.99: exact "
                                                    "for up to 4 items, probabilistic above). Empty: σ for all.")
    bound: str = param("conservative", label="Sample bound", choices=BOUNDS, choice_labels=BOUND_LABELS,
                       choice_tooltips=BOUND_TIPS, tooltip=BOUND_EXPLANATION)
    constraint: str = param("auto", label="Merge", choices=CONSTRAINTS, choice_labels=CONSTRAINT_LABELS,
                            choice_tooltips=CONSTRAINT_TIPS, section=SECTION_MERGE,
                            tooltip="Which items may be published together as one partition.")
    coords: Path | None = param(None, label="Item coordinates", kind="path", optional=True, section=SECTION_MERGE,
                                none_means="the dataset's own (if it has any)",
                                file_filter="Coordinates (*.csv *.tsv *.txt);;All files (*)",
                                tooltip="CSV item,x,y (metres) or item,lat,lon giving each item a place, for "
                                        "touching-towers merging and the map. Not needed when the dataset "
                                        "already has coordinates (the bundled city).")
    boundary: Path | None = param(None, label="Study area", kind="path", optional=True, section=SECTION_MERGE,
                                  none_means="the towers' buffered hull",
                                  file_filter="Polygons (*.geojson *.json *.wkt *.txt);;All files (*)",
                                  enabled_when={"constraint": ("auto", "contiguity")},
                                  tooltip="The polygon the Voronoi cells are cut to: GeoJSON (longitude/latitude) "
                                          "or WKT (metres), e.g. the city outline. Not set: the convex hull of the "
                                          "towers widened by the typical distance between neighbouring towers.")
    drop_missing: bool = param(False, label="Drop items without coordinates", section=SECTION_MERGE, advanced=True,
                               tooltip="Remove items that have no coordinates instead of refusing the data.")
    item_hierarchy: Path | None = param(None, label="Item hierarchy", kind="path", optional=True,
                                        none_means="no hierarchy",
                                        section=SECTION_MERGE, deprecated_flags=("--hierarchy",),
                                        file_filter="Hierarchy CSV (*.csv *.txt);;All files (*)",
                                        enabled_when={"constraint": ("auto", "hierarchy")},
                                        tooltip="A hierarchy CSV, one row per item: item, parent, grandparent, ... "
                                                "Partitions are then cuts of this tree.")
    sampler: str = param("independent", label="Itemset sampler", choices=SAMPLERS, choice_labels=SAMPLER_LABELS,
                         advanced=True,
                         choice_tooltips=("Exact, independent draws by rejection (about 10x faster on large data).",
                                          "The paper's Markov chain (Algorithm 1), with burn-in and thinning."),
                         tooltip="How itemsets are drawn uniformly from the original data.")
    trials: int = param(1, label="Trials (r)", minimum=1, maximum=1000,
                        tooltip="Independent randomized runs; the one with the least error is kept.")
    seed: int = seed_param()
    threads: int | None = param(None, label="Threads", minimum=1, maximum=64, optional=True, advanced=True,
                                none_means="the whole thread budget",
                                tooltip="Trials run in parallel on up to this many threads, within the studio's "
                                        "thread budget (ANONSTUDIO_THREADS, or Tools › Settings). Unset: the whole "
                                        "budget. The result does not depend on it.")
    exact_when_cheaper: bool = param(True, label="Exact when cheaper", advanced=True,
                                     tooltip="Check every itemset (σ = 1, a stronger guarantee) instead of "
                                             "sampling at levels where enumerating them costs less than "
                                             "drawing the γ samples.")
    exact_budget: int = param(250_000_000, label="Exact enumeration budget", minimum=1000, maximum=2_000_000_000,
                              advanced=True, log_scale=True,
                              tooltip="Most generalized itemsets a σ = 1 level may enumerate "
                                      "(8 bytes each: the default 250 million takes 2 GB); above it a σ = 1 "
                                      "level stops the run with an explanation.")
    verify_samples: int = param(20_000, label="Check: itemsets per size", minimum=0, maximum=10_000_000,
                                section=SECTION_CHECK,
                                tooltip="After the run an independent check draws this many random itemsets of "
                                        "each size from the original data and counts how many are shared by at "
                                        "least k people (small cases are enumerated). 0 skips the check: the "
                                        "release is then unverified.")

    def k_vector(self) -> list[int]:
        return [int(k) for k in expand_levels(self.k_levels, self.m, self.k)]

    def sigma_vector(self) -> list[float]:
        return [float(s) for s in expand_levels(self.sigma_levels, self.m, self.sigma)]

    def check(self) -> None:
        for name, values in (("k_levels", self.k_levels), ("sigma_levels", self.sigma_levels)):
            if len(values) > self.m:
                raise ParameterError(f"{len(values)} values per level given for m = {self.m}; give at most m",
                                     name=name)
        if self.coords is not None and self.constraint in ("hierarchy", "free"):
            # Two merge rules at once: the coordinates would be read and then ignored by the merging.
            raise ParameterError(f"Item coordinates only apply to touching-towers merging; the merge rule "
                                 f"'{self.constraint}' does not use them (leave the coordinates out or choose "
                                 "contiguity)", name="coords")
        if self.boundary is not None and self.constraint in ("hierarchy", "free"):
            raise ParameterError("A study area only applies to touching-towers merging", name="boundary")
        if self.constraint == "hierarchy" and self.item_hierarchy is None:
            raise ParameterError("Merging by hierarchy cuts needs an item hierarchy file", name="item_hierarchy")
        if self.drop_missing and self.coords is None:
            raise ParameterError("Dropping items without coordinates needs an item coordinates file",
                                 name="drop_missing")
        if self.sampler != "independent" and all(s >= 1.0 for s in self.sigma_vector()):
            raise ParameterError("The itemset sampler is not used when σ = 1 at every level (every itemset is "
                                 "checked)", name="sampler")
        if self.item_hierarchy is not None and self.constraint in ("contiguity", "free"):
            raise ParameterError(f"An item hierarchy is not used with the merge rule '{self.constraint}'",
                                 name="item_hierarchy")
