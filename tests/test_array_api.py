"""interop.array_api as a namespace: versions, inspection, the array object's attributes,
array-api-compat's view of tensors, the one hook, and backends kept (numpy, dask, cupy)."""

from __future__ import annotations

import math
import pickle

import array_api_compat as aac
import array_api_strict as strict
import numpy as np
import pytest

import interop
import interop.array_api as xp
from interop.array_api import _names, _wrap
from interop.backends import registry
from tests.conftest import home_device, off_host, to_numpy


def _t(a, backend):
    return interop.tensor(np.asarray(a), backend=backend)


def test_namespace_has_every_name_of_the_standard():
    standard = {n for n in strict.__all__ if n not in {
        "ArrayAPIStrictFlags", "Device", "__version__", "get_array_api_strict_flags",
        "reset_array_api_strict_flags", "set_array_api_strict_flags"}}
    assert standard - set(xp.__all__) == set()
    assert all(hasattr(xp, n) for n in xp.__all__)
    assert set(_names.LINALG) == set(xp.linalg.__all__)
    assert set(xp.fft.__all__) == set(strict.fft.__all__)
    # strict's linalg.__all__ omits eig/eigvals (2025.12), which its namespace has
    assert set(_names.LINALG) == set(strict.linalg.__all__) | {"eig", "eigvals"}
    assert all(hasattr(strict.linalg, n) for n in _names.LINALG)
    assert xp.__array_api_version__ == "2025.12" == strict.__array_api_version__


# Where array-api-strict's defaults are not the standard's: it marks unset device/copy with
# sentinels.
_STRICT_DIFFERS = {"from_dlpack": "default", "astype": "default"}


@pytest.mark.parametrize("qualname", [*_names.CREATION, *_names.ARRAY,
                                      *(f"linalg.{n}" for n in _names.LINALG),
                                      *(f"fft.{n}" for n in _names.FFT_CREATION + _names.FFT)])
def test_functions_have_the_standards_signature(qualname):
    """inspect.signature (and array-api-tests' signature tests) see the standard's parameters:
    names, kinds and defaults as array-api-strict's, not the generic (*args, **kwargs)."""
    import inspect
    ours, theirs = xp, strict
    for part in qualname.split("."):
        ours, theirs = getattr(ours, part), getattr(theirs, part)
    got = inspect.signature(ours).parameters.values()
    want = inspect.signature(theirs).parameters.values()
    assert [(p.name, p.kind) for p in got] == [(p.name, p.kind) for p in want]
    if qualname not in _STRICT_DIFFERS:
        assert [p.default for p in got] == [p.default for p in want]


@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "complex128"])
def test_finfo_numbers_are_python_floats(name, backend):
    """As array-api-strict's: bits an int, eps/max/min/smallest_normal Python floats, dtype the
    real dtype of that precision; from a dtype or from a tensor (NumPy gives float32 scalars)."""
    want = strict.finfo(getattr(strict, name))
    for arg in (getattr(xp, name), xp.asarray(interop.tensor(np.zeros(1, name), backend=backend))):
        got = xp.finfo(arg)
        for field in ("bits", "eps", "max", "min", "smallest_normal"):
            assert type(getattr(got, field)) is type(getattr(want, field))
            assert getattr(got, field) == getattr(want, field)
        assert got.dtype == getattr(xp, str(want.dtype).rsplit(".", 1)[-1])


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "uint32", "uint64"])
@pytest.mark.parametrize("axis", [None, 0])
def test_repeat_counts_of_every_integer_dtype(dtype, axis):
    """Array repeats of any integer dtype, uint64 included (NumPy refuses to cast uint64
    counts to intp), give array-api-strict's result."""
    data = np.array([1.5, -2.0, 3.0])
    counts = np.array([2, 0, 3], dtype=dtype)
    want = strict.repeat(strict.asarray(data), strict.asarray(counts), axis=axis)
    got = xp.repeat(_t(data, "numpy"), _t(counts, "numpy"), axis=axis)
    assert got.dtype == np.dtype(str(want.dtype).rsplit(".", 1)[-1])
    np.testing.assert_array_equal(to_numpy(got), np.asarray(want))


@pytest.mark.parametrize("version", [None, "2021.12", "2022.12", "2023.12", "2024.12", "2025.12"])
def test_array_namespace_versions(version, backend):
    t = _t([1.0, 2.0], backend)
    ns = t.__array_namespace__(api_version=version)  # the default backend's is xp itself
    assert ns is t.__array_namespace__() and (ns is xp) == (backend == "numpy")
    assert aac.array_namespace(t, api_version=version) is ns


@pytest.mark.parametrize("version", ["2019.12", "2026.12", "latest"])
def test_unsupported_version_raises(version):
    with pytest.raises(ValueError, match="not supported"):
        interop.tensor([1.0]).__array_namespace__(api_version=version)


def test_array_api_compat_helpers(backend):
    t = _t(np.arange(6.0).reshape(2, 3), backend)
    assert aac.is_array_api_obj(t)
    assert aac.array_namespace(t, _t([1.0], backend)) is t.__array_namespace__()
    assert aac.device(t) == t.device == ("cpu" if not off_host(backend) else t.device)
    assert aac.size(t) == 6
    moved = aac.to_device(t, "cpu")  # off the host, onto the host's backend
    assert isinstance(moved, interop.Tensor)
    assert moved.backend == ("numpy" if off_host(backend) else backend)


@pytest.mark.parametrize("policy", ["allow", "warn", "raise"])
def test_is_lazy_array_answers_without_computing(policy):
    """array-api-compat says raw Dask arrays are lazy by their class and probes arrays it does
    not know with bool(): interop's lazy tensors answer that probe as lazy at once, under
    every dask_compute policy, computing nothing; eager ones are eager. Vendored copies of
    array-api-compat (scikit-learn's) too."""
    import dask.array as da

    from tests.helpers.dask_counting import ComputeCounter
    probes = [aac.is_lazy_array]
    try:
        from sklearn.externals import array_api_compat as vendored
        probes.append(vendored.is_lazy_array)
    except ImportError:
        pass
    lazy = [interop.tensor(np.arange(6.0), backend="dask", chunks=3),
            interop.tensor(7.0, backend="dask"), interop.tensor(np.zeros((0, 2)), backend="dask")]
    with interop.config(dask_compute=policy), ComputeCounter() as counter:
        for probe in probes:
            assert probe(da.arange(6, chunks=3))  # the reference: raw Dask, by class
            assert all(probe(t) for t in lazy)
            assert not probe(interop.tensor([1.0])) and not probe(interop.tensor(2.0))
    assert counter.count == 0
    assert bool(lazy[1])  # (outside the probe, bool() reads the value, as before)


def test_size_is_an_operand_as_the_int_it_is(backend):
    """scipy.signal's ``a - a.size``: every operator, both orders, in place and in functions,
    gives what the same int gives NumPy (and torch, with ``t.numel()``)."""
    import operator
    torch = pytest.importorskip("torch")
    a = _t([1.0, 2.0, 5.0], backend)
    n = a.size
    ref, tref = np.array([1.0, 2.0, 5.0]), torch.tensor([1.0, 2.0, 5.0], dtype=torch.float64)
    for op in (operator.sub, operator.add, operator.mul, operator.truediv, operator.pow,
               operator.lt, operator.floordiv):
        for ours, theirs, torchs in ((op(a, n), op(ref, 3), op(tref, tref.numel())),
                                     (op(n, a), op(3, ref), op(tref.numel(), tref))):
            np.testing.assert_array_equal(to_numpy(ours), theirs)
            np.testing.assert_allclose(to_numpy(ours), torchs.numpy(), rtol=1e-15)
    np.testing.assert_array_equal(to_numpy(xp.subtract(a, n)), ref - 3)
    b = _t([1, 2], backend)
    b -= b.size
    np.testing.assert_array_equal(to_numpy(b), [-1, 0])


def test_size_is_an_int_and_torchs_method():
    t = interop.tensor(np.zeros((2, 3)))
    assert t.size == 6 and isinstance(t.size, int) and t.size + 1 == 7
    assert t.size() == (2, 3) and t.size(1) == 3 and t.size(dim=-1) == 3
    assert interop.Tensor.size(t, 0) == 2
    assert pickle.loads(pickle.dumps(t.size)) == 6
    assert interop.tensor(3.0).size == 1


def test_size_of_unknown_dask_shape_is_none():
    t = interop.tensor(np.arange(6.0), backend="dask", chunks=3)
    assert xp.nonzero(t > 2)[0].size is None


def test_array_object_attributes(backend):
    a = np.arange(24.0).reshape(2, 3, 4)
    t = _t(a, backend)
    assert t.ndim == 3 and t.shape == (2, 3, 4) and t.dtype == xp.float64
    np.testing.assert_array_equal(to_numpy(t.mT), np.swapaxes(a, -1, -2))
    np.testing.assert_array_equal(to_numpy(_t(a[0], backend).T), a[0].T)
    assert t.to_device(t.device).backend == backend
    with pytest.raises(ValueError, match="stream"):
        t.to_device("cpu", stream=1)
    assert float(_t(2.5, backend)) == 2.5 and int(_t(3, backend)) == 3
    assert complex(_t(1j, backend)) == 1j and bool(_t(True, backend))
    assert [10, 20, 30][_t(np.int64(1), backend)] == 20


def test_reductions_are_0d_tensors(backend):
    t = _t(np.arange(4.0), backend)
    for r in (xp.sum(t), xp.max(t), xp.linalg.vector_norm(t), xp.mean(t)):
        assert isinstance(r, interop.Tensor) and r.ndim == 0 and r.backend == backend


def test_standard_semantics_not_torchs(backend):
    i = _t(np.arange(4, dtype=np.int32), backend)
    assert xp.divide(xp.astype(i, xp.float32), 2.0).dtype == xp.float32
    assert xp.asarray([1.0, 2.0]).dtype == xp.float64  # torch would give float32
    assert xp.sum(i).dtype == xp.int64  # the default integer, as the standard says
    v = xp.std(_t([1.0, 2.0, 3.0, 4.0], backend))  # correction=0, torch's default is 1
    assert float(v) == pytest.approx(np.std([1.0, 2.0, 3.0, 4.0]))


def test_creation_follows_default_backend_and_device(default_backend):
    z = xp.zeros((2, 2))
    assert z.backend == default_backend and z.dtype == xp.float64
    on = _t([1.0], default_backend)
    assert xp.ones(3, device=on.device).backend == default_backend
    assert xp.full_like(on, 7.0).backend == default_backend
    assert xp.fft.fftfreq(4).backend == default_backend


def test_raw_arrays_are_data_that_follow_the_default_backend(default_backend):
    assert xp.asarray(np.ones(2)).backend == default_backend  # as interop.tensor(ndarray)
    assert xp.stack([np.ones(2), np.ones(2)]).backend == default_backend
    on_numpy = interop.tensor(np.ones(2), backend="numpy")
    assert xp.add(on_numpy, np.ones(2)).backend == "numpy"  # a tensor decides


def test_info_per_backend(default_backend):
    info = xp.__array_namespace_info__()
    home = interop.device(home_device(default_backend))
    assert info.default_device() == home and info.devices()[0] == home
    assert info.default_dtypes()["real floating"] == xp.float64
    assert info.default_dtypes(device=info.default_device())["indexing"] == xp.int64
    assert set(info.dtypes(kind="real floating")) == {"float32", "float64"}
    assert {"boolean indexing", "data-dependent shapes", "max dimensions"} <= set(info.capabilities())
    assert default_backend in repr(info)


def test_mixed_numpy_and_dask_give_dask():
    r = xp.add(_t([1.0, 2.0], "numpy"), _t([1.0, 2.0], "dask"))
    assert r.backend == "dask"


def test_missing_backend_function_names_op_backend_and_fix():
    with pytest.raises(TypeError, match=r"linalg\.cross is not implemented by the dask backend.*"
                                        r"lacks fancy_cross.*to\(backend='numpy'\)"):
        _wrap._function_of(registry.get_backend("dask"), "linalg", "fancy_cross",
                           "interop.array_api.linalg.cross")


def test_linalg_cross_on_dask_is_lazy_and_matches_numpy():
    """array-api-compat's Dask namespace lacks linalg.cross: NumPy's, built lazily."""
    from tests.helpers.dask_counting import ComputeCounter
    a, b = np.arange(12.0).reshape(4, 3), np.arange(3.0)[::-1].copy()
    with ComputeCounter() as counter:
        got = xp.linalg.cross(_t(a, "dask"), _t(b, "dask"))
    assert counter.count == 0 and got.backend == "dask"
    np.testing.assert_array_equal(got.compute().numpy(), np.cross(a, b))


def test_dask_svd_is_reduced_only():
    a = np.arange(12.0).reshape(4, 3) ** 2
    d = _t(a, "dask")
    with pytest.raises(ValueError, match="full_matrices=False"):
        xp.linalg.svd(d)
    u, s, vh = xp.linalg.svd(d, full_matrices=False)
    assert (u.backend, u.shape, s.shape, vh.shape) == ("dask", (4, 3), (3,), (3, 3))
    np.testing.assert_allclose(to_numpy(s), np.linalg.svd(a, compute_uv=False))
    assert int(xp.linalg.matrix_rank(d)) == np.linalg.matrix_rank(a)


def test_subclass_hook_sees_array_api_calls():
    seen = []

    class Logged(interop.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__qualname__)
            return super().__torch_function__(func, types, args, kwargs)

    t = interop.tensor([1.0, 2.0]).as_subclass(Logged)
    r = xp.linalg.vector_norm(xp.sqrt(t))
    assert type(r) is Logged
    assert "sqrt" in seen and "linalg.vector_norm" in seen


def test_subclass_results_keep_class_and_attributes(backend):
    class Meters(interop.Tensor):
        unit = "m"

    m = _t([1.0, 4.0], backend).as_subclass(Meters)
    m.note = "x"
    r = xp.sqrt(m)
    assert type(r) is Meters and r.note == "x"
    assert all(type(u) is Meters for u in xp.unique_counts(m))


def test_dask_linspace_ends_exactly_on_stop(default_backend):
    """Dask's last point is start + (num - 1) * step, an ulp off; the standard's is stop."""
    for num in (2, 7):
        got = xp.linspace(10.0, 1.0000000028834277, num)
        assert got.backend == default_backend
        np.testing.assert_array_equal(to_numpy(got), np.linspace(10.0, 1.0000000028834277, num))
    assert to_numpy(xp.linspace(0.0, 1.0, 4, endpoint=False)).tolist() == [0.0, 0.25, 0.5, 0.75]


def test_floor_divide_takes_the_standards_special_cases(backend):
    """floor(x1 / x2) where an operand is infinite (NumPy and torch give NaN and -1 there);
    the Tensor's own ``//`` stays torch's."""
    inf = np.inf
    x1 = _t([inf, inf, -inf, -inf, 1.0, -1.0, 1.0, -1.0, 7.0, 7.0, inf], backend)
    x2 = _t([2.0, -2.0, 2.0, -2.0, -inf, inf, inf, -inf, 2.0, 0.0, inf], backend)
    got = np.asarray(xp.floor_divide(x1, x2).to(backend="numpy").raw)
    want = np.array([inf, -inf, -inf, inf, -0.0, -0.0, 0.0, 0.0, 3.0, inf, np.nan])
    np.testing.assert_array_equal(got, want)
    assert list(np.signbit(got[4:8])) == [True, True, False, False]
    assert np.isnan(np.asarray((x1 // x2).to(backend="numpy").raw)[0])  # torch's operator
    ints = xp.floor_divide(_t([7, -7], backend), _t([2, 2], backend))
    assert np.asarray(ints.to(backend="numpy").raw).tolist() == [3, -4]


def test_complex_expm1_takes_the_standards_special_cases(backend):
    inf, nan = np.inf, np.nan
    z = _t(np.array([complex(inf, 0), complex(-inf, inf), complex(-inf, nan), complex(nan, 0),
                     complex(1, 1)]), backend)
    got = np.asarray(xp.expm1(z).to(backend="numpy").raw)
    assert got[0] == complex(inf, 0) and got[1] == complex(-1, 0) and got[2] == complex(-1, 0)
    assert np.isnan(got[3].real) and got[3].imag == 0
    np.testing.assert_allclose(got[4], np.expm1(complex(1, 1)))


def test_complex_tanh_at_positive_infinity_is_one_plus_zero_j(backend):
    z = _t(np.array([complex(np.inf, 2.0), complex(np.inf, 3.5), complex(0.5, 0.5)]), backend)
    got = np.asarray(xp.tanh(z).to(backend="numpy").raw)
    assert got[0] == 1 and not np.signbit(got[0].imag) and not np.signbit(got[1].imag)
    np.testing.assert_allclose(got[2], np.tanh(complex(0.5, 0.5)))


def test_repeat_on_dask_keeps_sizes_that_do_not_depend_on_values():
    """Array repeats make a NaN size on Dask (it depends on their values), except along an
    axis of size 0: nothing to repeat, whatever the counts."""
    empty = _t(np.zeros((2, 0, 3)), "dask")
    counts = _t(np.array([2]), "dask")
    assert tuple(xp.repeat(empty, counts, axis=1).shape) == (2, 0, 3)
    assert tuple(xp.repeat(empty, counts).shape) == (0,)
    out = xp.repeat(_t(np.arange(3), "dask"), _t(np.array([1, 0, 2]), "dask"))
    assert out.shape == (None,)  # values-dependent: unknown until computed
    np.testing.assert_array_equal(out.compute().numpy(), [0, 2, 2])


EXTRAS = {  # NumPy's functions beside the standard: call on (module, array) -> result
    "pad": lambda m, a: m.pad(a, ((1, 0), (2, 1)), mode="constant", constant_values=-1.0),
    "pad edge": lambda m, a: m.pad(a, 1, mode="edge"),
    "diag": lambda m, a: m.diag(a, 1),
    "diag of a vector": lambda m, a: m.diag(a[0], k=-1),
    "logspace": lambda m, a: m.logspace(0.0, 2.0, num=4, base=2.0),
    "quantile": lambda m, a: m.quantile(a, 0.25, axis=0, method="lower"),
    "einsum": lambda m, a: m.einsum("ij,kj->ik", a, a),
    "gradient": lambda m, a: m.gradient(a, axis=1),
    "sliding_window_view": lambda m, a: m.lib.stride_tricks.sliding_window_view(a, 2, axis=1),
    "float16": lambda m, a: m.asarray(a, dtype=m.float16),
}


@pytest.mark.parametrize("name", EXTRAS)
def test_numpys_extras_beside_the_standard(name, default_backend):
    """As array-api-compat's namespaces (and NumPy's, torch's) have them, for consumers that
    call them where a namespace has them (SciPy's diag, logspace, float16; xarray's pad):
    NumPy's function, its result, on the tensor's backend."""
    a = np.arange(12.0).reshape(3, 4) / 3
    ours = EXTRAS[name](xp, xp.asarray(a))
    want = EXTRAS[name](np, a)
    assert isinstance(ours, interop.Tensor) and ours.dtype == want.dtype
    if name != "logspace":  # (no array operand: the default backend's)
        assert ours.backend == default_backend
    np.testing.assert_allclose(to_numpy(ours), want)
    assert "float16" not in xp.__all__ and name.split()[0] not in xp.__all__  # the standard's


def test_extras_have_numpys_signatures():
    import inspect
    assert inspect.signature(xp.pad) == inspect.signature(np.pad)
    assert inspect.signature(xp.lib.stride_tricks.sliding_window_view) == \
        inspect.signature(np.lib.stride_tricks.sliding_window_view)
    assert xp.diag.__module__ == "interop.array_api" and "NumPy's" in xp.diag.__doc__


@pytest.mark.parametrize("obj", [["yes", "no"], np.array(["a", "b"]), np.array([None, 1])],
                         ids=["str list", "str array", "object array"])
def test_asarray_refuses_what_is_not_numbers_as_strict(obj, default_backend):
    """NumPy and Dask would make string arrays; the standard's namespaces refuse them, with a
    TypeError (array-api-strict) that is also a ValueError (torch's, caught by consumers)."""
    with pytest.raises(TypeError):
        strict.asarray(obj)
    for device in (None, interop.tensor([1.0], backend=default_backend).device):
        with pytest.raises(interop.errors.NonNumericError, match="cannot become"):
            xp.asarray(obj, device=device)


_LABEL_BINARIZE = """
import os; os.environ["SCIPY_ARRAY_API"] = "1"
import array_api_strict, sklearn, interop
from sklearn.preprocessing import label_binarize
for y in (array_api_strict.asarray([0, 1, 1]), interop.tensor([0, 1, 1])):
    with sklearn.config_context(array_api_dispatch=True):
        try:
            label_binarize(y, classes=["yes", "no"])
        except ValueError as exc:
            print(type(y).__name__, "unsupported dtype" in str(exc))
"""


def test_label_binarize_says_classes_are_unsupported_as_for_strict():
    """scikit-learn's label_binarize tries xp.asarray(classes) and reports string classes as
    an unsupported dtype for the namespace (it catches the ValueError/TypeError)."""
    import subprocess
    import sys
    pytest.importorskip("sklearn")
    pytest.importorskip("scipy")
    out = subprocess.run([sys.executable, "-c", _LABEL_BINARIZE], capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["Array", "True", "Tensor", "True"]


def test_operators_are_torchs_and_functions_the_standards_outside_its_rules(default_backend):
    """docs/errors.md: where the standard leaves a mix open (kinds it does not promote), a
    tensor's operators follow torch on every tensor, whichever surface made it, and the
    namespace's functions follow NumPy; inside the standard's rules both agree."""
    torch = pytest.importorskip("torch")
    mask, ints, floats = xp.asarray([True, False]), xp.asarray([[1]]), xp.asarray([[1.0]])
    assert (mask * xp.pi).dtype == torch.tensor([True]).mul(math.pi).numpy().dtype  # float32
    assert xp.multiply(mask, xp.pi).dtype == (np.array([True]) * np.pi).dtype  # float64
    with pytest.raises(RuntimeError):
        torch.tensor([[1]]) @ torch.tensor([[1.0]])
    with pytest.raises(RuntimeError, match="same dtype"):
        ints @ floats
    assert xp.matmul(ints, floats).dtype == (np.array([[1]]) @ np.array([[1.0]])).dtype
    inside = xp.astype(mask, xp.float64)  # the standard's way: one kind first
    assert (inside * xp.pi).dtype == xp.multiply(inside, xp.pi).dtype == xp.float64
    assert (xp.astype(ints, xp.float64) @ floats).dtype == xp.float64


def test_a_named_tuple_of_tensors_is_a_sequence(backend):
    """SciPy's bootstrap stacks a named tuple (its confidence interval): every surface reads it
    as the sequence it is, as NumPy and torch do, on the tensors' backend."""
    import collections
    torch = pytest.importorskip("torch")
    interval = collections.namedtuple("ConfidenceInterval", "low high")
    parts = interval(_t([1.0, 2.0], backend), _t([3.0, 4.0], backend))
    host = interval(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    for ours, theirs in ((xp.stack(parts), np.stack(host)), (xp.concat(parts), np.concat(host)),
                         (np.stack(parts, axis=1), np.stack(host, axis=1)),
                         (interop.stack(parts), torch.stack(interval(*map(torch.tensor, host)))),
                         (torch.cat(parts), np.concat(host))):
        assert isinstance(ours, interop.Tensor) and ours.backend == backend
        np.testing.assert_array_equal(to_numpy(ours), np.asarray(theirs))


def test_pinv_cuts_off_at_the_standards_default_rtol(backend):
    """A singular value below max(M, N) * eps of the largest is dropped, as array-api-strict
    drops it (NumPy's own pinv, which Dask's runs per matrix, keeps it down to 1e-15)."""
    a = np.array([[1.0, 2.5809568e-08], [2.5809568e-08, 2.5809568e-08]], np.float32)
    expected = np.asarray(strict.linalg.pinv(strict.asarray(a)))
    got = interop.array_api.linalg.pinv(interop.tensor(a, backend=backend))
    np.testing.assert_allclose(to_numpy(got), expected, atol=1e-6)


@pytest.mark.parametrize("shape", [(0, 1, 2), (2, 0, 3, 3), (0, 2, 2)])
def test_pinv_of_an_empty_batch_with_an_rtol_per_matrix(backend, shape):
    """An empty batch with rtol an (empty) array per matrix, the official suite's draw that
    Dask's pinv could not broadcast (nor can NumPy's, under array-api-strict): the empty
    transposed shape, as NumPy's pinv gives without the rtol."""
    a = np.zeros(shape, np.float32)
    rtol = interop.tensor(np.zeros(shape[:-2], np.float32), backend=backend)
    got = interop.array_api.linalg.pinv(interop.tensor(a, backend=backend), rtol=rtol)
    assert got.backend == backend and tuple(got.shape) == np.linalg.pinv(a).shape
    assert to_numpy(got).dtype == np.float32


_STANDARD_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("to", _STANDARD_DTYPES)
@pytest.mark.parametrize("from_", _STANDARD_DTYPES)
def test_can_cast_is_the_namespaces_own_promotion(from_, to):
    """can_cast(a, b) is ``result_type(a, b) == b`` for every pair of the standard's dtypes:
    NumPy's safe casts (``int8 -> float64`` True, as NumPy and torch say; array-api-strict
    says False across kinds, which the standard leaves to the library), and True wherever the
    standard's promotion table gives ``to`` (the official suite's test_can_cast)."""
    xp = interop.array_api
    a, b = getattr(xp, from_), getattr(xp, to)
    got = xp.can_cast(a, b)
    assert type(got) is bool and got == (xp.result_type(a, b) == b) == np.can_cast(from_, to)
    if from_ == to or strict.can_cast(getattr(strict, from_), getattr(strict, to)):
        assert got
    assert xp.can_cast(xp.ones(2, dtype=a), b) == got


@pytest.mark.parametrize("shape, rtol_shape", [((1, 2, 2), (1,)), ((2, 1, 2), (2,)),
                                               ((3, 2, 2, 3), (3, 2)), ((2, 2, 2), ())])
def test_pinv_with_an_rtol_per_matrix(backend, shape, rtol_shape):
    """An rtol array broadcast against the batch (the official suite's draw that Dask's
    per-matrix pinv could not take): NumPy's values, on the input's backend."""
    rng = np.random.default_rng(0)
    a, rtol = rng.random(shape), np.full(rtol_shape, 0.3)
    chunks = {"chunks": (1, *shape[1:])} if backend == "dask" else {}
    got = interop.array_api.linalg.pinv(interop.tensor(a, backend=backend, **chunks),
                                        rtol=interop.tensor(rtol, backend=backend))
    assert got.backend == backend
    np.testing.assert_allclose(to_numpy(got), np.linalg.pinv(a, rtol=rtol), rtol=1e-10)


@pytest.mark.parametrize("axis, error", [((0, 0), ValueError), ((0, -3), ValueError),
                                         ((0, 5), IndexError)])
def test_expand_dims_refuses_repeated_and_out_of_range_axes(backend, axis, error):
    """As the standard and NumPy do (Dask's own raised StopIteration for a repeated axis)."""
    with pytest.raises(error):
        interop.array_api.expand_dims(interop.tensor(np.zeros(2), backend=backend), axis=axis)
