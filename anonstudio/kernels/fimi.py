"""Kernel of the FIMI reader (:mod:`anonstudio.data.io.fimi`): integer items per line, parsed on the bytes.

One pass over a chunk of plain ASCII text, no temporary arrays: the items go
to ``values`` and the item count of every line to ``counts``. Anything beyond
the common case (a byte other than a digit, space, tab, comma or line feed;
a number of more than 18 digits, a lone carriage return) stops the kernel with a status, and the
line-by-line reader takes that chunk, naming the offending line.

Slow reference: tests/reference/io_reference.py::reference_fimi
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["parse_int_lines", "OK", "UNSUPPORTED", "TOO_LONG", "warm_up"]

OK = 0
UNSUPPORTED = 1
TOO_LONG = 2


@njit(nogil=True, cache=True)
def parse_int_lines(buf, values, counts):
    """Parse ``buf`` (uint8) into ``values`` (int64) and per-line item ``counts`` (int64).

    Items are separated by spaces, tabs or commas; lines end at ``\\n`` (or
    ``\\r\\n``; a lone ``\\r`` is left to the line reader) and a final line
    without one still counts. ``values`` needs room for
    ``(len(buf) + 1) // 2`` items and ``counts`` for one more than the line
    feeds. Returns ``(items, lines, status)``.
    """
    n = buf.shape[0]
    nv = 0
    line = 0
    count = 0
    cur = 0
    digits = 0
    for i in range(n):
        c = buf[i]
        if 48 <= c <= 57:
            cur = cur * 10 + (c - 48)
            digits += 1
            if digits > 18:
                return nv, line, TOO_LONG
        elif c == 32 or c == 9 or c == 44 or c == 10 or (c == 13 and i + 1 < n and buf[i + 1] == 10):
            if digits:
                values[nv] = cur
                nv += 1
                count += 1
                cur = 0
                digits = 0
            if c == 10:
                counts[line] = count
                line += 1
                count = 0
        else:
            return nv, line, UNSUPPORTED
    if digits:
        values[nv] = cur
        nv += 1
        count += 1
    if n > 0 and buf[n - 1] != 10:
        counts[line] = count
        line += 1
    return nv, line, OK


def warm_up() -> None:
    """Compile the kernel on two short lines."""
    buf = np.frombuffer(b"1 2\n3", dtype=np.uint8)
    parse_int_lines(buf, np.empty(3, dtype=np.int64), np.empty(2, dtype=np.int64))
