"""Each family's example run on data read from a file (a project can only name data that has a file)."""
from __future__ import annotations

from pathlib import Path

import pytest

from anonstudio.data.datasets import ReadOptions, load_with_options, origin_of
from anonstudio.data.io import save_table, save_transactions
from anonstudio.data.samples import load_sample
from anonstudio.data.table import Table
from anonstudio.methods.contract import discover_methods

SPECS = discover_methods()
NAMES = sorted(SPECS)


def file_backed_example(spec, folder: Path):
    """The spec's example params on its example data written to ``folder`` and read back (with an origin).

    σ-k^m's example has item coordinates, which a plain file does not keep, so it runs on the bundled
    small city (also located) instead.
    """
    data, params = spec.example()
    if origin_of(data) is not None:
        return data, params
    if getattr(data, "coords", None) is not None:
        return load_sample("small-city"), params
    if isinstance(data, Table):
        path = folder / f"{spec.name}.csv"
        save_table(data, path)
        # A table whose column holds item sets (RT data) would be sniffed as set-valued data: say it is a table.
        table = load_with_options(path, ReadOptions(format="csv-table"))
        from anonstudio.data.datasets import table_with_roles

        return table_with_roles(table, {str(c): r.value for c, r in data.roles.items()}), params
    path = folder / f"{spec.name}.csv"
    save_transactions(data, path, format="csv-long")
    return load_with_options(path, ReadOptions(format="csv-long")), params


@pytest.fixture(scope="session")
def examples(tmp_path_factory) -> dict:
    """``{method: (spec, data, params)}`` with file-backed data, one folder for the session."""
    folder = tmp_path_factory.mktemp("examples")
    out = {}
    for name in NAMES:
        spec = SPECS[name]
        data, params = file_backed_example(spec, folder)
        out[name] = (spec, data, params)
    return out


@pytest.fixture
def cache(tmp_path):
    from anonstudio.studio.cache import ResultCache

    return ResultCache(tmp_path / "cache")
