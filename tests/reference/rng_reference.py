"""Slow, obvious splitmix64 (Steele, Lea, Flood 2014) in plain Python integers, for ``kernels/rng.py``."""
from __future__ import annotations

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def splitmix64(state: int, count: int) -> tuple[list[int], int]:
    """The next ``count`` outputs from ``state`` and the state after them."""
    out = []
    for _ in range(count):
        state = (state + GOLDEN) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        out.append(z ^ (z >> 31))
    return out, state


def uniform(word: int) -> float:
    """The float in [0, 1) that a 64-bit output becomes (its top 53 bits)."""
    return (word >> 11) / float(1 << 53)
