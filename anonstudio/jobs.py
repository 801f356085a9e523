"""Qt-free job protocol: progress, partial results, cancel and seeds.

Every long computation in anonstudio takes a :class:`Progress` and works in
chunks. Between chunks it reports the fraction done, may publish a partial
result (for live plots) and asks whether it was cancelled. A cancelled method
returns what it has so far, marked incomplete; it never raises for a cancel.

The CLI wraps a tqdm bar in a Progress (``anonstudio.cli.progress``), the GUI a
Qt signal emitter (``anonstudio.gui.workers``); tests and scripts use
:class:`NullProgress` or :class:`RecordingProgress`.
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # imported where a seed is drawn: the CLI's parser and --help import this module
    import numpy as np

__all__ = [
    "Progress",
    "NullProgress",
    "RecordingProgress",
    "ForwardingProgress",
    "SubProgress",
    "PartialRelay",
    "CancelOnly",
    "Cancelled",
    "cancel_scope",
    "raise_if_cancelled",
    "ChunkSizer",
    "derive_seed",
    "kernel_seeds",
]


@runtime_checkable
class Progress(Protocol):
    """What a running method may tell its caller, and ask it."""

    def set(self, fraction: float, status: str = "") -> None:
        """Report the fraction done in [0, 1] and a short status line."""

    def partial(self, result: Any) -> None:
        """Publish a partial result (e.g. the points of a curve so far)."""

    def cancelled(self) -> bool:
        """True once the caller asked the method to stop."""


class NullProgress:
    """A Progress that ignores everything and is never cancelled."""

    def set(self, fraction: float, status: str = "") -> None:
        pass

    def partial(self, result: Any) -> None:
        pass

    def cancelled(self) -> bool:
        return False


@dataclass
class RecordingProgress:
    """A Progress that records what it is told; can cancel itself.

    Parameters
    ----------
    cancel_after_partials
        Report ``cancelled() == True`` once this many partial results arrived
        (None: never). Lets tests cancel deterministically mid-run.
    cancel_after_sets
        Likewise, counted in ``set`` calls.
    """

    cancel_after_partials: int | None = None
    cancel_after_sets: int | None = None
    fractions: list[float] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    partials: list[Any] = field(default_factory=list)
    cancel_requested: bool = False

    def set(self, fraction: float, status: str = "") -> None:
        self.fractions.append(float(fraction))
        self.statuses.append(status)

    def partial(self, result: Any) -> None:
        self.partials.append(result)

    def cancel(self) -> None:
        self.cancel_requested = True

    def cancelled(self) -> bool:
        if self.cancel_requested:
            return True
        if self.cancel_after_partials is not None and len(self.partials) >= self.cancel_after_partials:
            return True
        if self.cancel_after_sets is not None and len(self.fractions) >= self.cancel_after_sets:
            return True
        return False


class ForwardingProgress:
    """A Progress that passes everything to ``parent``: the base of every adapter.

    Subclasses override only what they change (a slice of the bar, a status
    prefix, wrapped partial results), so the forwarding is written once.
    """

    def __init__(self, parent: Progress):
        self.parent = parent

    def set(self, fraction: float, status: str = "") -> None:
        self.parent.set(fraction, status)

    def partial(self, result: Any) -> None:
        self.parent.partial(result)

    def cancelled(self) -> bool:
        return self.parent.cancelled()


class SubProgress(ForwardingProgress):
    """Maps a sub-task's [0, 1] onto the slice [start, stop] of a parent Progress.

    ``partials=False`` keeps the sub-task's partial results to itself (a sweep
    cell's run publishes results the sweep's viewer does not show).
    """

    def __init__(self, parent: Progress, start: float, stop: float, prefix: str = "", partials: bool = True):
        super().__init__(parent)
        self.start = float(start)
        self.stop = float(stop)
        self.prefix = prefix
        self.partials = partials

    def set(self, fraction: float, status: str = "") -> None:
        f = min(max(float(fraction), 0.0), 1.0)
        text = f"{self.prefix}{status}" if self.prefix else status
        self.parent.set(self.start + (self.stop - self.start) * f, text)

    def partial(self, result: Any) -> None:
        if self.partials:
            self.parent.partial(result)


class PartialRelay(ForwardingProgress):
    """Passes progress and cancel through; turns each partial result into ``wrap(partial)`` first.

    Lets a step of a larger run publish partial results of the whole run
    (e.g. one curve's points as a partial result holding every curve so far).
    """

    def __init__(self, parent: Progress, wrap: Any):
        super().__init__(parent)
        self.wrap = wrap

    def partial(self, result: Any) -> None:
        self.parent.partial(self.wrap(result))


class CancelOnly:
    """A Progress that reports nothing and is cancelled when ``cancelled()`` says so.

    For work whose progress nobody draws but whose cancel must get through:
    a sweep's cells on a thread pool (``CancelOnly(progress.cancelled)``), a
    task on a cluster worker reading a shared flag.
    """

    def __init__(self, cancelled: Any):
        self._cancelled = cancelled

    def set(self, fraction: float, status: str = "") -> None:
        pass

    def partial(self, result: Any) -> None:
        pass

    def cancelled(self) -> bool:
        return bool(self._cancelled())


class Cancelled(Exception):
    """A cancel seen by :func:`raise_if_cancelled` inside a :func:`cancel_scope`.

    For code with a fixed signature that cannot take a Progress (an export's
    writer, a file hash): the caller that opened the scope catches it.
    """


#: The cancel flag of the innermost :func:`cancel_scope` of this thread or task (None: nothing to poll).
_CANCEL_SCOPE: contextvars.ContextVar[Callable[[], bool] | None] = contextvars.ContextVar(
    "anonstudio_cancel_scope", default=None)


@contextlib.contextmanager
def cancel_scope(cancelled: Callable[[], bool] | None) -> Iterator[None]:
    """Make ``cancelled`` the flag that :func:`raise_if_cancelled` polls while the block runs.

    ``None`` leaves the enclosing scope's flag in force.
    """
    if cancelled is None:
        yield
        return
    token = _CANCEL_SCOPE.set(cancelled)
    try:
        yield
    finally:
        _CANCEL_SCOPE.reset(token)


def raise_if_cancelled() -> None:
    """Raise :class:`Cancelled` when the current :func:`cancel_scope`'s flag is set (cheap; poll per chunk)."""
    check = _CANCEL_SCOPE.get()
    if check is not None and check():
        raise Cancelled("cancelled")


class ChunkSizer:
    """Adapts a chunk size so that each kernel call takes about ``target`` seconds.

    Chunks of 50-200 ms keep progress smooth and cancel responsive without
    paying much Python overhead between numba calls.

    Examples
    --------
    >>> sizer = ChunkSizer(initial=1000)
    >>> n = sizer.next_size()
    >>> # ... run the kernel on n units, then:
    >>> sizer.done(n, seconds=0.01)
    """

    def __init__(self, initial: int = 1024, target: float = 0.1, minimum: int = 1, maximum: int = 1 << 30):
        self.size = max(int(initial), minimum)
        self.target = float(target)
        self.minimum = int(minimum)
        self.maximum = int(maximum)
        self._t0: float | None = None

    def next_size(self) -> int:
        self._t0 = time.perf_counter()
        return self.size

    def done(self, units: int, seconds: float | None = None) -> None:
        """Record that ``units`` took ``seconds`` (measured since next_size if None)."""
        if seconds is None:
            seconds = time.perf_counter() - (self._t0 or time.perf_counter())
        if units <= 0:
            return
        rate = units / max(seconds, 1e-6)
        # Grow at most 4x per step so one fast chunk (e.g. cache hits) cannot
        # schedule a chunk that runs for seconds.
        wanted = int(rate * self.target)
        self.size = int(min(max(wanted, self.minimum, self.size // 4), self.size * 4, self.maximum))


def _stream_word(part: int | str) -> int:
    """One spawn-key word of a stream part: an int as it is (mod 2³²), a name by a hash of all of it.

    Hashing the whole name keeps streams whose names share a prefix apart (``kmanon-exact`` and
    ``kmanon-sampler`` once shared a stream because only the first bytes were kept).
    """
    if isinstance(part, int):
        return int(part) & 0xFFFFFFFF
    digest = hashlib.blake2b(str(part).encode("utf-8"), digest_size=8, person=b"anonstudio-seed").digest()
    # Above 2**32, so a name never collides with an int part.
    return int.from_bytes(digest, "little") | (1 << 64)


def derive_seed(seed: int | None, *stream: int | str) -> int:
    """A 63-bit seed for one independent stream of a seeded computation.

    The same ``(seed, stream)`` always gives the same value; different streams
    (trials, chains, levels) are statistically independent. ``seed=None`` draws
    fresh entropy.
    """
    import numpy as np

    ss = np.random.SeedSequence(entropy=seed, spawn_key=tuple(_stream_word(s) for s in stream))
    return int(ss.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def kernel_seeds(seed: int | None, count: int, *stream: int | str) -> np.ndarray:
    """``count`` independent uint64 seeds for numba kernels (see ``kernels.rng``)."""
    import numpy as np

    base = derive_seed(seed, *stream)
    return np.random.SeedSequence(base).generate_state(count, dtype=np.uint64)
