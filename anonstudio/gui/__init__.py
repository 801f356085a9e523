"""The PySide6 + pyqtgraph studio.

Layout of this package:

* :mod:`.workers` — background jobs (shared thread pool, Qt progress, cancel);
* :mod:`.workbench` — base class of the centre tabs, with a worked example;
* :mod:`.workbenches` — one module per tab, discovered at start-up;
* :mod:`.param_panel` — parameter forms built from ``anonstudio.params``;
* :mod:`.plots` — exportable plots (PNG, SVG, CSV);
* :mod:`.main_window`, :mod:`.datasets_dock`, :mod:`.jobs_dock`, :mod:`.settings`;
* seeing the data: :mod:`.data_view` (every record or row of a dataset), :mod:`.import_dialog`
  (File > Open's preview), :mod:`.column_roles` (column summary and roles), :mod:`.side_by_side`
  (original vs published), over :mod:`.rows_model` (rows formatted only when shown) and
  :mod:`.chips` (items and generalized cells drawn as chips).

PySide6 6.12 must not be used on Python 3.11: it drops a reference to ``None``
on every void method call, and CPython 3.11 aborts once the count reaches zero
(``pyproject.toml`` excludes it there; ``tests/gui/test_qt_binding.py`` guards it).
"""
