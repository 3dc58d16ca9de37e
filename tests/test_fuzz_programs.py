"""Differential fuzzing: random programs of 1-8 operations, interop against torch.

hypothesis draws one or two input arrays (shapes of up to 3 dimensions,
sizes 0-4, broadcastable or not, dtypes float32/float64/int32/int64/bool)
and a program: a sequence of operations from the operation table (the names
are checked against ``interop.ops.TABLE``) with random dims, keepdims,
indices, slices and masks.  The same program runs on torch (the reference),
and on interop's numpy and dask backends (cupy too, on a CUDA GPU).  Either
every run gives the same dtype, shape and values (to a dtype-appropriate
tolerance), or every run raises, and interop's exception is of torch's class
(its nearest built-in class, docs/errors.md).

On Dask, ``mask_lazy`` leaves the size of ``x[x > 1]`` unknown (NaN): what
follows either proceeds and agrees with torch, or raises interop's
``UnknownShapeError`` (counted apart: torch knows every size).

CI runs the ``ci`` profile (the same 40 generated programs every run, plus
the regressions below).  The long run, documented in docs/errors.md:
``INTEROP_FUZZ_PROGRAMS=30000 pytest -p no:randomly tests/test_fuzz_programs.py``
(30,028 programs a backend in 13 minutes on 2 shared cores).
Every run ends with a line per backend: programs run, how many ended in
values, in errors torch raised too, and in unknown-size errors.  Each failure
found is fixed and kept below as an ``@example``.
"""

from __future__ import annotations

import os
import warnings
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, note, settings
from hypothesis import strategies as st

import interop
from interop.ops import TABLE
from tests.conftest import HAS_GPU, to_numpy

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "int32", "int64", "bool"]
BACKENDS = ["numpy", "dask", *(["cupy"] if HAS_GPU else [])]


def _where(ns: Any, x: Any, y: Any) -> Any:
    return ns.where(x > 0, x, y)


def _index(ns: Any, x: Any, y: Any, index: Any) -> Any:
    return x[index]


def _mask(ns: Any, x: Any, y: Any) -> Any:
    out = x[x > 1]
    if getattr(out, "backend", None) == "dask":  # its size is unknown until computed
        out.compute_chunk_sizes()  # in place (and without the empty chunks Dask miscomputes)
    return out


def _mask_lazy(ns: Any, x: Any, y: Any) -> Any:
    return x[x > 1]  # on Dask: NaN sizes from here on


def _cat(ns: Any, x: Any, y: Any, dim: int) -> Any:
    return ns.cat([x, y], dim=dim)


# name -> (table entry it exercises, how it is called on a namespace ns: torch or interop)
OPS: dict[str, tuple[str, Callable[..., Any]]] = {
    "add": ("add", lambda ns, x, y: ns.add(x, y)),
    "sub": ("sub", lambda ns, x, y: x - y),
    "mul": ("mul", lambda ns, x, y: x * y),
    "div": ("div", lambda ns, x, y: ns.div(x, y)),
    "maximum": ("maximum", lambda ns, x, y: ns.maximum(x, y)),
    "eq": ("eq", lambda ns, x, y: x == y),
    "lt": ("lt", lambda ns, x, y: ns.lt(x, y)),
    "where": ("where", _where),
    "cat": ("cat", _cat),
    "neg": ("neg", lambda ns, x, y: -x),
    "abs": ("abs", lambda ns, x, y: x.abs()),
    "exp": ("exp", lambda ns, x, y: ns.exp(x)),
    "sqrt": ("sqrt", lambda ns, x, y: x.sqrt()),
    "sin": ("sin", lambda ns, x, y: ns.sin(x)),
    "floor": ("floor", lambda ns, x, y: x.floor()),
    "sign": ("sign", lambda ns, x, y: ns.sign(x)),
    "square": ("square", lambda ns, x, y: ns.square(x)),
    "clamp": ("clamp", lambda ns, x, y, lo: x.clamp(min=lo, max=lo + 2)),
    "logical_not": ("logical_not", lambda ns, x, y: ns.logical_not(x)),
    "bitwise_not": ("bitwise_not", lambda ns, x, y: ~x),
    "sum": ("sum", lambda ns, x, y, dim, keepdim: x.sum(dim=dim, keepdim=keepdim)),
    "mean": ("mean", lambda ns, x, y, dim, keepdim: x.mean(dim=dim, keepdim=keepdim)),
    "amax": ("amax", lambda ns, x, y, dim, keepdim: ns.amax(x, dim=dim, keepdim=keepdim)),
    "argmax": ("argmax", lambda ns, x, y, dim, keepdim: x.argmax(dim=dim, keepdim=keepdim)),
    "prod": ("prod", lambda ns, x, y, dim, keepdim: x.prod(dim=dim, keepdim=keepdim)),
    "any": ("any", lambda ns, x, y, dim, keepdim: x.any(dim=dim, keepdim=keepdim)),
    "cumsum": ("cumsum", lambda ns, x, y, dim: x.cumsum(dim)),
    "reshape": ("reshape", lambda ns, x, y: x.reshape(-1)),
    "transpose": ("transpose", lambda ns, x, y, dim: x.transpose(0, dim)),
    "flatten": ("flatten", lambda ns, x, y: ns.flatten(x)),
    "unsqueeze": ("unsqueeze", lambda ns, x, y, dim: x.unsqueeze(dim)),
    "squeeze": ("squeeze", lambda ns, x, y: x.squeeze()),
    "flip": ("flip", lambda ns, x, y, dim: x.flip(dim)),
    "index": ("__getitem__", _index),
    "mask": ("__getitem__", _mask),
    "mask_lazy": ("__getitem__", _mask_lazy),
    "pow": ("pow", lambda ns, x, y: ns.pow(x.abs(), y)),
    # the dividend is the exact input y: remainder(exp(exp(x)), 1) turns libm's last-ulp
    # differences at 1618 into 4e-3 at 0.18 (found by the long run)
    "remainder": ("remainder", lambda ns, x, y: ns.remainder(y, x.abs() + 1)),
    "matmul": ("matmul", lambda ns, x, y: x @ y.to(x.dtype)),  # (torch skips it on empties)
    "stack": ("stack", lambda ns, x, y, dim: ns.stack([x, x], dim=dim)),
    "permute": ("permute", lambda ns, x, y: x.permute(tuple(reversed(range(x.dim()))))),
    "std": ("std", lambda ns, x, y, dim, keepdim: x.std(dim=dim, keepdim=keepdim)),
    "sort": ("sort", lambda ns, x, y, dim: x.sort(dim).values),
    "max_dim": ("max", lambda ns, x, y, dim, keepdim: x.max(dim, keepdim).values),
    "cumprod": ("cumprod", lambda ns, x, y, dim: x.cumprod(dim)),
    "to_float32": ("to", lambda ns, x, y: x.to(ns.float32)),
    "to_int64": ("to", lambda ns, x, y: x.long()),
}
DIMS = st.integers(-1, 0) | st.integers(-3, 3)  # mostly valid on any shape; sometimes not
PARAMS: dict[str, st.SearchStrategy] = {
    "dim": DIMS, "keepdim": st.booleans(), "lo": st.integers(-3, 3),
    "index": st.one_of(
        st.integers(-4, 4),
        st.builds(slice, st.none() | st.integers(-4, 4), st.none() | st.integers(-4, 4),
                  st.none() | st.integers(1, 3)),
        st.tuples(st.integers(-2, 2), st.builds(slice, st.none() | st.integers(0, 3))),
        st.just(Ellipsis), st.just((Ellipsis, None))),
}
ARGS = {name: fn.__code__.co_varnames[3:fn.__code__.co_argcount] for name, (_, fn) in OPS.items()}


def _values(dtype: str, n: int) -> st.SearchStrategy:
    if dtype == "bool":
        return st.lists(st.booleans(), min_size=n, max_size=n)
    if dtype.startswith("int"):
        return st.lists(st.integers(-5, 5), min_size=n, max_size=n)
    return st.lists(st.floats(-5, 5, width=32, allow_subnormal=False), min_size=n, max_size=n)


@st.composite
def arrays(draw: Any, shape: tuple) -> tuple:
    dtype = draw(st.sampled_from(DTYPES))
    return (shape, dtype, tuple(draw(_values(dtype, int(np.prod(shape, dtype=int))))))


@st.composite
def programs(draw: Any) -> tuple:
    """(x, y, steps): two inputs as (shape, dtype, values) and 1-8 (op, params) steps."""
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
    if draw(st.integers(0, 9)):  # mostly broadcastable: a suffix of x's shape, some dims 1
        tail = shape[len(shape) - draw(st.integers(0, len(shape))):]
        yshape = tuple(1 if draw(st.booleans()) else s for s in tail)
    else:
        yshape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
    steps = []
    for _ in range(draw(st.integers(1, 8))):
        name = draw(st.sampled_from(sorted(OPS)))
        steps.append((name, tuple((a, draw(PARAMS[a])) for a in ARGS[name])))
    return draw(arrays(shape)), draw(arrays(yshape)), tuple(steps)


def _host(spec: tuple) -> np.ndarray:
    shape, dtype, values = spec
    return np.array(values, dtype=dtype).reshape(shape)


def run(program: tuple, ns: Any, make: Callable[[np.ndarray], Any]) -> Any:
    """The program's result as host values, or the exception it raised, with ``fuzz_step``
    saying where: the index of the step, or the number of steps when reading the values."""
    x_spec, y_spec, steps = program
    x, y = make(_host(x_spec)), make(_host(y_spec))
    step = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for step, (name, params) in enumerate(steps):  # noqa: B007 - read after a failure
                x = OPS[name][1](ns, x, y, **dict(params))
            step = len(steps)
            return x.numpy() if isinstance(x, torch.Tensor) else to_numpy(x)
        except Exception as exc:  # noqa: BLE001 - a raise is a result to compare
            exc.fuzz_step = step
            return exc


def _interop_maker(backend: str) -> Callable[[np.ndarray], Any]:
    def make(a: np.ndarray) -> Any:
        chunks = {"chunks": tuple(max(1, s // 2) for s in a.shape)} if backend == "dask" else {}
        return interop.tensor(a, backend=backend, **chunks)
    return make


def builtin_base(exc_type: type) -> type:
    return next(c for c in exc_type.__mro__ if c.__module__ == "builtins")


def tolerance(dtype: np.dtype, ref: np.ndarray, single: bool) -> dict:
    """float32 rounding (libraries' sin, sum order differ by ulps) wherever float32 took part."""
    rtol = 1e-4 if single or dtype == np.float32 else 1e-9
    scale = float(np.nanmax(np.abs(ref[np.isfinite(ref)]), initial=1.0)) if ref.size else 1.0
    return {"rtol": rtol, "atol": rtol * max(scale, 1.0), "equal_nan": True}


def compare(got: Any, ref: Any, where: str, single: bool = True) -> None:
    if isinstance(ref, Exception):
        assert isinstance(got, Exception), f"{where}: torch raised {ref!r}, interop gave {got!r}"
        assert isinstance(got, builtin_base(type(ref))), (
            f"{where}: {type(got).__name__} is not torch's {type(ref).__name__}: {got} / {ref}")
        return
    assert not isinstance(got, Exception), f"{where}: interop raised {got!r}, torch gave {ref!r}"
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.dtype == ref.dtype, f"{where}: dtype {got.dtype} != torch's {ref.dtype}"
    assert got.shape == ref.shape, f"{where}: shape {got.shape} != torch's {ref.shape}"
    if ref.dtype.kind in "fc":
        np.testing.assert_allclose(got, ref, err_msg=where, **tolerance(ref.dtype, ref, single))
    else:
        np.testing.assert_array_equal(got, ref, err_msg=where)


def test_ops_are_in_the_operation_table() -> None:
    assert {entry for entry, _ in OPS.values()} <= set(TABLE)


# Failures the fuzzer found, fixed, and kept (each runs first, in every profile).
REGRESSIONS = [
    # amax over an empty dim: torch's IndexError
    (((0,), 'float32', ()), ((), 'float32', (0.0,)),
     (('amax', (('dim', 0), ('keepdim', False))),)),
    # cat of a 0-d tensor: RuntimeError before the dim check
    (((), 'float32', (0.0,)), ((0,), 'float32', ()), (('cat', (('dim', 1),)),)),
    # -bool: torch's RuntimeError (2.14: NotImplementedError, a RuntimeError)
    (((), 'float32', (0.0,)), ((0,), 'float32', ()),
     (('any', (('dim', 0), ('keepdim', False))), ('neg', ()))),
    # dtype error on a Dask tensor of unknown size: not an unknown-size error
    (((0, 0), 'float32', ()), ((0, 0), 'float32', ()), (('mask', ()), ('bitwise_not', ()))),
    # Dask reshape of empty arrays
    (((2, 0), 'float32', ()), ((), 'float32', (0.0,)), (('flatten', ()),)),
    # mean of ints: dtype checked before dim
    (((), 'int32', (0,)), ((), 'float32', (0.0,)), (('mean', (('dim', 1), ('keepdim', False))),)),
    # Dask: 0-d boolean mask
    (((), 'float32', (0.0,)), ((), 'float32', (0.0,)), (('mask', ()),)),
    # Dask: boolean mask of an empty array
    (((0, 2), 'float32', ()), ((), 'float32', (0.0,)), (('mask', ()),)),
    # Dask dropped empty operands of cat without checking shapes
    (((0, 0, 0), 'float32', ()), ((1, 1, 1), 'float32', (0.0,)), (('cat', (('dim', 0),)),)),
    # Dask max of an empty array: wrong shape
    (((0, 1, 0), 'float32', ()), ((0,), 'float32', ()),
     (('amax', (('dim', 1), ('keepdim', False))),)),
    # Dask: elementwise after compute_chunk_sizes with an empty chunk
    (((2,), 'float32', (0.0, 2.0)), ((), 'float32', (0.0,)), (('mask', ()), ('add', ()))),
    # sign(nan) is 0 in torch
    (((), 'float32', (0.0,)), ((), 'float32', (-1.0,)), (('add', ()), ('sqrt', ()), ('sign', ()))),
    # float32 rounding carried into a float64 result
    (((), 'float32', (0.0,)), ((), 'float64', (0.0,)),
     (('logical_not', ()), ('sin', ()), ('add', ()))),
    # std/var of ints: dtype checked before dim
    (((), 'float32', (0.0,)), ((), 'float32', (0.0,)),
     (('logical_not', ()), ('std', (('dim', 1), ('keepdim', False))))),
    # sort of a 0-d tensor checks dim
    (((), 'float32', (0.0,)), ((), 'float32', (0.0,)), (('sort', (('dim', 1),)),)),
    # max(dim) of a 0-d tensor is still (values, indices)
    (((), 'float32', (0.0,)), ((), 'float32', (0.0,)),
     (('max_dim', (('dim', 0), ('keepdim', False))),)),
    # Dask's matmul of int32 gave int64
    (((2, 0), 'int32', ()), ((2, 0), 'float32', ()),
     (('transpose', (('dim', 1),)), ('matmul', ()))),
    # bool matmul: torch's NotImplementedError when there is work, a result when not
    (((0,), 'bool', ()), ((0,), 'float32', ()), (('matmul', ()),)),
    (((0, 0), 'bool', ()), ((0,), 'float32', ()), (('matmul', ()),)),
    # Dask cumprod of a 0-d tensor (the NaN-size check looked at dim None)
    (((), 'float32', (0.0,)), ((), 'float32', (0.0,)), (('cumprod', (('dim', 0),)),)),
    # Dask: an operator broadcasting a NaN size against a known one says compute_chunk_sizes
    (((2,), 'float32', (0.0, 2.0)), ((2,), 'float32', (0.0, 0.0)), (('mask_lazy', ()), ('sub', ()))),
    (((2,), 'int32', (0, 2)), ((2,), 'int32', (0, 0)),
     (('mask_lazy', ()), ('sub', ()), ('any', (('dim', 0), ('keepdim', False))), ('abs', ()))),
    # Dask: squeeze kept a NaN size that was 1 (now: compute_chunk_sizes)
    (((2, 2), 'float32', (0.0, 0.0, 0.0, 2.0)), ((), 'float32', (0.0,)),
     (('mask_lazy', ()), ('squeeze', ()))),
    # Dask: amax along a NaN size that is 0 gave an empty result (now torch's IndexError)
    (((), 'float32', (0.0,)), ((0,), 'float32', ()),
     (('mask_lazy', ()), ('stack', (('dim', -1),)), ('amax', (('dim', 0), ('keepdim', False))))),
    # Dask: cat of a 1-d NaN size (torch skips it if empty) with a 2-d tensor
    (((1, 1), 'float32', (0.0,)), ((1, 1), 'float32', (0.0,)),
     (('mask_lazy', ()), ('cat', (('dim', 0),)))),
    # float32 rounding (sin of a bool) carried into a float64 result: the test's tolerance
    (((2, 2), 'float64', (0.0, 0.0, 0.0, 0.0)), ((2,), 'float64', (0.0, 0.0)),
     (('eq', ()), ('sin', ()), ('add', ()))),
    # Dask: cumprod along a known dimension of a tensor with a NaN one
    (((2, 1), 'float32', (0.0, 0.0)), ((2, 1), 'float32', (0.0, 0.0)),
     (('mask_lazy', ()), ('add', ()), ('cumprod', (('dim', 0),)))),
    # Dask: max along a known dimension of a 2-d tensor whose other (NaN) size is 0
    (((), 'float32', (0.0,)), ((), 'float32', (0.0,)),
     (('mask_lazy', ()), ('stack', (('dim', -1),)), ('max_dim', (('dim', -1), ('keepdim', False))))),
    # a bool tensor subtracted: torch 2.14 says NotImplementedError (2.13 said RuntimeError)
    (((2,), 'float32', (0.0, 0.0)), ((), 'bool', (False,)), (('sub', ()),)),
]


def regressions(test: Callable) -> Callable:
    for program in REGRESSIONS:
        test = example(program=program)(test)
    return test


PROGRAMS = int(os.environ.get("INTEROP_FUZZ_PROGRAMS", "0"))  # 0: the profile's max_examples
OUTCOMES = {backend: Counter() for backend in BACKENDS}  # backend -> how its programs ended


# Steps after which float64 inputs may have passed through float32 (torch's default dtype
# for functions of bools and integers: sin(a == b) is float32, then one ulp apart).
LEAVE_FLOAT64 = {"to_float32", "eq", "lt", "logical_not", "any", "to_int64", "argmax"}


def deferred(got: Any, ref: Any, program: tuple) -> bool:
    """An error torch raised that NaN sizes (after mask_lazy) let interop find only later.

    A size check Dask cannot make yet (a product or broadcast of NaN sizes, a
    reduction of what turns out empty) happens when the graph runs, and that
    error keeps Dask's (NumPy's) class (docs/errors.md, rule 6); or a later
    step fails first, on the shape the unchecked step gave.
    """
    return (isinstance(got, Exception) and isinstance(ref, Exception)
            and any(name == "mask_lazy" for name, _ in program[2][:ref.fuzz_step])
            and got.fuzz_step > ref.fuzz_step)


def programs_setting(test: Callable) -> Callable:
    return settings(max_examples=PROGRAMS)(test) if PROGRAMS else test


@pytest.fixture(scope="module", autouse=True)
def report_outcomes(request: pytest.FixtureRequest) -> Any:
    """After the module: one line per backend with the figures docs/errors.md quotes."""
    yield
    plugins = request.config.pluginmanager
    reporter, capture = plugins.get_plugin("terminalreporter"), plugins.get_plugin("capturemanager")
    if reporter is None or capture is None:
        return
    with capture.global_and_fixture_disabled():  # shown with or without -s
        for backend, seen in OUTCOMES.items():
            reporter.write_line(
                f"fuzz {backend}: {sum(seen.values())} programs: {seen['values']} ended in values, "
                f"{seen['errors']} in errors torch raised too (and {seen['errors deferred']} "
                f"more raised later, NaN sizes), {seen['unknown sizes']} in unknown-size errors")


@regressions
@programs_setting
@given(program=programs())
def test_programs_agree_with_torch(program: tuple) -> None:
    note(f"program: {program!r}")
    ref = run(program, torch, lambda a: torch.from_numpy(a.copy()))
    double = program[0][1] == program[1][1] == "float64" and not any(
        name in LEAVE_FLOAT64 for name, _ in program[2])
    for backend in BACKENDS:
        got = run(program, interop, _interop_maker(backend))
        if isinstance(got, interop.UnknownShapeError) and backend == "dask":
            OUTCOMES[backend]["unknown sizes"] += 1  # after mask_lazy: torch knows the size
            continue
        if deferred(got, ref, program):
            OUTCOMES[backend]["errors deferred"] += 1
            continue
        compare(got, ref, f"{backend}: {program[2]}", single=not double)
        OUTCOMES[backend]["errors" if isinstance(ref, Exception) else "values"] += 1
