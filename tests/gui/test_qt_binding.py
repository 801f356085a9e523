"""The installed Qt binding must not leak references to None.

PySide6 6.12.0 drops one reference to ``None`` per void method call; on
Python 3.11 (where None is not immortal) the interpreter aborts after a few
thousand calls, i.e. a few minutes into any real session.
"""
import subprocess
import sys

import pytest

PROBE = """
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtWidgets import QApplication, QWidget
app = QApplication([])
w = QWidget()
before = sys.getrefcount(None)
for _ in range(500):
    w.setObjectName("probe")
print(sys.getrefcount(None) - before)
"""


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="None is immortal from Python 3.12 on")
@pytest.mark.slow
def test_void_qt_calls_keep_the_reference_count_of_none():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-500:]
    assert int(out.stdout.strip().splitlines()[-1]) >= 0
