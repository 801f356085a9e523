"""Where the benchmarks find the large real datasets: ``../shared/data`` beside the repository.

Set ``ANONSTUDIO_BENCH_DATA`` to read them from elsewhere. Tests never read this folder.
"""
from __future__ import annotations

import os
from pathlib import Path

#: The benchmark data folder (its MANIFEST.md names each dataset's source and license).
BENCH_DATA = Path(os.environ.get("ANONSTUDIO_BENCH_DATA",
                                 Path(__file__).resolve().parents[2] / "shared" / "data"))
