"""Parameters of RT-data anonymization (Poulis et al., ECML/PKDD 2013)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...params import ParameterError, param, validate

__all__ = ["RTParams", "BOUNDS", "MERGES", "ORDERS", "ITEM_ORDERS"]

BOUNDS = ("rum", "tum")
MERGES = ("r", "t", "rt")
ORDERS = ("btd", "ul")
ITEM_ORDERS = ("code", "frequency")


@dataclass(frozen=True)
class RTParams:
    """The whole recipe of one RT run: columns, hierarchies, files, bounds and seed.

    ``hierarchies`` pairs a column with a hierarchy file (``(("age",
    "age.csv"), ...)``); such columns and the ``categorical`` ones are
    generalized as categories, the other numeric columns as ranges. Without
    ``item_hierarchy`` a balanced tree of fan-out ``item_fanout`` is built
    over the items (``item_order``); with ``item_fanout = 0`` the items are
    generalized into free sets (no hierarchy).
    """

    qi: tuple[str, ...] = param((), label="demographic columns",
                                tooltip="The columns an attacker may know about a person (age, sex, race...). "
                                        "Their values are blurred into ranges or groups.")
    items_column: str = param("items", label="items column",
                              tooltip="The column holding each person's set of items (diagnoses, purchases).")
    hierarchies: tuple[tuple[str, Path], ...] = param((), label="column hierarchies",
                                                      tooltip="For a column, a file listing each value and the "
                                                              "groups above it (value;group;...;*). The column is "
                                                              "then generalized along that tree.")
    categorical: tuple[str, ...] = param((), label="coded columns",
                                         tooltip="Numeric columns whose numbers are codes (race 1-6), not "
                                                 "quantities: they are grouped as sets {1|2}, never as ranges.")
    item_hierarchy: Path | None = param(None, optional=True, label="item hierarchy",
                                        tooltip="A file grouping the items (code;chapter;...;*). Empty: a "
                                                "balanced tree is built from the items.")
    item_fanout: int = param(5, label="built hierarchy fan-out", minimum=0, maximum=1000,
                             tooltip="Without an item hierarchy file: how many items or groups share a parent "
                                     "in the built tree. 0 builds none: items are then grouped freely into sets.")
    item_order: str = param("code", label="built hierarchy order", choices=ITEM_ORDERS,
                            choice_labels=("code order", "frequency order"),
                            tooltip="Group neighbouring codes (code order) or items of similar frequency.")
    sensitive_items: Path | None = param(None, optional=True, label="sensitive items",
                                         tooltip="A file listing sensitive items, one per line (a group label "
                                                 "stands for all items under it). They are published as they "
                                                 "are and never count as attacker knowledge.")
    k: int = param(25, label="k", minimum=2, maximum=1_000_000,
                   tooltip="Anyone who knows a person's demographics and up to m of their items matches at "
                           "least k people.")
    m: int = param(2, label="m (items the attacker knows)", minimum=1, maximum=6,
                   tooltip="Largest number of a person's items an attacker is assumed to know.")
    delta: float = param(0.65, label="loss bound δ", minimum=0.0, maximum=1.0, decimals=4, step=0.01,
                         tooltip="δ caps how much the bounded side may be blurred (0 = not at all, 1 = "
                                 "completely); the other side then loses as little as possible.")
    bound: str = param("rum", label="bounded side", choices=BOUNDS,
                       choice_labels=("demographics (Rum ≤ δ)", "items (Tum ≤ δ)"),
                       tooltip="Which loss δ caps: the demographics' (NCP) or the items' (UL).")
    merge: str = param("rt", label="merge heuristic", choices=MERGES,
                       choice_labels=("similar demographics (R)", "similar items (T)", "both (RT)"),
                       tooltip="How clusters are merged: by similar demographics, similar items, or a "
                               "balance of both.")
    order: str = param("btd", label="item similarity", choices=ORDERS,
                       choice_labels=("bit-vector distance (fast)", "exact utility loss (slow)"),
                       advanced=True,
                       tooltip="How candidate merges are ranked by items: a fast distance between item "
                               "sets, or the exact loss after generalizing each candidate (slow baseline).")
    l: int | None = param(None, optional=True, label="ℓ (diversity)", minimum=2, maximum=1000,
                          tooltip="Also keep every sensitive item in at most 1/ℓ of the people an attacker "
                                  "could match. Needs a sensitive-items file.")
    queries: Path | None = param(None, optional=True, label="query workloads",
                                 tooltip="A JSON file of count queries to measure accuracy on. Empty: "
                                         "workloads are drawn from the data with the seed.")
    n_queries: int = param(100, label="queries per workload", minimum=1, maximum=100_000, advanced=True,
                           tooltip="How many count queries each generated workload holds.")
    seed: int = param(1, label="seed", minimum=0, maximum=2**63 - 1,
                      tooltip="Same seed, same result.")

    def check(self) -> "RTParams":
        """Validate ranges and the rules between fields; return self."""
        validate(self)
        if not self.qi:
            raise ParameterError("name at least one demographic column", name="qi")
        if len(set(self.qi)) != len(self.qi):
            raise ParameterError("a demographic column is listed twice", name="qi")
        if self.items_column in self.qi:
            raise ParameterError(f"{self.items_column!r} cannot be both the items column and a demographic "
                                 "column", name="items_column")
        named = [c for c, _ in self.hierarchies]
        if len(set(named)) != len(named):
            raise ParameterError("a column has two hierarchies", name="hierarchies")
        for column in [*named, *self.categorical]:
            if column not in self.qi:
                raise ParameterError(f"{column!r} is not a demographic column", name="hierarchies"
                                     if column in named else "categorical")
        if self.l is not None and self.sensitive_items is None:
            raise ParameterError("ℓ-diversity needs a sensitive-items file", name="l")
        return self
