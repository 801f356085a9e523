"""A finished run's release as a Python object, converted from the family's result in memory.

``Run.release`` is what ``--out`` writes, without writing it: the table families give the rows their
CSV writer writes (:func:`~anonstudio.data.io.relational.frame_of_text_rows` types them as anonstudio's
CSV reader types a file, so ``release.to_csv(index=False)`` is the file), the set-valued families the
records their writer writes, with the items that occur in them. Each family that publishes a release builds
it in its spec (``MethodSpec.release_object``); ``tests/api`` checks that every such family does and that the
object matches the CLI's file.
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["release_object"]


def release_object(method_run: Any) -> Any:
    """The release of ``method_run`` as a DataFrame (tables) or a TransactionData (set-valued data).

    Built by the family's :meth:`~anonstudio.methods.contract.MethodSpec.release_object`; a set-valued release
    keeps only the items that occur in it, as its file does. Raises
    :class:`~anonstudio.methods.contract.NoRelease` (a NotImplementedError) for a family that makes no release.
    """
    from ..data.transactions import TransactionData

    release = method_run.spec.release_object(method_run)
    if isinstance(release, TransactionData):
        data_name = getattr(method_run.data, "name", "dataset")
        return _published_items(release, f"{data_name} ({method_run.spec.name} release)")
    return release


def _published_items(data: Any, name: str) -> Any:
    """``data`` with only the items that occur in a record (a file holds no others), renamed ``name``."""
    from ..data.transactions import TransactionData

    used = np.flatnonzero(np.bincount(data.indices, minlength=data.n_items) > 0)
    new_id = np.full(data.n_items, -1, dtype=np.int64)
    new_id[used] = np.arange(len(used))
    coords = data.coords[used] if data.coords is not None else None
    return TransactionData(data.indptr, new_id[data.indices], tuple(data.vocab[i] for i in used.tolist()),
                           coords=coords, name=name)
