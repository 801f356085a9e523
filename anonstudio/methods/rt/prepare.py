"""RT-data encoded for the kernels: relational columns, item hierarchy, sensitive items.

Relational columns come in three kinds:

* ``numeric``: generalized to ranges ``[lo-hi]``; NCP ``(hi - lo) / span``.
* ``hierarchy``: values are leaves of a hierarchy file; a cell is the lowest
  common ancestor; NCP ``leaves under it / leaves of the hierarchy``.
* ``set``: coded or text columns without a hierarchy. **Reading**: the
  paper's Definition 3 lets a categorical value become "a collection of
  values", so a cell is the set of the cluster's values, written ``{a|b}``
  (``*`` when it is every value); NCP ``|set| / distinct values``. This loses
  less than lifting every mixed cell to ``*`` and is the same measure.

Every QI is weighted ``1/v`` (Rum in [0, 1]). A *group summary* (of a record
or a cluster) is kept as plain arrays: ``lo``/``hi`` per numeric column,
hierarchy node per hierarchy column, bitset words per set column.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ...data.errors import DataFormatError
from ...data.hierarchy import Hierarchy
from ...data.io import load_hierarchy
from ...data.io.rt import load_item_list
from ...data.item_hierarchy import balanced_hierarchy
from ...data.table import RTData, value_text
from ...data.transactions import TransactionData
from ...limits import check_work
from ...metrics.ncp import categorical_ncp, numeric_ncp
from ...params import ParameterError
from .params import RTParams

__all__ = ["Column", "Summaries", "RTProblem", "prepare"]


@dataclass
class Column:
    """One quasi-identifier as the method sees it."""

    name: str
    kind: str  # "numeric", "hierarchy" or "set"
    hierarchy: Hierarchy | None = None
    hierarchy_path: Path | None = None
    domain: tuple[str, ...] = ()  # set columns: the values' texts, in order
    span: float = 0.0  # numeric columns


@dataclass
class Summaries:
    """Generalized tuples of many groups: ``lo``/``hi`` (numeric), ``node`` (hierarchy), ``bits`` (set)."""

    lo: np.ndarray
    hi: np.ndarray
    node: np.ndarray
    bits: np.ndarray

    def take(self, rows: np.ndarray) -> Summaries:
        return Summaries(self.lo[rows].copy(), self.hi[rows].copy(), self.node[rows].copy(), self.bits[rows].copy())

    @classmethod
    def empty(cls, count: int, like: Summaries) -> Summaries:
        return cls(np.zeros((count, like.lo.shape[1])), np.zeros((count, like.hi.shape[1])),
                   np.zeros((count, like.node.shape[1]), dtype=np.int32),
                   np.zeros((count, like.bits.shape[1]), dtype=np.uint64))

    def arrays(self) -> tuple:
        """The tuple the kernels take."""
        return (self.lo, self.hi, self.node, self.bits)

    def __len__(self) -> int:
        return self.lo.shape[0]


@dataclass
class RTProblem:
    """Everything the kernels need, as plain arrays, plus what the writers need to print cells."""

    n: int
    columns: list[Column]
    # numeric
    num_cols: np.ndarray  # positions in ``columns``
    num_span: np.ndarray
    # hierarchy: global node space over all hierarchy columns
    hier_cols: np.ndarray
    anc: np.ndarray  # (nodes, height + 1) ancestor at each depth
    depth: np.ndarray
    leaves_under: np.ndarray  # float64 leaves under each node
    hier_total: np.ndarray  # leaves of each column's hierarchy
    hier_offset: np.ndarray  # first global node of each hierarchy column
    # set columns: bit words
    set_cols: np.ndarray
    word_offset: np.ndarray  # (n_set + 1,)
    set_total: np.ndarray
    records: Summaries  # one summary per record
    # items
    transactions: TransactionData
    sensitive: np.ndarray  # bool per item id
    item_hierarchy: Hierarchy | None
    item_hierarchy_built: bool
    item_leaf: np.ndarray  # item -> leaf node in item_hierarchy (or -1)
    node_items: np.ndarray  # |ũ|: non-sensitive data items under each item-hierarchy node (float64)
    ns_indptr: np.ndarray  # records' non-sensitive items (CSR)
    ns_indices: np.ndarray
    weights: float = 1.0
    warnings: list[str] = field(default_factory=list)

    @property
    def v(self) -> int:
        return len(self.columns)

    @property
    def n_words(self) -> int:
        return int(self.word_offset[-1])

    def rel(self) -> tuple:
        """What the relational kernels need to widen summaries (see ``kernels.rt_cluster``)."""
        return (self.anc, self.depth, self.leaves_under, self.word_offset)

    def ncp(self, extents: np.ndarray) -> np.ndarray:
        """NCP of generalized tuples from their extents (columns numeric, hierarchy, set), weights 1/v.

        Numeric cells lose ``(hi - lo) / span``; categorical cells the Xu et
        al. ``covered / total`` (0 for one value), which the worked example needs.
        """
        extents = np.asarray(extents, dtype=np.float64).reshape(-1, self.v)
        total = np.zeros(len(extents))
        at = 0
        for span in self.num_span.tolist():
            total += numeric_ncp(0.0, extents[:, at], span)
            at += 1
        for domain in [*self.hier_total.tolist(), *self.set_total.tolist()]:
            total += categorical_ncp(extents[:, at], int(domain), "xu")
            at += 1
        return total * self.weights


def _hierarchy_leaves(h: Hierarchy, values: pd.Series, column: str, path: Path | None) -> np.ndarray:
    leaf_of = {h.labels[v]: int(v) for v in h.leaves.tolist()}
    texts = [value_text(v) for v in values.tolist()]
    out = np.empty(len(texts), dtype=np.int32)
    for row, t in enumerate(texts):
        node = leaf_of.get(t)
        if node is None:
            raise DataFormatError(path, f"value {t!r} of column {column!r} (record {row + 1}) is not a leaf of "
                                        "this hierarchy")
        out[row] = node
    return out


def _packed_hierarchies(hiers: list[Hierarchy]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Global ancestor table, depths, leaf counts and offsets of several hierarchies."""
    height = max((h.height for h in hiers), default=0)
    total = sum(h.n_nodes for h in hiers)
    anc = np.zeros((max(total, 1), height + 1), dtype=np.int32)
    depth = np.zeros(max(total, 1), dtype=np.int32)
    leaves = np.ones(max(total, 1), dtype=np.float64)
    offsets = np.zeros(len(hiers) + 1, dtype=np.int64)
    at = 0
    for j, h in enumerate(hiers):
        table = h.ancestor_table() + at
        anc[at:at + h.n_nodes, :table.shape[1]] = table
        # Deeper columns than this hierarchy has repeat its last column (the node itself).
        anc[at:at + h.n_nodes, table.shape[1]:] = table[:, -1:]
        depth[at:at + h.n_nodes] = h.depth
        spans = h.leaf_spans
        leaves[at:at + h.n_nodes] = (spans[:, 1] - spans[:, 0]).astype(np.float64)
        offsets[j] = at
        at += h.n_nodes
    offsets[len(hiers)] = at
    return anc, depth, leaves, offsets


def _sensitive_mask(path: Path | None, data: TransactionData, h: Hierarchy | None) -> np.ndarray:
    mask = np.zeros(data.n_items, dtype=bool)
    if path is None:
        return mask
    index = {label: i for i, label in enumerate(data.vocab)}
    for label, line in load_item_list(path):
        if label in index:
            mask[index[label]] = True
            continue
        nodes = [v for v, text in enumerate(h.labels) if text == label] if h is not None else []
        if not nodes:
            raise DataFormatError(path, f"{label!r} is neither an item of the data nor a label of the item "
                                        "hierarchy", line)
        for node in nodes:
            for leaf in h.leaves_under(node).tolist():
                item = index.get(h.labels[leaf])
                if item is not None:
                    mask[item] = True
    return mask


def prepare(data: RTData, params: RTParams, *, item_hierarchy: Hierarchy | None = None) -> RTProblem:
    """Encode ``data`` for a run with ``params`` (already checked, columns included: ``spec.check_data``).

    ``item_hierarchy`` overrides the file/build choice (tests, a hierarchy
    already in memory). Raises DataFormatError for values missing from a
    hierarchy or bad files, ParameterError for missing values.
    """
    frame = data.table.frame
    n = data.table.n_rows
    if data.transactions.n_items == 0 or len(data.transactions.indices) == 0:
        where = f"the items file {Path(params.items_file).name}" if params.items_file is not None else \
            f"the items column {params.items_column!r}"
        raise ParameterError(f"{where} holds no item for any of the {n:,} people: there is nothing to anonymize",
                             name="items_file" if params.items_file is not None else "items_column")
    sizes = np.diff(data.transactions.indptr)
    if len(sizes):
        check_work("items per record", int(sizes.max()), where=f"record {int(np.argmax(sizes)) + 1}")
    hier_paths = {c: Path(p) for c, p in params.hierarchies}
    columns: list[Column] = []
    for c in params.qi:
        series = frame[c]
        if series.isna().any():
            row = int(np.flatnonzero(series.isna().to_numpy())[0])
            raise ParameterError(f"column {c!r} has missing values (first in record {row + 1}); remove those "
                                 "records or fill them in", name="qi")
        if c in hier_paths:
            h = load_hierarchy(hier_paths[c], name=c, distinct_labels=True)
            columns.append(Column(c, "hierarchy", hierarchy=h, hierarchy_path=hier_paths[c]))
        elif c in params.categorical or series.dtype.kind not in "iuf":
            texts = sorted({value_text(v) for v in series.unique().tolist()}, key=_domain_key)
            columns.append(Column(c, "set", domain=tuple(texts)))
        else:
            values = series.to_numpy(dtype=np.float64)
            columns.append(Column(c, "numeric", span=float(values.max() - values.min()) if n else 0.0))

    num_cols = np.asarray([j for j, col in enumerate(columns) if col.kind == "numeric"], dtype=np.int64)
    hier_cols = np.asarray([j for j, col in enumerate(columns) if col.kind == "hierarchy"], dtype=np.int64)
    set_cols = np.asarray([j for j, col in enumerate(columns) if col.kind == "set"], dtype=np.int64)
    hiers = [columns[j].hierarchy for j in hier_cols.tolist()]
    anc, depth, leaves, offsets = _packed_hierarchies(hiers)

    lo = np.zeros((n, len(num_cols)), dtype=np.float64)
    for a, j in enumerate(num_cols.tolist()):
        lo[:, a] = frame[columns[j].name].to_numpy(dtype=np.float64)
    node = np.zeros((n, len(hier_cols)), dtype=np.int32)
    for a, j in enumerate(hier_cols.tolist()):
        col = columns[j]
        node[:, a] = _hierarchy_leaves(col.hierarchy, frame[col.name], col.name, col.hierarchy_path) + offsets[a]
    word_offset = np.zeros(len(set_cols) + 1, dtype=np.int64)
    for a, j in enumerate(set_cols.tolist()):
        word_offset[a + 1] = word_offset[a] + (len(columns[j].domain) + 63) // 64
    bits = np.zeros((n, int(word_offset[-1])), dtype=np.uint64)
    for a, j in enumerate(set_cols.tolist()):
        col = columns[j]
        code_of = {t: i for i, t in enumerate(col.domain)}
        codes = np.asarray([code_of[value_text(v)] for v in frame[col.name].tolist()], dtype=np.int64)
        bits[np.arange(n), word_offset[a] + codes // 64] |= np.left_shift(np.uint64(1), (codes % 64).astype(np.uint64))

    transactions = data.transactions
    ih, built = _item_hierarchy(transactions, params, item_hierarchy)
    item_leaf = np.full(transactions.n_items, -1, dtype=np.int64)
    if ih is not None:
        leaf_of = {ih.labels[v]: int(v) for v in ih.leaves.tolist()}
        for i, label in enumerate(transactions.vocab):
            leaf = leaf_of.get(label)
            if leaf is None:
                raise _item_not_in_hierarchy(data, params, i, label, built)
            item_leaf[i] = leaf
    sensitive = _sensitive_mask(None if params.sensitive_items is None else Path(params.sensitive_items),
                                transactions, ih)
    present = transactions.item_frequencies > 0
    node_items = np.zeros(ih.n_nodes if ih is not None else 0, dtype=np.float64)
    if ih is not None:
        counted = np.zeros(ih.n_leaves + 1, dtype=np.float64)
        pos = ih.leaf_spans[item_leaf[present & ~sensitive], 0]
        np.add.at(counted, pos + 1, 1.0)
        cum = np.cumsum(counted)
        spans = ih.leaf_spans
        node_items = cum[spans[:, 1]] - cum[spans[:, 0]]
    keep = ~sensitive[transactions.indices]
    kept_before = np.concatenate([[0], np.cumsum(keep, dtype=np.int64)])
    ns_indptr = kept_before[transactions.indptr]
    ns_indices = np.ascontiguousarray(transactions.indices[keep], dtype=np.int32)
    return RTProblem(
        n=n, columns=columns,
        num_cols=num_cols, num_span=np.asarray([columns[j].span for j in num_cols.tolist()], dtype=np.float64),
        hier_cols=hier_cols, anc=anc, depth=depth, leaves_under=leaves,
        hier_total=np.asarray([h.n_leaves for h in hiers], dtype=np.float64), hier_offset=offsets,
        set_cols=set_cols, word_offset=word_offset,
        set_total=np.asarray([len(columns[j].domain) for j in set_cols.tolist()], dtype=np.float64),
        records=Summaries(lo, lo.copy(), node, bits),
        transactions=transactions, sensitive=sensitive, item_hierarchy=ih, item_hierarchy_built=built,
        item_leaf=item_leaf, node_items=node_items, ns_indptr=ns_indptr, ns_indices=ns_indices,
        weights=1.0 / max(len(columns), 1),
    )


def _item_not_in_hierarchy(data: RTData, params: RTParams, item: int, label: str, built: bool) -> DataFormatError:
    """The error for a data item the item hierarchy lacks, naming where the item occurs first.

    With an items file: its line; with an items column: the first record holding the item.
    """
    from ...data.io.report import load_report

    hierarchy = "the item hierarchy" if built or params.item_hierarchy is None else \
        f"the item hierarchy {Path(params.item_hierarchy).name}"
    reason = f"item {label!r} is not a value (first field of a row) of {hierarchy}; add it, or remove it from the data"
    if params.items_file is not None:
        line = load_report(data).details.get("item_lines", {}).get(label)
        return DataFormatError(Path(params.items_file), reason, line)
    t = data.transactions
    holders = np.flatnonzero(t.indices == item)
    where = ""
    if len(holders):
        record = int(np.searchsorted(t.indptr, holders[0], side="right"))  # 1-based: the record holding it
        where = f" (record {record}, column {params.items_column!r})"
    return DataFormatError(data.table.source, f"item {label!r}{where} is not a value (first field of a row) of "
                                              f"{hierarchy}; add it, or remove it from the data")


def _domain_key(text: str):
    """Numbers in numeric order before other texts (so codes 1..10 list as 1, 2, ..., 10)."""
    try:
        return (0, float(text), text)
    except ValueError:
        return (1, 0.0, text)


def _item_hierarchy(data: TransactionData, params: RTParams,
                    given: Hierarchy | None) -> tuple[Hierarchy | None, bool]:
    if given is not None:
        return given, False
    if params.item_hierarchy is not None:
        return load_hierarchy(params.item_hierarchy, name="items", distinct_labels=True), False
    if params.item_fanout == 0:
        return None, False
    if params.item_fanout == 1:
        raise ParameterError("the built hierarchy needs a fan-out of at least 2 (or 0 for none)",
                             name="item_fanout")
    present = np.flatnonzero(data.item_frequencies > 0)
    labels = [data.vocab[i] for i in present.tolist()]
    freq = data.item_frequencies[present]
    absent = [data.vocab[i] for i in np.flatnonzero(data.item_frequencies == 0).tolist()]
    h = balanced_hierarchy(labels + absent, params.item_fanout, order=params.item_order,
                           frequencies=np.concatenate([freq, np.zeros(len(absent))]), name="items")
    return h, True
