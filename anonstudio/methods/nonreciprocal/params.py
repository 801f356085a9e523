"""Parameters of nonreciprocal recoding (Xue, Karras, Raïssi, Vaidya, Tan, KDD 2012)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...params import ParameterError, param, seed_param

__all__ = ["NonreciprocalParams", "ORDERS", "L_METHODS"]

ORDERS = ("gray-tsp", "gray")
ORDER_LABELS = ("Gray order improved by TSP", "Gray order only")
L_METHODS = ("ring", "greedy")
L_METHOD_LABELS = ("label-spaced ring (guaranteed)", "paper's greedy extraction (checked, not guaranteed)")


@dataclass(frozen=True)
class NonreciprocalParams:
    """The whole recipe of a nonreciprocal-recoding run.

    Exactly one of ``k`` (k-anonymity) and ``l`` (l-diversity, needs
    ``labels``) is set. ``labels`` may also be given with ``k``: the release
    then carries each slot's label, without a diversity promise.
    """

    k: int | None = param(None, label="k", minimum=2, maximum=1_000_000, optional=True, section="Privacy",
                          tooltip="Each record is published so that it could be any of k people: every person's "
                                  "record matches at least k published records, each equally likely to be theirs.")
    l: int | None = param(None, label="ℓ", minimum=2, maximum=10_000, optional=True, section="Privacy",
                          tooltip="Each person could be any of ℓ published records, and those ℓ records carry ℓ "
                                  "different sensitive labels, so their label is hidden among ℓ. Needs a labels "
                                  "file.")
    labels: Path | None = param(None, label="Labels file", kind="path", optional=True, section="Privacy",
                                file_filter="CSV (*.csv *.tsv *.txt)",
                                tooltip="A CSV with the header record,label giving each record's sensitive label "
                                        "(record = its number in the dataset, from 1). Required for ℓ; with k the "
                                        "labels are published too, without a diversity promise.")
    order: str = param("gray-tsp", label="Record order", choices=ORDERS, choice_labels=ORDER_LABELS, section="Order",
                       tooltip="How similar records are brought next to each other before each is blended with "
                               "its neighbours. The TSP step shortens the distances in the Gray order and loses "
                               "less information; Gray only is faster.")
    seg_min: int = param(300, label="Smallest TSP segment", minimum=2, maximum=100_000, advanced=True, section="Order",
                         enabled_when={"order": ("gray-tsp",)},
                         tooltip="The Gray order is cut into segments of this many to 'largest TSP segment' "
                                 "records, each reordered on its own; cuts go where neighbours differ least.")
    seg_max: int = param(350, label="Largest TSP segment", minimum=2, maximum=100_000, advanced=True, section="Order",
                         enabled_when={"order": ("gray-tsp",)},
                         tooltip="Largest segment reordered at once. Larger segments may find shorter orders but "
                                 "take longer.")
    l_method: str = param("ring", label="ℓ method", choices=L_METHODS, choice_labels=L_METHOD_LABELS,
                          section="Privacy", enabled_when={"k": (None,)},
                          tooltip="Ring: records are spaced so that every person's ℓ candidates carry ℓ different "
                                  "labels whatever assignment is drawn (guaranteed). Greedy: the paper's method; "
                                  "it is checked afterwards and may leave some people with repeated labels.")
    tsp_kicks: int = param(100, label="TSP perturbations per segment", minimum=0, maximum=100_000, advanced=True,
                           section="Order", enabled_when={"order": ("gray-tsp",)},
                           tooltip="After the local search, the order of each segment is shaken this many times "
                                   "and searched again; the best is kept. More finds shorter orders, slower.")
    qe_in: int | None = param(None, label="Type I query size", minimum=1, maximum=50, optional=True,
                              advanced=True, section="Measures",
                              tooltip="Items a Type I test query requires (count of people having all of them). "
                                      "Empty: 3 on dense data, 1 on sparse data.")
    qe_ex: int | None = param(None, label="Type II query size", minimum=1, maximum=50, optional=True,
                              advanced=True, section="Measures",
                              tooltip="Items a Type II test query excludes (count of people having none of them). "
                                      "Empty: 4 on dense data, 5 on sparse data.")
    queries: int = param(500, label="Test queries per type", minimum=1, maximum=1_000_000, advanced=True,
                         section="Measures",
                         tooltip="Random count queries used to measure the query error of the release.")
    cahd_baseline: bool = param(True, label="Measure the CAHD baseline (ℓ)", advanced=True, section="Measures",
                                enabled_when={"k": (None,)},
                                tooltip="ℓ only: also group the same records with CAHD, the group-based method the "
                                        "paper compares with, publish those groups the same way (in memory, never "
                                        "saved) and report their error rate and query error next to this "
                                        "release's, so you see what the nonreciprocal release gains.")
    greedy_restarts: int = param(50, label="Greedy restarts per round", minimum=1, maximum=100_000, advanced=True,
                                 section="Privacy", enabled_when={"l_method": ("greedy",), "k": (None,)},
                                 tooltip="How often the greedy ℓ method may restart a stuck walk in one round before "
                                         "it gives up with 'data not ℓ-eligible'.")
    seed: int = seed_param(tooltip="Same seed, same release: the order, the assignments and the one drawn as the "
                                   "truth are all repeatable.")
    include_assignment: bool = param(False, label="Chosen assignment in the JSON (audit)", advanced=True,
                                     section="Audit",
                                     tooltip="Writes which of the assignments is the true one into the run's JSON. "
                                             "Together with the graph file this links every published record to "
                                             "its person: for auditors only, never next to a release.")
    threads: int | None = param(None, label="Threads", minimum=1, maximum=64, optional=True, advanced=True,
                                section="Order", none_means="the whole thread budget",
                                tooltip="TSP segments are reordered, and the check counts possible worlds, in "
                                        "parallel on at most this many threads, within the studio's thread budget "
                                        "(ANONSTUDIO_THREADS, or Tools › Settings). Unset: the whole budget. The "
                                        "result does not depend on it.")

    @property
    def m(self) -> int:
        """The privacy level: k or l."""
        return int(self.k if self.k is not None else self.l)  # type: ignore[arg-type]

    @property
    def mode(self) -> str:
        return "k" if self.k is not None else "l"

    def check(self) -> None:
        """Rules between fields (run by :func:`anonstudio.params.validate` after the ranges)."""
        if (self.k is None) == (self.l is None):
            raise ParameterError("Set exactly one of k (anonymity) and ℓ (diversity)",
                                 name="k" if self.k is None else "l")
        if self.l is not None and self.labels is None:
            raise ParameterError("ℓ-diversity needs a labels file (record,label)", name="labels")
        if self.order == "gray-tsp" and self.seg_min > self.seg_max:
            raise ParameterError(f"The smallest TSP segment ({self.seg_min}) is larger than the largest "
                                 f"({self.seg_max})", name="seg_min")
