"""ℓ-diversity: eligibility, the label-spaced ring, and the published-label check.

The paper's greedy extraction (Alg. 2) makes the *index* labels of each
record's ℓ slots distinct, but the label published with slot ``j`` is that of
``α⁻¹(j)``, its preimage in the chosen assignment; for α other than the
identity those can repeat (implementation note, T-L1). The default method
here is the note's label-spaced ring: order the records so that every cyclic
window of ``2ℓ - 1`` records carries distinct labels, build the ring of
degree ℓ over that order and extract assignments by random closed walks. Any
assignment inside that ring moves record ``c_u`` to a slot ``c_{u+δ}`` with
``0 <= δ < ℓ``, so the preimages of record ``c_t``'s ℓ slots lie in the
window ``c_{t-ℓ+1} .. c_{t+ℓ-1}``: ℓ different records of one window, hence ℓ
different labels, whichever assignment is drawn.
"""
from __future__ import annotations

import numpy as np

from ...data.io.record_labels import RecordLabels
from ...data.transactions import TransactionData
from ...formatting import integer, percent
from ...kernels.nonreciprocal_diversity import LOCAL, MOST_REMAINING, spaced_order, swap_same_labels, windows_distinct
from ...params import ParameterError

__all__ = ["NotEligibleError", "check_eligible", "label_spaced_order", "tighten_spacing", "published_label_failures",
           "records_share", "SWAP_REACH", "SWAP_PASSES"]

#: Same-label swaps: copies tried on either side, and passes at most.
SWAP_REACH = 32
SWAP_PASSES = 20


class NotEligibleError(ParameterError):
    """The labels are too concentrated for the requested ℓ (the message names the label)."""

    def __init__(self, message: str):
        super().__init__(message, name="l")


def records_share(count: int, n: int) -> str:
    """``"12 of 100 records (12.0 %)"``."""
    return f"{integer(count)} of {integer(n)} records ({percent(count / max(n, 1))})"


def check_eligible(labels: RecordLabels, l: int, method: str) -> None:
    """Raise :class:`NotEligibleError` naming the label that makes the data ineligible.

    ``method="ring"`` needs every label on at most ``floor(n / (2ℓ - 1))``
    records (windows of ``2ℓ - 1`` distinct labels around the cycle);
    ``"greedy"`` and ``"cahd"`` need at most ``n / ℓ`` (ℓ-eligibility).
    """
    counts = labels.counts()
    n = int(counts.sum())
    top = int(np.argmax(counts)) if len(counts) else 0
    worst = int(counts[top]) if len(counts) else 0
    name = labels.names[top] if len(counts) else ""
    distinct = int(np.count_nonzero(counts))
    if method == "ring":
        w = 2 * l - 1
        if n < w:
            raise NotEligibleError(f"the diverse ring needs at least 2ℓ-1 = {w} records (got {n})")
        limit = n // w
        if worst > limit:
            best = max((x for x in range(2, l) if worst <= n // (2 * x - 1)), default=None)
            hint = f"ℓ = {best} is possible" if best else "no ℓ >= 2 is possible with this method"
            raise NotEligibleError(
                f"label {name!r} holds {records_share(worst, n)}; the diverse ring for ℓ = {l} allows at most "
                f"{limit:,} records per label (1/(2ℓ-1) of the data): {hint}")
    else:
        if distinct < l or worst * l > n:
            best = max((x for x in range(2, l) if worst * x <= n and distinct >= x), default=None)
            hint = f"ℓ = {best} is possible" if best else "no ℓ >= 2 is possible"
            raise NotEligibleError(
                f"data not ℓ-eligible: label {name!r} holds {records_share(worst, n)}, more than 1/ℓ = 1/{l}: {hint}")


def label_spaced_order(order: np.ndarray, labels: RecordLabels, l: int) -> tuple[np.ndarray, str]:
    """A version of ``order`` whose cyclic windows of ``2ℓ - 1`` records carry distinct labels.

    Walks ``order`` with a cool-down of ``2ℓ - 2`` positions per label, taking
    the earliest record whose placement keeps the rest feasible (see
    :mod:`anonstudio.kernels.nonreciprocal_diversity`); if that fails, the
    classic most-remaining-label greedy; as the last resort a column-wise
    block layout, valid for every eligible label distribution. Call
    :func:`check_eligible` first.

    Returns
    -------
    (order, how)
        The spaced order and which step produced it (``"local"``,
        ``"most-remaining"`` or ``"blocks"``).
    """
    order = np.ascontiguousarray(order, dtype=np.int64)
    n = len(order)
    w = 2 * l - 1
    codes = labels.codes
    for strategy, how in ((LOCAL, "local"), (MOST_REMAINING, "most-remaining")):
        out = spaced_order(order, codes, labels.n_labels, w, strategy)
        if len(out) == n:
            return out, how
    out = _block_layout(order, codes, labels.n_labels, w)
    if not windows_distinct(out, codes, labels.n_labels, w):  # cannot happen for eligible data
        raise NotEligibleError("the labels cannot be spaced for this ℓ")
    return out, "blocks"


def tighten_spacing(data: TransactionData, spaced: np.ndarray, labels: RecordLabels, l: int,
                    reach: int | None = None) -> np.ndarray:
    """The spaced order with records of one label swapped where that brings the ring's windows closer.

    The cost is the sum of Hamming distances between records less than ℓ
    positions apart (every pair inside a window of ℓ, the preimages of one
    slot). Swaps keep the label of every position, so the spacing (and the ℓ
    guarantee) is untouched; deterministic, no randomness.
    """
    out = np.array(spaced, dtype=np.int64)
    swap_same_labels(data.indptr, data.indices, out, labels.codes, labels.n_labels,
                     SWAP_REACH if reach is None else reach, SWAP_PASSES, max(1, l - 1))
    return out


def _block_layout(order: np.ndarray, codes: np.ndarray, n_labels: int, w: int) -> np.ndarray:
    """Copies of the labels, most frequent first, dealt into ``n // w`` blocks column by column.

    Block ``b`` takes the ``b``-th, ``(b + q)``-th, ... copy, so a label with
    at most ``q = n // w`` copies lands in distinct blocks of at least ``w``
    records, at least ``w`` apart around the cycle.
    """
    n = len(order)
    q = n // w
    counts = np.bincount(codes[order], minlength=n_labels)
    by_count = sorted(range(n_labels), key=lambda lab: (-counts[lab], lab))
    flat = np.concatenate([order[codes[order] == lab] for lab in by_count if counts[lab]])
    sizes = np.full(q, n // q, dtype=np.int64)
    sizes[: n % q] += 1
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    j = np.arange(n)
    out = np.empty(n, dtype=np.int64)
    out[starts[j % q] + j // q] = flat
    return out


def published_label_failures(neighbours: np.ndarray, slot_labels: np.ndarray, l: int) -> np.ndarray:
    """Per original: True when its graph matches carry fewer than ℓ distinct published labels."""
    lab = np.sort(slot_labels[neighbours], axis=1)
    distinct = 1 + np.count_nonzero(np.diff(lab, axis=1), axis=1) if lab.shape[1] else np.zeros(len(lab), int)
    return distinct < l
