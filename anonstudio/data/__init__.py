"""Datasets: the data model, loaders and writers, hierarchies and geography."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import DataFormatError

__all__ = ["DataFormatError", "DatasetSummary", "RTData", "Role", "Table", "TransactionData"]

# The data model pulls in numpy, pandas and pyarrow; importing one light submodule (``data.errors``,
# ``data.io.atomic``) or the package for a ``--help`` must not, so the classes load on first use.
_LAZY = {"DatasetSummary": ".transactions", "TransactionData": ".transactions",
         "RTData": ".table", "Role": ".table", "Table": ".table"}

if TYPE_CHECKING:
    from .table import Role, RTData, Table
    from .transactions import DatasetSummary, TransactionData


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
