"""What a backend cannot do is declared once, on the operation's record (``lacks=``).

The runtime error, the tests' expectations (tests/test_torch_composite.py) and the
support matrix's mark all read that declaration; these tests hold the three together.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import interop
from interop.backends import registry
from interop.errors import BackendLacksError
from interop.ops import TABLE

DECLARED = sorted((name, backend, why) for name, entry in TABLE.items()
                  for backend, why in entry.lacks.items())


def test_declarations_name_real_backends_and_say_why() -> None:
    assert DECLARED, "no declared gap: the matrix and tests would have nothing to read"
    for name, backend, why in DECLARED:
        assert backend in registry.BACKEND_NAMES, (name, backend)
        assert why and why[0].islower() and not why.endswith("."), (name, why)


@pytest.mark.parametrize("name, backend, why", DECLARED, ids=[f"{n}-{b}" for n, b, _ in DECLARED])
def test_a_declared_gap_raises_the_declared_reason(name, backend, why) -> None:
    pytest.importorskip(backend)
    be = registry.get_backend(backend)
    with pytest.raises(BackendLacksError) as info:  # before any argument is looked at
        TABLE[name].impl(be, None)
    assert why in str(info.value) and backend in str(info.value)
    assert isinstance(info.value, TypeError) and isinstance(info.value, NotImplementedError)


def test_through_the_public_surfaces_and_not_on_other_backends() -> None:
    pytest.importorskip("dask")
    torch = pytest.importorskip("torch")
    values = np.array([[4.0, 1.0], [1.0, 3.0]])
    lazy = interop.tensor(values, backend="dask")
    for call in (lambda t: interop.linalg_eigvals(t), lambda t: torch.linalg.eigvals(t),
                 lambda t: t.cummax(0)):
        with pytest.raises(BackendLacksError, match="dask backend"):
            call(lazy)
    np.testing.assert_allclose(np.sort(interop.linalg_eigvals(interop.tensor(values)).numpy()),
                               np.sort(torch.linalg.eigvals(torch.tensor(values)).numpy()))


def test_the_support_matrix_marks_declared_gaps() -> None:
    pytest.importorskip("dask")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    import support_matrix
    entry = TABLE["linalg_eigvals"]
    fn = support_matrix._interop_callable(entry)
    square = (np.eye(3) * 2,)
    assert support_matrix._cell(fn, square, "numpy", entry, []) == support_matrix.WORKS
    assert support_matrix._cell(fn, square, "dask", entry, []) == support_matrix.LACKS
    assert any("linalg\\_eigvals | dask | dask.array.linalg has no eigvals" in line
               for line in support_matrix._declared_gaps())
