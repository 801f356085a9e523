"""A finished run's release as a Python object, converted from the family's result in memory.

``Run.release`` is what ``--out`` writes, without writing it: the table families give the rows their
CSV writer writes (:func:`~anonstudio.data.io.relational.frame_of_text_rows` types them as anonstudio's
CSV reader types a file, so ``release.to_csv(index=False)`` is the file), the set-valued families the
records their writer writes, with the items that occur in them. One converter per family that publishes
a release; ``tests/api`` checks that every such family has one and that it matches the CLI's file.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["release_object", "CONVERTERS"]


def _frame(header: Any, rows: Any) -> Any:
    from ..data.io.relational import frame_of_text_rows

    return frame_of_text_rows(header, rows)


def _group_rows(release: Any, table: Any, params: Any) -> Any:
    from ..methods.group_anonymize.published_csv import release_rows

    return _frame(*release_rows(release, table, gid_column=params.group_column, id_column=params.id_column))


def _group_anonymize(run: Any) -> Any:
    return _group_rows(run.result.release, run.result.table, run.params)


def _threat(run: Any) -> Any:
    release = run.result.release  # the group release the threat analysis read
    return _group_rows(release.release, release.table, run.params)


def _nonreciprocal(run: Any) -> Any:
    from ..methods.nonreciprocal.export import published_rows

    return _frame(["record", "base", "distance", "threshold", "label"], published_rows(run.result))


def _rt(run: Any) -> Any:
    from ..methods.rt.export import anon_rows

    return _frame(*anon_rows(run.result))


def _kmanon(run: Any) -> Any:
    from ..methods.kmanon.export import anonymized_dataset

    return anonymized_dataset(run.result.data, run.result.final)


def _rho(run: Any) -> Any:
    return run.result.published


#: Family name -> ``convert(method_run)``: the release object of a run whose release export is offered.
CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "group-anonymize": _group_anonymize,
    "threat": _threat,
    "nonreciprocal": _nonreciprocal,
    "rt": _rt,
    "kmanon": _kmanon,
    "rho": _rho,
}


def release_object(method_run: Any) -> Any:
    """The release of ``method_run`` as a DataFrame (tables) or a TransactionData (set-valued data).

    Raises NotImplementedError for a family that writes a release but has no converter here.
    """
    name = method_run.spec.name
    convert = CONVERTERS.get(name)
    if convert is None:
        raise NotImplementedError(f"{name} writes a release file but the library API has no converter for it; "
                                  "add one to anonstudio/api/releases.py")
    release = convert(method_run)
    from ..data.transactions import TransactionData

    if isinstance(release, TransactionData):
        data_name = getattr(method_run.data, "name", "dataset")
        return _published_items(release, f"{data_name} ({name} release)")
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
