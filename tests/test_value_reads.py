"""One gate for every value read: under ``interop.config(dask_compute="raise")`` no table
operation computes a Dask graph behind the user's back.

Every operation of the table is run on lazy Dask operands, with the samples the other
table tests use (tests/test_ops_table.py, tests/test_torch_*.py), while a Dask callback
counts graph computations.  Each call must compute nothing: it returns a lazy result, or
a value read raises ``DaskComputeError`` before any compute.  Operations whose purpose is
a value (``item``, ``tolist``, ...) are listed in ``VALUE_READS`` with the reason.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import interop
from interop.core.dispatch import callables, handler, running, runs
from interop.ops import TABLE
from interop.ops.elementwise.arithmetic import BINARY, UNARY
from tests import test_aten_backward as backward_kernels
from tests import test_ops_table, test_torch_composite, test_torch_linalg, test_torch_nn, test_torch_opdb_ops

torch = pytest.importorskip("torch")
dask = pytest.importorskip("dask")
from tests.helpers.dask_counting import ComputeCounter  # noqa: E402

F = torch.nn.functional
M = np.arange(12, dtype=np.float32).reshape(3, 4) / 3 - 1
I64 = np.array([[1, 0, 2], [2, 1, 0]], dtype=np.int64)
STEPS = np.arange(24, dtype=np.float32).reshape(3, 2, 4)  # (time, batch, features)

# Operations that exist to hand values over, or to compute explicitly: a value read (or an
# explicit compute) is what they are for, so the gate raises or they compute by request.
VALUE_READS = {
    "item": "the value as a Python number",
    "tolist": "the values as Python lists",
    "numpy": "the values as a NumPy array",
    "__bool__": "bool(t)", "__float__": "float(t)", "__int__": "int(t)",
    "__complex__": "complex(t)", "__index__": "operator.index(t)",
    "__contains__": "x in t is a Python bool",
    "__format__": "format(t, spec) formats values",
    "equal": "a Python bool", "allclose": "a Python bool",
}
# Explicit computes: the user asked for values, so the policy does not apply.
EXPLICIT = {
    "compute": "t.compute()", "persist": "t.persist()",
    "compute_chunk_sizes": "computes the chunk sizes by request",
}
# GPU-only entries: without a GPU they raise before touching the graph (tests/test_devices.py).
GPU_ONLY = {"cuda": "moves to a GPU", "__cuda_array_interface__": "CuPy tensors only"}


def lazy(x):
    """NumPy samples as lazy Dask tensors of several chunks; other values unchanged."""
    if isinstance(x, np.ndarray):
        return interop.tensor(x, backend="dask", chunks=tuple(max(1, s // 2) for s in x.shape))
    if isinstance(x, (list, tuple)) and x and isinstance(x[0], np.ndarray):
        return type(x)(lazy(v) for v in x)
    return x


def _table_samples():
    """(label, thunk) for each sample of tests/test_ops_table.py's SAMPLES and families."""
    for name in sorted(UNARY) + test_ops_table.EXTRA_UNARY:
        yield name, lambda name=name: getattr(interop, name)(lazy(M))
    for name in sorted(BINARY) + ["add", "sub", "div", "clamp", "isclose"]:
        yield name, lambda name=name: getattr(interop, name)(lazy(M), lazy(M[::-1].copy()))
    for name in test_ops_table.REDUCTIONS:
        yield name, lambda name=name: getattr(interop, name)(lazy(M), 1)
    for name, samples in test_ops_table.SAMPLES.items():
        for args, kwargs, method in samples:
            fn = getattr(interop.Tensor, name) if method else getattr(interop, name)
            yield name, lambda fn=fn, args=args, kwargs=kwargs: fn(*map(lazy, args), **kwargs)


def _case_samples():
    """(label, thunk) for the torch-callable cases of tests/test_torch_*.py."""
    for module in (test_torch_composite, test_torch_linalg, test_torch_opdb_ops):
        for name, (call, operands, *_) in module.CASES.items():
            yield name, lambda call=call, operands=operands: call(*map(lazy, operands))
    for name, (fn, args, kwargs) in test_torch_nn.CASES.items():
        chunked = (lambda v: interop.tensor(v, backend="dask", chunks=-1)
                   if isinstance(v, np.ndarray) else v) \
            if name in test_torch_nn.DASK_ONE_CHUNK else lazy
        yield name, lambda fn=fn, args=args, kwargs=kwargs, chunked=chunked: fn(
            *map(chunked, args), **{k: chunked(v) for k, v in kwargs.items()})


def _more_samples():
    """Operations the other tables reach only on eager tensors or not at all."""
    d, i = lazy(M), lazy(I64)
    two = lazy(np.array([1, 1])).sum()  # a lazy 0-d int tensor worth 2
    yield from {
        # creation, and lazy 0-d tensors as sizes, indices and steps: each is a value read
        "zeros": lambda: interop.zeros(2, 3, backend="dask"),
        "ones": lambda: interop.ones(2, backend="dask"),
        "empty": lambda: interop.empty(2, backend="dask"),
        "full": lambda: interop.full((2,), 1.5, backend="dask"),
        "arange": lambda: interop.arange(5, backend="dask"),
        "linspace": lambda: interop.linspace(0, 1, 5, backend="dask"),
        "logspace": lambda: interop.logspace(0, 1, 5, backend="dask"),
        "eye": lambda: interop.eye(3, backend="dask"),
        "rand": lambda: interop.rand(3, backend="dask"),
        "randn": lambda: interop.randn(3, backend="dask"),
        "randint": lambda: interop.randint(0, 5, (3,), backend="dask"),
        **{f"{n}_like": (lambda n=n: getattr(interop, f"{n}_like")(d))
           for n in ("zeros", "ones", "empty", "rand", "randn")},
        "full_like": lambda: interop.full_like(d, 2.0),
        "randint_like": lambda: interop.randint_like(d, 2, 5),
        "meshgrid": lambda: interop.meshgrid(d[0], d[1]),
        "diff": lambda: interop.diff(d, dim=1),
        "narrow(size tensor)": lambda: d.narrow(1, two, two),
        "reshape(size tensor)": lambda: d.reshape(two, 6),
        "view(size tensor)": lambda: d.view(two, -1),
        "topk(size tensor)": lambda: d.topk(two),
        "roll(size tensor)": lambda: d.roll(two, 1),
        "repeat(size tensor)": lambda: d.repeat(two, 1),
        "expand(size tensor)": lambda: d[:1].expand(two, 4),
        "arange(size tensor)": lambda: interop.arange(two, backend="dask"),
        "zeros(size tensor)": lambda: interop.zeros(two, backend="dask"),
        "eye(size tensor)": lambda: interop.eye(two, backend="dask"),
        "linspace(size tensor)": lambda: interop.linspace(0, 1, two, backend="dask"),
        "histc": lambda: torch.histc(d, bins=3),
        "one_hot": lambda: F.one_hot(i),
        "tensor([lazy, lazy])": lambda: interop.tensor([d, d]),
        "__getitem__": lambda: d[1:, ::2],
        "__getitem__(0-d index)": lambda: d[two],
        "__setitem__": lambda: lazy(M).__setitem__(0, 1.0),
        "map_blocks": lambda: d.map_blocks(np.negative),
        "copy": lambda: lazy(M).copy_(d),
        "T": lambda: d.T, "mT": lambda: d.mT,
        "in": lambda: 3.0 in d,
        "torch.equal": lambda: torch.equal(d, d),
        "interop.equal": lambda: interop.equal(d, d),
        "allclose": lambda: d.allclose(d),
        # what torch's modules and distributions call
        "normal": lambda: torch.normal(d, 1.0),
        "bernoulli": lambda: torch.bernoulli(d.clamp(0, 1)),
        # what torch.nn.init calls on a module's weights
        "uniform": lambda: lazy(M).uniform_(-1.0, 1.0),
        "normal_fill": lambda: lazy(M).normal_(0.0, 2.0),
        "log_normal": lambda: lazy(M).log_normal_(),
        "exponential": lambda: lazy(M).exponential_(2.0),
        "cauchy": lambda: lazy(M).cauchy_(),
        "geometric": lambda: lazy(M).geometric_(0.5),
        "embedding_bag": lambda: F.embedding_bag(i, d),
        "ctc_loss": lambda: F.ctc_loss(lazy(STEPS).log_softmax(2), i, (3, 3), (3, 2)),
        "ctc_loss_reduction_code": lambda: torch.ctc_loss(lazy(STEPS).log_softmax(2), i,
                                                          (3, 3), (3, 2), 0, 2, False),
        "_pack_padded_sequence": lambda: torch.nn.utils.rnn.pack_padded_sequence(
            lazy(STEPS), [3, 2]),
        "_pad_packed_sequence": lambda: torch.nn.utils.rnn.pad_packed_sequence(
            torch.nn.utils.rnn.pack_padded_sequence(lazy(STEPS), [3, 2])),
        "_nested_tensor_from_mask_left_aligned":
            lambda: torch._nested_tensor_from_mask_left_aligned(lazy(STEPS), lazy(M[:2] > 1)),
        "svd_lowrank": lambda: torch.svd_lowrank(d, q=2),
        "pca_lowrank": lambda: torch.pca_lowrank(d, q=2),
    }.items()


def _attribute_samples():
    """Every attribute-family entry, called on a lazy tensor with its method's arguments."""
    d = lazy(M)
    args = {"size": (1,), "stride": (0,), "to": ("float64",), "type": ("float64",),
            "type_as": (d,), "new_tensor": ([1.0],), "expand_as": (d,), "view_as": (d,),
            "reshape_as": (d,), "__format__": (".1f",), "__contains__": (1.0,),
            "__setstate__": (None,), "__reduce_ex__": (2,), "astype": ("float64",)}
    for entry in TABLE.values():
        if entry.family not in ("attributes", "dask", "interchange") or not entry.method:
            continue
        name, method = entry.name, entry.method
        if entry.property:
            yield name, lambda method=method: getattr(d, method)
        else:
            given = args.get(name, args.get(method, ()))
            yield name, lambda method=method, a=given: getattr(d, method)(*a)


def _backward_samples():
    """The backward kernels autograd calls on TorchTensors, on lazy operands."""
    for name, (call, arrays) in {**backward_kernels.CASES,
                                 **backward_kernels.TRAINING_CASES}.items():
        yield name, lambda call=call, arrays=arrays: call(*(lazy(np.array(a)) for a in arrays))
    for name in backward_kernels.UPSAMPLE:
        kernel, g, args = backward_kernels.upsample_case(name)
        yield name, lambda kernel=kernel, g=g, args=args: kernel(lazy(g), *args)


SAMPLES = [*_table_samples(), *_case_samples(), *_more_samples(), *_attribute_samples(),
           *_backward_samples()]


# Operands tried in turn for entries no sample above reaches (elementwise, special, fft...)
RNG = np.random.default_rng(5)
SQ = RNG.standard_normal((3, 3)).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)
SEQ = RNG.standard_normal((2, 3, 8)).astype(np.float32)
IMG = RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)
VOL = RNG.standard_normal((2, 3, 4, 4, 4)).astype(np.float32)
GENERIC_OPERANDS = [(M,), (M, M), (M, 1), (SQ,), (SQ, SQ), (SEQ, 2), (IMG, 2), (VOL, 2),
                    (SEQ,), (IMG,), (VOL,), (M, M, M), (np.abs(M) + 0.5, M * 0 + 1, M),
                    (SEQ, SEQ, SEQ[:1, :1, :4]), (I64, I64), (I64,)]


def _call(name, *args):
    """interop.<name>(*args), or the Tensor method when there is no function."""
    entry = TABLE[name]
    if entry.function:
        return getattr(interop, name)(*args)
    return getattr(args[0], entry.method)(*args[1:])


def _leak(label, thunk):
    """``thunk``'s outcome, and a message if it computed a graph unasked."""
    outcome, computes = run_counting(thunk)
    if label in EXPLICIT or not computes:
        return outcome, None
    return outcome, f"{label}: {computes} computes ({type(outcome).__name__}: {str(outcome)[:80]})"


def run_counting(thunk):
    """(outcome, computes): the thunk's result or exception, and the graphs it computed."""
    counter = ComputeCounter()
    with counter, interop.config(dask_compute="raise"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            outcome = thunk()
        except Exception as exc:  # noqa: BLE001 - refusing is an outcome; computing is not
            outcome = exc
    return outcome, counter.count


def test_no_operation_computes_under_raise(monkeypatch):
    """Each sample computes nothing; together they reach every table entry."""
    names = {id(impl): name for name, e in TABLE.items()  # the fast path calls the bare one
             for impl in (e.impl, e.bare)}
    reached: set[str] = set()
    call_impl = running.call_impl

    def recording(impl, *args, **kwargs):
        reached.add(names.get(id(impl), ""))  # also when it refuses (Dask lacks it): no compute
        return call_impl(impl, *args, **kwargs)
    for module in (callables, handler, running, runs):  # every caller of call_impl
        monkeypatch.setattr(module, "call_impl", recording)
    leaks = [_leak(label, thunk)[1] for label, thunk in SAMPLES]
    for name in sorted(set(TABLE) - reached - set(VALUE_READS) - set(EXPLICIT) - set(GPU_ONLY)):
        for operands in GENERIC_OPERANDS:  # the first that the operation accepts
            outcome, leak = _leak(name, lambda o=operands, n=name: _call(n, *map(lazy, o)))
            leaks.append(leak)
            if not isinstance(outcome, Exception):
                break
    leaks = [leak for leak in leaks if leak]
    assert not leaks, "hidden computes under dask_compute='raise':\n" + "\n".join(leaks)
    missing = sorted(set(TABLE) - reached - set(VALUE_READS) - set(EXPLICIT) - set(GPU_ONLY))
    assert not missing, f"table operations without a lazy sample here: {missing}"


def _value_read(name):
    """A call of the value-reading entry ``name`` on a lazy one-element int tensor."""
    one = lazy(np.array([3, 1])).sum()
    calls = {"__contains__": lambda: 3 in one, "__format__": lambda: format(one, "d"),
             "equal": lambda: interop.equal(one, one), "allclose": lambda: one.allclose(one),
             "tolist": one.tolist, "numpy": one.numpy, "item": one.item,
             "__index__": lambda: [0, 1, 2, 3, 4][one]}
    return calls.get(name, lambda: getattr(one, name)())


@pytest.mark.parametrize("name", sorted(VALUE_READS))
def test_value_reads_raise_before_computing(name):
    """The operations whose purpose is a value raise under 'raise', having computed nothing."""
    outcome, computes = run_counting(_value_read(name))
    assert isinstance(outcome, interop.DaskComputeError), (name, outcome)
    assert computes == 0
