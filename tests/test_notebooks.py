"""Every notebook under notebooks/ runs top to bottom in a fresh kernel, and is committed stripped.

The notebooks assert their own results (against NumPy or torch), so a notebook
that runs is also a notebook that is right.  06 needs a GPU and skips its cells
cleanly without one, which this test exercises on machines without a GPU.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
EXPECTED = ["01-quickstart", "02-numpy-on-tensors", "03-torch-code-on-any-backend",
            "04-subclasses-and-hooks", "05-scale-out-with-dask", "06-gpu-with-cupy"]
BUDGET_S = 60  # each is written to run in well under 30 s; this allows for a loaded CI machine


def test_the_notebooks_are_all_there():
    assert [p.stem for p in NOTEBOOKS] == EXPECTED


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    dirty = [i for i, c in enumerate(nb.cells)
             if c.cell_type == "code" and (c.outputs or c.execution_count is not None)]
    assert not dirty, f"{path.name}: cells {dirty} have outputs; strip them before committing"


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_top_to_bottom(path):
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    nbclient.NotebookClient(nb, timeout=BUDGET_S, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    elapsed = time.perf_counter() - start
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors
    assert elapsed < BUDGET_S, f"{path.name} took {elapsed:.0f} s"
