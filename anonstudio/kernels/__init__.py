"""numba kernels: plain arrays in, plain arrays out. No pandas, no Qt, no Python objects."""
from __future__ import annotations

import numpy as np


def read_only(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a``, without a copy.

    numba compiles a kernel apart for read-only and writable arrays. A dataset loaded from a file has read-only
    arrays, one built in memory (a generator, a test) writable ones; a caller that passes the data's arrays
    through this gives the kernel one type whatever their origin, so only one variant is compiled (and warmed).
    """
    view = a.view()
    view.flags.writeable = False
    return view
