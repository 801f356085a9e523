"""docs/examples/quickstart.ipynb runs top to bottom in a real Jupyter kernel (as a reader would run it)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "examples" / "quickstart.ipynb"


def test_the_quickstart_notebook_runs(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat", reason="nbformat is in the test extra (pip install -e '.[test]')")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is in the test extra (pip install -e '.[test]')")
    pytest.importorskip("ipykernel", reason="ipykernel is in the test extra (pip install -e '.[test]')")
    from nbclient.exceptions import CellExecutionError

    # The kernel is another process: it imports this checkout, and writes the notebook's files in tmp_path.
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    try:
        client.execute()
    except CellExecutionError:
        raise
    except Exception as exc:  # only a kernel that never started is a reason to skip (re-raised otherwise)
        if any(cell.get("execution_count") for cell in notebook.cells if cell.cell_type == "code"):
            raise
        pytest.skip(f"no Jupyter kernel could start here: {type(exc).__name__}: {exc}")
    outputs = {i: cell.outputs for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"}
    shown = [o for cells in outputs.values() for o in cells if o.output_type in ("display_data", "execute_result")]
    assert any("Independent check passed" in o.data.get("text/html", "") for o in shown)  # the run's _repr_html_
    assert (tmp_path / "release.dat").is_file() and (tmp_path / "kmanon.json").is_file()
