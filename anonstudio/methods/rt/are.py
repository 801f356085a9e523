"""Average relative error (ARE) of COUNT queries on the published RT-data.

A query asks how many people have given values in some demographic columns
and *all* of some items. ARE = mean over a workload's queries of
``|actual − estimate| / actual``.

**Readings** (the paper gives neither):

* Generated workloads anchor every query on a random record (its values in
  ``x`` random columns, ``y`` of its items), so the actual count is positive.
  Three workloads by default: ``R2`` (2 columns), ``T2`` (2 items), ``R1T2``.
* The estimate assumes uniformity inside each published cell: a record
  counts ``Π 1/|cell|`` over the query's columns whose cell covers the value
  (``|cell|``: distinct values of the column in the data that the cell
  covers) times ``Π 1/|ũ|`` over the query's items that one of its published
  items covers (``|ũ|``: dataset items it stands for); 0 if any is not
  covered. The literal set semantics (a generalized item stands for any
  non-empty subset) would assume half of a generalized item present.

A queries file is JSON ``{"workloads": {name: [{"rel": {column: value},
"items": [label, ...]}, ...]}}``. Queries whose actual count is 0 are left
out of the mean (and counted).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...data.errors import DataFormatError
from ...data.io.text import read_text
from ...data.table import RTData, value_text
from ...jobs import derive_seed
from ...limits import check_work
from .prepare import RTProblem, Summaries
from .transaction import ClusterT

__all__ = ["Query", "load_workloads", "generate_workloads", "average_relative_errors"]


@dataclass(frozen=True)
class Query:
    """``COUNT(*) WHERE column = value ... AND items ⊆ T``."""

    rel: tuple[tuple[str, str], ...]
    items: tuple[str, ...]

    def to_json(self) -> dict:
        return {"rel": dict(self.rel), "items": list(self.items)}


def load_workloads(path: str | Path, columns: list[str]) -> dict[str, list[Query]]:
    """Read a queries JSON file (module docstring); columns must be demographic columns."""
    path = Path(path)
    try:
        doc = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise DataFormatError(path, f"not valid JSON ({exc.msg})", exc.lineno) from exc
    except RecursionError:
        raise DataFormatError(path, "not a queries file: values nested too deeply") from None
    except ValueError:  # an integer of thousands of digits (Python refuses to convert it)
        raise DataFormatError(path, "not a queries file: a number with too many digits") from None
    workloads = doc.get("workloads") if isinstance(doc, dict) else None
    if not isinstance(workloads, dict) or not workloads:
        raise DataFormatError(path, 'expected {"workloads": {name: [queries]}}')
    sizes = [len(q) for q in workloads.values() if isinstance(q, list)]
    check_work("queries", sum(sizes), where=f"{path.name} (--queries)")
    out: dict[str, list[Query]] = {}
    for name, queries in workloads.items():
        if not isinstance(queries, list):
            raise DataFormatError(path, f"workload {name!r} must be a list of queries")
        parsed = []
        for j, q in enumerate(queries):
            if not isinstance(q, dict) or not set(q) <= {"rel", "items"}:
                raise DataFormatError(path, f"query {j + 1} of {name!r} must be an object with 'rel' and 'items'")
            rel = q.get("rel", {}) or {}
            items = q.get("items", []) or []
            if not isinstance(rel, dict) or not isinstance(items, list):
                raise DataFormatError(path, f"query {j + 1} of {name!r}: 'rel' must be an object, 'items' a list")
            bad = [c for c in rel if c not in columns]
            if bad:
                raise DataFormatError(path, f"query {j + 1} of {name!r} names {bad[0]!r}, which is not a "
                                            "demographic column")
            if not rel and not items:
                raise DataFormatError(path, f"query {j + 1} of {name!r} has no condition")
            parsed.append(Query(tuple((c, value_text(v)) for c, v in rel.items()), tuple(str(i) for i in items)))
        out[str(name)] = parsed
    return out


def generate_workloads(data: RTData, columns: list[str], seed: int, n_queries: int = 100,
                       shapes: tuple[tuple[str, int, int], ...] = (("R2", 2, 0), ("T2", 0, 2), ("R1T2", 1, 2)),
                       ) -> dict[str, list[Query]]:
    """Workloads of ``n_queries`` anchored queries per ``(name, columns x, items y)`` shape."""
    frame = data.table.frame
    trans = data.transactions
    lengths = trans.lengths
    out: dict[str, list[Query]] = {}
    for name, x, y in shapes:
        x = min(x, len(columns))
        pool = np.flatnonzero(lengths >= y)
        if len(pool) == 0 or (x == 0 and y == 0):
            continue
        rng = np.random.default_rng(derive_seed(seed, "rt-queries", name))
        queries = []
        for _ in range(n_queries):
            u = int(pool[rng.integers(len(pool))])
            cols = [columns[j] for j in sorted(rng.choice(len(columns), size=x, replace=False).tolist())] if x else []
            items = trans.record(u)
            picked = sorted(rng.choice(len(items), size=y, replace=False).tolist()) if y else []
            queries.append(Query(tuple((c, value_text(frame[c].iloc[u])) for c in cols),
                                 tuple(trans.vocab[int(items[j])] for j in picked)))
        out[name] = queries
    return out


class _Estimator:
    """Per-cluster lookups shared by all queries of a run (built from the clusters' summaries and T)."""

    def __init__(self, problem: RTProblem, data: RTData, assignment: np.ndarray, summaries: Summaries,
                 tres: list[ClusterT]):
        self.problem, self.data = problem, data
        self.assignment = np.asarray(assignment, dtype=np.int64)
        self.summaries = summaries
        self.n_clusters = len(summaries)
        frame = data.table.frame
        self.texts = {col.name: np.asarray([value_text(v) for v in frame[col.name].tolist()], dtype=object)
                      for col in problem.columns}
        self.kind_at: dict[str, tuple[str, int, int]] = {}
        for kind, cols in (("numeric", problem.num_cols), ("hierarchy", problem.hier_cols),
                           ("set", problem.set_cols)):
            for a, j in enumerate(cols.tolist()):
                self.kind_at[problem.columns[j].name] = (kind, a, j)
        # distinct data values: sorted numbers per numeric column; per hierarchy node, data values under it
        self.numbers = {name: np.unique(frame[name].to_numpy(dtype=np.float64))
                        for name, (kind, _, _) in self.kind_at.items() if kind == "numeric"}
        self.values_under = np.zeros(problem.anc.shape[0], dtype=np.float64)
        for a in range(len(problem.hier_cols)):
            for leaf in np.unique(problem.records.node[:, a]).tolist():
                for d in range(problem.depth[leaf] + 1):
                    self.values_under[problem.anc[leaf, d]] += 1.0
        trans = data.transactions
        self.item_of = {label: i for i, label in enumerate(trans.vocab)}
        self.occ_record = np.repeat(np.arange(problem.n, dtype=np.int64), np.diff(trans.indptr))
        # The published item (head) of every occurrence: join (cluster, item) with the T results.
        n_items = max(trans.n_items, 1)
        keys = np.concatenate([c * n_items + t.items for c, t in enumerate(tres)]) if tres else np.zeros(0, np.int64)
        heads = np.concatenate([t.head for t in tres]) if tres else np.zeros(0, np.int64)
        order = np.argsort(keys)
        keys, heads = keys[order], heads[order]
        occ_keys = self.assignment[self.occ_record] * n_items + trans.indices
        at = np.minimum(np.searchsorted(keys, occ_keys), max(len(keys) - 1, 0))
        found = (keys[at] == occ_keys) if len(keys) else np.zeros(len(occ_keys), dtype=bool)
        self.occ_head = np.where(found, heads[at] if len(keys) else 0, trans.indices).astype(np.int64)
        # Generalized items: (cluster, head, size) and what each covers (hierarchy span, or its member items).
        tok_c, tok_head, tok_size, tok_node = [], [], [], []
        for c, t in enumerate(tres):
            uniq, first = np.unique(t.head, return_index=True)
            tok_c.append(np.full(len(uniq), c, dtype=np.int64))
            tok_head.append(uniq)
            tok_size.append(t.size[first])
            tok_node.append(t.node[first])
        def cat(parts: list, dt: type) -> np.ndarray:
            return np.concatenate(parts).astype(dt) if parts else np.zeros(0, dt)

        self.tok_c, self.tok_head = cat(tok_c, np.int64), cat(tok_head, np.int64)
        self.tok_size, self.tok_node = cat(tok_size, np.float64), cat(tok_node, np.int64)
        self.mem_c = cat([np.full(len(t.items), c, dtype=np.int64) for c, t in enumerate(tres)], np.int64)
        self.mem_item = cat([t.items for t in tres], np.int64)
        self.mem_head = cat([t.head for t in tres], np.int64)
        self.mem_size = cat([t.size for t in tres], np.float64)
        self._item_cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def _rel_factor(self, column: str, value: str) -> np.ndarray:
        """Per cluster: 1/|cell| if its cell covers ``value``, else 0."""
        kind, a, j = self.kind_at[column]
        p, s = self.problem, self.summaries
        if kind == "numeric":
            try:
                x = float(value)
            except ValueError:
                return np.zeros(self.n_clusters)
            lo, hi = s.lo[:, a], s.hi[:, a]
            nums = self.numbers[column]
            count = np.searchsorted(nums, hi, side="right") - np.searchsorted(nums, lo, side="left")
            return np.where((lo <= x) & (x <= hi), 1.0 / np.maximum(count, 1), 0.0)
        col = p.columns[j]
        if kind == "hierarchy":
            try:
                leaf = col.hierarchy.leaf(value) + int(p.hier_offset[a])
            except KeyError:  # not a value of the tree
                return np.zeros(self.n_clusters)
            node = s.node[:, a]
            inside = p.anc[leaf, p.depth[node]] == node
            return np.where(inside, 1.0 / np.maximum(self.values_under[node], 1.0), 0.0)
        if value not in col.domain:
            return np.zeros(self.n_clusters)
        code = col.domain.index(value)
        words = s.bits[:, p.word_offset[a]:p.word_offset[a + 1]]
        inside = (words[:, code // 64] >> np.uint64(code % 64)) & np.uint64(1)
        count = np.asarray([sum(bin(int(w)).count("1") for w in row) for row in words.tolist()], dtype=np.float64)
        return np.where(inside.astype(bool), 1.0 / np.maximum(count, 1.0), 0.0)

    def _item_target(self, item: int) -> tuple[np.ndarray, np.ndarray]:
        """Per cluster: the generalized item (head) covering ``item`` (-1: none) and its size."""
        hit = self._item_cache.get(item)
        if hit is not None:
            return hit
        target = np.full(self.n_clusters, -1, dtype=np.int64)
        size = np.ones(self.n_clusters)
        h = self.problem.item_hierarchy
        if h is not None:
            pos = h.leaf_spans[self.problem.item_leaf[item], 0]
            spans = h.leaf_spans[np.maximum(self.tok_node, 0)]
            mask = (self.tok_node >= 0) & (spans[:, 0] <= pos) & (pos < spans[:, 1])
            target[self.tok_c[mask]] = self.tok_head[mask]
            size[self.tok_c[mask]] = self.tok_size[mask]
        else:
            mask = self.mem_item == item
            target[self.mem_c[mask]] = self.mem_head[mask]
            size[self.mem_c[mask]] = self.mem_size[mask]
        self._item_cache[item] = (target, size)
        return target, size

    def estimate(self, q: Query) -> tuple[float, float]:
        """(actual, estimated) count of ``q``."""
        n = self.problem.n
        actual = np.ones(n, dtype=bool)
        factor = np.ones(self.n_clusters)
        for column, value in q.rel:
            actual &= self.texts[column] == value
            factor *= self._rel_factor(column, value)
        est = factor[self.assignment]
        trans = self.data.transactions
        for label in q.items:
            item = self.item_of.get(label)
            if item is None:
                return 0.0, 0.0
            in_record = np.zeros(n, dtype=bool)
            in_record[self.occ_record[trans.indices == item]] = True
            actual &= in_record
            if self.problem.sensitive[item]:
                est = est * in_record
                continue
            target, size = self._item_target(item)
            hit = self.occ_head == target[self.assignment[self.occ_record]]
            has = np.zeros(n, dtype=bool)
            has[self.occ_record[hit]] = True
            est = est * np.where(has, 1.0 / size[self.assignment], 0.0)
        return float(actual.sum()), float(est.sum())


def average_relative_errors(problem: RTProblem, data: RTData, assignment: np.ndarray, summaries: Summaries,
                            tres: list[ClusterT],
                            workloads: dict[str, list[Query]]) -> tuple[dict[str, float], dict[str, int]]:
    """ARE per workload and the number of queries with a positive actual count it averages."""
    est = _Estimator(problem, data, assignment, summaries, tres)
    are: dict[str, float] = {}
    used: dict[str, int] = {}
    for name, queries in workloads.items():
        errors = []
        for q in queries:
            actual, estimate = est.estimate(q)
            if actual > 0:
                errors.append(abs(actual - estimate) / actual)
        if errors:
            are[name] = float(np.mean(errors))
        used[name] = len(errors)
    return are, used
