"""The large benchmark datasets (``../shared/data`` beside the repository), for the few slow tests that use
them when present. They skip without it: the suite itself needs only ``tests/data``."""
from __future__ import annotations

import os
from pathlib import Path

SHARED_DATA = Path(os.environ.get("ANONSTUDIO_BENCH_DATA",
                                  Path(__file__).resolve().parents[2] / "shared" / "data"))
