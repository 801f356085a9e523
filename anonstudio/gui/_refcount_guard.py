"""Keep None, True and False alive under PySide6 6.12 on Python 3.11.

PySide6 6.12.0 returns ``None`` from every void C++ method (``setObjectName``,
``setGeometry``, ``setChecked`` ...) without taking a new reference, and does
the same with ``True``/``False`` on some paths. From Python 3.12 on these
singletons are immortal (PEP 683) and the missing reference is harmless; on
3.11 each call lowers their reference count by one, and after a few thousand
calls CPython aborts with "none_dealloc: deallocating None". Creating one
pyqtgraph PlotWidget alone costs about 270 references.

The guard raises the reference counts of these singletons by 2**40 once, at
import, which makes them practically immortal as on 3.12. It does nothing on
3.12+ or on debug builds (whose object header is laid out differently).
"""
from __future__ import annotations

import ctypes
import sys

__all__ = ["pin_singletons", "PIN"]

PIN = 1 << 40


def pin_singletons() -> bool:
    """Raise the reference counts of None, True, False; True if it did."""
    if sys.version_info >= (3, 12) or hasattr(sys, "gettotalrefcount"):
        return False
    for obj in (None, True, False):
        # ob_refcnt is the first field of every object in release builds.
        ctypes.c_ssize_t.from_address(id(obj)).value += PIN
    return True


_PINNED = pin_singletons()
