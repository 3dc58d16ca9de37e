"""Names interop will remove warn on every spelling, say when they go and what to call
instead, and still compute what they computed (torch removed ``torch.qr`` and
``torch.cholesky`` in 2.14; interop's torch-like API follows)."""

from __future__ import annotations

import numpy as np
import pytest

import interop
from interop.ops.registry import TABLE
from tests.conftest import installed, to_numpy

DEPRECATED = sorted(name for name, record in TABLE.items() if record.deprecated)
A = np.array([[4.0, 2.0, 0.6], [2.0, 5.0, 1.0], [0.6, 1.0, 3.0]])  # symmetric positive definite
REFERENCE = {"qr": lambda a: np.linalg.qr(a), "cholesky": lambda a: (np.linalg.cholesky(a),)}


def test_the_deprecated_names_are_torchs_removed_ones():
    assert DEPRECATED == ["cholesky", "qr"]


def _spellings(name: str) -> dict:
    spellings = {"interop": lambda t: getattr(interop, name)(t),
                 "method": lambda t: getattr(t, name)()}
    if installed("torch"):
        import torch
        spellings["torch"] = lambda t: getattr(torch, name)(t)
    return spellings


@pytest.mark.parametrize("name", DEPRECATED)
@pytest.mark.parametrize("spelling", ["interop", "method", "torch"])
def test_every_spelling_warns_and_still_computes(name, spelling, backend):
    call = _spellings(name).get(spelling)
    if call is None:
        pytest.skip("needs torch")
    t = interop.tensor(A, backend=backend)
    if spelling == "torch" and _torch_removed(name):
        with pytest.raises(RuntimeError, match="removed"):  # before it dispatches, as for its own
            call(t)
        return
    with pytest.warns(interop.InteropDeprecationWarning,
                      match=rf"^{name} is deprecated: torch removed torch\.{name} in torch 2\.14, "
                            rf"and interop 0\.3\.0 removes it: use interop\.linalg_{name}\(A\)"):
        got = call(t)
    got = got if isinstance(got, tuple) else (got,)
    for mine, want in zip(got, REFERENCE[name](A)):
        np.testing.assert_allclose(np.abs(to_numpy(mine)), np.abs(want), rtol=1e-12, atol=1e-12)


def _torch_removed(name: str) -> bool:
    """The installed torch has removed ``torch.<name>`` (2.14 keeps a stub that raises)."""
    import torch
    try:
        getattr(torch, name)(torch.eye(2, dtype=torch.float64))
    except RuntimeError:
        return True
    return False


def test_the_warning_names_the_users_line():
    t = interop.tensor(A)
    with pytest.warns(interop.InteropDeprecationWarning) as caught:
        t.qr()
    assert caught[0].filename == __file__


def test_the_old_arguments_keep_their_meaning(backend):
    """``qr(some=False)``: the complete Q; ``cholesky(upper=True)``: U with A = U^H U."""
    tall = np.random.default_rng(1).normal(size=(4, 3))
    with pytest.warns(interop.InteropDeprecationWarning):
        q, r = interop.tensor(tall, backend=backend).qr(some=False)
    want_q, want_r = np.linalg.qr(tall, mode="complete")
    assert q.shape == (4, 4) and r.shape == (4, 3)
    np.testing.assert_allclose(np.abs(to_numpy(q)), np.abs(want_q), atol=1e-12)
    np.testing.assert_allclose(np.abs(to_numpy(r)), np.abs(want_r), atol=1e-12)
    with pytest.warns(interop.InteropDeprecationWarning):
        upper = interop.tensor(A, backend=backend).cholesky(upper=True)
    np.testing.assert_allclose(to_numpy(upper), np.linalg.cholesky(A).T, atol=1e-12)
