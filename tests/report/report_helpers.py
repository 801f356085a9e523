"""Helpers of the report tests: example runs on files of a saved project, a planted failed check, HTML parsing."""
from __future__ import annotations

import copy
from pathlib import Path

from anonstudio.data.datasets import open_dataset, table_with_roles
from anonstudio.data.io import save_table, save_transactions
from anonstudio.data.table import Table
from anonstudio.methods.contract import discover_methods
from anonstudio.studio.project import Project

METHODS = sorted(discover_methods())


def read_back(spec, folder: Path):
    """The spec's example data written to a file in ``folder`` and opened from it (so it has an origin)."""
    data, params = spec.example()
    if isinstance(data, Table):
        path = folder / f"{spec.name}.csv"
        save_table(data, path)
        roles = {str(column): role.value for column, role in data.roles.items()}
        return table_with_roles(open_dataset(path, format="csv-table"), roles), params
    # Item coordinates are not kept in a set file: σ-k^m then merges freely, still with the example's k, m and σ.
    path = folder / f"{spec.name}.sets.csv"
    save_transactions(data, path)
    return open_dataset(path), params


def make_project(folder: Path, methods=METHODS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    project = Project()
    for name in methods:
        data, params = read_back(discover_methods()[name], folder)
        project.set_step(name, params, project.add_dataset(data))
    return project.save(folder / "project.toml")


class PlantedCheck:
    """A verification that found the promise broken (a planted fault: the report must say NOT MET)."""

    complete = True
    passed = False

    def lines(self):
        return ["planted fault: 3 people match fewer than k published records"]

    def summary(self):
        return {"passed": 0.0}

    def to_json(self):
        return {"passed": False}


def not_met(run):
    """A copy of ``run`` whose independent check failed."""
    broken = copy.copy(run)
    broken.verification = PlantedCheck()
    return broken


def parse(html: str):
    """The page as a browser reads it: html5lib in strict mode raises on any parse error."""
    import html5lib

    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(html)


def text_of(element) -> str:
    return "".join(element.itertext())


def section(tree, index: int):
    """The element of run section ``index`` (0-based)."""
    found = [e for e in tree.iter("div") if e.get("id") == f"run-{index + 1}"]
    assert len(found) == 1
    return found[0]
