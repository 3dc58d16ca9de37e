"""Operations added for torch's op_db (interop/ops/torch_*.py), called through torch on
numpy and dask tensors (cupy on a GPU) against torch on the same values: values, dtype,
shape; random and uninitialised results by shape and dtype only."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import interop
from tests.conftest import off_host, to_numpy, torch_device

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)
M = RNG.standard_normal((3, 4)).astype(np.float32)
SQ = RNG.standard_normal((3, 3)).astype(np.float32)
BATCH = RNG.standard_normal((2, 3, 4)).astype(np.float32)
INTS = RNG.integers(-5, 6, (3, 4))
BOOLS = M > 0
IDX = RNG.integers(0, 5, (3, 4))
ORDER = np.argsort(M, axis=-1)
IMG = RNG.standard_normal((2, 3, 5, 6)).astype(np.float32)
SPD = (SQ @ SQ.T + 3 * np.eye(3)).astype(np.float32)
SORTED = np.sort(M, axis=-1)

# name: (call, operands, values compared); operands are NumPy arrays given as tensors
CASES = {
    "H": (lambda a: a.H, (M,), True),
    "mH": (lambda a: a.mH, (BATCH,), True),
    "new_zeros": (lambda a: a.new_zeros(2, 5), (INTS,), True),
    "new_ones": (lambda a: a.new_ones((2,), dtype=torch.float64), (M,), True),
    "new_full": (lambda a: a.new_full((2, 2), 1.5), (INTS,), True),
    "new_empty": (lambda a: a.new_empty((4,)), (M,), False),
    "new_empty_strided": (lambda a: a.new_empty_strided((2, 3), (3, 1)), (BOOLS,), False),
    "sum_to_size": (lambda a: a.sum_to_size(1, 3, 1), (BATCH[:, :, :1].copy(),), True),
    "sum_to_size_bool": (lambda a: a.sum_to_size(1, 4), (BOOLS,), True),
    "resolve_conj": (lambda a: torch.resolve_conj(a), (M,), True),
    "resolve_neg": (lambda a: a.resolve_neg(), (M,), True),
    "fill": (lambda a: torch.fill(a, 2), (INTS,), True),
    "zero_": (lambda a: torch.zero_(a), (M,), True),
    "contiguous_0d": (lambda a: a[0, 0].contiguous(), (M,), True),
    "to_positional": (lambda a: a.to("cpu", torch.float64, False, True), (INTS,), True),
    "randint_like": (lambda a: torch.randint_like(a, 3, 9), (INTS,), False),
    # torch_scatter: writes into copies (one lazy task on Dask)
    "index_copy": (lambda a, i: torch.index_copy(a, 1, i[0, :2] % 4, a[:, :2] * 2), (M, IDX), True),
    "index_fill": (lambda a, i: a.index_fill(0, i[0, :2] % 3, -1.5), (M, IDX), True),
    "index_fill_": (lambda a, i: a.index_fill_(1, i[1, :2] % 4, 7), (INTS, IDX), True),
    "index_put": (lambda a, i: torch.index_put(a, (i[0] % 3, i[1] % 4), a[0], True), (M, IDX), True),
    "index_put_bool": (lambda a, b: a.index_put((b,), a[b] * 0 + 9), (INTS, BOOLS), True),
    "put": (lambda a, i: torch.put(a, i[0], a[1], accumulate=True), (M, IDX), True),
    "put_": (lambda a, i: a.put_(i[1], a[0] - 1), (INTS, IDX), True),
    "masked_scatter": (lambda a, b: torch.masked_scatter(a, b, a * 10), (M, BOOLS), True),
    "masked_scatter_bcast": (lambda a, b: a[0].masked_scatter(b, a), (M, BOOLS), True),
    "select_scatter": (lambda a: torch.select_scatter(a, a[:, 0] + 5, 1, -1), (M,), True),
    "slice_scatter": (lambda a: torch.slice_scatter(a, a[:, :2] * 0, 1, 1, None, 2), (M,), True),
    "diagonal_scatter": (lambda a: torch.diagonal_scatter(a, a[0, :3] + 1, 1), (M,), True),
    "diagonal_scatter_batch": (lambda a: torch.diagonal_scatter(a, a[:, :2, 0], -1, 1, 2), (BATCH,), True),
    **{f"scatter_reduce_{r}_{s}": (
        lambda a, i, r=r, s=s: a.scatter_reduce(1, i[:, :3] % 4, a[:, 1:] * 3, r, include_self=s),
        (INTS, IDX), True) for r in ("sum", "prod", "mean", "amax", "amin") for s in (True, False)},
    "scatter_reduce_float_mean": (lambda a, i: torch.scatter_reduce(a, 0, i % 3, a * 2, "mean"),
                                  (M, IDX), True),
    **{f"index_reduce_{r}": (
        lambda a, i, r=r: a.index_reduce(0, i[0, :3] % 3, a[:3] * 2, r, include_self=r != "prod"),
        (M, IDX), True) for r in ("prod", "mean", "amax", "amin")},
    "index_reduce_int_mean": (lambda a, i: torch.index_reduce(a, 1, i[0] % 4, -a, "mean"), (INTS, IDX), True),
    "scatter_0d": (lambda a: torch.scatter(a[0, 0], 0, torch.tensor(0) if isinstance(a, torch.Tensor)
                                           else interop.tensor(0), 2.5, reduce="add"), (INTS,), True),
    # torch_build
    "block_diag": (lambda a, i: torch.block_diag(a[0, 0], a[0], i[:2, :1]), (M, INTS), True),
    "cartesian_prod": (lambda a: torch.cartesian_prod(a[0, :2], a[1, :3], a[2, :1]), (M,), True),
    "combinations": (lambda a: torch.combinations(a[0], 3), (M,), True),
    "combinations_repl": (lambda i: torch.combinations(i[0, :3], with_replacement=True), (INTS,), True),
    "complex": (lambda a: torch.complex(a, -a), (M,), True),
    "polar": (lambda a: torch.polar(a.abs(), a), (M,), True),
    "view_as_complex": (lambda a: torch.view_as_complex(a[:, :2]), (M,), True),
    "frexp": (lambda a: tuple(torch.frexp(a * 100)), (M,), True),
    "unfold": (lambda a: a.unfold(1, 2, 1), (BATCH,), True),
    "unfold_copy": (lambda a: torch.unfold_copy(a, 0, 2, 2), (INTS,), True),
    "unfold_0d": (lambda a: a[0, 0].unfold(0, 1, 1), (M,), True),
    # edge cases of older ops op_db found
    "logit_empty_eps_interval": (lambda a: torch.logit(a.sigmoid(), eps=0.6), (M,), True),
    "nonzero_0d": (lambda a: torch.nonzero(a[0, 0] * 0), (M,), True),
    "nonzero_0d_tuple": (lambda a: torch.nonzero(a[0, 0] + 10, as_tuple=True), (M,), True),
    "atleast_1d_list": (lambda a: torch.atleast_1d([a[0, 0], a]), (M,), True),
    "topk_0d": (lambda a: tuple(torch.topk(a[0, 0], 1)), (M,), True),
    "kthvalue_0d": (lambda a: tuple(a[0, 0].kthvalue(1, keepdim=True)), (M,), True),
    "searchsorted_sorter": (lambda a, o: torch.searchsorted(a[0], a[1], sorter=o[0]), (M, ORDER), True),
    "searchsorted_batched": (lambda s, a: torch.searchsorted(s, a, right=True), (SORTED, M), True),
    # torch_linalg_legacy
    "cholesky_inverse": (lambda a: torch.cholesky_inverse(torch.linalg.cholesky(a)), (SPD,), True),
    "cholesky_inverse_upper": (lambda a: torch.cholesky_inverse(torch.linalg.cholesky(a).mT, upper=True),
                               (SPD,), True),
    "cholesky_solve": (lambda a, b: torch.cholesky_solve(b, torch.linalg.cholesky(a)), (SPD, M), True),
    "triangular_solve": (lambda a, b: tuple(torch.triangular_solve(b, a, upper=False, transpose=True)),
                         (SPD, M), True),
    "svd_values": (lambda a: torch.svd(a).S, (M,), True),
    "svd_no_uv": (lambda a: tuple(torch.svd(a, compute_uv=False)), (M,), True),
    # torch.special Chebyshev polynomials of the third and fourth kinds
    "chebyshev_v": (lambda a, n: torch.special.chebyshev_polynomial_v(a, n % 7 - 1), (M, INTS), True),
    "chebyshev_w": (lambda a: torch.special.chebyshev_polynomial_w(a.tanh(), 5), (M,), True),
    "shifted_chebyshev_v": (lambda a: torch.special.shifted_chebyshev_polynomial_v(a, 3), (M,), True),
    "shifted_chebyshev_w": (lambda a, n: torch.special.shifted_chebyshev_polynomial_w(
        a.sigmoid(), n % 5), (M, INTS), True),
    # torch_stats
    "mode": (lambda i: tuple(torch.mode(i % 3, 0)), (INTS,), True),
    "mode_keepdim": (lambda a: tuple((a > 0).mode(-1, keepdim=True)), (M,), True),
    "unique_consecutive": (lambda i: torch.unique_consecutive(i // 3, return_inverse=True,
                                                              return_counts=True), (INTS,), True),
    "unique_consecutive_dim": (lambda i: torch.unique_consecutive(i[[0, 0, 1]], dim=0), (INTS,), True),
    "histogram": (lambda a: tuple(torch.histogram(a, 4)), (M,), True),
    "histogram_edges": (lambda a: tuple(torch.histogram(a, a[0].sort().values, weight=a.abs(),
                                                        density=True)), (M,), True),
    "histogramdd": (lambda a: torch.histogramdd(a[:, :2], [2, 3], range=[-1.0, 1.0, -2.0, 2.0]).hist,
                    (M,), True),
    "cdist": (lambda a, b: torch.cdist(a, b), (BATCH, BATCH[:, :2]), True),
    "cdist_p": (lambda a: torch.cdist(a, a[:2], p=1.5), (M,), True),
    "cdist_inf": (lambda a: torch.cdist(a, a[:2], p=float("inf")), (M,), True),
    "renorm": (lambda a: a.renorm(2, 0, 1.0), (M,), True),
    "renorm_": (lambda a: a.renorm_(1, 1, 0.5), (M,), True),
    "gradient": (lambda a: torch.gradient(a, spacing=[2.0, 0.5], edge_order=2), (M,), True),
    "gradient_int": (lambda i: torch.gradient(i, dim=1), (INTS,), True),
    "cumulative_trapezoid": (lambda a: torch.cumulative_trapezoid(a, a.cumsum(1).abs()), (M,), True),
    "cumulative_trapezoid_dx": (lambda i: torch.cumulative_trapezoid(i, dx=0.5, dim=0), (INTS,), True),
    "unravel_index": (lambda i: torch.unravel_index(i - 5, (3, 2, 2)), (INTS,), True),
    # torch.fft Hermitian transforms in 2 and n dims
    "fft.hfft2": (lambda a: torch.fft.hfft2(torch.fft.ifft2(a), s=(3, 6)), (M,), True),
    "fft.hfftn": (lambda a: torch.fft.hfftn(a, dim=(0, 2), norm="ortho"), (BATCH,), True),
    "fft.ihfft2": (lambda a: torch.fft.ihfft2(a, norm="forward"), (M,), True),
    "fft.ihfftn": (lambda i: torch.fft.ihfftn(i, s=(2, 3)), (INTS,), True),
    # torch_aten
    "native_layer_norm": (lambda a: tuple(torch.native_layer_norm(a, (3, 4), a[0], a[1], 1e-5)),
                          (BATCH,), True),
    "native_group_norm": (lambda a: tuple(torch.native_group_norm(a, None, None, 2, 4, 3, 2, 1e-5)),
                          (BATCH.reshape(2, 4, 3),), True),
    "group_norm_empty": (lambda a: torch.nn.functional.group_norm(a[:0], 3), (BATCH,), True),
    "constant_pad_nd": (lambda i: torch.constant_pad_nd(i, (1, -1, 2, 0), 7), (INTS,), True),
    "logspace_tensors": (lambda a: torch.logspace(a[0, 0], a[0, 1], 5, base=2.0), (M,), True),
    "hinge_embedding_other_targets": (lambda a, i: torch.nn.functional.hinge_embedding_loss(
        a, (i % 3 - 1).float()), (M, INTS), True),
    "vander_0d": (lambda a: torch.linalg.vander(a[0, 0], N=3), (M,), True),
    "norm_nuc": (lambda a: torch.norm(a, "nuc"), (M,), True),
    "norm_nuc_dims": (lambda a: torch.norm(a, "nuc", dim=(1, 0), keepdim=True), (M,), True),
    # pools: ceil_mode, return_indices, F.max_poolNd_with_indices
    "max_pool1d_indices": (lambda a: tuple(torch.nn.functional.max_pool1d(
        a, 2, 2, 1, ceil_mode=True, return_indices=True)), (BATCH,), True),
    "max_pool2d_indices": (lambda a: tuple(torch.nn.functional.max_pool2d_with_indices(
        a, (2, 3), 2, (1,), 1, True)), (IMG,), True),
    "max_pool3d_dilated": (lambda a: tuple(torch.nn.functional.max_pool3d(
        a[None], 2, 1, 0, 2, return_indices=True)), (IMG,), True),
    "avg_pool1d_ceil": (lambda a: torch.nn.functional.avg_pool1d(a, 3, 2, 1, ceil_mode=True), (BATCH,), True),
    "avg_pool2d_ceil_exclude": (lambda a: torch.nn.functional.avg_pool2d(
        a, 3, 2, 1, ceil_mode=True, count_include_pad=False), (IMG,), True),
    "max_unpool1d": (lambda a: torch.nn.functional.max_unpool1d(
        *torch.nn.functional.max_pool1d(a, 2, return_indices=True), 2), (BATCH,), True),
    "max_unpool2d_size": (lambda a: torch.nn.functional.max_unpool2d(
        *torch.nn.functional.max_pool2d(a, 2, return_indices=True), 2, output_size=(5, 6)), (IMG,), True),
    "max_unpool3d_unbatched": (lambda a: torch.nn.functional.max_unpool3d(
        *torch.nn.functional.max_pool3d(a, 2, 1, return_indices=True), 2, 1), (IMG,), True),
    "adaptive_max_pool1d": (lambda a: tuple(torch.adaptive_max_pool1d(a, 3)), (BATCH,), True),
    "adaptive_max_pool2d": (lambda a: torch.nn.functional.adaptive_max_pool2d(a, (2, 4)), (IMG,), True),
    "adaptive_max_pool3d": (lambda a: tuple(torch.nn.functional.adaptive_max_pool3d(
        a, (None, 2, 3), return_indices=True)), (IMG,), True),
    "adaptive_max_pool2d_ties": (lambda i: tuple(torch.nn.functional.adaptive_max_pool2d(
        (i % 2)[None].float(), 2, return_indices=True)), (INTS,), True),
    # nn_margin
    "triplet_margin_loss": (lambda a, b: torch.nn.functional.triplet_margin_loss(
        a, b, -a, margin=0.5, p=1.5, swap=True), (M, M[::-1].copy()), True),
    "triplet_margin_loss_none": (lambda a, b: torch.nn.functional.triplet_margin_loss(
        a, b, a * 2, reduction="none"), (M, M[::-1].copy()), True),
    "multi_margin_loss": (lambda a, i: torch.nn.functional.multi_margin_loss(
        a, i[:, 0] % 4, p=2, margin=0.7, weight=a[0].abs()), (M, IDX), True),
    "multi_margin_loss_1d": (lambda a, i: torch.nn.functional.multi_margin_loss(
        a[0], i[0, 0] % 4, reduction="none"), (M, IDX), True),
    "multilabel_margin_loss": (lambda a, i: torch.nn.functional.multilabel_margin_loss(
        a, torch.where(i > 3, -1, i % 4) if isinstance(i, torch.Tensor)
        else interop.where(i > 3, -1, i % 4), reduction="sum"), (M, IDX), True),
    "index_add_0d": (lambda a: a[0, 0].index_add(0, a[0, 0].long() * 0, a[0, 1], alpha=2), (M,), True),
    # torch.masked reads t.layout and makes tensors on t.device
    "masked.sum": (lambda a, m: torch.masked.sum(a, 1, mask=m), (M, BOOLS), True),
    "masked.var": (lambda a, m: torch.masked.var(a, 0, mask=m), (M, BOOLS), True),
    "masked.softmax": (lambda a, m: torch.masked.softmax(a, 1, mask=m), (M, BOOLS), True),
    "masked.normalize": (lambda a, m: torch.masked.normalize(a, 2.0, 1, mask=m), (M, BOOLS), True),
    # aliases answer their torch names too
    "subtract": (lambda a, b: torch.subtract(a, b, alpha=2), (M, M), True),
    "divide": (lambda a, b: torch.divide(a, b, rounding_mode="floor"), (M, SORTED), True),
    "concat": (lambda a, b: torch.concat([a, b], 1), (M, M), True),
    "vector_norm_0d": (lambda a: torch.linalg.vector_norm(a, dim=0), (np.array(-2.5, np.float32),), True),
    # aten.slice, nonzero_static, _chunk_cat, hash_tensor, segment_reduce, resize_
    "slice": (lambda a: torch.ops.aten.slice.Tensor(a, 1, 1, None, 2), (M,), True),
    "slice_negative": (lambda a: torch.ops.aten.slice.Tensor(a, -1, -3, -1), (BATCH,), True),
    "slice_clamped_empty": (lambda a: torch.ops.aten.slice.Tensor(a, 0, 5, 2), (M,), True),
    "slice_defaults": (lambda a: torch.ops.aten.slice.Tensor(a), (M,), True),
    "nonzero_static_pad": (lambda a: torch.nonzero_static(a > 0, size=20), (BATCH,), True),
    "nonzero_static_cut": (lambda i: i.nonzero_static(size=2, fill_value=9), (INTS,), True),
    "nonzero_static_0d": (lambda a: torch.nonzero_static(a[0, 0], size=3), (M,), True),
    "nonzero_static_empty": (lambda a: torch.nonzero_static(a[:0], size=2), (M,), True),
    "nonzero_static_size_0": (lambda b: torch.nonzero_static(b, size=0), (BOOLS,), True),
    "chunk_cat": (lambda a: torch._chunk_cat([a, a[:, :3] * 2], 1, 3), (M,), True),
    "chunk_cat_ndims": (lambda a: torch._chunk_cat([a, a[:, :, :2, None]], 1, 2), (BATCH,), True),
    "chunk_cat_bool": (lambda b: torch._chunk_cat([b, b[:2]], 0, 4), (BOOLS,), True),
    "hash_tensor": (lambda a: torch.hash_tensor(a), (M,), True),
    "hash_tensor_dims": (lambda a: a.hash_tensor((0, 2), keepdim=True), (BATCH,), True),
    "hash_tensor_int": (lambda i: torch.hash_tensor(i - 3, 1), (INTS,), True),
    "hash_tensor_bool": (lambda b: torch.hash_tensor(b, 0), (BOOLS,), True),
    "hash_tensor_0d": (lambda a: torch.hash_tensor(a[1, 1]), (M,), True),
    "hash_tensor_empty_dim": (lambda a: torch.hash_tensor(a[:0], 1), (M,), True),
    **{f"segment_reduce_{r}": (
        lambda a, n, r=r: torch.segment_reduce(a, r, lengths=n), (M, np.array([1, 0, 2])), True)
       for r in ("sum", "mean", "max", "min", "prod")},
    **{f"segment_reduce_{r}_initial": (
        lambda a, n, r=r: torch.segment_reduce(a, r, lengths=n, axis=1, initial=0.5),
        (M, np.array([[1, 3, 0], [0, 0, 4], [2, 1, 1]])), True)
       for r in ("sum", "mean", "max", "min", "prod")},
    "segment_reduce_offsets": (lambda a, o: torch.segment_reduce(a, "mean", offsets=o, axis=1),
                               (BATCH, np.array([[0, 1, 1, 3], [0, 0, 2, 3]])), True),
    "segment_reduce_unsafe": (lambda a, n: torch.segment_reduce(a, "max", lengths=n, unsafe=True),
                              (M, np.array([2, 0])), True),
    "resize_shrink": (lambda a: a.clone().resize_(2, 5), (M,), True),
    "resize_same_numel": (lambda a: a.clone().resize_((4, 3)), (M,), True),
    "resize_0d": (lambda a: a[0, 0].clone().resize_(()), (M,), True),
    "resize_grow": (lambda a: a.clone().resize_(4, 4), (M,), False),
    "resize_as_": (lambda a, b: torch.resize_as_(a.clone(), b[:2, :1]), (M, INTS), True),
    "resize_as_method": (lambda a: a.clone().resize_as_(a[0]), (BATCH,), True),
    # aten kernels op_db calls directly
    "_safe_softmax": (lambda a: torch.ops.aten._safe_softmax(a.masked_fill(a < 0.3, float("-inf")), 1),
                      (M,), True),
    "_safe_softmax_dtype": (lambda a: torch._safe_softmax(a, -1, torch.float64), (BATCH,), True),
    "_safe_softmax_0d": (lambda a: torch._safe_softmax(a[0, 0], 0), (M,), True),
    "_softmax_backward_data": (lambda a, b: torch._softmax_backward_data(a, b.softmax(0), 0, torch.float32),
                               (M, M[::-1].copy()), True),
    "native_dropout_backward": (lambda a, b: torch.ops.aten.native_dropout_backward(a, b, 1.25),
                                (M, BOOLS[:, :1].repeat(4, 1)), True),
    "native_dropout_backward_int": (lambda i, b: torch.ops.aten.native_dropout_backward.default(i, b, 2.0),
                                    (INTS, BOOLS[:, :1].repeat(4, 1)), True),
    "max_pool2d_with_indices_backward": (lambda a: torch.ops.aten.max_pool2d_with_indices_backward(
        a[:, :3, :4] * 0 + 1, a, (2, 3), (2, 2), (1, 1), (1, 1), True,
        torch.nn.functional.max_pool2d(a, (2, 3), 2, 1, ceil_mode=True, return_indices=True)[1]),
        (IMG[0],), True),
}

def compare(got, exp, values: bool, where: str) -> None:
    if isinstance(exp, (tuple, list)):
        assert len(got) == len(exp), where
        for g, e in zip(got, exp):
            compare(g, e, values, where)
        return
    assert isinstance(got, interop.Tensor), f"{where}: {type(got)}"
    res, ref = to_numpy(got), exp.numpy()
    assert (res.dtype, res.shape) == (ref.dtype, ref.shape), (where, res.dtype, ref.dtype,
                                                              res.shape, ref.shape)
    if values:
        np.testing.assert_allclose(res, ref, rtol=2e-5, atol=2e-5, equal_nan=True, err_msg=where)


@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name, backend):
    call, operands, values = CASES[name]
    if name.startswith("masked."):
        torch_device(backend)  # torch.masked makes torch tensors on t.device (not on gpulike)
    expected = call(*[torch.from_numpy(o.copy()) for o in operands])
    args = [interop.tensor(o.copy(), backend=backend) for o in operands]
    got = call(*args)
    moved_home = name == "to_positional" and off_host(backend)  # to("cpu"): the host's backend
    for g in got if isinstance(got, tuple) else (got,):
        assert g.backend == ("numpy" if moved_home else backend), (name, g.backend)
    compare(got, expected, values, f"{name} on {backend}")


def test_inplace_torch_functions_write_through(backend):
    t = interop.tensor(M.copy(), backend=backend)
    assert torch.zero_(t) is t and not to_numpy(t).any()
    assert torch.fill_(t, 3.0) is t and (to_numpy(t) == 3).all()


def test_unsafe_masked_index(backend):
    x, mask = M, np.array([[True], [False], [True]])
    rows, cols = np.array([[0], [9], [2]]), np.array([[1, 3]])
    expected = torch._unsafe_masked_index(torch.from_numpy(x), torch.from_numpy(mask),
                                          [torch.from_numpy(rows), torch.from_numpy(cols)], -1.0)
    got = torch._unsafe_masked_index(*(interop.tensor(a, backend=backend) for a in (x, mask)),
                                     [interop.tensor(rows, backend=backend),
                                      interop.tensor(cols, backend=backend)], -1.0)
    compare(got, expected, True, "_unsafe_masked_index")
    values = RNG.standard_normal((3, 2)).astype(np.float32)
    expected = torch._unsafe_masked_index_put_accumulate(
        torch.from_numpy(x), torch.from_numpy(mask), [torch.from_numpy(rows), torch.from_numpy(cols)],
        torch.from_numpy(values))
    got = torch._unsafe_masked_index_put_accumulate(
        *(interop.tensor(a, backend=backend) for a in (x, mask)),
        [interop.tensor(rows, backend=backend), interop.tensor(cols, backend=backend)],
        interop.tensor(values, backend=backend))
    compare(got, expected, True, "_unsafe_masked_index_put_accumulate")


def test_errors_name_the_fix():
    with pytest.raises(RuntimeError, match="mH"):
        interop.tensor(BATCH).H  # noqa: B018
    with pytest.raises(RuntimeError, match="matrices"):
        interop.tensor(M[0]).mH  # noqa: B018
    with pytest.raises(RuntimeError, match="expandable"):
        interop.tensor(M).sum_to_size(2, 4)
    with pytest.raises(RuntimeError, match="amax"):
        torch.scatter_reduce(interop.tensor(M), 0, interop.tensor(IDX % 3), interop.tensor(M), "max")
    with pytest.raises(RuntimeError, match="same dtype"):
        torch.cartesian_prod(interop.tensor(M[0]), interop.tensor(INTS[0]))
    with pytest.raises(RuntimeError, match="boolean masks"):
        torch.masked_scatter(interop.tensor(M), interop.tensor(INTS), interop.tensor(M))


def test_device_and_layout_load_no_torch():
    code = ("import sys, interop; t = interop.tensor([1.0]); "
            "interop.zeros(2, device=t.device, dtype=t.dtype).to(t.device); "
            "print(t.layout, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["strided", "False"]


def test_layout_and_device_stand_in_for_torchs(backend):
    t = interop.tensor(M, backend=backend)
    assert t.layout is torch.strided
    if backend == "gpulike":  # a device torch does not have (its parser or interop says so)
        with pytest.raises(RuntimeError, match="gpulike"):
            torch.ones(2, device=t.device)
        return
    made = torch.ones(2, device=t.device)
    assert type(made) is torch.Tensor and made.device.type == torch_device(backend)
    assert torch.tensor([1.0], device=t.device, dtype=t.dtype).dtype == torch.float32


SINGULAR = np.array([[[1, 2, 3], [2, 4, 6], [1, 0, 1]], [[0, 0, 0], [0, 0, 0], [0, 0, 0]]],
                    np.float32)
LU_CALLS = {
    "lu_factor_ex": lambda a: torch.linalg.lu_factor_ex(a),
    "linalg.lu": lambda a: torch.linalg.lu(a),
    "lu_get_infos": lambda a: torch.lu(a, get_infos=True),
    "lu_unpack": lambda a: torch.lu_unpack(*torch.linalg.lu_factor(a)),
    "lu_unpack_no_data": lambda a: torch.lu_unpack(*torch.linalg.lu_factor(a), unpack_data=False),
    "lu_solve": lambda a: torch.linalg.lu_solve(*torch.linalg.lu_factor(a), a[..., :2] + 1),
    "lu_solve_right_adjoint": lambda a: torch.linalg.lu_solve(
        *torch.linalg.lu_factor(a), a[..., :1, :] + 1, left=False, adjoint=True),
    "lu_solve_legacy": lambda a: torch.lu_solve(a[..., :2] + 1, *torch.linalg.lu_factor(a)),
}


@pytest.mark.parametrize("name", LU_CALLS)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 3, 3)])
def test_lu_matches_torch(name, shape):
    x = RNG.standard_normal(shape).astype(np.float32) + 3 * np.eye(shape[-1], dtype=np.float32)
    compare(LU_CALLS[name](interop.tensor(x)), LU_CALLS[name](torch.from_numpy(x)), True, name)


@pytest.mark.parametrize("shape", [(2, 4), (4, 2), (2, 3, 5)])
def test_lu_of_rectangular_and_singular_matrices(shape):
    x = RNG.standard_normal(shape).astype(np.float32)
    for a in (x, SINGULAR):
        compare(torch.linalg.lu(interop.tensor(a)), torch.linalg.lu(torch.from_numpy(a)), True, "lu")
        compare(torch.linalg.lu_factor_ex(interop.tensor(a)),
                torch.linalg.lu_factor_ex(torch.from_numpy(a)), True, "lu_factor_ex")


def test_lu_errors_as_torch():
    with pytest.raises(RuntimeError, match="without pivoting"):
        torch.linalg.lu_factor(interop.tensor(SQ), pivot=False)
    with pytest.raises(RuntimeError, match="singular"):
        torch.linalg.lu_factor_ex(interop.tensor(SINGULAR), check_errors=True)
    with pytest.raises(RuntimeError, match="floating point"):
        torch.linalg.lu(interop.tensor(INTS))


@pytest.mark.parametrize("name", ["dask", "cubed"])
def test_lu_and_ldl_stay_lazy_on_lazy_backends(name):
    """The column steps write in place: Dask and Cubed run them in one task, lazily."""
    pytest.importorskip(name)
    a = SQ + SQ.T
    t = interop.tensor(a, backend=name)
    with interop.config(dask_compute="raise"):
        LU, pivots = torch.linalg.lu_factor(t)
        X = torch.linalg.lu_solve(LU, pivots, t)
        LD, ldl_pivots, _ = torch.linalg.ldl_factor_ex(t)
        Y = torch.linalg.ldl_solve(LD, ldl_pivots, t)
    assert X.backend == Y.backend == name
    expected = torch.linalg.lu_factor(torch.from_numpy(a))
    compare(LU, expected.LU, True, "lu_factor")
    compare(pivots, expected.pivots, True, "lu_factor pivots")
    np.testing.assert_allclose(X.numpy(), np.eye(len(a)), atol=1e-5)
    np.testing.assert_allclose(Y.numpy(), np.eye(len(a)), atol=1e-5)


STRIDED_CALLS = {
    "as_strided": lambda a: torch.as_strided(a, (2, 2), (1, 2)),
    "as_strided_offset": lambda a: a.as_strided((3,), (3,), 1),
    "as_strided_empty": lambda a: torch.as_strided(a, (0, 4), (1, 1)),
    "as_strided_copy": lambda a: torch.as_strided_copy(a, (2, 3), (2, 1), 2),
    "as_strided_scatter": lambda a: torch.as_strided_scatter(a, a[:2, :2] * 10, (2, 2), (4, 1), 1),
    "view_reaches_its_storage": lambda a: a[1:, 1:].as_strided((2, 2), (1, 1), 0),
    "view_keeps_its_offset": lambda a: a[1:].as_strided((2,), (4,)),
}


@pytest.mark.parametrize("name", STRIDED_CALLS)
def test_as_strided_matches_torch(name):
    compare(STRIDED_CALLS[name](interop.tensor(M.copy())), STRIDED_CALLS[name](torch.from_numpy(M.copy())),
            True, name)


def test_as_strided_is_a_view_and_checks_bounds(backend):
    t = interop.tensor(M.copy())
    torch.as_strided(t, (2,), (5,))[1] = 100.0
    assert to_numpy(t)[1, 1] == 100.0
    with pytest.raises(RuntimeError, match="out of bounds for storage"):
        torch.as_strided(t, (2, 2), (12, 1))
    with pytest.raises(RuntimeError, match="out of bounds for storage"):
        torch.as_strided(t, (1,), (1,), 12)
    if backend == "dask":
        with pytest.raises(interop.errors.BackendLacksError, match="dask"):
            torch.as_strided(interop.tensor(M, backend="dask"), (2,), (1,))


ROWS = np.array([[1, 2], [0, 5], [1, 2], [0, 1]], np.float32)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_along_dim_matches_torch(dim, backend):
    kw = dict(dim=dim, return_inverse=True, return_counts=True)
    if backend == "dask":
        with pytest.raises(interop.errors.BackendLacksError, match="dim"):
            torch.unique(interop.tensor(ROWS, backend=backend), **kw)
        return
    compare(torch.unique(interop.tensor(ROWS), **kw), torch.unique(torch.from_numpy(ROWS), **kw),
            True, "unique")
    if dim == 0:
        compare(torch.unique(interop.tensor(ROWS[:0]), dim=0),
                torch.unique(torch.from_numpy(ROWS[:0]), dim=0), True, "unique of empty")
        return
    for t in (torch.from_numpy(ROWS[:0]), interop.tensor(ROWS[:0])):
        with pytest.raises(RuntimeError, match="0 sized dimensions"):
            torch.unique(t, dim=dim)


@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.bool_, np.float32, np.complex64])
def test_is_signed_as_torch(dtype):
    a = np.zeros(2, dtype)
    assert torch.is_signed(interop.tensor(a)) is torch.is_signed(torch.from_numpy(a))


# ------------------------------------------------------------------ slice, resize_, lowrank, ...
def test_aten_slice_is_a_view(backend):
    t = interop.tensor(M.copy(), backend=backend)
    torch.ops.aten.slice.Tensor(t, 1, 0, None, 3)[1:] = -1.0
    expected = M.copy()
    expected[1:, ::3] = -1.0
    np.testing.assert_array_equal(to_numpy(t), expected)


def test_resize_changes_the_tensor_itself(backend):
    t = interop.tensor(M.copy(), backend=backend)
    assert t.resize_(2, 3) is t and t.shape == (2, 3) and t.backend == backend
    np.testing.assert_array_equal(to_numpy(t), M.reshape(-1)[:6].reshape(2, 3))
    assert interop.resize_as_(t, interop.tensor(INTS[0])) is t and t.shape == (4,)
    t.resize_(8)  # grown: the new elements' values are unspecified (zeros here)
    assert t.shape == (8,)
    np.testing.assert_array_equal(to_numpy(t)[:4], M.reshape(-1)[:4])


def test_resize_shares_memory_where_torch_keeps_the_storage():
    a = M.copy()
    t = interop.as_tensor(a)
    t.resize_(5)
    t[0] = 100.0
    assert a[0, 0] == 100.0  # a contiguous tensor's leading elements, still its memory


def test_resize_as_reads_only_the_templates_shape():
    t = interop.tensor(M.copy())
    template = interop.tensor(BATCH, backend="dask")
    with interop.config(dask_compute="raise"):
        torch.resize_as_(t, template)
    assert t.backend == "numpy" and t.shape == BATCH.shape


LAZY_CALLS = {
    "slice": lambda a: torch.ops.aten.slice.Tensor(a, 0, 1),
    "nonzero_static": lambda a: torch.nonzero_static(a > 0, size=5),
    "_chunk_cat": lambda a: torch._chunk_cat([a, a[:, :1]], 1, 3),
    "hash_tensor": lambda a: torch.hash_tensor(a, 0),
    "segment_reduce": lambda a: torch.segment_reduce(a, "mean", lengths=interop.tensor(
        [3, 0], backend="dask")),
    "resize_": lambda a: a.resize_(2, 5),
    "svd_lowrank": lambda a: torch.svd_lowrank(a, q=2),
    "pca_lowrank": lambda a: torch.pca_lowrank(a, q=2),
    "_safe_softmax": lambda a: torch._safe_softmax(a, 0),
    "_softmax_backward_data": lambda a: torch._softmax_backward_data(a, a, 1, torch.float32),
    "native_dropout_backward": lambda a: torch.ops.aten.native_dropout_backward(a, a > 0, 2.0),
    "max_pool2d_with_indices_backward": lambda a: torch.ops.aten.max_pool2d_with_indices_backward(
        a[None, :1, :2], a[None], (2, 2), (2, 2), (0, 0), (1, 1), False, (a[None, :1, :2] > 9).long()),
}


@pytest.mark.parametrize("name", LAZY_CALLS)
def test_dask_builds_lazily(name):
    t = interop.tensor(M, backend="dask", chunks=(2, 2))
    with interop.config(dask_compute="raise"):
        out = LAZY_CALLS[name](t)
    for o in out if isinstance(out, tuple) else (out,):
        assert o.backend == "dask"


ERRORS = {
    "slice_step_0": lambda a: torch.ops.aten.slice.Tensor(a, 0, 0, 2, 0),
    "slice_0d": lambda a: torch.ops.aten.slice.Tensor(a[0, 0]),
    "slice_dim": lambda a: torch.ops.aten.slice.Tensor(a, 2),
    "nonzero_static_size": lambda a: torch.nonzero_static(a, size=-1),
    "chunk_cat_num_chunks": lambda a: torch._chunk_cat([a], 0, 0),
    "chunk_cat_empty_list": lambda a: torch._chunk_cat([], 0, 1),
    "chunk_cat_empty_tensor": lambda a: torch._chunk_cat([a, a[:0]], 0, 2),
    "chunk_cat_dtypes": lambda a: torch._chunk_cat([a, a.double()], 0, 2),
    "chunk_cat_negative_dim": lambda a: torch._chunk_cat([a, a[0]], -1, 2),
    "chunk_cat_dim_beyond": lambda a: torch._chunk_cat([a, a[0]], 1, 2),
    "chunk_cat_leading": lambda a: torch._chunk_cat([a, a[:2]], 1, 2),
    "hash_tensor_mode": lambda a: torch.hash_tensor(a, mode=1),
    "hash_tensor_empty": lambda a: torch.hash_tensor(a[:0]),
    "hash_tensor_empty_dim": lambda a: torch.hash_tensor(a[:0], 0),
    "hash_tensor_complex": lambda a: torch.hash_tensor(a.to(torch.complex64)),
    "segment_reduce_nothing": lambda a: torch.segment_reduce(a, "sum"),
    "segment_reduce_indices": lambda a: torch.segment_reduce(a, "sum", indices=torch.tensor([0, 1])),
    "segment_reduce_reduce": lambda a: torch.segment_reduce(a, "std", lengths=torch.tensor([3])),
    "segment_reduce_negative": lambda a: torch.segment_reduce(a, "sum", lengths=torch.tensor([4, -1])),
    "segment_reduce_total": lambda a: torch.segment_reduce(a, "sum", lengths=torch.tensor([2, 2])),
    "segment_reduce_axis": lambda a: torch.segment_reduce(a, "sum", lengths=torch.tensor([3]), axis=1),
    "segment_reduce_ints": lambda a: torch.segment_reduce(a.long(), "sum", lengths=torch.tensor([3])),
    "segment_reduce_float_lengths": lambda a: torch.segment_reduce(a, "sum", lengths=torch.tensor([3.0])),
    "resize_negative": lambda a: a.clone().resize_(2, -3),
    "pca_lowrank_q": lambda a: torch.pca_lowrank(a, q=5),
    "_safe_softmax_ints": lambda a: torch._safe_softmax(a.long(), 0),
    "max_pool2d_backward_shape": lambda a: torch.ops.aten.max_pool2d_with_indices_backward(
        a[None], a[None], (2, 2), (), (0, 0), (1, 1), False, a[None].long()),
    "_softmax_backward_data_dtypes": lambda a: torch._softmax_backward_data(a, a.double(), 0, torch.float32),
}


@pytest.mark.parametrize("name", ERRORS)
def test_refuses_where_torch_does(name):
    with pytest.raises(Exception) as expected:
        ERRORS[name](torch.from_numpy(M.copy()))
    with pytest.raises(expected.type):
        ERRORS[name](interop.tensor(M.copy()))


def test_bfloat16_method(backend):
    pytest.importorskip("ml_dtypes")
    got = interop.tensor(M, backend=backend).bfloat16()
    expected = torch.from_numpy(M).bfloat16()
    assert got.dtype == interop.bfloat16 and got.backend == backend
    np.testing.assert_array_equal(to_numpy(got).astype(np.float32), expected.float().numpy())


@pytest.mark.parametrize("name", ["svd_lowrank", "pca_lowrank"])
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (2, 5, 3)])
def test_lowrank_equals_torch_up_to_signs(name, shape, backend):
    """torch's random draw, so torch's results up to each singular vector's sign (LAPACK
    implementations choose it differently)."""
    a = RNG.standard_normal((*shape[:-1], 2)) @ RNG.standard_normal((*shape[:-2], 2, shape[-1]))
    a = a.astype(np.float32)
    fn, kw = getattr(torch, name), {"q": 2}
    torch.manual_seed(5)
    expected = [e.numpy() for e in fn(torch.from_numpy(a), **kw)]
    after_torch = torch.randn(3)
    torch.manual_seed(5)
    got = [to_numpy(g) for g in fn(interop.tensor(a, backend=backend), **kw)]
    assert torch.equal(torch.randn(3), after_torch)  # the same draws from torch's generator
    sign = np.sign(np.sum(got[0] * expected[0], axis=-2, keepdims=True))
    for g, e, s in zip(got, expected, (sign, 1, sign)):
        assert (g.dtype, g.shape) == (e.dtype, e.shape)
        np.testing.assert_allclose(g * s, e, rtol=1e-4, atol=1e-4)
