"""Writing an RT run: the published table (ANON.csv) and the item hierarchy used (the run's JSON is the
contract's, :meth:`~anonstudio.methods.contract.MethodRun.to_json`).

ANON.csv has a header ``cluster,<QI columns>,<items column>`` and one row per
input record, in input order. Clusters are numbered from 1 in order of their
first person. Relational cells are ``[19-22]`` (a range),
a hierarchy label, ``{a|b}`` (a set of values) or ``*``; the items cell lists
the record's published items separated by ``;``: an item as it is, a
generalized item as its hierarchy label or ``{the items it stands for}``.
Labels with commas (ICD-9 ranges such as ``1,139``) are quoted.
"""
from __future__ import annotations

import csv
from pathlib import Path

from ...data.io import atomic_write, save_hierarchy
from .result import RTResult

__all__ = ["write_anon_csv", "write_item_hierarchy", "anon_rows"]


def anon_rows(result: RTResult) -> tuple[list[str], list[list[str]]]:
    """Header and rows of ANON.csv (clusters numbered from 1, as people read them)."""
    header = ["cluster", *[c.name for c in result.problem.columns], result.params.items_column]
    cells = result.cells()
    items = result.published_items()
    rows = [[str(c + 1), *cells[c], ";".join(items[u])] for u, c in enumerate(result.assignment.tolist())]
    return header, rows


def write_anon_csv(path: str | Path, result: RTResult) -> None:
    """Write the published table; refuses a result that may not be published."""
    if result.feasible is False:
        raise ValueError(f"nothing to publish: the run is infeasible ({result.reason})")
    if not result.publishable:
        raise ValueError("nothing to publish: some cluster does not meet the privacy model")
    header, rows = anon_rows(result)
    with atomic_write(path) as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def write_item_hierarchy(path: str | Path, result: RTResult) -> None:
    """Write the item hierarchy the run used (``leaf;parent;...;root``), e.g. a built one for a checker."""
    h = result.problem.item_hierarchy
    if h is None:
        raise ValueError("the run used no item hierarchy")
    save_hierarchy(h, path)
