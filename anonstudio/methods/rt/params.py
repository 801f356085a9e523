"""Parameters of RT-data anonymization (Poulis et al., ECML/PKDD 2013)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...params import ParameterError, param, seed_param
from ..contract import Stage

__all__ = ["RTParams", "BOUNDS", "MERGES", "ORDERS", "ITEM_ORDERS", "STAGES"]

BOUNDS = ("rum", "tum")
MERGES = ("r", "t", "rt")
ORDERS = ("btd", "ul")
ITEM_ORDERS = ("code", "frequency")


def _btd_weight(params: RTParams) -> float:
    """The item distances are built only for item-ranked merges in the fast order."""
    return 0.6 if params.merge != "r" and params.order == "btd" else 0.0


#: The steps of a run (the spec's ``stages``) and their shares of the progress bar: :func:`~.algorithm.run_rt`
#: reports through them, the independent check runs in the last.
STAGES = (
    Stage("prepare", "reading columns and hierarchies", 0.12),
    Stage("cluster", "clustering", 1.68),
    Stage("generalize", "generalizing items", 0.72),
    Stage("btd", "item distances", _btd_weight),
    Stage("merge", "merging", 2.58),
    Stage("are", "query accuracy", 0.3),
    Stage("verify", "independent check", 1.0),
)


@dataclass(frozen=True)
class RTParams:
    """The whole recipe of one RT run: columns, files, bounds and seed.

    The people come as a table whose ``items_column`` holds each person's
    items (``a;b;c``), or, with ``items_file``, as a table joined on
    ``person_column`` with a file of ``person,item`` rows. ``hierarchies``
    pairs a column with a hierarchy file; such columns and the
    ``categorical`` ones are generalized as categories, other numeric columns
    as ranges. Without ``item_hierarchy`` a balanced tree of fan-out
    ``item_fanout`` is built over the items (``item_order``); with
    ``item_fanout = 0`` items are generalized into free sets.
    """

    qi: tuple[str, ...] = param((), kind="columns", label="Demographic columns", section="Columns",
                                tooltip="The columns an attacker may know about a person (age, sex, race...). "
                                        "Their values are blurred into ranges or groups.")
    items_column: str = param("items", kind="column", label="Items column", section="Columns",
                              tooltip="The column holding each person's items, separated by ';' (diagnoses, "
                                      "purchases); with an items file, its item column.")
    items_file: Path | None = param(None, kind="path", optional=True, label="Items file", section="Columns",
                                    file_filter="CSV files (*.csv *.txt *.tsv);;All files (*)",
                                    tooltip="A second file with one row per person and item (person,item), "
                                            "joined to the table on the person id column. Codes -1 and -9 "
                                            "mean 'no item'; people without items are left out.",
                                    none_means="the items are in the table's items column")
    person_column: str = param("", kind="column", label="Person id column", section="Columns",
                               tooltip="With an items file: the column of the table that identifies a "
                                       "person; the items file uses the same ids.",
                               none_means="no items file")
    hierarchies: tuple[tuple[str, Path], ...] = param((), kind="column_paths", flag="--hierarchy",
                                                      label="Column hierarchies", section="Hierarchies",
                                                      tooltip="For a demographic column, a file listing each "
                                                              "value and the groups above it "
                                                              "(value;group;...;*). The column is then "
                                                              "generalized along that tree.")
    categorical: tuple[str, ...] = param((), kind="columns", label="Coded columns", section="Hierarchies",
                                         tooltip="Numeric columns whose numbers are codes (race 1-6), not "
                                                 "quantities: they are grouped as sets {1|2}, never as ranges.")
    item_hierarchy: Path | None = param(None, kind="path", optional=True, label="Item hierarchy",
                                        section="Hierarchies",
                                        tooltip="A file grouping the items (code;chapter;...;*). Empty: a "
                                                "balanced tree is built from the items.",
                                        none_means="built from the items (fan-out below)")
    item_fanout: int = param(5, label="Built hierarchy fan-out", minimum=0, maximum=1000, section="Hierarchies",
                             enabled_when={"item_hierarchy": (None,)},
                             tooltip="Without an item hierarchy file: how many items or groups share a parent "
                                     "in the built tree. 0 builds none: items are then grouped freely into sets.")
    item_order: str = param("code", label="Built hierarchy order", choices=ITEM_ORDERS, section="Hierarchies",
                            choice_labels=("code order", "frequency order"),
                            choice_tooltips=("Neighbouring codes share a parent (001-005, 006-010...).",
                                             "Items of similar frequency share a parent, so rare items are "
                                             "grouped with rare ones."),
                            enabled_when={"item_hierarchy": (None,)},
                            tooltip="How the built hierarchy groups the items.")
    sensitive_items: Path | None = param(None, kind="path", optional=True, label="Sensitive items",
                                         section="Privacy",
                                         tooltip="A file listing sensitive items, one per line (a group label "
                                                 "stands for all items under it). They are published as they "
                                                 "are and never count as attacker knowledge.",
                                         none_means="every item may be known to an attacker")
    k: int = param(25, label="k", minimum=2, maximum=1_000_000, section="Privacy",
                   tooltip="Anyone who knows a person's demographics and up to m of their items matches at "
                           "least k people.")
    m: int = param(2, label="m (items the attacker knows)", minimum=1, maximum=6, section="Privacy",
                   tooltip="Largest number of a person's items an attacker is assumed to know.")
    l: int | None = param(None, kind="int", optional=True, label="ℓ (diversity)", minimum=2, maximum=1000,
                          section="Privacy",
                          tooltip="Also keep every sensitive item in at most 1/ℓ of the people an attacker "
                                  "could match. Needs a sensitive-items file.",
                          none_means="no diversity requirement on sensitive items")
    delta: float = param(0.65, label="Loss bound δ", minimum=0.0, maximum=1.0, decimals=4, step=0.01,
                         section="Loss bound",
                         tooltip="δ caps how much the bounded side may be blurred (0 = not at all, 1 = "
                                 "completely); the other side then loses as little as possible. With the "
                                 "demographics bounded: δ caps how much the demographics may be blurred; the "
                                 "diagnoses (items) then lose as little as possible. Below the loss of the first "
                                 "clustering nothing can be published.")
    bound: str = param("rum", label="Bounded side", choices=BOUNDS, section="Loss bound",
                       choice_labels=("demographics (Rum ≤ δ)", "items (Tum ≤ δ)"),
                       choice_tooltips=("δ caps how much the demographics are blurred; the items then lose "
                                        "as little as possible.",
                                        "δ caps how much the items are blurred; the demographics then lose "
                                        "as little as possible."),
                       tooltip="Which loss δ caps: the demographics' (NCP) or the items' (UL).")
    merge: str = param("rt", label="Merge heuristic", choices=MERGES, section="Loss bound",
                       choice_labels=("similar demographics (R)", "similar items (T)", "both (RT)"),
                       choice_tooltips=("Merge clusters whose demographics are closest: best for questions "
                                        "about the items.",
                                        "Merge clusters whose items are closest: best for questions about "
                                        "the demographics.",
                                        "Balance both rankings."),
                       tooltip="How clusters are merged: by similar demographics, similar items, or a "
                               "balance of both.")
    order: str = param("btd", label="Item similarity", choices=ORDERS, advanced=True, section="Loss bound",
                       choice_labels=("bit-vector distance (fast)", "exact utility loss (slow)"),
                       enabled_when={"merge": ("t", "rt")},
                       tooltip="How candidate merges are ranked by items: a fast distance between item "
                               "sets, or the exact loss after generalizing each candidate (slow baseline).")
    queries: Path | None = param(None, kind="path", optional=True, label="Query workloads", section="Accuracy",
                                 file_filter="JSON (*.json);;All files (*)",
                                 tooltip="A JSON file of count queries to measure accuracy on. Empty: "
                                         "workloads are drawn from the data with the seed.",
                                 none_means="drawn from the data with the seed")
    n_queries: int = param(100, label="Queries per workload", minimum=1, maximum=100_000, advanced=True,
                           section="Accuracy", tooltip="How many count queries each generated workload holds.")
    seed: int = seed_param()

    def check(self) -> None:
        """Rules between fields (run by :func:`anonstudio.params.validate`)."""
        if not self.qi:
            raise ParameterError("name at least one demographic column", name="qi")
        if self.items_column in self.qi:
            raise ParameterError(f"{self.items_column!r} cannot be both the items column and a demographic "
                                 "column", name="items_column")
        named = [c for c, _ in self.hierarchies]
        for column in [*named, *self.categorical]:
            if column not in self.qi:
                raise ParameterError(f"{column!r} is not a demographic column",
                                     name="hierarchies" if column in named else "categorical")
        if self.l is not None and self.sensitive_items is None:
            raise ParameterError("ℓ-diversity needs a sensitive-items file", name="l")
        if self.items_file is not None and not self.person_column:
            raise ParameterError("an items file needs the person id column that joins it", name="person_column")
        if self.person_column and self.person_column in self.qi:
            raise ParameterError(f"{self.person_column!r} identifies people; it cannot be a demographic column",
                                 name="person_column")
