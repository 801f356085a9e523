"""Datasets: the data model, loaders and writers, hierarchies and geography."""
from .errors import DataFormatError
from .table import RTData, Role, Table
from .transactions import DatasetSummary, TransactionData

__all__ = ["DataFormatError", "DatasetSummary", "RTData", "Role", "Table", "TransactionData"]
