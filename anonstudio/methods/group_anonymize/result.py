"""What a group-anonymization run returns: the release and the cleartext rows it is aligned with."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...data.table import Table
from .release import GroupRelease

__all__ = ["GroupAnonymizeResult"]


@dataclass(eq=False)
class GroupAnonymizeResult:
    """A release and the table it is aligned with (rows with a missing value dropped).

    Attributes
    ----------
    table
        The cleartext rows the release covers, in release order.
    release
        None only when a run was cancelled before it had any valid release
        (Anatomy); a cancelled Mondrian or global-recoding run keeps a valid
        but coarser release with ``complete=False``.
    scheme
        The params' scheme (``published`` when the release was read from a CSV).
    dropped
        Rows of the input left out for a missing quasi-identifier or sensitive value.
    info
        What the scheme reports (groups, loss, suppressed rows...); None for a
        release read from a published CSV.
    text
        What was published, in one line.
    """

    table: Table
    release: GroupRelease | None
    scheme: str
    finished: bool = True
    dropped: int = 0
    seconds: float = 0.0
    info: dict[str, Any] | None = field(default_factory=dict)
    text: str = ""

    @property
    def imported(self) -> bool:
        """True when the release was read from a published CSV rather than made here."""
        return self.info is None

    @property
    def complete(self) -> bool:
        return self.release is not None and self.finished

    def to_json(self) -> dict:
        doc = {"rows": self.table.n_rows, "dropped_incomplete_rows": self.dropped, "scheme": self.scheme,
               "complete": self.complete, "seconds": round(self.seconds, 4)}
        if self.release is not None:
            doc.update({"groups": self.release.n_groups, "release_scheme": self.release.scheme,
                        "qi": list(self.release.qi), "sensitive": self.release.sensitive})
        if self.info is not None:
            doc["info"] = self.info
        return doc

    def summary(self) -> dict[str, float]:
        if self.release is None:
            return {}
        sizes = self.release.group_sizes()
        return {"groups": float(self.release.n_groups), "min_group_size": float(sizes.min()),
                "mean_group_size": float(sizes.mean()), "rows": float(self.table.n_rows)}
