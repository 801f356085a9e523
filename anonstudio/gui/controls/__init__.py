"""Reusable controls of the studio, written once for every workbench; one module per kind of control.

* :mod:`.labels` — :func:`note_label`, :class:`Callout` (the coloured banner with a
  run's promise and check), :class:`ElidedLabel`, :class:`Collapsible` (a guide);
* :mod:`.layout` — :class:`BoundedArea`, :func:`narrow_combo`, :func:`splitter`;
* :mod:`.dialogs` — :func:`open_file_dialog`, :func:`save_file_dialog` with the
  studio's defaults, and :func:`fitting_size` for windows;
* :mod:`.files` — :class:`FileRow` (a file chooser), :class:`ColumnPathsEditor`
  (a file per column, e.g. hierarchies);
* :mod:`.columns` — :class:`ColumnCombo` / :class:`ColumnPicker`, one column / a
  ticked set of columns of the loaded table;
* :mod:`.levels` — :class:`LevelsTable`, per-level values (k and σ per itemset size ℓ);
* :mod:`.export` — :class:`ExportRow`, the save buttons of a method's exports;
* :mod:`.history` — :class:`HistoryBar`, the runs of a workbench;
* :mod:`.tables` — :func:`fill_measure_table`, a table of measures with their meanings as tooltips;
* :mod:`.style` — :data:`STYLE` and :data:`STATE_COLOURS`: the look (colours,
  spacing), applied once by the main window, so no widget carries an inline
  style sheet of its own.

How numbers read is not a control: :mod:`anonstudio.formatting` writes them,
for the GUI as for the CLI and the report.
"""
from __future__ import annotations

from .columns import ColumnCombo, ColumnPicker
from .dialogs import fitting_size, open_file_dialog, save_file_dialog
from .export import ExportRow
from .files import ColumnPathsEditor, FileRow
from .history import HistoryBar
from .labels import Callout, Collapsible, ElidedLabel, note_label
from .layout import BoundedArea, narrow_combo, splitter
from .levels import LevelsTable
from .style import STATE_COLOURS, STYLE
from .tables import fill_measure_table

__all__ = [
    "STYLE", "STATE_COLOURS", "Callout", "ElidedLabel", "Collapsible", "note_label", "BoundedArea", "narrow_combo",
    "splitter", "fitting_size", "open_file_dialog", "save_file_dialog", "FileRow", "ColumnPathsEditor",
    "ColumnCombo", "ColumnPicker", "LevelsTable", "ExportRow", "HistoryBar", "fill_measure_table",
]
