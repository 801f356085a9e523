"""What the uniform itemset samplers share: the eligible records and a pool of worker threads."""
from __future__ import annotations

import numpy as np

from ..data.transactions import TransactionData
from ..parallel import budget

__all__ = ["ThreadedItemsetSampler"]


class ThreadedItemsetSampler:
    """Base of the samplers over Omega^ell that run one numba kernel per thread.

    Parameters
    ----------
    data
        The dataset.
    ell
        Itemset size (>= 1).
    threads
        Chains or streams; as many worker threads run them as the studio's
        thread budget allows here (:mod:`anonstudio.parallel`). The samples
        depend on the streams, never on the threads.
    thread_name
        Prefix of the worker threads' names.
    """

    def __init__(self, data: TransactionData, ell: int, threads: int, thread_name: str):
        if ell < 1:
            raise ValueError("ell must be at least 1")
        self.data = data
        self.ell = int(ell)
        #: Records with at least ell items: the only ones that hold an ell-itemset.
        self.eligible = np.flatnonzero(data.lengths >= self.ell).astype(np.int32)
        self._pool = budget.pool(max(1, int(threads)), thread_name)

    @property
    def empty(self) -> bool:
        """True when no record has ell items, i.e. Omega^ell is empty."""
        return len(self.eligible) == 0

    def close(self) -> None:
        """Stop the worker threads (also done when the sampler is garbage collected)."""
        self._pool.shutdown(wait=False)

    def __del__(self):  # pragma: no cover - interpreter shutdown order varies
        try:
            self._pool.shutdown(wait=False)
        except Exception:  # noqa: BLE001 - nothing to report to at interpreter shutdown
            pass
