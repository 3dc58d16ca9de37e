"""The JAX backend (``backend='jax'``): checked against NumPy and torch on the same calls.

JAX arrays are immutable: writes (in-place forms, ``t[i] = v``, ``out=``, writes through
views) are replayed out of place and the tensors rebound, so the cases of
tests/test_views.py and tests/test_writes.py run here on JAX with torch's answers.
``Tensor`` is a JAX pytree: ``jax.jit``, ``jax.grad`` and ``jax.vmap`` trace interop,
torch and NumPy calls on JAX-backed tensors.
"""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
torch = pytest.importorskip("torch")

import jax.numpy as jnp  # noqa: E402

import interop  # noqa: E402
from tests import test_views as views_cases  # noqa: E402
from tests import test_writes as writes_cases  # noqa: E402
from tests.conftest import to_numpy  # noqa: E402

F = torch.nn.functional
HOST = np.arange(12.0, dtype=np.float32).reshape(3, 4)


def jx(data, **kwargs) -> interop.Tensor:
    return interop.tensor(data, backend="jax", **kwargs)


def on_jax(t: interop.Tensor) -> bool:
    return t.backend == "jax" and isinstance(t.raw, jax.Array)


# ------------------------------------------------------------------ writes, against torch
@pytest.mark.parametrize("name", writes_cases.INPLACE)
def test_inplace_form_matches_torch(name: str) -> None:
    inplace = writes_cases.torch_inplace(name)
    target, more, kwargs = writes_cases.sample(name)
    expected = torch.from_numpy(target.copy())
    getattr(expected, inplace)(*writes_cases.convert(more, torch.from_numpy), **kwargs)
    t = jx(target.copy())
    returned = getattr(t, inplace)(*writes_cases.convert(more, jx), **kwargs)
    assert returned is t and on_jax(t)
    writes_cases.assert_close(t, expected, inplace)
