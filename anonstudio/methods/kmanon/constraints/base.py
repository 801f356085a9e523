"""What a constraint family and an error function must provide to Algorithm 2.

A *constraint* (the paper's set C of allowed generalizations) says which
merges are neighbour moves at a partition; an *error function* (the paper's
``err``) prices a merge. Both are specifications that can be shared between
trials; :meth:`bind` returns a per-run object tracking one
:class:`~anonstudio.methods.kmanon.partition_state.PartitionState`.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import numpy as np

from ..partition_state import PartitionState

__all__ = ["Move", "ConstraintRun", "Constraint", "ConstraintStateError", "ErrorRun", "ErrorFunction"]

#: Partitions merged by one neighbour step (sorted ids, at least two).
Move = tuple[int, ...]


class ErrorRun(ABC):
    """Error of the current generalization, kept up to date merge by merge."""

    def __init__(self, state: PartitionState, total_occurrences: float):
        self.state = state
        self.total = 0.0  # sum over item occurrences of their loss
        self.occurrences = max(float(total_occurrences), 1.0)

    @property
    def value(self) -> float:
        """The error, averaged over item occurrences (paper Section VI-C)."""
        return self.total / self.occurrences

    @abstractmethod
    def cost(self, move: Move) -> float:
        """Increase of :attr:`total` if ``move`` were applied."""

    def pair_costs(self, p: int, others: np.ndarray) -> np.ndarray:
        """Costs of merging ``p`` with each of ``others`` (override to vectorize)."""
        return np.array([self.cost(tuple(sorted((p, int(q))))) for q in others], dtype=np.float64)

    @abstractmethod
    def merged(self, move: Move, keep: int) -> None:
        """Update after ``state.merge(move)`` kept partition ``keep``."""

    def partition_area(self, p: int) -> float | None:
        """Area of partition ``p`` in m^2, if the error function knows areas."""
        return None


class ErrorFunction(ABC):
    """Specification of an error function; :meth:`bind` starts one run."""

    name = "error"
    unit = ""

    @abstractmethod
    def bind(self, state: PartitionState) -> ErrorRun: ...


class ConstraintStateError(ErrorFunction):
    """An error function that reads the per-run state of its constraint.

    The constraint run registers itself in ``state.extras[extra_key]``; the
    constraint must therefore be bound before the error function.
    """

    extra_key = ""
    constraint_name = ""

    def bind(self, state: PartitionState) -> ErrorRun:
        shared = state.extras.get(self.extra_key)
        if shared is None:
            raise ValueError(f"the {self.name} error needs the {self.constraint_name} constraint bound first")
        return self.make_run(state, shared)

    @abstractmethod
    def make_run(self, state: PartitionState, shared) -> ErrorRun: ...


class ConstraintRun(ABC):
    """The allowed neighbour moves of one run."""

    def __init__(self, state: PartitionState):
        self.state = state

    @abstractmethod
    def moves(self, p: int) -> Sequence[Move]:
        """Valid merges at partition ``p`` that reduce the number of partitions."""

    def merged(self, move: Move, keep: int) -> None:
        """Update after ``state.merge(move)`` kept partition ``keep``."""

    def best_move(self, parts: Sequence[int], error: ErrorRun) -> tuple[float, Move] | None:
        """The least-error move at any of ``parts`` (Algorithm 2, lines 13-14).

        Ties go to the lexicographically smallest move, so runs are reproducible.
        """
        best: tuple[float, Move] | None = None
        for p in parts:
            for move in self.moves(int(p)):
                cand = (float(error.cost(move)), move)
                if best is None or cand < best:
                    best = cand
        return best

    def exact_relax(self, data, ell: int, k: int, error: ErrorRun, limit: int,
                    cancelled: Callable[[], bool]) -> int:
        """After an exact level: undo generalization wherever k^ell-anonymity still holds.

        Optional; returns how many partitions were split (0: nothing to do, the default).
        ``limit`` caps the itemsets one test may count; ``cancelled`` is polled between tests.
        """
        return 0

    def partition_name(self, p: int) -> str | None:
        """A name for partition ``p`` in exports (None: numbered automatically)."""
        return None


class Constraint(ABC):
    """Specification of a constraint family; :meth:`bind` starts one run."""

    name = "constraint"

    @abstractmethod
    def bind(self, state: PartitionState) -> ConstraintRun: ...

    @abstractmethod
    def default_error(self) -> ErrorFunction:
        """The error function the paper pairs with this constraint family."""
