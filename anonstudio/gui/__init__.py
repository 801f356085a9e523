"""The PySide6 + pyqtgraph studio.

Layout of this package:

* :mod:`.workers` — background jobs (shared thread pool, Qt progress, cancel);
* :mod:`.workbench` — base class of the centre tabs, with a worked example;
* :mod:`.workbenches` — one module per tab, discovered at start-up;
* :mod:`.param_panel` — parameter forms built from ``anonstudio.params``;
* :mod:`.plots` — exportable plots (PNG, SVG, CSV);
* :mod:`.main_window`, :mod:`.datasets_dock`, :mod:`.jobs_dock`, :mod:`.settings`;
* :mod:`._refcount_guard` — works around a reference-count bug of PySide6 6.12
  on Python 3.11 (imported here so every GUI entry point gets it).
"""
from . import _refcount_guard  # noqa: F401,E402  (must run before widgets are made)
