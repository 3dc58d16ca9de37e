"""Every ufunc of ``np._core.umath`` on interop tensors (numpy and dask backends; cupy on a
GPU) against the same ufunc on plain NumPy arrays: values, dtype, shape, result type.

Ufuncs with numeric loops are computed; the string-only ones must fail as NumPy fails on
the same numeric arrays.  The ufunc methods (reduce, accumulate, reduceat, outer, at) run
for every binary ufunc on NumPy and Dask tensors, lazily on Dask (no compute while the
graph is built).
``out=`` and ``where=`` take tensors, keep their identity and write through.
"""

from __future__ import annotations

import numpy as np
import pytest

import interop
from tests.conftest import off_host, to_numpy
from tests.helpers.numpy_compare import as_tensors, assert_matches
from tests.test_numpy_functions import count_computes

UMATH = np._core.umath
UFUNCS = sorted(name for name, v in vars(UMATH).items() if isinstance(v, np.ufunc))
NUMERIC = "?bhilqBHILQefdgFDG"


def loop_dtypes(ufunc: np.ufunc) -> list[np.dtype] | None:
    """Input dtypes of one numeric loop: float64 if it has one, else int64, bool, any."""
    loops = [t.split("->")[0] for t in ufunc.types]
    loops = [ins for ins in loops if all(c in NUMERIC for c in ins)]
    for preferred in ("d", "q", "l", "?"):
        for ins in loops:
            if set(ins) == {preferred}:
                return [np.dtype(c) for c in ins]
    return [np.dtype(c) for c in loops[0]] if loops else None


def sample(dtype: np.dtype, shape=(3, 3), seed=0) -> np.ndarray:
    """Values inside every ufunc's domain (arccos, arctanh, log, shifts, gcd ...)."""
    rng = np.random.default_rng(seed)
    if dtype.kind == "b":
        return rng.random(shape) > 0.5
    if dtype.kind in "iu":
        return rng.integers(1, 5, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(0.1, 0.9, shape) + 0.1j).astype(dtype)
    return rng.uniform(0.1, 0.9, shape).astype(dtype)


def inputs_for(ufunc: np.ufunc) -> list[np.ndarray]:
    """Inputs of shape (3, 3); gufuncs get a stack of two of their core shape, so Dask
    splits a loop dimension."""
    dts = loop_dtypes(ufunc)
    if ufunc.signature is None:
        shapes = [(3, 3)] * len(dts)
    else:
        cores = ufunc.signature.split("->")[0][1:-1].split("),(")
        shapes = [(2,) + (3,) * len([d for d in core.split(",") if d]) for core in cores]
    return [sample(dt, shape, seed=i) for i, (dt, shape) in enumerate(zip(dts, shapes))]


COMPUTED = [n for n in UFUNCS if loop_dtypes(getattr(UMATH, n)) is not None]
STRING_ONLY = [n for n in UFUNCS if n not in COMPUTED]
BINARY = [n for n in COMPUTED if getattr(UMATH, n).nin == 2 and getattr(UMATH, n).nout == 1
          and getattr(UMATH, n).signature is None]


def test_the_ufunc_lists_cover_umath():
    assert len(UFUNCS) >= 100 and len(COMPUTED) + len(STRING_ONLY) == len(UFUNCS)
    assert {"add", "matmul", "frexp", "divmod", "ldexp", "clip", "vecdot"} <= set(COMPUTED)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # arccosh & co. outside their domain
@pytest.mark.parametrize("name", COMPUTED)
def test_ufunc_call_matches_numpy(name, backend):
    ufunc = getattr(UMATH, name)
    arrays = inputs_for(ufunc)
    expected = ufunc(*arrays)
    assert_matches(ufunc(*as_tensors(arrays, backend)), expected, backend, name)
    # A tensor in the second position only, an ndarray in the first (Dask's gufuncs need
    # equal chunks along loop dimensions, and the ndarray comes in as one chunk); a device
    # tensor refuses the host array.
    if len(arrays) == 2 and off_host(backend):
        with pytest.raises(interop.DeviceMismatchError):
            ufunc(arrays[0], as_tensors(arrays[1], backend))
    elif len(arrays) == 2 and not (backend == "dask" and ufunc.signature):
        assert_matches(ufunc(arrays[0], as_tensors(arrays[1], backend)), expected, backend,
                       f"{name}(ndarray, tensor)")


@pytest.mark.parametrize("name", STRING_ONLY)
def test_string_ufunc_fails_as_numpy_does(name, backend):
    ufunc = getattr(UMATH, name)
    arrays = [sample(np.dtype("float64"), seed=i) for i in range(ufunc.nin)]
    with pytest.raises(TypeError) as expected:
        ufunc(*arrays)
    # NumPy raises its own no-loop error (also on gpulike, where NumPy computes); Dask and
    # CuPy decline the ufunc, so interop's TypeError
    numpy_runs = backend in ("numpy", "gpulike")
    with pytest.raises(type(expected.value) if numpy_runs else TypeError,
                       match=None if numpy_runs else f"numpy.{name} .*{backend} backend"):
        ufunc(*as_tensors(arrays, backend))


def method_cases(x: np.ndarray) -> dict:
    """method -> [(inputs, kwargs)] for the ufunc methods on a (4, 3) input: one axis,
    several, none; keepdims, initial, where; repeated indices for ``at``."""
    mask = (np.arange(x.size) % 3 != 0).reshape(x.shape)
    return {
        "reduce": [((x,), {"axis": 0}), ((x,), {"axis": -1, "keepdims": True}),
                   ((x,), {"axis": None}), ((x,), {"axis": (0, 1)}),
                   ((x,), {"axis": 0, "initial": x[0, 0]}),
                   ((x,), {"axis": 1, "where": mask, "initial": x[0, 0]}),
                   ((x[:, :0],), {"axis": 1})],
        "accumulate": [((x,), {"axis": 0}), ((x,), {"axis": 1})],
        "reduceat": [((x, [0, 2]), {"axis": 0}), ((x, [0, 2, 1]), {"axis": 1})],
        "outer": [((x[0], x[:, 1]), {})],
        "at": [((x, [0, 0, 2], x[0, 0]), {}), ((x, ([0, 3, 0], [1, 2, 1]), x[0, :3]), {})],
    }


NUMPY_REDUCE_BUG = {"arctan2", "power"}
"""NumPy 2.4 reduces these (float) along the axis its loop runs innermost (a C array's last;
any axis with ``where=``) from the first and last elements only
(``np.power.reduce(np.array([2., 3., 2.]))`` is 4.0, of ints 64).  CuPy has no such reduce:
interop's (``backends/cupy/ufunc_methods``) folds every element, and is compared with the
fold written out (``left_fold``)."""


def left_fold(ufunc, x, axis=0, keepdims=False, initial=None, where=True):
    """``ufunc.reduce`` by its definition along one axis: from ``initial`` (else the first
    element), each element ``where`` holds folded in from the left."""
    x = np.moveaxis(x, axis, -1)
    keep = np.moveaxis(np.broadcast_to(where, np.moveaxis(x, -1, axis).shape), axis, -1)
    acc = x[..., 0] if initial is None else np.full(x.shape[:-1], initial, x.dtype)
    for k in range(0 if initial is not None else 1, x.shape[-1]):
        acc = np.where(keep[..., k], ufunc(acc, x[..., k]), acc)
    return np.expand_dims(acc, axis) if keepdims else acc


def _run_method(ufunc, method, args, kwargs, backend):
    """(result, the target after the call, the exception) of one method call on tensors."""
    tensors = as_tensors(list(args), backend)
    kwargs = {k: as_tensors(v, backend) for k, v in kwargs.items()}  # where= on the device too
    try:
        got = getattr(ufunc, method)(*tensors, **kwargs)
    except Exception as exc:  # noqa: BLE001 - compared with NumPy's exception
        return None, None, exc
    return got, tensors[0], None


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # power, divide & co. on samples
@pytest.mark.parametrize("method", ["reduce", "accumulate", "reduceat", "outer", "at"])
@pytest.mark.parametrize("name", BINARY)
def test_ufunc_methods_match_numpy(name, method, backend):
    """Every method of every binary ufunc, as NumPy computes it or failing as NumPy fails;
    on Dask, built without computing and Dask-backed (``at`` rewrites the target's graph)."""
    ufunc = getattr(UMATH, name)
    x = sample(loop_dtypes(ufunc)[0], shape=(4, 3))
    for args, kwargs in method_cases(x)[method]:
        args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        where = f"{name}.{method}({kwargs})"
        try:
            expected = getattr(ufunc, method)(*[a.copy() if isinstance(a, np.ndarray) else a
                                                 for a in args], **kwargs)
            expected_error = None
            if method == "reduce" and name in NUMPY_REDUCE_BUG and off_host(backend):
                expected = left_fold(ufunc, args[0], **kwargs)  # NumPy's bug: see there
        except (TypeError, ValueError) as exc:
            expected_error = exc
        with count_computes() as computes:
            got, target, error = _run_method(ufunc, method, args, kwargs, backend)
        assert computes == [], f"{where}: computed while building"
        if expected_error is not None:
            assert isinstance(error, type(expected_error)), f"{where}: {error!r}"
            continue
        assert error is None, f"{where}: {error!r}"
        if method == "at":  # in place: the target tensor sees the write
            getattr(ufunc, method)(args[0], *args[1:], **kwargs)
            assert got is None and target.backend == backend
            assert_matches(target, args[0], backend, where)
        else:
            assert_matches(got, expected, backend, where)


def test_reorderable_ufuncs_reduce_as_a_tree_the_others_in_order():
    t = interop.tensor(np.arange(1.0, 13.0).reshape(6, 2), backend="dask", chunks=(2, 2))
    tree, ordered = np.add.reduce(t, axis=0).raw, np.subtract.reduce(t, axis=0).raw
    layers = [" ".join(dict(r.dask.layers)) for r in (tree, ordered)]
    assert "rechunk" not in layers[0] and "rechunk" in layers[1]  # one chunk for the order
    np.testing.assert_array_equal(tree.compute(), np.add.reduce(t.numpy(), axis=0))
    np.testing.assert_array_equal(ordered.compute(), np.subtract.reduce(t.numpy(), axis=0))


def test_at_writes_through_a_dask_view_into_its_base():
    x = np.zeros((4, 3))
    t = interop.tensor(x, backend="dask", chunks=(2, 3))
    row = t[1]
    np.add.at(row, [0, 0, 2], 1.0)
    expected = x.copy()
    np.add.at(expected[1], [0, 0, 2], 1.0)
    np.testing.assert_array_equal(t.numpy(), expected)


def test_method_indices_from_a_dask_tensor_are_a_value_read():
    t = interop.tensor(np.arange(6.0), backend="dask")
    idx = interop.tensor(np.array([0, 3]), backend="dask")
    np.testing.assert_array_equal(np.add.reduceat(t, idx).numpy(), [3.0, 12.0])
    with interop.config(dask_compute="raise"), pytest.raises(interop.DaskComputeError,
                                                              match="reduceat's indices"):
        np.add.reduceat(t, idx)


def test_method_on_unknown_dask_sizes_names_the_fix():
    t = interop.tensor(np.arange(6.0), backend="dask")
    masked = t[t > 2.0]
    assert np.add.reduce(masked).numpy() == 12.0  # a tree reduction needs no sizes
    with pytest.raises(interop.UnknownShapeError, match="compute_chunk_sizes"):
        np.subtract.accumulate(masked)


def test_ufunc_method_out_on_dask_keeps_identity():
    x = sample(np.dtype("float64"), shape=(4, 3))
    t = as_tensors(x, "dask")
    out = as_tensors(np.zeros(3), "dask")
    assert np.add.reduce(t, axis=0, out=out) is out
    np.testing.assert_allclose(out.numpy(), x.sum(axis=0))
    acc = as_tensors(np.zeros((4, 3)), "dask")
    assert np.multiply.accumulate(t, axis=1, out=acc) is acc
    np.testing.assert_allclose(acc.numpy(), np.multiply.accumulate(x, axis=1))


# ------------------------------------------------------------------ out= and where=
def test_out_tensor_keeps_identity_and_writes_through(backend):
    x = np.arange(6.0).reshape(2, 3)
    t = as_tensors(x.copy(), backend)
    raw_before = t.raw
    r = np.add(t, 1.0, out=t)
    assert r is t and t.raw is raw_before  # Dask: its array object is re-pointed in place
    np.testing.assert_array_equal(to_numpy(t), x + 1)
    r = np.multiply(t, t, out=(t,))
    assert r is t
    np.testing.assert_array_equal(to_numpy(t), (x + 1) ** 2)


def test_out_tensor_shares_the_numpy_buffer():
    base = np.zeros(4)
    t = interop.as_tensor(base)
    np.sqrt(np.arange(4.0), out=t)  # the tensor is only in out=
    np.testing.assert_array_equal(base, np.sqrt(np.arange(4.0)))


@pytest.mark.parametrize("ufunc, args", [(np.modf, ()), (np.divmod, (1.0,)), (np.frexp, ())])
def test_out_tuples_of_every_two_output_ufunc(backend, ufunc, args):
    """Dask's two-output ufuncs take no out=: interop computes, then writes both outs."""
    x = np.array([1.5, -2.25, 3.0, 0.0])
    expected = ufunc(x, *args)
    outs = tuple(as_tensors(np.zeros(4, e.dtype), backend) for e in expected)
    got = ufunc(as_tensors(x, backend), *args, out=outs)
    assert got[0] is outs[0] and got[1] is outs[1]
    for o, e in zip(outs, expected):
        np.testing.assert_array_equal(to_numpy(o), e)


def test_out_tuple_for_two_outputs(backend):
    x = np.arange(1.0, 7.0)
    q, r = as_tensors(np.zeros(6), backend), as_tensors(np.zeros(6), backend)
    got = np.divmod(as_tensors(x, backend), 4.0, out=(q, r))
    assert got[0] is q and got[1] is r
    np.testing.assert_array_equal(to_numpy(q), x // 4)
    np.testing.assert_array_equal(to_numpy(r), x % 4)
    got = np.divmod(as_tensors(x, backend), 4.0, out=(None, r))
    assert got[1] is r and isinstance(got[0], interop.Tensor)
    np.testing.assert_array_equal(to_numpy(got[0]), x // 4)


def test_out_ndarray_with_tensor_inputs_returns_that_ndarray():
    out = np.zeros(3)
    got = np.add(interop.tensor(np.arange(3.0)), 1.0, out=out)
    assert got is out
    np.testing.assert_array_equal(out, [1.0, 2.0, 3.0])


def test_where_tensor(backend):
    x, mask = np.arange(6.0), np.arange(6) % 2 == 0
    out = np.full(6, -1.0)
    expected = np.add(x, 10.0, out=out.copy(), where=mask)
    t_out = as_tensors(out.copy(), backend)
    got = np.add(as_tensors(x, backend), 10.0, out=t_out, where=as_tensors(mask, backend))
    assert got is t_out
    np.testing.assert_array_equal(to_numpy(got), expected)


def test_reduce_out_and_keepdims_match_numpy():
    x = sample(np.dtype("float64"))
    out = interop.tensor(np.zeros((1, 3)))
    got = np.add.reduce(interop.tensor(x), axis=0, keepdims=True, out=out)
    assert got is out
    np.testing.assert_allclose(out.raw, np.add.reduce(x, axis=0, keepdims=True))


def test_out_on_another_backend_lands_in_its_own_buffer():
    """A write never moves its target: Dask inputs into a NumPy out= tensor write its buffer
    (a value read, refused under dask_compute='raise' with nothing written); NumPy inputs
    into a Dask out= tensor make it the new lazy value."""
    t = interop.tensor(np.arange(3.0), backend="dask")
    out = interop.tensor(np.zeros(3))
    buffer = out.raw
    with interop.config(dask_compute="raise"), pytest.raises(interop.DaskComputeError):
        np.add(t, 1.0, out=out)
    np.testing.assert_array_equal(buffer, np.zeros(3))
    assert np.add(t, 1.0, out=out) is out and out.raw is buffer
    np.testing.assert_array_equal(buffer, np.arange(3.0) + 1)
    lazy_out = interop.tensor(np.zeros(3), backend="dask")
    assert np.add(interop.tensor(np.arange(3.0)), 1.0, out=lazy_out) is lazy_out
    assert lazy_out.backend == "dask"
    np.testing.assert_array_equal(to_numpy(lazy_out), np.arange(3.0) + 1)


# ------------------------------------------------------------------ result classes
class Meters(interop.Tensor):
    unit = "m"


def test_ufunc_results_are_the_lowest_subclass_with_attributes(backend):
    x = np.arange(4.0)
    m = as_tensors(x, backend).as_subclass(Meters)
    m.label = "distance"
    plain = as_tensors(x, backend) if off_host(backend) else x  # an ndarray, where it may join
    for got in (np.add(m, 1.0), np.add(plain, m), np.add.outer(m, m),
                np.sqrt(m), np.divmod(m, 3.0)[1]):
        assert type(got) is Meters and got.label == "distance"
    assert type(np.add.reduce(m)) is Meters
    np.testing.assert_array_equal(to_numpy(np.add.reduce(m)), x.sum())


def test_zero_dim_results_are_tensors():
    t = interop.tensor(np.array(2.0))
    got = np.add(t, 1)
    assert isinstance(got, interop.Tensor) and got.shape == () and got.dtype == np.float64
    assert float(np.add.reduce(interop.tensor(np.arange(4.0)))) == 6.0


@pytest.mark.parametrize("target_kind", ["tensor", "ndarray"])
def test_at_into_a_host_target_reads_dask_operands(target_kind):
    """The write lands in the host target (never in a Dask copy of it): a value read."""
    values = interop.tensor(np.array([1.0, 2.0]), backend="dask")
    target = np.zeros(4) if target_kind == "ndarray" else interop.tensor(np.zeros(4))
    np.add.at(target, [0, 0], values)
    np.testing.assert_array_equal(to_numpy(target), [3.0, 0.0, 0.0, 0.0])
    with interop.config(dask_compute="raise"), pytest.raises(interop.DaskComputeError,
                                                              match=r"add\.at into a numpy"):
        np.add.at(target, [1], values[:1])
    np.testing.assert_array_equal(to_numpy(target), [3.0, 0.0, 0.0, 0.0])
