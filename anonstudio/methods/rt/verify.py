"""Run the independent verifier (:mod:`anonstudio.verifiers.rt`) on a result, as an ANON.csv would be read."""
from __future__ import annotations

import numpy as np

from ...data.table import RTData
from ...jobs import Progress
from ...verifiers.rt import NotPublished, RTCheck, RTVerification, verify_published
from .export import anon_rows
from .result import RTResult

__all__ = ["verify_result"]


def verify_result(data: RTData, result: RTResult, progress: Progress | None = None) -> RTVerification | NotPublished:
    """Check ``result``'s published table against ``data``.

    The verifier reads the same cells an ANON.csv holds, the hierarchies the
    run used and the sensitive items, and compares its own Rum and Tum with
    the reported ones (to 1e-6). A run whose bound cannot be met publishes
    nothing: its outcome is :class:`~anonstudio.verifiers.rt.NotPublished`.
    """
    if result.feasible is False:
        return NotPublished(result.reason, details={"rum": result.rum, "tum": result.tum})
    p = result.params
    problem = result.problem
    vocab = problem.transactions.vocab
    check = RTCheck(
        qi=p.qi, items_column=p.items_column, k=p.k, m=p.m, l=p.l,
        # The trees the run read (immutable; the verifier would read the same files with the same reader):
        # reading them again took as long as the run's own reading on a large tree.
        hierarchies={c.name: c.hierarchy for c in problem.columns if c.kind == "hierarchy"},
        categorical=[c.name for c in problem.columns if c.kind == "set"],
        item_hierarchy=problem.item_hierarchy,
        sensitive=[vocab[i] for i in np.flatnonzero(problem.sensitive)],
        claimed_rum=result.rum, claimed_tum=result.tum,
    )
    header, rows = anon_rows(result)
    return verify_published(data, header, rows, check, progress)
