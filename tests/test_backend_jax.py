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


@pytest.mark.parametrize("write", views_cases.WRITES, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("view", views_cases.VIEWS.values(), ids=views_cases.VIEWS.keys())
def test_a_write_into_a_view_reaches_its_base(view, write) -> None:
    views_cases.test_a_write_into_a_view_reaches_its_base("jax", view, write)


@pytest.mark.parametrize("write", views_cases.WRITES, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("view, reference", views_cases.LAYOUTS.values(),
                         ids=views_cases.LAYOUTS.keys())
def test_a_write_into_a_view_operation_reaches_its_base(view, reference, write) -> None:
    views_cases.test_a_write_into_a_view_operation_reaches_its_base("jax", view, reference, write)


@pytest.mark.parametrize("write", list(views_cases.TORCH_WRITES))
@pytest.mark.parametrize("view", list(views_cases.TORCH_VIEWS))
def test_torch_views_write_through(view, write) -> None:
    views_cases.test_torch_views_write_through("jax", view, write)


@pytest.mark.parametrize("part", ["real", "imag"])
def test_real_and_imag_write_through(part) -> None:
    views_cases.test_real_and_imag_write_through("jax", part)


def test_writes_rebind_every_handle_and_keep_the_class() -> None:
    """A write replaces the array (JAX cannot write one): every tensor sharing it follows."""
    t = jx(HOST.copy())
    alias, sub = t.float(), t.as_subclass(Tagged)  # the same array, as torch's t.float()
    t[0, 0] = 100
    t.T[1].mul_(0)  # through a view of a view
    expected = HOST.copy()
    expected[0, 0] = 100
    expected[:, 1] = 0
    for x in (t, alias, sub):
        np.testing.assert_array_equal(to_numpy(x), expected)
    assert type(sub) is Tagged and on_jax(t)


def test_replaced_arrays_are_freed() -> None:
    """A view keeps its base's first array alive, not every array a write replaced since."""
    import gc
    import weakref
    t = jx(HOST.copy())
    view = t[0]
    t.add_(1)
    replaced = weakref.ref(t.raw)
    t.add_(1)
    t.add_(1)
    gc.collect()
    assert replaced() is None
    view.fill_(0)  # still reaches t's newest array
    assert to_numpy(t)[0].tolist() == [0] * 4 and to_numpy(t)[1, 0] == HOST[1, 0] + 3


def test_out_and_torch_out_write_into_a_jax_tensor() -> None:
    t = jx(np.zeros((3, 4), np.float32))
    torch.add(jx(HOST), 1, out=t)
    np.multiply(t, 2, out=t)
    interop.exp(jx(np.zeros(4, np.float32)), out=t[1])
    expected = (HOST + 1) * 2
    expected[1] = 1
    np.testing.assert_array_equal(to_numpy(t), expected)


def test_writes_into_broadcast_views_raise_as_torch() -> None:
    t = jx(np.ones(3, np.float32)).expand(2, 3)
    with pytest.raises(RuntimeError, match="more than one element"):
        t.add_(1)


# ------------------------------------------------------------------ creation and placement
def test_creation_dtypes_devices_and_selection(monkeypatch) -> None:
    assert interop.arange(3, backend="jax").dtype == interop.int64  # x64 is on
    assert jx([1.5]).dtype == interop.float32 and jx(np.ones(2)).dtype == interop.float64
    assert interop.zeros(2, 3, backend="jax").shape == (2, 3)
    t = interop.ones(2, device=interop.device("cpu", backend="jax"))
    assert on_jax(t) and t.device == "cpu" and t.device.backend == "jax"
    assert on_jax(interop.zeros(3, device=t.device))  # x.device makes arrays of x's backend
    assert on_jax(interop.rand(3, backend="jax")) and on_jax(interop.randn(2, 2, backend="jax"))
    interop.manual_seed(0)
    a = interop.rand(4, backend="jax")
    interop.manual_seed(0)
    np.testing.assert_array_equal(to_numpy(a), to_numpy(interop.rand(4)))  # NumPy's stream
    assert on_jax(interop.as_tensor(jnp.arange(3)))  # a jax.Array is recognised, kept
    assert interop.tensor(jnp.arange(3), backend="jax").backend == "jax"
    assert interop.as_tensor(t).raw is t.raw
    back = interop.tensor(jx(HOST), backend="numpy")
    assert type(back.raw) is np.ndarray
    monkeypatch.setattr(interop.backends.registry, "_default", ["numpy"])
    interop.set_default_backend("jax")
    assert on_jax(interop.zeros(2)) and on_jax(interop.tensor([1, 2]))


def test_interop_backend_environment_variable() -> None:
    import subprocess
    import sys
    code = "import interop; print(interop.backends.registry._default[0])"  # jax loads on use
    out = subprocess.run([sys.executable, "-c", code],
                         env={**__import__("os").environ, "INTEROP_BACKEND": "jax"},
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "jax"


def test_dlpack_exchange() -> None:
    t = jx(HOST)
    np.testing.assert_array_equal(np.from_dlpack(t), HOST)
    np.testing.assert_array_equal(torch.from_dlpack(t).numpy(), HOST)
    np.testing.assert_array_equal(jnp.from_dlpack(t), HOST)
    assert to_numpy(interop.from_dlpack(torch.arange(3.0))).tolist() == [0, 1, 2]


# ------------------------------------------------------------------ the surfaces
CALLS = {
    "add": lambda m, t: m.add(t, 2 * t),
    "matmul": lambda m, t: m.matmul(t, t.T),
    "sum dim": lambda m, t: m.sum(t, dim=1),
    "mean keepdim": lambda m, t: m.mean(t, 0, keepdim=True),
    "softmax": lambda m, t: m.softmax(t, dim=-1),
    "cumsum": lambda m, t: m.cumsum(t, dim=0),
    "sort": lambda m, t: m.sort(-t, dim=1)[0],
    "argmax": lambda m, t: m.argmax(t, dim=0),
    "where": lambda m, t: m.where(t > 5, t, -t),
    "cat": lambda m, t: m.cat([t, t], dim=0),
    "stack": lambda m, t: m.stack([t, t]),
    "reshape": lambda m, t: m.reshape(t, (4, 3)),
    "clamp": lambda m, t: m.clamp(t, 2, 7),
    "pow": lambda m, t: m.pow(t, 2),
    "floor_divide int": lambda m, t: m.floor_divide(t.long(), 3),
    "true divide int": lambda m, t: m.div(t.long(), 4),
    "topk": lambda m, t: m.topk(t, 2).values,
    "norm": lambda m, t: m.norm(t),
    "einsum": lambda m, t: m.einsum("ij,kj->ik", t, t),
    "nonzero": lambda m, t: m.nonzero(t > 6),
    "getitem mask": lambda m, t: t[t > 6],
    "getitem int array": lambda m, t: t[m.tensor([2, 0])],
    "methods": lambda m, t: t.abs().exp().log().max(),
    "operators": lambda m, t: (-t + 1) * 2 / 3 - t ** 2 % 5,
    "comparisons": lambda m, t: (t >= 3) & (t < 9) | ~(t == 5),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_interop_and_torch_calls_match_torch(call) -> None:
    expected = CALLS[call](torch, torch.from_numpy(HOST.copy()))
    for module in (interop, torch):  # interop's functions, and torch's on interop tensors
        got = CALLS[call](module, jx(HOST))
        assert on_jax(got), f"{call}: not on JAX"
        np.testing.assert_allclose(to_numpy(got), expected.numpy(), rtol=1e-6, err_msg=call)
        assert to_numpy(got).dtype == expected.numpy().dtype, call


NUMPY_CALLS = {
    "exp": lambda t: np.exp(t),
    "add scalar": lambda t: np.add(t, 1),
    "mean": lambda t: np.mean(t, axis=0),
    "concatenate": lambda t: np.concatenate([t, t]),
    "linalg.norm": lambda t: np.linalg.norm(t, axis=1),
    "fft": lambda t: np.fft.fft(t).real,
    "where": lambda t: np.where(t > 4, t, 0),
    "reduce": lambda t: np.add.reduce(t, axis=1),
    "clip": lambda t: np.clip(t, 2, 5),
}


@pytest.mark.parametrize("call", list(NUMPY_CALLS))
def test_numpy_functions_run_jax_numpy(call) -> None:
    got = NUMPY_CALLS[call](jx(HOST))
    assert on_jax(got), f"{call}: NumPy's call went to the host"
    np.testing.assert_allclose(to_numpy(got), NUMPY_CALLS[call](HOST), rtol=1e-6)


def test_array_api_namespace() -> None:
    t = jx(HOST)
    xp = t.__array_namespace__()
    for got, expected in [(xp.mean(t, axis=0), HOST.mean(0)), (xp.sum(t), HOST.sum()),
                          (xp.matmul(t, xp.permute_dims(t, (1, 0))), HOST @ HOST.T),
                          (xp.zeros((2,), device=t.device), np.zeros(2))]:
        assert on_jax(got)
        np.testing.assert_allclose(to_numpy(got), expected, rtol=1e-6)


# ------------------------------------------------------------------ mixing
def test_mixing_follows_the_promotion_policy() -> None:
    host, on = interop.tensor(HOST), jx(HOST)
    assert on_jax(host + on) and on_jax(on * host) and on_jax(interop.add(host, on))
    assert on_jax(on + HOST) and on_jax(HOST + on) and on_jax(torch.add(on, torch.ones(4)))
    host.add_(on)  # a write never changes its target: the host tensor stays NumPy
    assert type(host.raw) is np.ndarray and to_numpy(host)[1, 1] == 10
    on.add_(interop.tensor(HOST))
    assert on_jax(on) and to_numpy(on)[1, 1] == 10
    pytest.importorskip("dask")
    lazy = interop.tensor(HOST, backend="dask") + on  # lazy wins, its chunks NumPy
    assert lazy.backend == "dask" and type(lazy.raw._meta) is np.ndarray
    np.testing.assert_array_equal(to_numpy(lazy), HOST + to_numpy(on))


def test_mixing_with_another_device_is_refused() -> None:
    pytest.importorskip("array_api_strict")
    other = interop.tensor(HOST, backend="strict", device="strict:1")
    with pytest.raises(interop.DeviceMismatchError, match="strict:1"):
        jx(HOST) + other


# ------------------------------------------------------------------ pytrees: jit, grad, vmap
class Tagged(interop.Tensor):
    """A subclass with an attribute: pytrees keep both."""


def test_jit_grad_and_vmap_trace_interop_torch_and_numpy_calls() -> None:
    x = jx(HOST / 10)

    def f(t):
        return torch.relu(t - 0.5) @ t.T + np.exp(t).sum() + interop.tanh(t).mean()

    expected = f(jx(HOST / 10))
    got = jax.jit(f)(x)
    assert on_jax(got)
    np.testing.assert_allclose(to_numpy(got), to_numpy(expected), rtol=1e-6)
    grad = jax.grad(lambda t: (t * t).sum().raw)(x)  # jax.grad wants a JAX scalar: .raw
    assert isinstance(grad, interop.Tensor)
    np.testing.assert_allclose(to_numpy(grad), 2 * HOST / 10, rtol=1e-6)
    rows = jax.vmap(lambda r: interop.sum(r * 2) + torch.dot(r, r))(x)
    np.testing.assert_allclose(to_numpy(rows), (HOST / 5).sum(1) + (HOST / 10 * HOST / 10).sum(1),
                               rtol=1e-6)


def test_writes_inside_jit() -> None:
    def f(t):
        t = t.clone()
        t[0] = 5
        t[1].add_(1)
        t.T[2].zero_()
        return t

    expected = HOST.copy()
    expected[0], expected[1] = 5, expected[1] + 1
    expected[:, 2] = 0
    np.testing.assert_array_equal(to_numpy(jax.jit(f)(jx(HOST))), expected)


def test_subclasses_and_attributes_survive_tracing() -> None:
    t = Tagged(jx(HOST))
    t.unit = "m"
    out = jax.jit(lambda a: a * 2)(t)
    assert type(out) is Tagged and out.unit == "m"
    leaves, tree = jax.tree_util.tree_flatten({"w": t, "b": [jx(1.0)]})
    assert len(leaves) == 2 and all(isinstance(x, jax.Array) for x in leaves)
    assert type(jax.tree_util.tree_unflatten(tree, leaves)["w"]) is Tagged

    class Later(interop.Tensor):  # defined after the backend loaded: registered too
        pass
    assert type(jax.jit(lambda a: a + 1)(Later(jx(HOST)))) is Later


def test_value_reads_under_tracing_raise_a_clear_error() -> None:
    from interop.backends.jax.backend import TracedValueError
    with pytest.raises(TracedValueError, match="bool.*jax.jit"):
        jax.jit(lambda t: t if bool(t.sum() > 0) else -t)(jx(HOST))
    with pytest.raises(TracedValueError):
        jax.jit(lambda t: t.item())(jx(1.0))
    for sized in (interop.nonzero, interop.unique, lambda t: t[t.argmax()]):
        with pytest.raises(TracedValueError, match="jax.jit"):
            jax.jit(sized)(jx(HOST))


def test_printing_under_tracing_reads_no_value_and_grad_says_its_own_error() -> None:
    """A traced tensor prints its shape and dtype, as JAX's tracers do (printing never reads
    values), so jax.grad's own error reaches the user under jit too, where it was a value
    read; returning the loss's ``.raw`` is the form jax.grad takes (docs/errors.md)."""
    printed = []
    jax.jit(lambda t: printed.append((repr(t), t._repr_html_())) or t.sum())(jx(HOST))
    body = f"<traced shape=(3, 4), dtype={jx(HOST).dtype}>"
    assert printed[0][0] == f"tensor({body}, backend='jax')"
    assert body.replace("<", "&lt;").replace(">", "&gt;") in printed[0][1]
    loss = lambda t: (t * t).sum()  # noqa: E731
    with pytest.raises(TypeError) as reference:
        jax.jit(jax.grad(lambda a: interop.tensor(a, backend="jax")))(jnp.ones(()))
    for transform in (jax.grad, lambda f: jax.jit(jax.grad(f))):
        with pytest.raises(TypeError, match="Gradient only defined for scalar-output") as info:
            transform(loss)(jx(HOST))
        assert type(info.value) is type(reference.value)
        grad = transform(lambda t: loss(t).raw)(jx(HOST))
        assert isinstance(grad, interop.Tensor) and grad.backend == "jax"
        np.testing.assert_allclose(to_numpy(grad), 2 * HOST)


def test_mlp_gradients_match_torch_autograd() -> None:
    """A torch-style MLP (Linear-ReLU-Linear, MSE) on interop tensors, jit-compiled and
    differentiated by JAX, against torch.autograd on the same weights."""
    rng = np.random.default_rng(0)
    shapes = {"w1": (16, 8), "b1": (16,), "w2": (4, 16), "b2": (4,)}
    weights = {k: rng.standard_normal(s).astype(np.float32) * 0.5 for k, s in shapes.items()}
    x = rng.standard_normal((32, 8)).astype(np.float32)
    y = rng.standard_normal((32, 4)).astype(np.float32)

    def loss(p, x, y):
        h = torch.relu(F.linear(x, p["w1"], p["b1"]))
        out = h @ p["w2"].T + p["b2"]
        return F.mse_loss(out, y)

    params = {k: jx(v) for k, v in weights.items()}
    value, grads = jax.jit(jax.value_and_grad(lambda p: loss(p, jx(x), jx(y)).raw))(params)
    reference = {k: torch.tensor(v, requires_grad=True) for k, v in weights.items()}
    expected = loss(reference, torch.from_numpy(x), torch.from_numpy(y))
    expected.backward()
    np.testing.assert_allclose(float(value), expected.item(), rtol=1e-5)
    for k in shapes:
        assert isinstance(grads[k], interop.Tensor) and on_jax(grads[k])
        np.testing.assert_allclose(to_numpy(grads[k]), reference[k].grad.numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=k)


# ------------------------------------------------------------------ edges
@pytest.mark.parametrize("shape", [(), (0,), (2, 0)])
def test_zero_d_and_empty(shape) -> None:
    a = np.ones(shape, np.float32)
    t = jx(a)
    assert t.shape == shape and on_jax(t + 1) and on_jax(t.sum())
    np.testing.assert_allclose(to_numpy(interop.exp(t)), np.exp(a), rtol=1e-6)
    t.add_(1)
    t[...] = 3
    np.testing.assert_array_equal(to_numpy(t), np.full(shape, 3, np.float32))
    assert float((t * 0).sum()) == 0.0


ALIASES = {"detach": lambda t: t.detach(), "view": lambda t: t.view(t.shape),
           "float": lambda t: t.float(), "reshape": lambda t: t.reshape(t.shape)}


@pytest.mark.parametrize("shape", [(), (0,), (3,)])
@pytest.mark.parametrize("in_thread", [False, True])
def test_a_write_through_an_alias_from_a_fast_path_call_reaches_its_base(shape,
                                                                         in_thread) -> None:
    """Plain calls on JAX register their tensors themselves (the fast path): a write into an
    alias they made reaches the tensor it came from, as in torch, in this thread or another
    (the other direction is one way only, as documented in ``views``)."""
    import threading
    a = np.arange(np.prod(shape, dtype=int), dtype=np.float32).reshape(shape)
    got = {}

    def run() -> None:
        for name, make in ALIASES.items():
            t = jx(a)
            make(t).add_(1)
            got[name] = t
    if in_thread:
        worker = threading.Thread(target=run)
        worker.start()
        worker.join()
    else:
        run()
    for name, make in ALIASES.items():
        expected = torch.tensor(a)
        make(expected).add_(1)
        assert on_jax(got[name]), name
        np.testing.assert_array_equal(to_numpy(got[name]), expected.numpy(), err_msg=name)
    with pytest.raises(TypeError):
        torch.exp(torch.tensor(a), None)
    with pytest.raises(TypeError):
        interop.exp(jx(a), None)

# ------------------------------------------------------------------ consumers
try:
    from tests import test_consumers_xarray as xarray_cases
except (ImportError, pytest.skip.Exception):
    xarray_cases = None


@pytest.mark.parametrize("name", list(xarray_cases.OPERATIONS) if xarray_cases else [])
def test_xarray_keeps_jax_tensors(name) -> None:
    """xarray's DataArray over a JAX-backed tensor: results stay JAX-backed tensors.
    (scikit-learn, SciPy and array-api-extra: ``python -m tests.helpers.array_api_consumers
    sklearn jax`` runs their cases, in a subprocess of its own.)"""
    xarray_cases.test_dataarray_keeps_tensor(name, "jax")
