"""Loaders and writers for set-valued data, tables, coordinates and hierarchies.

Importing this package registers every format module (see
:mod:`anonstudio.data.io.registry`): ``fimi``, ``spmf-seq``, ``csv-long``,
``checkins``, ``csv-sets``, ``parquet`` (transactions) and ``csv-table``,
``parquet-table``, ``sheet-table`` (tables) and ``sheet-long``, ``sheet-sets``
(spreadsheets holding set-valued data).
"""
from . import csvsets, fimi, longform, parquet, relational, sheets, spmf  # noqa: F401  (register formats)
from .api import load_any, load_file, load_table, load_transactions, save_table, save_transactions
from .atomic import OutputPathError, OutputSet, atomic_write, check_output_path
from .coordinates import Coordinates, attach_coordinates, load_coordinates, save_coordinates
from .hierarchies import load_hierarchy, save_hierarchy
from .jsonfile import strict_json, write_json
from .record_labels import RecordLabels, load_record_labels  # noqa: F401  (nonreciprocal labels)
from .registry import Format, dialog_filters, formats, get_format, sniff_format
from .report import LoadReport, load_report
from .rt import load_rt_csv, load_rt_long, load_rt_pair  # noqa: F401  (RT-data: demographics plus a set of items)
from .text import MissingFileError

__all__ = [
    "Coordinates", "Format", "LoadReport", "MissingFileError", "OutputPathError", "OutputSet", "atomic_write",
    "check_output_path", "strict_json", "write_json", "attach_coordinates", "dialog_filters",
    "formats",
    "get_format", "load_any", "load_coordinates", "load_file", "load_hierarchy", "load_report", "load_table",
    "load_transactions", "save_coordinates", "save_hierarchy", "save_table", "save_transactions", "sniff_format",
]
