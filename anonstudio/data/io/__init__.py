"""Loaders and writers for set-valued data, tables, coordinates and hierarchies.

Importing this package registers every format module (see
:mod:`anonstudio.data.io.registry`).
"""
from . import fimi  # noqa: F401  (registers the format)
from .api import load_any, load_transactions, save_transactions
from .atomic import atomic_write
from .hierarchies import load_hierarchy, save_hierarchy
from .registry import Format, formats, get_format, sniff_format
from .report import LoadReport, load_report
from .text import MissingFileError

__all__ = [
    "Format", "LoadReport", "MissingFileError", "atomic_write", "formats", "get_format", "load_any",
    "load_hierarchy", "load_report", "load_transactions", "save_hierarchy", "save_transactions",
    "sniff_format",
]
