"""Memory: flat over many small operations, no reference cycles, no hidden copies.

- ``INTEROP_MEMORY_OPS`` small operations (default 20,000 in CI; the long
  profile is ``INTEROP_MEMORY_OPS=1000000``) keep Python's traced memory flat
  (``tracemalloc``): growth after warm-up below 64 KiB, whatever the count.
- Wrappers create no reference cycles: a result is freed by reference
  counting alone (its weakref dies at ``del``), and ``gc.collect()`` finds no
  garbage after a run of operations.
- Wrapping, ``.raw``, views, DLPack, ``as_tensor``/``asarray`` and
  ``np.asarray`` share the data (``np.shares_memory``), and wrapping a large
  array does not grow the process's resident memory
  (``INTEROP_MEMORY_BIG_MB``, default 256; 1024 in the long profile).
"""

from __future__ import annotations

import gc
import os
import tracemalloc
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import interop
from interop.overrides import BaseTorchFunctionMode

OPS = int(os.environ.get("INTEROP_MEMORY_OPS", "20000"))
BIG_MB = int(os.environ.get("INTEROP_MEMORY_BIG_MB", "256"))
GROWTH_LIMIT = 64 * 1024


class Sub(interop.Tensor):
    """A subclass with an instance attribute, carried to every result."""


def _loop_body(kind: str) -> Callable[[], None]:
    t = interop.tensor(np.arange(12.0).reshape(3, 4))
    s = t.as_subclass(Sub)
    s.unit = "m"
    acc = interop.tensor(np.zeros((3, 4)))
    steps: dict[str, Callable[[], Any]] = {
        "operators": lambda: (t + 1.0) * t - t[0],
        "functions": lambda: interop.sum(interop.add(t, t), dim=0),
        "methods": lambda: t.mean(dim=1).reshape(3, 1).expand(3, 4),
        "inplace": lambda: acc.add_(t).mul_(0.5),
        "numpy": lambda: np.add(t, 1.0) + np.mean(t, axis=0),
        "subclass": lambda: (s * 2.0).sum(),
        "mode": lambda: _in_mode(t),
    }
    return steps[kind]


def _in_mode(t: interop.Tensor) -> Any:
    with BaseTorchFunctionMode():
        return t * 2.0 + 1.0


KINDS = ["operators", "functions", "methods", "inplace", "numpy", "subclass", "mode"]


@pytest.mark.parametrize("kind", KINDS)
def test_many_small_operations_keep_memory_flat(kind: str) -> None:
    body = _loop_body(kind)
    n = max(1, OPS // len(KINDS))
    for _ in range(200):  # warm caches (dtype tables, backend lookups) before measuring
        body()
    gc.collect()
    tracemalloc.start()
    try:
        body()
        start, _ = tracemalloc.get_traced_memory()
        for _ in range(n):
            body()
        gc.collect()
        end, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    print(f"memory {kind}: {end - start:+d} bytes after {n} operations")  # the figure, with -s
    assert end - start < GROWTH_LIMIT, f"{kind}: {end - start} bytes more after {n} operations"


RESULTS: dict[str, Callable[[interop.Tensor], Any]] = {
    "tensor": lambda t: interop.tensor(np.ones(3)),
    "operator": lambda t: t + 1.0,
    "function": lambda t: interop.add(t, t),
    "view": lambda t: t[1:],
    "reduction": lambda t: t.sum(),
    "subclass": lambda t: t.as_subclass(Sub) * 2.0,
    "numpy-ufunc": lambda t: np.add(t, 1.0),
    "numpy-function": lambda t: np.mean(t),
    "dask": lambda t: interop.tensor(np.ones(4), backend="dask", chunks=2) + t,
    "tuple-result": lambda t: t.sort()[0],
}


@pytest.mark.parametrize("kind", list(RESULTS))
def test_results_are_freed_by_reference_counting(kind: str) -> None:
    """No cycle holds a result: it dies at ``del``, with the collector off."""
    t = interop.tensor(np.arange(4.0))
    gc.collect()
    gc.disable()
    try:
        result = RESULTS[kind](t)
        ref = weakref.ref(result)
        del result
        assert ref() is None, f"{kind}: the result outlived its last reference (a cycle)"
    finally:
        gc.enable()


def _cycle_garbage(run: Callable[[], None], rounds: int) -> int:
    """How many objects ``rounds`` calls of ``run`` leave that only the cycle collector frees."""
    gc.collect()
    gc.disable()
    try:
        for _ in range(rounds):
            run()
        return gc.collect()
    finally:
        gc.enable()


def test_no_garbage_cycles_after_a_run_of_operations() -> None:
    bodies = [_loop_body(kind) for kind in KINDS]

    def every_kind() -> None:
        for body in bodies:
            body()
    found = _cycle_garbage(every_kind, 50)
    assert found == 0, f"{found} objects were only reachable through reference cycles"


class _Hooked(interop.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)


class _Looping(interop.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))  # calls itself: OverrideRecursionError


class _Refusing(interop.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


class _PassMode(interop.TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class _ReenteringMode(interop.TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        with self:
            return func(*args, **(kwargs or {}))


def _reentering(t: interop.Tensor) -> None:
    with _ReenteringMode():
        interop.add(t, 1)


_MISTAKES = (
    lambda t: t.as_subclass(_Looping) + 1, _reentering,           # the recursion errors
    lambda t: t.as_subclass(_Refusing) + t.as_subclass(_Hooked),  # no implementation
    lambda t: t.reshape(3, 5), lambda t: t + interop.ones(5), lambda t: t.sum(dim=7),
    lambda t: t[9], lambda t: t["a"], lambda t: np.add(t, interop.ones(5)),
    lambda t: interop.array_api.asarray(["a"]), lambda t: t.add_(1j),
)


def test_modes_subclasses_and_errors_leave_no_cycles() -> None:
    """Rounds of modes, subclass handlers, mistakes and handler recursion: everything they
    make is freed by reference counting (the recursion error keeps neither the deep
    RecursionError nor a frame holding it), as torch keeps these paths."""
    def one_round() -> None:
        t = interop.tensor(np.arange(4.0))
        with _PassMode():
            (t + 1).sum()[()]
        h = t.as_subclass(_Hooked)
        (h * 2)[1:3].sum(dim=0)
        np.add(h, 1)
        for mistake in _MISTAKES:
            try:
                mistake(t)
            except Exception:  # noqa: BLE001, S110 - each is a mistake on purpose
                pass
    one_round()
    found = _cycle_garbage(one_round, 30)
    assert found == 0, f"{found} objects were only reachable through reference cycles"


def _views(t: interop.Tensor) -> dict[str, Any]:
    return {
        "raw": t.raw, "getitem-int": t[1].raw, "slice": t[:, 1:].raw, "T": t.T.raw,
        "reshape": t.reshape(4, 3).raw, "view": t.view(12).raw, "transpose": t.transpose(0, 1).raw,
        "unsqueeze": t.unsqueeze(0).raw, "squeeze": t.unsqueeze(0).squeeze(0).raw,
        "narrow": t.narrow(1, 1, 2).raw, "expand": t[:1].expand(5, 4).raw,
        "flatten": t.flatten().raw, "as_subclass": t.as_subclass(Sub).raw,
        "detach": t.detach().raw, "np.asarray": np.asarray(t), "numpy()": np.asarray(t.numpy()),
        "Tensor()": interop.Tensor(t).raw, "as_tensor": interop.as_tensor(t).raw,
        "asarray": interop.asarray(t).raw, "from_dlpack": interop.from_dlpack(t).raw,
        "copy.copy": __import__("copy").copy(t).raw,
    }


@pytest.mark.parametrize("name", list(_views(interop.tensor(np.zeros((3, 4))))))
def test_wrapping_and_views_share_memory(name: str) -> None:
    base = np.arange(12.0).reshape(3, 4)
    t = interop.as_tensor(base)
    assert np.shares_memory(t.raw, base), "interop.as_tensor(ndarray) copied"
    assert np.shares_memory(_views(t)[name], base), f"{name} copied the data"


def test_tensor_copies_as_torch_tensor_does() -> None:
    """``interop.tensor`` is ``torch.tensor``: it copies; the entry points below share."""
    base = np.arange(6.0)
    assert not np.shares_memory(interop.tensor(base).raw, base)


@pytest.mark.parametrize("make", ["as_tensor", "asarray", "Tensor", "from_dlpack"])
def test_entry_points_share_memory_with_ndarray(make: str) -> None:
    base = np.arange(6.0)
    t = {"as_tensor": interop.as_tensor, "asarray": interop.asarray,
         "Tensor": interop.Tensor, "from_dlpack": interop.from_dlpack}[make](base)
    assert np.shares_memory(t.raw, base)
    t[0] = 42.0  # a write through the tensor is seen by the array: one buffer
    assert base[0] == 42.0


def test_dlpack_with_torch_shares_memory() -> None:
    torch = pytest.importorskip("torch")
    base = np.arange(6.0)
    t = interop.as_tensor(base)
    out = torch.from_dlpack(t)
    assert out.data_ptr() == base.ctypes.data
    src = torch.arange(6.0)
    assert interop.as_tensor(src).raw is src  # a torch tensor stays torch's (issue 16)
    back = interop.from_dlpack(src)  # DLPack's import into host memory: shared
    assert back.raw.ctypes.data == src.data_ptr()


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs Linux /proc")
def test_wrapping_a_large_array_does_not_grow_resident_memory() -> None:
    big = np.ones(BIG_MB * 2**20 // 8)
    gc.collect()
    before = _rss_bytes()
    t = interop.as_tensor(big)
    views = [t.raw, t[1:], t.reshape(-1, 2), interop.as_tensor(big), np.asarray(t),
             interop.from_dlpack(t), t.as_subclass(Sub)]
    grown = _rss_bytes() - before
    assert grown < 8 * 2**20, f"wrapping {BIG_MB} MB grew RSS by {grown / 2**20:.1f} MB"
    assert all(np.shares_memory(v.raw if isinstance(v, interop.Tensor) else v, big) for v in views)
