"""The support matrix's headline counts each surface over its own operations, and they add up
to the table below it; "not run" and "torch limitation" are marks of their own."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import pytest

from interop.ops import TABLE

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import support_matrix as sm  # noqa: E402

PAGE = (ROOT / "docs" / "support-matrix.md").read_text(encoding="utf-8")


def _headline() -> dict[tuple[str, str], list[int]]:
    """(surface, backend) -> [operations, then one count per mark in MARKS order]."""
    rows = re.findall(r"^\| (interop|torch|NumPy|Array API) \| "
                      r"(numpy|dask|cupy|torch|jax|cubed) \| ([\d |]+)\|$",
                      PAGE, flags=re.M)
    return {(surface, be): [int(n) for n in counts.split("|")] for surface, be, counts in rows}


def _table_cells() -> list[dict[str, str]]:
    """Each operation row's cells, by surface."""
    rows = re.findall(r"^\| (?!operation )[^|]+ \| `[^|]*` \| ([^|]+) \| ([^|]+) \| ([^|]+) \| "
                      r"([^|]+) \|$", PAGE, flags=re.M)
    return [dict(zip(sm.SURFACES, (c.strip() for c in cells))) for cells in rows]


def test_table_has_a_row_per_operation() -> None:
    assert len(_table_cells()) == len(TABLE)


def _verified() -> list[str]:
    """The backends the committed page counts (the others' rows say they were not run)."""
    return [be for be in sm.BACKENDS
            if not re.search(rf"^\| interop \| {be} \| \d+ \| {sm.UNVERIFIED}", PAGE, flags=re.M)]


def test_headline_counts_match_the_table_rows() -> None:
    headline = _headline()
    assert set(headline) == {(s, b) for s in sm.SURFACES for b in _verified()}
    cells = _table_cells()
    for surface in sm.SURFACES:
        own = [row[surface] for row in cells if row[surface] != sm.ABSENT]
        for i, be in enumerate(sm.BACKENDS):
            if be not in _verified():
                continue
            marks = Counter(cell.split(" ")[i] for cell in own)
            operations, *counts = headline[surface, be]
            assert operations == len(own), (surface, be)
            assert counts == [marks[m] for m in sm.MARKS], (surface, be)
            assert sum(counts) == operations, (surface, be)  # one mark per operation


def test_each_surface_is_counted_over_its_own_operations() -> None:
    headline = _headline()
    torch_only = [e for e in TABLE.values() if not (e.function or e.method or e.inplace)]
    assert headline["interop", "numpy"][0] == len(TABLE) - len(torch_only)  # torch.lstm & co.
    assert headline["NumPy", "numpy"][0] < len(TABLE) // 2
    assert headline["Array API", "numpy"][0] < len(TABLE) // 2
    assert "/554" not in PAGE and f"/{len(TABLE)}" not in PAGE


def test_tally_skips_absent_cells() -> None:
    operations, marks = sm.tally([{"interop": "✓ ✗ ·", "NumPy": "—"}, {"interop": "† ⊘ ·"}])
    assert operations == Counter({"interop": 2})
    assert marks["interop", "numpy", "✓"] == marks["interop", "dask", "⊘"] == 1
    assert marks["interop", "cupy", "·"] == 2 and ("NumPy", "numpy", "—") not in marks


def test_a_torch_tensor_descriptor_is_a_torch_limitation() -> None:
    """torch.Tensor.view checks its self is a torch tensor before __torch_function__ runs."""
    torch = pytest.importorskip("torch")
    entry = TABLE["view"]
    assert sm._torch_callable(entry) is torch.Tensor.view
    args = sm.sample(entry)
    with pytest.raises(TypeError, match="descriptor"):
        sm._call(torch.Tensor.view, args, "numpy", entry.creation)
    assert sm._cell(torch.Tensor.view, args, "numpy", entry, []) == sm.TORCH_LIMIT
    assert sm._cell(sm._interop_callable(entry), args, "numpy", entry, []) == sm.WORKS
    assert "| view |" in PAGE and re.search(r"^\| view \| .* \| † †( [·✓†])+ \|", PAGE, flags=re.M)


def test_operations_without_sample_arguments_are_not_run() -> None:
    name = next(n for n, e in TABLE.items() if sm.sample(e) is None and e.function)
    _, cells = sm.row(TABLE[name])
    assert cells["interop"] == " ".join([sm.NOT_RUN] * len(sm.BACKENDS))
    assert sm.RAISES not in "".join(cells.values())


def test_a_backend_this_build_cannot_run_is_not_counted_as_failing(monkeypatch) -> None:
    """Without a GPU the CuPy rows say "not verified in this build" rather than 0 of N
    working, and the page says where the GPU's figures are; with one, they are counted."""
    monkeypatch.setattr(sm, "_available", lambda be: be != "cupy")
    operations, marks = sm.tally([{"interop": "✓ ✓ · ✓ ✓ ✓"}])
    lines = sm._headline(operations, marks)
    cupy = [line for line in lines if "| cupy |" in line]
    assert cupy and all("not verified in this build (no GPU here)" in line for line in cupy)
    assert all(line.count("|") == lines[0].count("|") for line in lines)  # a well-formed table
    assert "| interop | numpy | 1 | 1 | 0 |" in "\n".join(lines)
    note = " ".join(sm._unverified_note())
    assert "**cupy**: no GPU here" in note and "benchmarks.md#on-a-gpu" in note
    monkeypatch.setattr(sm, "_available", lambda be: True)
    assert not any("not verified" in line for line in sm._headline(operations, marks))
    assert sm._unverified_note() == []


def test_the_committed_page_does_not_count_cupy_as_failing() -> None:
    """The committed page was built where CuPy could not run unless it counts CuPy's cells."""
    cupy = re.findall(r"^\| (?:interop|torch|NumPy|Array API) \| cupy \| .*$", PAGE, flags=re.M)
    assert len(cupy) == len(sm.SURFACES)
    for line in cupy:
        counts = [c.strip() for c in line.strip("|").split("|")[3:]]
        assert counts[0].startswith(sm.UNVERIFIED) or counts[0] != "0", line
