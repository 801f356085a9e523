"""The outcome of an RT run: clusters, generalized cells and items, measures, timings."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...data.table import RTData, value_text
from .params import RTParams
from .prepare import RTProblem, Summaries
from .transaction import ClusterT

__all__ = ["RTResult", "relational_cells", "number_text"]


def number_text(x: float) -> str:
    """``19`` for 19.0, ``2.5`` for 2.5."""
    return value_text(float(x))


def relational_cells(problem: RTProblem, summaries: Summaries) -> list[tuple[str, ...]]:
    """The published relational tuple of every summary: ``[19-22]``, a label, ``{a|b}`` or ``*``."""
    out = []
    num_at = {int(j): a for a, j in enumerate(problem.num_cols.tolist())}
    hier_at = {int(j): a for a, j in enumerate(problem.hier_cols.tolist())}
    set_at = {int(j): a for a, j in enumerate(problem.set_cols.tolist())}
    for c in range(len(summaries)):
        row = []
        for j, col in enumerate(problem.columns):
            if j in num_at:
                a = num_at[j]
                lo, hi = summaries.lo[c, a], summaries.hi[c, a]
                row.append(number_text(lo) if lo == hi else f"[{number_text(lo)}-{number_text(hi)}]")
            elif j in hier_at:
                a = hier_at[j]
                node = int(summaries.node[c, a] - problem.hier_offset[a])
                row.append(col.hierarchy.labels[node])
            else:
                a = set_at[j]
                words = summaries.bits[c, problem.word_offset[a]:problem.word_offset[a + 1]]
                codes = [w * 64 + b for w, word in enumerate(words.tolist()) for b in range(64) if (word >> b) & 1]
                values = [col.domain[i] for i in codes]
                if len(values) == 1:
                    row.append(values[0])
                elif len(values) == len(col.domain):
                    row.append("*")
                else:
                    row.append("{" + "|".join(values) + "}")
        out.append(tuple(row))
    return out


@dataclass
class RTResult:
    """Result of :func:`anonstudio.methods.rt.run_rt`.

    Attributes
    ----------
    data
        The RT-data the run anonymized (a table joined with its items).
    feasible
        False: the bound δ cannot be met (the paper's *return false*; nothing
        may be published); None if the run was cancelled before it could tell.
    complete
        False if cancelled; the clusters are then a valid partial result.
    assignment
        Cluster of every record, numbered by first appearance in input order.
    summaries, cluster_ncp, tres
        Per final cluster: generalized tuple, its NCP, the T result.
    rum, tum
        NCP of the published demographics and UL of the published items
        (``tum`` is None when no T was computed, e.g. infeasible at once).
    initial_rum, initial_tum
        The same after Cluster.
    tum_trace, rum_trace
        Tum and Rum after each merge.
    are
        Average relative error per query workload.
    seconds
        Wall time per phase.
    """

    params: RTParams
    problem: RTProblem = field(repr=False)
    data: RTData = field(repr=False)
    feasible: bool | None
    reason: str
    complete: bool
    assignment: np.ndarray = field(repr=False)
    summaries: Summaries = field(repr=False)
    cluster_ncp: np.ndarray = field(repr=False)
    tres: list[ClusterT] = field(repr=False)
    rum: float
    tum: float | None
    initial_rum: float | None
    initial_tum: float | None
    merges: int = 0
    tum_trace: list[float] = field(default_factory=list)
    rum_trace: list[float] = field(default_factory=list)
    are: dict[str, float] = field(default_factory=dict)
    are_queries: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    # ---------------------------------------------------------------- views
    @property
    def n_clusters(self) -> int:
        return len(self.summaries)

    @property
    def cluster_sizes(self) -> np.ndarray:
        return np.bincount(self.assignment, minlength=self.n_clusters) if len(self.assignment) else np.zeros(0, int)

    @property
    def publishable(self) -> bool:
        """A table may be written: the bound holds and every cluster meets the privacy model."""
        return bool(self.feasible is not False and self.n_clusters > 0 and all(t.ok for t in self.tres))

    def cells(self) -> list[tuple[str, ...]]:
        """Published relational tuple of each cluster."""
        return relational_cells(self.problem, self.summaries)

    def token_labels(self, c: int) -> dict[int, str]:
        """Label of each generalized item of cluster ``c``, keyed by its head item id."""
        problem = self.problem
        vocab = problem.transactions.vocab
        t = self.tres[c]
        h = problem.item_hierarchy
        out: dict[int, str] = {}
        if h is not None:
            for head, node in zip(t.head.tolist(), t.node.tolist()):
                if head not in out:
                    out[head] = h.labels[node]
        else:
            groups: dict[int, list[int]] = {}
            for item, head in zip(t.items.tolist(), t.head.tolist()):
                groups.setdefault(head, []).append(item)
            for head, items in groups.items():
                out[head] = vocab[items[0]] if len(items) == 1 else "{" + "|".join(vocab[i] for i in items) + "}"
        return out

    def published_items(self) -> list[list[str]]:
        """Each record's published items: generalized items and sensitive items, in item order."""
        data = self.problem.transactions
        vocab = data.vocab
        sensitive = self.problem.sensitive
        out: list[list[str]] = [[] for _ in range(self.problem.n)]
        for c, rows in enumerate(self.cluster_rows()):
            t = self.tres[c]
            labels = self.token_labels(c)
            head_of = dict(zip(t.items.tolist(), t.head.tolist()))
            for u in rows.tolist():
                tokens: dict[int, str] = {}
                for item in data.record(u).tolist():
                    if sensitive[item]:
                        tokens[item] = vocab[item]
                    else:
                        head = head_of[item]
                        tokens[head] = labels[head]
                out[u] = [tokens[key] for key in sorted(tokens)]
        return out

    def cluster_rows(self) -> list[np.ndarray]:
        order = np.argsort(self.assignment, kind="stable")
        bounds = np.cumsum(self.cluster_sizes)[:-1]
        return np.split(order, bounds) if self.n_clusters else []

    # ----------------------------------------------------------------- JSON
    def to_json(self) -> dict:
        """The run's figures (NaN and infinities become null in ``data.io.jsonfile.strict_json``)."""
        p = self.params
        sizes = self.cluster_sizes
        return {
            "method": "rt",
            "k": p.k, "m": p.m, "delta": p.delta, "bound": p.bound, "merge": p.merge, "order": p.order,
            "l": p.l,
            "feasible": self.feasible,
            "reason": self.reason,
            "complete": self.complete,
            "rum": self.rum, "tum": self.tum, "initial_rum": self.initial_rum, "initial_tum": self.initial_tum,
            "clusters": self.n_clusters,
            "max_cluster_size": int(sizes.max()) if len(sizes) else 0,
            "min_cluster_size": int(sizes.min()) if len(sizes) else 0,
            "merges": self.merges,
            "tum_trace": list(self.tum_trace),
            "rum_trace": list(self.rum_trace),
            "are": dict(self.are),
            "are_queries": dict(self.are_queries),
            "seconds": {name: round(float(s), 4) for name, s in self.seconds.items()},
            "records": self.problem.n,
            "item_hierarchy": ("built" if self.problem.item_hierarchy_built else
                               "file" if self.problem.item_hierarchy is not None else "none"),
            "sensitive_items": int(self.problem.sensitive.sum()),
            "seed": p.seed,
            "warnings": list(self.warnings),
        }

    def summary(self) -> dict[str, float]:
        """The scalars a comparison table needs."""
        sizes = self.cluster_sizes
        out = {
            "rum": float(self.rum), "tum": float(self.tum) if self.tum is not None else float("nan"),
            "clusters": float(self.n_clusters), "max_cluster_size": float(sizes.max()) if len(sizes) else 0.0,
            "merges": float(self.merges), "feasible": float(bool(self.feasible)),
            "seconds": float(sum(self.seconds.values())),
        }
        out.update({f"are_{name}": float(v) for name, v in self.are.items()})
        return out
