"""The result of a nonreciprocal-recoding run, complete or stopped between phases."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...data.io.record_labels import RecordLabels
from .cahd import CahdResult
from .metrics import QueryError
from .order import BIT_ORDER
from .publish import Published

__all__ = ["NonreciprocalResult", "PHASES"]

#: Phases in run order (keys of ``seconds`` and values of ``stage``).
PHASES = ("sort", "tsp", "graph", "assignments", "publish", "metrics")


@dataclass(eq=False)
class NonreciprocalResult:
    """Everything a run produced; fields of phases not reached are None.

    Attributes
    ----------
    complete
        True when every phase finished; a cancelled run returns the phases
        done so far with ``complete=False`` (and ``stage`` the last one done).
    m, mode
        Privacy level and ``"k"`` or ``"l"``.
    method
        How the graph was built: ``"ring"`` (k), ``"ring"`` or ``"greedy"`` (ℓ).
    order_kind
        ``"gray-tsp"`` or ``"gray"``.
    gray_order, order, ring_order
        Record ids by rank: plain Gray order, the order used (Gray or
        Gray-TSP), and the order the ring is built over (the label-spaced
        order for the ℓ ring; None for greedy ℓ).
    segments
        TSP segment boundaries (positions in the Gray order).
    graph
        ``(n, m)`` slots of each original's edges (the generalization graph).
    assignments
        ``(m, n)`` the extracted disjoint perfect matchings, record -> slot.
    chosen
        Index of the true assignment α among ``assignments``.
    slot_labels
        Published label code of every slot (the label of α⁻¹(j)), with labels.
    label_failures
        ℓ only: originals whose graph matches carry fewer than ℓ distinct
        published labels (always 0 for the ring; counted for greedy).
    cahd
        ℓ only, when asked for: the CAHD baseline (groups published by the
        same bit vote) on the same order, labels and seed; measured, never
        published.
    """

    complete: bool
    stage: str
    m: int
    mode: str
    method: str
    order_kind: str
    seed: int
    n_records: int
    n_items: int
    vocab: tuple[str, ...] = field(repr=False)
    record_names: tuple[str, ...] | None = field(default=None, repr=False)
    seg_min: int = 0
    seg_max: int = 0
    stopped_reason: str = ""
    gray_order: np.ndarray | None = field(default=None, repr=False)
    order: np.ndarray | None = field(default=None, repr=False)
    ring_order: np.ndarray | None = field(default=None, repr=False)
    segments: np.ndarray | None = field(default=None, repr=False)
    cut_hamming: int | None = None
    spacing: str | None = None
    hamming_before: int | None = None
    hamming_gray: int | None = None
    hamming_after: int | None = None
    hamming_ring: int | None = None
    graph: np.ndarray | None = field(default=None, repr=False)
    assignments: np.ndarray | None = field(default=None, repr=False)
    chosen: int | None = None
    published: Published | None = field(default=None, repr=False)
    labels: RecordLabels | None = field(default=None, repr=False)
    labels_file: Path | None = None
    include_assignment: bool = False
    slot_labels: np.ndarray | None = field(default=None, repr=False)
    label_failures: int | None = None
    error_rate: float | None = None
    empty_records: int | None = None
    query_error: QueryError | None = None
    walk_steps: list[int] = field(default_factory=list)
    walks: list[int] = field(default_factory=list)
    greedy_steps: list[int] = field(default_factory=list)
    greedy_abandoned: list[int] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    cahd: CahdResult | None = field(default=None, repr=False)

    # ----------------------------------------------------------- derived
    @property
    def alpha(self) -> np.ndarray | None:
        """The true assignment: record -> slot."""
        if self.assignments is None or self.chosen is None:
            return None
        return self.assignments[self.chosen]

    @property
    def l_diverse(self) -> bool | None:
        """ℓ only: every original's matches carry ℓ distinct published labels (None for k)."""
        if self.mode != "l" or self.label_failures is None:
            return None
        return self.label_failures == 0

    def record_name(self, u: int) -> str:
        """How outputs name record (and slot) ``u``: the dataset's identifier, or its number from 1."""
        return self.record_names[u] if self.record_names is not None else str(u + 1)

    # ----------------------------------------------------------- reports
    def to_json(self, include_audit: bool | None = None) -> dict:
        """The run's JSON contract.

        ``chosen_assignment`` (1-based; with GRAPH.csv it de-anonymizes
        everyone) is included when ``include_audit`` is True, or, when it is
        None, when the run's params asked for it.
        """
        if include_audit is None:
            include_audit = self.include_assignment
        doc: dict = {
            "complete": self.complete,
            "stage": self.stage,
            "stopped_reason": self.stopped_reason,
            "privacy": "k-anonymity" if self.mode == "k" else "l-diversity",
            self.mode: self.m,
            "m": self.m,
            "method": self.method,
            "order": self.order_kind,
            "bit_order": BIT_ORDER,
            "seed": self.seed,
            "records": self.n_records,
            "items": self.n_items,
            "segments": None,
            "hamming_before": self.hamming_before,
            "hamming_gray": self.hamming_gray,
            "hamming_after": self.hamming_after,
            "error_rate": self.error_rate,
            "empty_records": self.empty_records,
            "query_error": self.query_error.to_json() if self.query_error is not None else None,
            "walk_steps": int(sum(self.walk_steps)) if self.walk_steps else None,
            "walk_steps_per_round": [int(s) for s in self.walk_steps],
            "walks_per_round": [int(s) for s in self.walks],
            "labels": None,
            "seconds": {k: round(v, 4) for k, v in self.seconds.items()},
        }
        if self.segments is not None:
            sizes = np.diff(self.segments)
            doc["segments"] = {
                "count": int(len(sizes)), "seg_min": self.seg_min, "seg_max": self.seg_max,
                "smallest": int(sizes.min()) if len(sizes) else 0, "largest": int(sizes.max()) if len(sizes) else 0,
                "cut_hamming": self.cut_hamming, "sizes": [int(s) for s in sizes],
            }
        if self.labels is not None:
            doc["labels"] = {"file": str(self.labels_file) if self.labels_file is not None else None,
                             "distinct": self.labels.n_labels}
        if self.mode == "l":
            doc["l_method"] = self.method
            doc["label_failures"] = self.label_failures
            doc["l_diverse"] = self.l_diverse
            if self.method == "ring":
                doc["hamming_ring"] = self.hamming_ring
                doc["spacing"] = self.spacing
            else:
                doc["greedy_steps_per_round"] = [int(s) for s in self.greedy_steps]
                doc["greedy_abandoned_walks"] = [int(s) for s in self.greedy_abandoned]
        if self.mode == "l":
            doc["cahd_baseline"] = self.cahd_json()
        if include_audit:
            doc["chosen_assignment"] = None if self.chosen is None else int(self.chosen) + 1
        return doc

    def summary(self) -> dict[str, float]:
        """The scalars a comparison table needs (None where the phase was not reached)."""
        out = {
            "m": self.m,
            "error_rate": self.error_rate,
            "qe_type1": self.query_error.type1 if self.query_error is not None else None,
            "qe_type2": self.query_error.type2 if self.query_error is not None else None,
            "hamming_before": self.hamming_before,
            "hamming_gray": self.hamming_gray,
            "hamming_after": self.hamming_after,
            "walk_steps": int(sum(self.walk_steps)) if self.walk_steps else None,
        }
        if self.mode == "l":
            out["label_failures"] = self.label_failures
        if self.cahd is not None:
            out["cahd_error_rate"] = self.cahd.error_rate
            out["cahd_qe_type1"] = self.cahd.query_error.type1
            out["cahd_qe_type2"] = self.cahd.query_error.type2
        return {k: v for k, v in out.items() if v is not None}

    def cahd_json(self) -> dict | None:
        """The CAHD baseline's measures for the JSON (its time is under ``seconds``), or None."""
        c = self.cahd
        if c is None:
            return None
        sizes = c.group_sizes()
        return {"groups": c.n_groups, "largest_group": int(sizes.max()) if len(sizes) else 0,
                "error_rate": c.error_rate, "empty_records": c.empty_records, "query_error": c.query_error.to_json()}
