"""A write lands in its target's own buffer, on the target's backend, as torch's does.

Differential against torch on NumPy and Dask: every table operation with an
in-place form, writes whose source is on another backend (a lazy source into
a host target is a value read under ``dask_compute``), 0-d and empty targets,
unknown Dask sizes, overlapping source and target.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import interop
from interop.ops import TABLE
from tests.conftest import to_numpy
from tests.helpers.samplers import DRAWS

torch = pytest.importorskip("torch")

F32 = np.linspace(0.2, 0.8, 6, dtype=np.float32).reshape(2, 3)
G32 = np.linspace(0.7, 0.3, 6, dtype=np.float32).reshape(2, 3)
I64 = np.array([[5, 3, 6], [1, 2, 7]], dtype=np.int64)
J64 = np.array([[1, 2, 1], [3, 1, 2]], dtype=np.int64)
MASK = np.array([[True, False, True], [False, False, True]])
IDX = np.array([[1, 0, 2], [2, 1, 0]], dtype=np.int64)

# name -> (target, more arguments, keyword arguments); arrays become tensors on each side
SPECIAL: dict[str, tuple[np.ndarray, tuple, dict]] = {
    "fill": (F32, (2.5,), {}),
    "zero": (F32, (), {}),
    "copy": (F32, (G32[:1],), {}),
    "acosh": (F32 + 1, (), {}),
    "bitwise_not": (I64, (), {}),
    "floor_divide": (I64, (J64,), {}),
    "remainder": (I64, (J64,), {}),
    "fmod": (I64, (J64,), {}),
    "bitwise_and": (I64, (J64,), {}),
    "bitwise_or": (I64, (J64,), {}),
    "bitwise_xor": (I64, (J64,), {}),
    "bitwise_left_shift": (I64, (J64,), {}),
    "bitwise_right_shift": (I64, (J64,), {}),
    "clamp": (F32, (0.3, 0.6), {}),
    "round": (F32 * 10, (), {}),
    "masked_fill": (F32, (MASK, -1.0), {}),
    "index_add": (F32, (0, np.array([1, 0]), G32), {}),
    "index_copy": (F32, (1, np.array([2, 0, 1]), G32), {}),
    "index_fill": (F32, (1, np.array([0, 2]), -2.0), {}),
    "index_reduce": (F32, (0, np.array([1, 1]), G32, "amax"), {}),
    "scatter": (F32, (1, IDX, G32), {}),
    "scatter_add": (F32, (1, IDX, G32), {}),
    "scatter_reduce": (F32, (1, IDX, G32, "sum"), {}),
    "put": (F32, (np.array([0, 4]), np.array([9.0, 8.0], np.float32)), {}),
    "index_put": (F32, ((np.array([0, 1]), np.array([2, 0])), np.array([9.0, 8.0], np.float32)), {}),
    "masked_scatter": (F32, (MASK, G32), {}),
    "cumsum": (F32, (1,), {}),
    "cumprod": (F32, (0,), {}),
    "renorm": (F32, (2, 0, 0.5), {}),
    "relu": (F32 - 0.5, (), {}),
}
BINARY = {"mul", "pow", "maximum", "minimum", "fmax", "fmin", "atan2", "hypot", "logaddexp",
          "logaddexp2", "copysign", "nextafter", "add", "sub", "div"}
INPLACE = sorted(name for name, entry in TABLE.items() if entry.inplace and name not in DRAWS)


def torch_inplace(name: str) -> str:
    """The in-place method's name; skips (with the reason) where torch has none to compare."""
    inplace = TABLE[name].inplace
    if not hasattr(torch.Tensor, inplace):
        pytest.skip(f"torch has no Tensor.{inplace} to compare with (interop's own addition)")
    return inplace


def sample(name: str) -> tuple[np.ndarray, tuple, dict]:
    """One valid call of ``name``'s in-place form (float32 values in (0, 1) by default)."""
    if name in SPECIAL:
        return SPECIAL[name]
    return (F32, (G32,), {}) if name in BINARY else (F32, (), {})


def convert(x: Any, make: Callable[[np.ndarray], Any]) -> Any:
    if isinstance(x, np.ndarray):
        return make(x)
    if isinstance(x, tuple):
        return tuple(convert(y, make) for y in x)
    return x


def on(backend: str) -> Callable[[np.ndarray], Any]:
    return lambda a: interop.tensor(a.copy(), backend=backend,
                                    **({"chunks": 1} if backend == "dask" else {}))


def assert_close(got: Any, expected: Any, what: str) -> None:
    expected = expected.numpy() if hasattr(expected, "numpy") else np.asarray(expected)
    got = to_numpy(got)
    assert got.dtype == expected.dtype, f"{what}: dtype {got.dtype}, torch {expected.dtype}"
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=what)


def test_every_inplace_form_has_a_sample():
    assert set(SPECIAL) - set(INPLACE) == set()
    assert len(INPLACE) > 70


def check_inplace(name: str, target_backend: str, source_backend: str) -> None:
    """t.<op>_(...) writes torch's values into t's own buffer, on t's backend, and returns t."""
    inplace = torch_inplace(name)
    target, more, kwargs = sample(name)
    expected = torch.from_numpy(target.copy())
    getattr(expected, inplace)(*convert(more, torch.from_numpy), **kwargs)
    t = on(target_backend)(target)
    raw = t.raw
    returned = getattr(t, inplace)(*convert(more, on(source_backend)), **kwargs)
    assert returned is t and t.backend == target_backend
    assert t.raw is raw, f"{inplace}: the target lost its buffer"
    assert_close(t, expected, inplace)


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_form_matches_torch(name: str, backend: str) -> None:
    check_inplace(name, backend, backend)


@pytest.mark.parametrize("name", sorted(BINARY | {"copy", "masked_fill", "index_add", "scatter",
                                                   "masked_scatter"}))
@pytest.mark.parametrize("target, source", [("numpy", "dask"), ("dask", "numpy")])
def test_inplace_with_arguments_on_another_backend(name: str, target: str, source: str) -> None:
    check_inplace(name, target, source)


WRITES: dict[str, Callable[[Any, Any], Any]] = {
    "setitem all": lambda t, d: t.__setitem__(slice(None), d),
    "setitem one": lambda t, d: t.__setitem__(1, d[0]),
    "setitem by lazy index": lambda t, d: t.__setitem__(interop.tensor([0, 2], backend="dask"), d[:2]),
    "add_": lambda t, d: t.add_(d),
    "copy_": lambda t, d: t.copy_(d),
    "out=": lambda t, d: interop.mul(d, 2, out=t),
    "masked_fill_": lambda t, d: t.masked_fill_(d > 2, 5.0),
    "index_add_": lambda t, d: t.index_add_(0, interop.tensor([0, 1]), d[:2]),
    "iadd": lambda t, d: t.__iadd__(d),
}
TORCH_WRITES: dict[str, Callable[[Any, Any], Any]] = {
    **WRITES,
    "setitem by lazy index": lambda t, d: t.__setitem__(torch.tensor([0, 2]), d[:2]),
    "out=": lambda t, d: torch.mul(d, 2, out=t),
    "index_add_": lambda t, d: t.index_add_(0, torch.tensor([0, 1]), d[:2]),
}


@pytest.mark.parametrize("write", list(WRITES))
def test_a_lazy_source_lands_in_a_host_target(write: str) -> None:
    """``t[:] = d`` on a NumPy t and a Dask d changes t (it used to be silently lost)."""
    source = np.arange(6.0) * 3 + 1
    expected = torch.arange(6.0, dtype=torch.float64)
    TORCH_WRITES[write](expected, torch.from_numpy(source.copy()))
    t = interop.tensor(np.arange(6.0))
    raw = t.raw
    WRITES[write](t, interop.tensor(source, backend="dask", chunks=2))
    assert t.backend == "numpy" and t.raw is raw
    assert_close(t, expected, write)


@pytest.mark.parametrize("write", list(WRITES))
def test_a_lazy_source_is_a_value_read(write: str) -> None:
    """Under dask_compute='raise' the write raises before anything is written; 'warn' warns."""
    from interop.errors import DaskComputeError, DaskComputeWarning
    t = interop.tensor(np.arange(6.0))
    d = interop.tensor(np.arange(6.0) + 10, backend="dask", chunks=2)
    with interop.config(dask_compute="raise"), pytest.raises(DaskComputeError):
        WRITES[write](t, d)
    np.testing.assert_array_equal(t.raw, np.arange(6.0))
    with interop.config(dask_compute="warn"), pytest.warns(DaskComputeWarning):
        WRITES[write](t, d)


def test_writes_into_a_lazy_target_stay_lazy() -> None:
    from dask.callbacks import Callback
    runs = []
    t = interop.tensor(np.arange(6.0), backend="dask", chunks=2)
    with Callback(start=lambda dsk: runs.append(dsk)):
        t[1] = interop.tensor(np.array(7.0))
        t[2:4] = np.array([8.0, 9.0])
        t.add_(interop.tensor(np.ones(6)))
        t.copy_(t * 2)
    assert not runs
    np.testing.assert_array_equal(to_numpy(t), (np.array([0, 7, 8, 9, 4, 5.0]) + 1) * 2)


@pytest.mark.parametrize("shape", [(), (0,), (0, 3)])
def test_zero_d_and_empty_targets(shape: tuple, backend: str) -> None:
    expected = torch.zeros(shape, dtype=torch.float64)
    t = interop.tensor(np.zeros(shape), backend=backend)
    for target in (expected, t):
        target.add_(2)
        target.mul_(3)
        target[...] = target + 1
        target.fill_(4) if target.numel() else None
    assert_close(t, expected, f"shape {shape}")


def test_unknown_sizes() -> None:
    """In-place forms on a Dask tensor of unknown (NaN) size; numel() says how to learn it."""
    from interop.errors import UnknownShapeError
    d = interop.tensor(np.arange(6.0), backend="dask", chunks=2)
    m = d[d > 2]
    m.add_(1)
    m.mul_(m)
    m.clamp_(max=30)
    np.testing.assert_array_equal(to_numpy(m), np.minimum((np.arange(3, 6.0) + 1) ** 2, 30))
    m.fill_(0)
    np.testing.assert_array_equal(to_numpy(m), np.zeros(3))
    with pytest.raises(UnknownShapeError, match="compute_chunk_sizes"):
        m.numel()


# the write, and torch's own with the source cloned (torch raises on partial overlap)
OVERLAPS = {
    "t[1:] = t[:-1]": "t[1:] = t[:-1].clone()",
    "t[:-1] = t[1:]": "t[:-1] = t[1:].clone()",
    "t[1:].copy_(t[:-1])": "t[1:].copy_(t[:-1].clone())",
    "t[::2] = t[1::2]": "t[::2] = t[1::2].clone()",
    "t[1:].add_(t[:-1])": "t[1:].add_(t[:-1].clone())",
    "t.add_(t)": "t.add_(t)",
    "t.copy_(t.flip(0))": "t.copy_(t.flip(0))",
}


@pytest.mark.parametrize("write", list(OVERLAPS))
def test_overlapping_source_and_target(write: str, backend: str) -> None:
    """The result is computed whole before it is written: NumPy's answer, which is torch's with
    the source cloned (torch raises on partial overlap instead: a deliberate departure)."""
    t = interop.tensor(np.arange(6.0), backend=backend)
    expected = torch.arange(6.0, dtype=torch.float64)
    exec(write, {"t": t})  # noqa: S102 - the same statement on both sides
    exec(OVERLAPS[write], {"t": expected})  # noqa: S102
    assert_close(t, expected, write)


@given(st.data())
def test_basic_index_writes_match_numpy(backend: str, data: st.DataObject) -> None:
    """Any basic index (ints, slices of any step, ``None``, ``...``) written with a scalar or an
    array of the selection's shape, and a write through the view it selects."""
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3), label="shape")
    items = []
    for size in shape:
        items.append(data.draw(st.one_of(
            st.integers(-size, size - 1),
            st.builds(slice, st.none() | st.integers(-size, size), st.none() | st.integers(-size, size),
                      st.none() | st.sampled_from([1, 2, -1, -2]))), label="item"))
    if data.draw(st.booleans(), label="new axis"):
        items.insert(data.draw(st.integers(0, len(items)), label="at"), None)
    index = tuple(items)
    reference = np.arange(float(np.prod(shape))).reshape(shape)
    t = interop.tensor(reference.copy(), backend=backend,
                       **({"chunks": 2} if backend == "dask" else {}))
    selected = reference[index].shape
    value = data.draw(st.sampled_from(["scalar", "array"]), label="value")
    written = 99.0 if value == "scalar" else -np.arange(float(np.prod(selected))).reshape(selected)
    reference[index] = written
    t[index] = written if value == "scalar" else interop.tensor(written, backend=backend)
    np.testing.assert_array_equal(to_numpy(t), reference)
    view = t[index]
    view.add_(1000)
    reference[index] += 1000
    np.testing.assert_array_equal(to_numpy(t), reference)
    np.testing.assert_array_equal(to_numpy(view), reference[index])


def test_failed_fill_leaves_a_lazy_target_intact() -> None:
    """torch's overflow error, raised before the graph is replaced (it used to fail at compute)."""
    expected = torch.arange(6, dtype=torch.int8)
    with pytest.raises(RuntimeError) as torch_error:
        expected.fill_(1000)
    for backend in ("numpy", "dask"):
        t = interop.tensor(np.arange(6, dtype=np.int8), backend=backend)
        with pytest.raises(RuntimeError, match="cannot be converted to type int8 without overflow"):
            t.fill_(1000)
        np.testing.assert_array_equal(to_numpy(t), expected.numpy())
    assert "without overflow" in str(torch_error.value)
    t = interop.tensor(np.arange(3, dtype=np.uint8), backend="dask")
    t.fill_(-1)  # torch wraps negative values into unsigned dtypes
    np.testing.assert_array_equal(to_numpy(t), torch.zeros(3, dtype=torch.uint8).fill_(-1).numpy())


def test_writes_stay_in_their_thread() -> None:
    """Writes into distinct targets from several threads each land in their own target."""
    from concurrent.futures import ThreadPoolExecutor
    targets = [interop.tensor(np.zeros(4), backend=b) for b in ("numpy", "dask") * 4]
    source = interop.tensor(np.arange(4.0), backend="dask")

    def write(i: int) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            targets[i][:] = source + i
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(write, range(len(targets))))
    for i, t in enumerate(targets):
        np.testing.assert_array_equal(to_numpy(t), np.arange(4.0) + i)


@pytest.mark.parametrize("write", [lambda t: t.add_(1), lambda t: t.fill_(2.0),
                                   lambda t: interop.add(t, 1, out=t), lambda t: t.__setitem__(0, 5.0)],
                         ids=["add_", "fill_", "out=", "setitem"])
def test_a_read_only_target_raises_torchs_class_and_keeps_its_values(write) -> None:
    data = np.arange(3.0)
    data.flags.writeable = False
    t = interop.as_tensor(data)  # shares the read-only buffer
    with pytest.raises(interop.errors.ReadOnlyError, match="read-only") as info:
        write(t)
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, ValueError)
    np.testing.assert_array_equal(data, np.arange(3.0))
