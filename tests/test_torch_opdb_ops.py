"""Operations added for torch's op_db (interop/ops/torch_*.py), called through torch on
numpy and dask tensors (cupy on a GPU) against torch on the same values: values, dtype,
shape; random and uninitialised results by shape and dtype only."""

from __future__ import annotations

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)
M = RNG.standard_normal((3, 4)).astype(np.float32)
SQ = RNG.standard_normal((3, 3)).astype(np.float32)
BATCH = RNG.standard_normal((2, 3, 4)).astype(np.float32)
INTS = RNG.integers(-5, 6, (3, 4))
BOOLS = M > 0

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
    expected = call(*[torch.from_numpy(o.copy()) for o in operands])
    args = [interop.tensor(o.copy(), backend=backend) for o in operands]
    got = call(*args)
    for g in got if isinstance(got, tuple) else (got,):
        assert g.backend == backend, (name, g.backend)
    compare(got, expected, values, f"{name} on {backend}")


def test_inplace_torch_functions_write_through(backend):
    t = interop.tensor(M.copy(), backend=backend)
    assert torch.zero_(t) is t and not to_numpy(t).any()
    assert torch.fill_(t, 3.0) is t and (to_numpy(t) == 3).all()


def test_errors_name_the_fix():
    with pytest.raises(RuntimeError, match="mH"):
        interop.tensor(BATCH).H  # noqa: B018
    with pytest.raises(RuntimeError, match="matrices"):
        interop.tensor(M[0]).mH  # noqa: B018
    with pytest.raises(RuntimeError, match="expandable"):
        interop.tensor(M).sum_to_size(2, 4)
