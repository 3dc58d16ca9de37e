"""Threads and asyncio tasks: correct results, no mode or guard leaking between them.

8 threads run a mix of operations (functions, methods, operators, indexing,
in-place writes, NumPy ufuncs and functions, a Dask operation now and then)
on a tensor they share and on tensors of their own; each checks every result
against NumPy.  Two threads run inside a counting ``TorchFunctionMode``, two
inside ``DisableTorchFunction`` with logging subclasses, two with logging
subclasses and no guard, two plain.  Each mode and handler must see exactly
its own thread's calls; the plain threads must see no mode at all.

Operations per thread: ``INTEROP_THREAD_OPS`` (default 10,000, which runs in
well under 20 s here; a long run: ``INTEROP_THREAD_OPS=200000``).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import pytest

import interop
from interop.core import torch_function as tf
from interop.overrides import (
    DisableTorchFunction,
    TorchFunctionMode,
    _get_current_function_mode,
    _is_torch_function_all_disabled,
)
from tests.conftest import to_numpy

OPS_PER_THREAD = int(os.environ.get("INTEROP_THREAD_OPS", "10000"))
THREADS = 8
DASK_EVERY = 500  # one Dask operation in this many (each builds and computes a small graph)


class Counting(TorchFunctionMode):
    """Counts the calls it sees and the threads they come from."""

    def __init__(self) -> None:
        self.calls = 0
        self.threads: set[int] = set()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls += 1
        self.threads.add(threading.get_ident())
        return func(*args, **(kwargs or {}))


def logged_class() -> type:
    """A fresh subclass whose handler counts calls and their threads."""
    class Logged(interop.Tensor):
        calls = 0
        threads: ClassVar[set[int]] = set()

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls += 1
            cls.threads.add(threading.get_ident())
            return super().__torch_function__(func, types, args, kwargs)
    return Logged


def _setitem(t: Any, value: float) -> Any:
    t[0] = value
    return t


def _iadd(t: Any) -> Any:
    t += 1.0
    return t


# name -> (interop op on (shared, private), NumPy op on their values); private ops write in place
OPS: list[tuple[str, Callable, Callable]] = [
    ("add", lambda s, p: interop.add(s, p), lambda s, p: s + p),
    ("operator", lambda s, p: s * 2.0 - p, lambda s, p: s * 2.0 - p),
    ("method-sum", lambda s, p: s.sum(dim=0), lambda s, p: s.sum(axis=0)),
    ("matmul", lambda s, p: s @ p.T, lambda s, p: s @ p.T),
    ("getitem", lambda s, p: s[1, 1:], lambda s, p: s[1, 1:]),
    ("where", lambda s, p: interop.where(s > 2.0, s, p), lambda s, p: np.where(s > 2.0, s, p)),
    ("np-ufunc", lambda s, p: np.multiply(s, p), lambda s, p: s * p),
    ("np-function", lambda s, p: np.mean(s, axis=1), lambda s, p: s.mean(axis=1)),
    ("add_", lambda s, p: p.add_(s), lambda s, p: p + s),
    ("iadd", lambda s, p: _iadd(p), lambda s, p: p + 1.0),
    ("setitem", lambda s, p: _setitem(p, 3.0), lambda s, p: np.concatenate([np.full((1, 3), 3.0), p[1:]])),
    ("mul_", lambda s, p: p.mul_(0.5), lambda s, p: p * 0.5),
]
INPLACE = {"add_", "iadd", "setitem", "mul_"}


def worker(kind: str, shared: interop.Tensor, n: int, report: dict, start: threading.Barrier) -> None:
    try:
        run_mix(kind, shared, n, report, start)
    except Exception as exc:  # noqa: BLE001 - reported to the main thread, which fails the test
        report["errors"].append(f"{kind}: {exc!r}")


def run_mix(kind: str, shared: interop.Tensor, n: int, report: dict, start: threading.Barrier) -> None:
    cls = logged_class() if kind in ("logged", "disabled") else interop.Tensor
    private = interop.tensor(np.full((2, 3), float(threading.get_ident() % 7))).as_subclass(cls)
    mine = shared.as_subclass(cls)
    dask_t = interop.tensor(np.arange(6.0).reshape(2, 3), backend="dask", chunks=(1, 3))
    mode = Counting()
    shared_values = to_numpy(shared).copy()  # shared is never written: checked at the end
    start.wait()
    expected_calls = 0
    contexts = {"mode": mode, "disabled": DisableTorchFunction()}
    with contexts.get(kind, _Nothing()):
        for i in range(n):
            name, op, ref = OPS[i % len(OPS)]
            before = to_numpy(private)
            if name in INPLACE:
                before = before.copy()
            result = op(mine, private)
            want = ref(shared_values, before)
            got = to_numpy(private if name in INPLACE else result)
            if not np.allclose(got, want):
                report["errors"].append(f"{kind} op {i} {name}: {got} != {want}")
                return
            if name in INPLACE and np.abs(got).max() > 1e6:
                private.zero_()
            if i % DASK_EVERY == 0:
                got = to_numpy(interop.sum(dask_t + private, dim=1))
                if not np.allclose(got, (np.arange(6.0).reshape(2, 3) + to_numpy(private)).sum(1)):
                    report["errors"].append(f"{kind} dask op {i}")
            if kind == "plain" and _get_current_function_mode() is not None:
                report["errors"].append(f"plain thread sees mode {_get_current_function_mode()}")
            if kind != "disabled" and _is_torch_function_all_disabled():
                report["errors"].append(f"{kind} thread sees DisableTorchFunction")
            expected_calls += 1
    report[kind].append((mode, cls, expected_calls))


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def test_threads_mixed_operations_no_leaks() -> None:
    shared = interop.tensor(np.arange(6.0).reshape(2, 3))
    kinds = ["plain", "plain", "mode", "mode", "disabled", "disabled", "logged", "logged"]
    assert len(kinds) == THREADS
    report: dict = {"errors": [], **{k: [] for k in kinds}}
    start = threading.Barrier(THREADS)
    threads = [threading.Thread(target=worker, args=(k, shared, OPS_PER_THREAD, report, start))
               for k in kinds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not report["errors"], report["errors"][:5]
    for kind in set(kinds):
        assert len(report[kind]) == 2, f"a {kind} thread did not finish"
        for mode, cls, ops in report[kind]:
            assert ops == OPS_PER_THREAD
            if kind == "mode":  # every call of its own thread, and of no other
                assert mode.calls >= ops and len(mode.threads) == 1, (mode.calls, mode.threads)
            else:
                assert mode.calls == 0
            if kind == "logged":
                assert cls.calls >= ops and len(cls.threads) == 1
            if kind == "disabled":
                assert cls.calls == 0, "a handler ran under DisableTorchFunction"
    np.testing.assert_array_equal(to_numpy(shared), np.arange(6.0).reshape(2, 3))
    assert tf.active() is None and _get_current_function_mode() is None


def test_asyncio_tasks_keep_their_own_modes() -> None:
    """Tasks interleave at every await; each sees only the mode it entered."""
    async def task(k: int, seen: dict) -> None:
        mode = Counting()
        t = interop.tensor(np.full(3, float(k)))
        if k % 2:
            with mode:
                for _ in range(50):
                    await asyncio.sleep(0)
                    assert _get_current_function_mode() is mode
                    t = t + 1.0
        else:
            for _ in range(50):
                await asyncio.sleep(0)
                assert _get_current_function_mode() is None
                t = t + 1.0
        seen[k] = (mode.calls, to_numpy(t))

    async def main() -> dict:
        seen: dict = {}
        await asyncio.gather(*(task(k, seen) for k in range(8)))
        return seen

    seen = asyncio.run(main())
    for k, (calls, values) in seen.items():
        np.testing.assert_array_equal(values, np.full(3, k + 50.0))
        assert calls == (50 if k % 2 else 0), (k, calls)
    assert tf.active() is None


@pytest.mark.parametrize("guard", [DisableTorchFunction, Counting])
def test_guard_in_one_thread_is_invisible_in_another(guard: type) -> None:
    entered, release, seen = threading.Event(), threading.Event(), {}

    def holder() -> None:
        with guard():
            entered.set()
            release.wait(10)

    th = threading.Thread(target=holder)
    th.start()
    entered.wait(10)
    try:
        Logged = logged_class()
        out = interop.add(interop.tensor(np.ones(2)).as_subclass(Logged), 1)
        seen["mode"], seen["calls"] = _get_current_function_mode(), Logged.calls
        seen["value"] = to_numpy(out)
    finally:
        release.set()
        th.join()
    assert seen["mode"] is None and seen["calls"] == 1
    np.testing.assert_array_equal(seen["value"], [2.0, 2.0])
