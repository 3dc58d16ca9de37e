"""NumPy's public functions on interop tensors (``__array_function__``), numpy and dask
backends (cupy on a GPU), against the same call on plain NumPy arrays: values, dtype,
shape and result type (arrays become tensors of the input's backend, tuples and
namedtuples keep their type, Python values stay Python values).

Also here: ``like=``, nested containers, ``out=``, in-place functions, ``np.asarray``
and ``__array__`` with NumPy 2's ``copy=``, ``np.testing`` on host tensors, the clear
error for what a backend lacks, a Dask graph that 20 chained NumPy calls never compute,
and one ``__torch_function__`` that sees every surface.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest

import interop
from tests.conftest import off_host, to_numpy
from tests.helpers.numpy_compare import as_tensors, assert_matches

rng = np.random.default_rng(7)
INPUTS = {
    "x": rng.standard_normal((4, 6)),
    "y": rng.standard_normal((4, 6)),
    "p": rng.uniform(0.5, 2.0, (4, 6)),
    "v": rng.standard_normal(6),
    "w": rng.standard_normal(6),
    "s": np.sort(rng.standard_normal(6)),
    "v3": rng.standard_normal(3),
    "w3": rng.standard_normal(3),
    "m": (lambda a: a @ a.T + 3 * np.eye(3))(rng.standard_normal((3, 3))),
    "c": rng.standard_normal((4, 6)) + 1j * rng.standard_normal((4, 6)),
    "i": rng.integers(0, 5, (4, 6)),
    "iv": rng.integers(0, 5, 6),
    "u8": rng.integers(0, 255, 6).astype(np.uint8),
    "b": rng.random((4, 6)) > 0.5,
    "bv": rng.random(6) > 0.5,
    "idx": np.array([0, 2, 3]),
    "x3": rng.standard_normal((2, 4, 6)),
}


class Case:
    """One call: ``func(*args, **kwargs)`` where a string names an input, a list of
    strings a list of inputs; ``inplace`` is the position of an argument written in place."""

    def __init__(self, func, *args, inplace: int | None = None, **kwargs):
        self.func, self.args, self.kwargs, self.inplace = func, args, kwargs, inplace

    def arrays(self):
        def resolve(a):
            if isinstance(a, str) and a in INPUTS:
                return INPUTS[a].copy()
            if type(a) in (list, tuple):
                return type(a)(resolve(e) for e in a)
            return a
        return [resolve(a) for a in self.args], {k: resolve(v) for k, v in self.kwargs.items()}

    @property
    def name(self) -> str:
        module = self.func.__module__.removeprefix("numpy").lstrip(".")
        return f"{module}.{self.func.__name__}" if module else self.func.__name__


la, fft = np.linalg, np.fft
CASES = [
    # reductions and statistics
    Case(np.sum, "x", axis=0), Case(np.prod, "p", axis=1), Case(np.mean, "x"),
    Case(np.std, "x", axis=0, ddof=1), Case(np.var, "x", axis=1), Case(np.min, "x", axis=0),
    Case(np.max, "x"), Case(np.amin, "x", axis=1), Case(np.amax, "x", axis=0),
    Case(np.ptp, "x", axis=0), Case(np.argmin, "x", axis=1), Case(np.argmax, "x"),
    Case(np.cumsum, "x", axis=1), Case(np.cumprod, "p", axis=0),
    Case(np.cumulative_sum, "x", axis=1), Case(np.cumulative_prod, "p", axis=0),
    Case(np.nansum, "x", axis=0), Case(np.nanprod, "p", axis=0), Case(np.nanmean, "x", axis=1),
    Case(np.nanstd, "x", axis=0), Case(np.nanvar, "x", axis=0), Case(np.nanmin, "x", axis=0),
    Case(np.nanmax, "x", axis=1), Case(np.nanargmin, "x", axis=0), Case(np.nanargmax, "x", axis=1),
    Case(np.nancumsum, "x", axis=0), Case(np.nancumprod, "p", axis=1),
    Case(np.median, "x", axis=0), Case(np.nanmedian, "x", axis=1),
    Case(np.percentile, "x", 30, axis=0), Case(np.nanpercentile, "x", 30, axis=0),
    Case(np.quantile, "x", 0.3, axis=0), Case(np.nanquantile, "x", 0.3, axis=0),
    Case(np.average, "x", axis=1, weights="iv"), Case(np.all, "b", axis=0), Case(np.any, "b"),
    Case(np.count_nonzero, "b", axis=1), Case(np.cov, "x"), Case(np.corrcoef, "x"),
    Case(np.histogram, "v", bins=4, range=(-3, 3)),
    Case(np.histogram2d, "v", "w", bins=3, range=[[-3, 3], [-3, 3]]),
    Case(np.histogramdd, "x", bins=2, range=[(-3, 3)] * 6), Case(np.histogram_bin_edges, "v", bins=4),
    Case(np.bincount, "iv"), Case(np.digitize, "v", "s"),
    # elementwise helpers and rounding
    Case(np.around, "x", 2), Case(np.round, "x", 1), Case(np.fix, "x"), Case(np.clip, "x", -0.5, 0.5),
    Case(np.real, "c"), Case(np.imag, "c"), Case(np.angle, "c"), Case(np.nan_to_num, "x"),
    Case(np.real_if_close, "c"), Case(np.isreal, "c"), Case(np.iscomplex, "c"),
    Case(np.isrealobj, "x"), Case(np.iscomplexobj, "c"), Case(np.isneginf, "x"),
    Case(np.isposinf, "x"), Case(np.i0, "v"), Case(np.sinc, "x"), Case(np.unwrap, "x", axis=1),
    Case(np.isclose, "x", "y"), Case(np.allclose, "x", "x"), Case(np.array_equal, "x", "x"),
    Case(np.array_equiv, "x", "v"), Case(np.where, "b", "x", "y"), Case(np.where, "b"),
    Case(np.select, ["b"], ["x"], 0.5), Case(np.piecewise, "v", ["bv"], [lambda a: 2 * a, 0.0]),
    Case(np.interp, "v", "s", "w"), Case(np.sort_complex, "v"), Case(np.trim_zeros, "iv"),
    Case(np.astype, "x", np.float32), Case(np.copy, "x"),
    # products and sums of products
    Case(np.dot, "x", np.ones((6, 2))), Case(np.vdot, "v", "w"), Case(np.inner, "v", "w"),
    Case(np.outer, "v", "w"), Case(np.tensordot, "x", "y", axes=([1], [1])),
    Case(np.einsum, "ij,kj->ik", "x", "y"), Case(np.kron, "v3", "w3"), Case(np.cross, "v3", "w3"),
    Case(np.trace, "x"), Case(np.diagonal, "x", 1), Case(np.diag, "v"), Case(np.diagflat, "v3"),
    Case(np.tril, "x"), Case(np.triu, "x", 1), Case(np.diff, "x", axis=1), Case(np.ediff1d, "v"),
    Case(np.gradient, "v"), Case(np.trapezoid, "x", axis=1), Case(np.correlate, "v", "w3"),
    Case(np.convolve, "v", "w3"), Case(np.vander, "v3"),
    # polynomials
    Case(np.polyval, "v3", "v"), Case(np.polyfit, "v", "w", 2), Case(np.polyadd, "v3", "w3"),
    Case(np.polysub, "v3", "w3"), Case(np.polymul, "v3", "w3"), Case(np.polyder, "v3"),
    Case(np.polyint, "v3"), Case(np.roots, "v3"), Case(np.poly, "v3"),
    # sorting, searching, sets
    Case(np.sort, "x", axis=1), Case(np.argsort, "v"), Case(np.partition, "v", 2),
    Case(np.argpartition, "v", 2), Case(np.searchsorted, "s", "v"), Case(np.lexsort, ("v", "w")),
    Case(np.unique, "i"), Case(np.unique, "iv", return_counts=True), Case(np.unique_values, "iv"),
    Case(np.unique_counts, "iv"), Case(np.unique_inverse, "iv"), Case(np.unique_all, "iv"),
    Case(np.nonzero, "b"), Case(np.flatnonzero, "b"), Case(np.argwhere, "b"),
    Case(np.extract, "b", "x"), Case(np.compress, "bv", "x", axis=1), Case(np.take, "x", "idx", axis=1),
    Case(np.take_along_axis, "x", np.argsort(INPUTS["x"], axis=1), axis=1),
    Case(np.choose, "iv", [np.arange(6.0) * k for k in range(5)]),
    Case(np.isin, "iv", "idx"), Case(np.intersect1d, "iv", "idx"), Case(np.union1d, "iv", "idx"),
    Case(np.setdiff1d, "iv", "idx"), Case(np.setxor1d, "iv", "idx"),
    Case(np.ravel_multi_index, ("idx", "idx"), (4, 6)), Case(np.unravel_index, "idx", (4, 6)),
    Case(np.diag_indices_from, "m"), Case(np.tril_indices_from, "m"), Case(np.triu_indices_from, "m"),
    Case(np.packbits, "bv"), Case(np.unpackbits, "u8"),
    # shapes and joining
    Case(np.reshape, "x", (6, 4)), Case(np.ravel, "x"), Case(np.transpose, "x"),
    Case(np.permute_dims, "x3", (2, 0, 1)), Case(np.matrix_transpose, "x3"),
    Case(np.swapaxes, "x3", 0, 2), Case(np.moveaxis, "x3", 0, -1), Case(np.rollaxis, "x3", 2),
    Case(np.expand_dims, "x", 1), Case(np.squeeze, "x3", axis=None), Case(np.flip, "x", 1),
    Case(np.fliplr, "x"), Case(np.flipud, "x"), Case(np.rot90, "x"), Case(np.roll, "x", 2, axis=1),
    Case(np.tile, "v3", 2), Case(np.repeat, "v", 2), Case(np.resize, "v", (3, 4)),
    Case(np.pad, "x", 1), Case(np.append, "v", "w"), Case(np.insert, "v", 2, 9.0, axis=0),
    Case(np.delete, "v", 2, axis=0), Case(np.concatenate, ["x", "y"]), Case(np.concat, ["x", "y"], axis=1),
    Case(np.stack, ["v", "w"]), Case(np.unstack, "x"), Case(np.vstack, ["x", "y"]),
    Case(np.hstack, ["x", "y"]), Case(np.dstack, ["x", "y"]), Case(np.column_stack, ["v", "w"]),
    Case(np.block, [["x", "y"], ["y", "x"]]), Case(np.split, "v", 3), Case(np.array_split, "v", 4),
    Case(np.hsplit, "x", 2), Case(np.vsplit, "x", 2), Case(np.dsplit, "x3", 2),
    Case(np.broadcast_to, "v", (4, 6)), Case(np.broadcast_arrays, "x", "v"),
    Case(np.atleast_1d, "v"), Case(np.atleast_2d, "v"), Case(np.atleast_3d, "x"),
    Case(np.meshgrid, "v3", "w3"), Case(np.ix_, "idx", "idx"), Case(np.shape, "x"),
    Case(np.ndim, "x3"), Case(np.size, "x"), Case(np.zeros_like, "x"), Case(np.ones_like, "i"),
    Case(np.full_like, "x", 2.5), Case(np.apply_along_axis, np.sum, 1, "x"),
    Case(np.apply_over_axes, np.sum, "x3", [0, 2]), Case(np.linspace, "v3", "w3", 4),
    Case(np.geomspace, "v3", "v3", 3), Case(np.result_type, "x", "i"), Case(np.common_type, "x"),
    Case(np.shares_memory, "x", "y"), Case(np.may_share_memory, "x", "y"),
    # in place
    Case(np.put, "v", [0, 2], [9.0, 8.0], inplace=0), Case(np.place, "v", "bv", [7.0], inplace=0),
    Case(np.putmask, "x", "b", "y", inplace=0), Case(np.copyto, "x", "y", inplace=0),
    Case(np.fill_diagonal, "m", 0.0, inplace=0),
    Case(np.put_along_axis, "x", np.argsort(INPUTS["x"], axis=1)[:, :1], 0.0, 1, inplace=0),
    # linear algebra
    Case(la.norm, "x"), Case(la.norm, "x", axis=1), Case(la.inv, "m"), Case(la.det, "m"),
    Case(la.slogdet, "m"), Case(la.solve, "m", "v3"), Case(la.eig, "m"), Case(la.eigh, "m"),
    Case(la.eigvals, "m"), Case(la.eigvalsh, "m"), Case(la.svd, "m"), Case(la.svdvals, "x"),
    Case(la.qr, "m"), Case(la.cholesky, "m"), Case(la.pinv, "x"), Case(la.matrix_rank, "x"),
    Case(la.matrix_power, "m", 3), Case(la.lstsq, "m", "v3"), Case(la.cond, "m"),
    Case(la.multi_dot, ["x", np.ones((6, 2)), np.ones((2, 3))]), Case(la.outer, "v", "w"),
    Case(la.cross, "v3", "w3"), Case(la.matrix_norm, "m"), Case(la.vector_norm, "x"),
    Case(la.diagonal, "m"), Case(la.trace, "m"), Case(la.vecdot, "x", "y"),
    Case(la.matmul, "x", np.ones((6, 2))), Case(la.matrix_transpose, "x"),
    Case(la.tensorsolve, "m", "v3"), Case(la.tensorinv, "m", 1),
    # fft
    Case(fft.fft, "v"), Case(fft.ifft, "v"), Case(fft.rfft, "v"), Case(fft.irfft, "v"),
    Case(fft.hfft, "v"), Case(fft.ihfft, "v"), Case(fft.fft2, "x"), Case(fft.ifft2, "x"),
    Case(fft.fftn, "x"), Case(fft.ifftn, "x"), Case(fft.rfft2, "x"), Case(fft.irfft2, "x"),
    Case(fft.rfftn, "x"), Case(fft.irfftn, "x"), Case(fft.fftshift, "v"), Case(fft.ifftshift, "v"),
]

# Functions Dask does not implement and interop does not build from Dask's blocks: interop
# raises a TypeError naming function and backend (Dask itself would warn and then compute).
DASK_LACKS = {
    "histogram_bin_edges", "real_if_close", "isrealobj", "sort_complex", "trim_zeros",
    "inner", "kron", "diagflat", "trapezoid", "correlate", "convolve", "vander",
    "polyval", "polyfit", "polyadd", "polysub", "polymul", "polyder", "polyint", "roots", "poly",
    "lexsort", "intersect1d", "setdiff1d", "setxor1d", "diag_indices_from", "packbits",
    "unpackbits", "resize", "ix_", "geomspace", "common_type", "shares_memory",
    "may_share_memory", "put", "place", "putmask", "copyto", "fill_diagonal", "put_along_axis",
    "linalg.eig", "linalg.eigvals", "linalg.cross", "linalg.tensorsolve", "linalg.tensorinv",
}
# What CuPy has not, nor interop for it (backends/cupy/numpy_functions.py supplies the rest):
# its clear TypeError on a GPU, or CuPy's own refusal.
CUPY_LACKS = {"insert", "block", "polyder", "polyint", "histogram_bin_edges", "geomspace"}
CUPY_RAISES: dict[str, type] = {
    "roots": NotImplementedError,  # CuPy's eigvals: "only Hermitian/symmetric" (a companion is not)
}
# Functions whose answer is a Python value: one compute (a value read under dask_compute).
VALUE_ANSWERS = {"allclose", "array_equal", "array_equiv"}
# Dask's own errors where its implementation is narrower than NumPy's.
_FFT_ND = ("fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn", "irfftn")
DASK_RAISES: dict[str, type] = {
    "reshape": NotImplementedError,         # only merges/splits dimensions along chunk edges
}
# (inv, solve and cholesky run per matrix with the core axes whole where Dask's blocked ones
# cannot take the chunks; the FFTs rechunk their axes whole: both lazily, compared below)


def dask_differences(name: str, got, expected):
    """Where Dask's answer legitimately differs in form from NumPy's: made comparable."""
    if name == "unique_values":  # the order is unspecified; NumPy's hash order, Dask's sorted
        assert got.backend == "dask"
        return interop.tensor(np.sort(to_numpy(got)), backend="dask"), np.sort(expected)
    if name == "histogram":  # bin edges given by range= stay a host array
        assert got[1].backend == "numpy"
        return got[0], expected[0]
    if name == "linalg.lstsq":  # Dask: residuals always, rank as int64; NumPy: none, int32
        assert int(got[2]) == expected[2]
        return (got[0], got[3]), (expected[0], expected[3])
    if name == "linalg.svd":  # TSQR: singular vectors up to sign
        return tuple(np.abs(g) for g in got), tuple(np.abs(e) for e in expected)
    return got, expected


def _ids():
    seen: dict[str, int] = {}
    for case in CASES:
        seen[case.name] = seen.get(case.name, 0) + 1
        yield case.name if seen[case.name] == 1 else f"{case.name}-{seen[case.name]}"


def test_the_table_has_150_functions():
    assert len({case.func for case in CASES}) >= 150


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("case", CASES, ids=list(_ids()))
def test_function_matches_numpy(case, backend):
    args, kwargs = case.arrays()
    expected = case.func(*args, **kwargs)
    targs, tkwargs = as_tensors(args, backend), {k: as_tensors(v, backend) for k, v in kwargs.items()}
    if backend == "dask" and case.name in DASK_LACKS:
        with pytest.raises(TypeError, match=rf"numpy.{case.name} is not implemented by the dask"):
            case.func(*targs, **tkwargs)
        return
    if backend == "dask" and case.name in DASK_RAISES:
        with pytest.raises(DASK_RAISES[case.name]):
            case.func(*targs, **tkwargs)
        return
    if backend == "cupy" and case.name in CUPY_LACKS | set(CUPY_RAISES):
        with pytest.raises(CUPY_RAISES.get(case.name, TypeError)):
            case.func(*targs, **tkwargs)
        return
    with count_computes() as computes:
        got = case.func(*targs, **tkwargs)
    if backend == "dask":
        assert len(computes) == (case.name in VALUE_ANSWERS), f"{case.name}: computes {computes}"
        got, expected = dask_differences(case.name, got, expected)
    if case.inplace is not None:
        assert got is None and expected is None
        got, expected = targs[case.inplace], args[case.inplace]
    assert_matches(got, expected, backend, case.name)


# ------------------------------------------------------------------ like=, out=, containers
@pytest.mark.parametrize("create", [lambda like: np.zeros(3, like=like),
                                    lambda like: np.ones((2, 2), like=like),
                                    lambda like: np.full(3, 2.5, like=like),
                                    lambda like: np.arange(4, like=like),
                                    lambda like: np.asarray([1.0, 2.0], like=like)])
def test_like_creates_on_the_like_tensors_backend(create, backend):
    like = as_tensors(np.zeros(2), backend)
    assert_matches(create(like), create(None), backend, "like=")


def test_like_keeps_the_subclass():
    class Tagged(interop.Tensor):
        pass
    got = np.zeros(3, like=interop.tensor([1.0]).as_subclass(Tagged))
    assert type(got) is Tagged


def test_function_out_tensor_keeps_identity(backend):
    if backend == "dask":  # Dask's reductions take no out= tensor of their own
        pytest.skip("dask.array.sum has no out=")
    x = INPUTS["x"]
    out = as_tensors(np.zeros(6), backend)
    assert np.sum(as_tensors(x, backend), axis=0, out=out) is out
    np.testing.assert_allclose(to_numpy(out), x.sum(axis=0))


def test_mixed_containers_with_ndarrays_and_scalars(backend):
    x, v = INPUTS["x"], INPUTS["v"]
    t = as_tensors(x, backend)
    assert_matches(np.where(t > 0, t, 0), np.where(x > 0, x, 0), backend)
    calls = {"concatenate": lambda: np.concatenate([t, v[None, :]]),
             "stack": lambda: np.stack((v, as_tensors(v, backend), v)),
             "broadcast_arrays": lambda: np.broadcast_arrays(t, v, 2.0)}
    if off_host(backend):  # host arrays beside a device tensor: refused
        for call in calls.values():
            with pytest.raises(interop.DeviceMismatchError):
                call()
        return
    assert_matches(calls["concatenate"](), np.concatenate([x, v[None, :]]), backend)
    assert_matches(calls["stack"](), np.stack((v, v, v)), backend)
    assert_matches(calls["broadcast_arrays"](), np.broadcast_arrays(x, v, 2.0), backend)


# ------------------------------------------------------------------ conversion
def test_asarray_shares_numpy_memory_and_honours_copy():
    base = np.arange(4.0)
    t = interop.as_tensor(base)
    assert np.asarray(t) is base and np.shares_memory(np.asarray(t, copy=False), base)
    copied = np.array(t)  # copy=True
    assert not np.shares_memory(copied, base)
    np.testing.assert_array_equal(copied, base)
    assert np.asarray(t, dtype=np.float32).dtype == np.float32
    with pytest.raises(ValueError):  # as NumPy: a dtype change needs a copy
        np.asarray(t, dtype=np.float32, copy=False)
    with pytest.raises(ValueError):
        np.asarray(base, dtype=np.float32, copy=False)


def test_asarray_computes_dask_and_refuses_copy_false():
    t = interop.tensor(INPUTS["x"], backend="dask", chunks=(2, 6))
    got = np.asarray(t)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, INPUTS["x"])
    with pytest.raises(ValueError, match="dask"):
        np.asarray(t, copy=False)


def test_np_testing_on_host_tensors(backend):
    x = INPUTS["x"]
    t = as_tensors(x, backend)
    if off_host(backend):  # np.testing converts with np.asarray: the host's tensors only
        with pytest.raises(TypeError, match=r"t\.cpu\(\)"):
            np.testing.assert_allclose(t, x)
        return
    np.testing.assert_allclose(t, x)
    np.testing.assert_array_equal(t, x)
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(t, x + 1)


def test_matplotlib_plots_host_tensors():
    """matplotlib converts with np.asarray: the plotted data are the tensor's values."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = interop.tensor(INPUTS["x"][0])
    fig, ax = plt.subplots()
    try:
        (line,) = ax.plot(t, t * 2)
        np.testing.assert_array_equal(line.get_xdata(), INPUTS["x"][0])
        np.testing.assert_array_equal(line.get_ydata(), INPUTS["x"][0] * 2)
    finally:
        plt.close(fig)


@pytest.mark.gpu
def test_cupy_asarray_says_call_cpu():
    t = interop.tensor([1.0, 2.0], backend="cupy")
    with pytest.raises(TypeError, match=r"\.cpu\(\)"):
        np.asarray(t)
    assert_matches(np.mean(t), np.mean(np.array([1.0, 2.0], np.float32)), "cupy")


def test_what_dask_lacks_is_a_clear_type_error_and_no_compute():
    t = interop.tensor(INPUTS["x"], backend="dask", chunks=(2, 6))
    with count_computes() as computes, pytest.raises(TypeError) as err:
        np.kron(t, t)
    assert computes == [] and "numpy.kron" in str(err.value) and "dask backend" in str(err.value)


# ------------------------------------------------------------------ Dask stays lazy
class count_computes:  # noqa: N801 - a context manager named for what it yields
    """Collects one entry per Dask graph computed inside the block."""

    def __enter__(self) -> list:
        from dask.callbacks import Callback
        self.seen: list = []
        self._cb = Callback(start=lambda dsk: self.seen.append(len(dsk)))
        self._cb.__enter__()
        return self.seen

    def __exit__(self, *exc) -> None:
        self._cb.__exit__(*exc)


def test_twenty_chained_numpy_calls_never_compute():
    x = INPUTS["x"]
    t = interop.tensor(x, backend="dask", chunks=(2, 3))
    steps = [
        lambda a: np.add(a, 1.0), lambda a: np.multiply(a, a), np.sqrt, np.log1p,
        lambda a: np.clip(a, 0.1, 5.0), lambda a: np.where(a > 1.0, a, -a), np.abs,
        lambda a: np.concatenate([a, a], axis=0), np.transpose, lambda a: np.flip(a, 0),
        lambda a: np.roll(a, 1, axis=1), lambda a: np.cumsum(a, axis=0),
        lambda a: np.maximum(a, np.mean(a, axis=0)), lambda a: np.einsum("ij->ji", a),
        lambda a: np.tensordot(a, np.ones((6, 2)), axes=1), np.exp, lambda a: np.round(a, 3),
        lambda a: np.nan_to_num(a), lambda a: np.sum(a, axis=1), np.linalg.norm,
    ]
    with count_computes() as computes:
        got, expected = t, x
        for step in steps:
            got, expected = step(got), step(expected)
        assert isinstance(got, interop.Tensor) and got.backend == "dask"
    assert len(steps) == 20 and computes == []
    with count_computes() as computes:
        np.testing.assert_allclose(to_numpy(got), expected, rtol=1e-12)
    assert len(computes) == 1


# ------------------------------------------------------------------ one hook sees everything
class LoggingTensor(interop.Tensor):
    log: ClassVar[list] = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        LoggingTensor.log.append(func)
        return super().__torch_function__(func, types, args, kwargs)


def test_logging_tensor_sees_every_surface(backend):
    x = INPUTS["x"]
    t = as_tensors(x, backend).as_subclass(LoggingTensor)
    LoggingTensor.log = []
    host = as_tensors(x, backend) if off_host(backend) else x  # an ndarray where it may join
    results = {
        "ufunc": (np.add(t, 1.0), x + 1.0),
        "ufunc.reduce": (np.maximum.reduce(t, axis=0), x.max(axis=0)) if backend == "numpy"
        else (np.maximum(t, 0.0), np.maximum(x, 0.0)),
        "np.mean": (np.mean(t, axis=0), x.mean(axis=0)),
        "operator": (t * 2, x * 2),
        "ndarray operator": (host - t, x - x),
        "interop": (interop.sum(t, dim=1), x.sum(axis=1)),
    }
    for name, (got, expected) in results.items():
        assert type(got) is LoggingTensor, name
        np.testing.assert_allclose(to_numpy(got), expected, err_msg=name)
    logged = set(LoggingTensor.log)
    assert {np.add, np.mean, interop.sum, LoggingTensor.mul} <= logged
    assert np.subtract in logged or off_host(backend)  # ndarray - t is NumPy's subtract
    if backend == "numpy":
        assert any(getattr(f, "__self__", None) is np.maximum and f.__name__ == "reduce"
                   for f in LoggingTensor.log)


def test_handler_can_override_numpy_calls_and_modes_see_them():
    class Units(interop.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func is np.sqrt:
                return "overridden"
            return super().__torch_function__(func, types, args, kwargs)

    u = interop.tensor([4.0]).as_subclass(Units)
    assert np.sqrt(u) == "overridden"
    assert type(np.exp(u)) is Units

    seen = []

    class Mode(interop.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))

    t = interop.tensor([1.0, 2.0])
    with Mode():
        got = np.add.accumulate(np.sqrt(t))
    assert np.sqrt in seen and any(getattr(f, "__name__", "") == "accumulate" for f in seen)
    np.testing.assert_allclose(got.raw, np.cumsum(np.sqrt([1.0, 2.0])))


# ------------------------------------------------------------------ what Dask lacks, built lazily
@pytest.mark.parametrize("call", [
    lambda a: np.sort(a, axis=0), lambda a: np.sort(a, axis=None),
    lambda a: np.argsort(a, axis=-1, stable=True), lambda a: np.partition(a, 1, axis=0),
    lambda a: np.unwrap(a * 4, axis=0), lambda a: np.array_split(a, 3, axis=1),
    lambda a: np.take_along_axis(a, np.argsort(a, axis=0)[:2], axis=0),
    lambda a: np.linalg.det(np.stack([a[:, :4], a[:, 2:]])),
    lambda a: np.linalg.eigh(np.stack([a[:, :4] @ a[:, :4].T] * 3)),
    lambda a: np.linalg.svdvals(np.stack([a, a + 1])),
], ids=["sort0", "sort_none", "argsort", "partition", "unwrap", "array_split",
        "take_along_axis", "det_batched", "eigh_batched", "svdvals_batched"])
def test_dask_lacks_built_lazily_across_chunks(call):
    """Inputs split in chunks along the axis the function needs whole, and batches of
    matrices split in chunks: Dask-backed, no compute while building, NumPy's values."""
    x = INPUTS["x"]
    t = interop.tensor(x, backend="dask", chunks=(1, 2))
    with count_computes() as computes:
        got = call(t)
    assert computes == []
    assert_matches(got, call(x), "dask", "lazy")


def test_interp_and_digitize_are_lazy_in_every_argument():
    v, s, w = (interop.tensor(INPUTS[k], backend="dask", chunks=2) for k in ("v", "s", "w"))
    with count_computes() as computes:
        got, bins = np.interp(v, s, w, left=-1.0), np.digitize(v, s, right=True)
    assert computes == []
    assert_matches(got, np.interp(INPUTS["v"], INPUTS["s"], INPUTS["w"], left=-1.0), "dask")
    assert_matches(bins, np.digitize(INPUTS["v"], INPUTS["s"], right=True), "dask")


def test_split_mistakes_raise_numpys_errors_without_computing():
    t = interop.tensor(INPUTS["v"], backend="dask")
    with count_computes() as computes:
        with pytest.raises(ValueError, match="equal division"):
            np.split(t, 4)
        with pytest.raises(ValueError, match="vsplit only works on arrays of 2 or more"):
            np.vsplit(t, 2)
        with pytest.raises(np.linalg.LinAlgError):
            np.linalg.det(t)
    assert computes == []


def test_value_answers_read_under_the_dask_compute_policy():
    t = interop.tensor(INPUTS["x"], backend="dask")
    assert np.array_equal(t, t) is True and np.allclose(t, t + 1e-12) is True
    assert np.array_equal(t, t[:2]) is False  # shapes differ: known without computing
    assert np.array_equiv(t, t[:1]) is False
    with interop.config(dask_compute="raise"):
        assert np.array_equal(t, t[:2]) is False
        with pytest.raises(interop.DaskComputeError, match="numpy.array_equal"):
            np.array_equal(t, t)


def test_scipy_minimize_on_a_dask_tensor():
    optimize = pytest.importorskip("scipy.optimize")
    x0 = interop.tensor(np.array([1.0, -2.0, 0.5]), backend="dask")
    found = optimize.minimize(lambda v: ((v - 3.0) ** 2).sum(), x0, method="Nelder-Mead")
    assert found.success
    np.testing.assert_allclose(np.asarray(found.x), [3.0, 3.0, 3.0], atol=1e-3)
