"""ATen's CPU flash attention (``_scaled_dot_product_flash_attention_for_cpu`` and its
backward), which ``scaled_dot_product_attention`` reaches on the CPU from torch 2.14: the
records against torch's kernels, and a gradient through the torch face against torch's."""

from __future__ import annotations

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy

torch = pytest.importorskip("torch")
ATEN = torch.ops.aten
RNG = np.random.default_rng(0)
Q, K, V = (RNG.normal(size=s) for s in [(2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4)])
MASKS = {"none": {}, "causal": {"is_causal": True}, "scale": {"scale": 0.3},
         "float mask": {"attn_mask": RNG.normal(size=(5, 6))},
         "masked rows": {"attn_mask": np.where(np.arange(6) < 3, 0.0, -np.inf)[None].repeat(5, 0)}}


def _as(kwargs: dict, make) -> dict:
    return {k: make(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", MASKS)
@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_forward_and_backward_match_torchs_kernels(case, dtype, backend):
    q, k, v = (x.astype(dtype) for x in (Q, K, V))
    kwargs = {n: m.astype(dtype) if isinstance(m, np.ndarray) else m
              for n, m in MASKS[case].items()}
    t_args, i_args = ([make(x) for x in (q, k, v)] for make in
                      (torch.from_numpy, lambda x: interop.tensor(x, backend=backend)))
    t_kw, i_kw = _as(kwargs, torch.from_numpy), _as(kwargs, lambda x: interop.tensor(x, backend=backend))
    out, lse = ATEN._scaled_dot_product_flash_attention_for_cpu(*t_args, **t_kw)
    i_out, i_lse = ATEN._scaled_dot_product_flash_attention_for_cpu(*i_args, **i_kw)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    assert i_lse.dtype == lse.numpy().dtype and i_out.dtype == dtype
    np.testing.assert_allclose(to_numpy(i_out), out.numpy(), atol=tol)
    np.testing.assert_allclose(to_numpy(i_lse), lse.numpy(), atol=tol)
    grad = RNG.normal(size=out.shape).astype(dtype)
    causal, scale = kwargs.get("is_causal", False), kwargs.get("scale")
    want = ATEN._scaled_dot_product_flash_attention_for_cpu_backward(
        torch.from_numpy(grad), *t_args, out, lse, 0.0, causal,
        attn_mask=t_kw.get("attn_mask"), scale=scale)
    got = ATEN._scaled_dot_product_flash_attention_for_cpu_backward(
        interop.tensor(grad, backend=backend), *i_args, i_out, i_lse, 0.0, causal,
        attn_mask=i_kw.get("attn_mask"), scale=scale)
    for g, w in zip(got, want):
        np.testing.assert_allclose(to_numpy(g), w.numpy(), atol=tol * 10)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_attention_gradients_through_the_face_match_torchs(backend):
    """F.scaled_dot_product_attention on TorchTensors, backward included, as on torch tensors
    (whichever ATen form the installed torch reaches on the CPU)."""
    F = torch.nn.functional
    leaves = [torch.from_numpy(x.copy()).requires_grad_() for x in (Q, K, V)]
    F.scaled_dot_product_attention(*leaves, is_causal=True).sum().backward()
    faces = [interop.tensor(x.copy(), backend=backend).as_torch().requires_grad_() for x in (Q, K, V)]
    F.scaled_dot_product_attention(*faces, is_causal=True).sum().backward()
    for face, leaf in zip(faces, leaves):
        np.testing.assert_allclose(to_numpy(face.grad.as_interop()), leaf.grad.numpy(), atol=1e-12)


def test_refusals():
    """Dropout (interop has none), and a mask of another dtype than the query's (torch's)."""
    with pytest.raises(NotImplementedError, match="dropout_p > 0"):
        ATEN._scaled_dot_product_flash_attention_for_cpu(
            *(interop.tensor(x) for x in (Q, K, V)), 0.5)
    mask = RNG.random((5, 6)) > 0.3
    with pytest.raises(RuntimeError, match="same data type as query"):
        ATEN._scaled_dot_product_flash_attention_for_cpu(
            *(torch.from_numpy(x) for x in (Q, K, V)), attn_mask=torch.from_numpy(mask))
    with pytest.raises(RuntimeError, match="same data type as query"):
        ATEN._scaled_dot_product_flash_attention_for_cpu(
            *(interop.tensor(x) for x in (Q, K, V)), attn_mask=interop.tensor(mask))
