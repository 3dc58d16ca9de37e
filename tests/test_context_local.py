"""Settings and modes are per context: per thread and per asyncio task.

``interop.config``/``interop.transfer_guard`` settings, the mode stack and the
``Disable*`` guards live in ``contextvars``.  Checked here by what interop
*does* (a lazy read computes or raises, a device mix moves or raises, a mode
sees a call or not), not only by what the settings say:

- a block in one thread or task never changes another's; blocks exiting in
  any order leave nothing behind; a plain call sets the current context; new
  threads start from the process defaults (``interop.config.set_default``),
  tasks from a copy of their creator's context;
- one mode (or config) object entered by 8 threads, or by 8 tasks, at once:
  each sees its own calls, each exit removes its own entry, the gate is clean
  afterwards; a task's inherited mode fires whatever other threads do;
- a thread without a mode keeps the fast path while another thread has one.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import importlib
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import interop
from interop.core import torch_function as tf
from interop.overrides import (
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    TorchFunctionMode,
    _get_current_function_mode,
    _get_current_function_mode_stack,
)
from tests.conftest import to_numpy

THREADS = TASKS = 8
DEFAULTS = {"dask_compute": "allow", "implicit_transfer": False, "transfer_guard": "allow"}
OTHER = {"dask_compute": "raise", "implicit_transfer": True, "transfer_guard": "disallow"}
config_module = importlib.import_module("interop.config")  # (interop.config is the class)
THREADS_INHERIT_CONTEXT = bool(getattr(sys.flags, "thread_inherit_context", 0))  # 3.14 option
WHO: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="main")


# ------------------------------------------------------------------ probes
def observed(option: str) -> Any:
    """What interop does now about ``option``, found by doing it (the setting is not read)."""
    if option == "dask_compute":
        lazy = interop.tensor(np.arange(4.0), backend="dask", chunks=2)
        try:
            assert float(lazy.sum()) == 6.0
            return "allow"
        except interop.DaskComputeError:
            return "raise"
    pytest.importorskip("array_api_strict")
    a = interop.tensor(np.ones(3), backend="strict", device="strict:1")
    b = interop.tensor(np.ones(3), backend="strict", device="strict:2")
    if option == "implicit_transfer":
        try:
            a + b
            return True
        except interop.DeviceMismatchError:
            return False
    with interop.config(implicit_transfer=True):
        try:
            np.testing.assert_array_equal(np.asarray((a + b).cpu().raw), [2.0, 2.0, 2.0])
            return "allow"
        except interop.DeviceMismatchError:
            return "disallow"


def state(option: str) -> tuple[Any, Any]:
    """(the setting read, the behaviour observed): the two always agree."""
    return interop.config.get(option), observed(option)


def in_thread(fn: Callable[[], Any]) -> Any:
    out: list = []
    th = threading.Thread(target=lambda: out.append(fn()))
    th.start()
    th.join(30)
    assert out, "the thread failed"
    return out[0]


def in_fresh_context(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run ``fn`` in a copy of this context, so its plain calls stay there."""
    return contextvars.copy_context().run(fn, *args, **kwargs)


class Recording(TorchFunctionMode):
    """Counts the calls it sees by who made them (``WHO``, set by each thread or task)."""

    def __init__(self) -> None:
        self.calls: collections.Counter = collections.Counter()
        self._lock = threading.Lock()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        with self._lock:
            self.calls[WHO.get()] += 1
        return func(*args, **(kwargs or {}))


def clean() -> bool:
    """Nothing active in this context: the gate is down, no mode, no guard, default settings."""
    return (tf.active() is None and _get_current_function_mode() is None
            and all(interop.config.get(k) == v for k, v in DEFAULTS.items()))


# ------------------------------------------------------------------ settings
@pytest.mark.parametrize("option", list(OTHER))
def test_a_block_in_one_thread_never_changes_another(option: str) -> None:
    inside, release, seen = threading.Event(), threading.Event(), {}

    def holder() -> None:
        with interop.config(**{option: OTHER[option]}):
            seen["holder"] = state(option)
            inside.set()
            release.wait(30)
        seen["holder after"] = state(option)

    th = threading.Thread(target=holder)
    th.start()
    assert inside.wait(30)
    try:
        seen["other"] = state(option)  # while the holder's block is open
    finally:
        release.set()
        th.join(30)
    value, default = OTHER[option], DEFAULTS[option]
    assert seen == {"holder": (value, value), "other": (default, default),
                    "holder after": (default, default)}


def test_two_threads_blocks_exiting_out_of_order_leave_nothing_behind() -> None:
    """A enters, B enters, A exits, B exits: process-wide settings ended stuck on 'raise'."""
    steps = [threading.Event() for _ in range(4)]
    seen: dict[str, list] = {"A": [], "B": []}

    def run(name: str, enter: int, leave: int) -> None:
        steps[enter].wait(30)
        with interop.config(dask_compute="raise"):
            seen[name].append(state("dask_compute"))
            steps[enter + 1].set()
            steps[leave].wait(30)
        seen[name].append(state("dask_compute"))
        if leave + 1 < len(steps):
            steps[leave + 1].set()

    threads = [threading.Thread(target=run, args=("A", 0, 2)),
               threading.Thread(target=run, args=("B", 1, 3))]
    for th in threads:
        th.start()
    steps[0].set()
    for th in threads:
        th.join(30)
    assert seen == {n: [("raise", "raise"), ("allow", "allow")] for n in "AB"}
    assert clean()


@given(st.lists(st.sampled_from(["allow", "warn", "raise"]), min_size=1, max_size=6),
       st.data())
def test_blocks_exiting_in_any_order_leave_nothing_behind(values: list[str], data: Any) -> None:
    """One context, blocks left in any order (ExitStacks, generators): the value is always
    the innermost open block's, and the default once all are closed."""
    order = data.draw(st.permutations(range(len(values))))

    def body() -> list[tuple[str, str]]:
        blocks, open_ = [], []
        out = []
        for i, v in enumerate(values):
            blocks.append(interop.config(dask_compute=v).__enter__())
            open_.append(i)
            out.append((interop.config.get("dask_compute"), v))
        for i in order:
            blocks[i].__exit__(None, None, None)
            open_.remove(i)
            out.append((interop.config.get("dask_compute"),
                        values[open_[-1]] if open_ else "allow"))
        return out
    for got, want in in_fresh_context(body):
        assert got == want


def test_a_plain_call_sets_this_context_tasks_inherit_new_threads_start_from_defaults() -> None:
    def body() -> dict:
        interop.config(dask_compute="raise")

        async def in_task() -> tuple:
            return state("dask_compute"), await asyncio.to_thread(state, "dask_compute")
        task, to_thread = asyncio.run(in_task())
        return {"here": state("dask_compute"), "task": task, "to_thread": to_thread,
                "new thread": in_thread(lambda: state("dask_compute"))}
    new_thread = ("raise",) * 2 if THREADS_INHERIT_CONTEXT else ("allow",) * 2
    assert in_fresh_context(body) == {"here": ("raise", "raise"), "task": ("raise", "raise"),
                                      "to_thread": ("raise", "raise"), "new thread": new_thread}
    assert clean()  # the plain call stayed in its context


def test_a_plain_call_inside_a_block_ends_with_the_block_that_set_it() -> None:
    def body() -> list:
        interop.config(dask_compute="warn")
        with interop.config(dask_compute="raise"):
            interop.config(dask_compute="allow", implicit_transfer=True)  # the block's own
            inside = interop.config.get("dask_compute")
        return [inside, interop.config.get("dask_compute"), interop.config.get("implicit_transfer")]
    # dask_compute back to what it was before the block; implicit_transfer (which the block did
    # not set) stays for the context, as a contextvar reset by the block's token would
    assert in_fresh_context(body) == ["allow", "warn", True]


def test_repeated_plain_calls_do_not_pile_up() -> None:
    def body() -> int:
        for i in range(1000):
            interop.config(dask_compute=("allow", "raise")[i % 2])
        return len(config_module._stacks.get()["dask_compute"])
    assert in_fresh_context(body) == 2  # the context's own value, and the last call's (folded
    # into it by the next call, unless a `with` enters it first)


def test_set_default_is_read_where_no_setting_of_its_own() -> None:
    try:
        interop.config.set_default(dask_compute="raise", transfer_guard="disallow")
        assert state("dask_compute") == ("raise", "raise")  # this context sets nothing itself
        assert in_thread(lambda: (state("dask_compute"), state("transfer_guard"))) == \
            (("raise", "raise"), ("disallow", "disallow"))
        with interop.config(dask_compute="allow"):
            assert state("dask_compute") == ("allow", "allow")
        assert in_thread(lambda: in_fresh_context(
            lambda: (interop.config(dask_compute="warn"), interop.config.get("dask_compute"))[1]
        )) == "warn"
        with pytest.raises(ValueError, match="'allow', 'warn', 'raise'"):
            interop.config.set_default(dask_compute="never")
        with pytest.raises(ValueError, match=r"unknown option\(s\) \['bogus'\]"):
            interop.config.set_default(bogus=1, dask_compute="allow")
        assert interop.config.get("dask_compute") == "raise"  # a bad call changes nothing
    finally:
        interop.config.set_default(**DEFAULTS)
    assert clean() and in_thread(clean)


def test_config_tasks_interleaving_each_keep_their_own() -> None:
    async def task(k: int) -> list:
        value = ("allow", "raise")[k % 2]
        seen = []
        with interop.config(dask_compute=value):
            for _ in range(5):
                await asyncio.sleep(0)
                seen.append(state("dask_compute") == (value, value))
        await asyncio.sleep(0)
        seen.append(state("dask_compute") == ("allow", "allow"))
        return seen

    async def main() -> list:
        return await asyncio.gather(*(task(k) for k in range(TASKS)))
    assert all(all(seen) for seen in asyncio.run(main()))
    assert clean()


@pytest.mark.parametrize("where", ["threads", "tasks"])
def test_one_config_object_entered_by_many_at_once(where: str) -> None:
    shared = in_fresh_context(interop.config, dask_compute="raise")  # (a plain call: elsewhere)

    def inside_and_after(enter: Callable, after: Callable) -> tuple:
        with shared:
            enter()
            inside = state("dask_compute")
        after()
        return inside, state("dask_compute")

    if where == "threads":
        barrier = threading.Barrier(THREADS)
        with_all = [None] * THREADS

        def worker(k: int) -> None:
            with_all[k] = inside_and_after(barrier.wait, barrier.wait)
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(THREADS)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(30)
        results = with_all
    else:
        async def task(k: int) -> tuple:
            with shared:
                for _ in range(k + 1):  # exits in order of k, entries all at once
                    await asyncio.sleep(0)
                inside = state("dask_compute")
            await asyncio.sleep(0)
            return inside, state("dask_compute")

        async def main() -> list:
            return await asyncio.gather(*(task(k) for k in range(TASKS)))
        results = asyncio.run(main())
    assert results == [(("raise", "raise"), ("allow", "allow"))] * THREADS
    assert clean()


def test_exit_where_never_entered_raises_and_changes_nothing() -> None:
    def body() -> list:
        block = interop.config(dask_compute="raise").__enter__()
        errors = [in_thread(lambda: _raises(lambda: block.__exit__(None, None, None)))]
        errors.append(interop.config.get("dask_compute"))  # still on here
        block.__exit__(None, None, None)
        errors.append(_raises(lambda: block.__exit__(None, None, None)))  # twice
        errors.append(interop.config.get("dask_compute"))
        return errors
    thread_error, still, twice, after = in_fresh_context(body)
    assert "exited in a thread or task where this block was not entered" in thread_error
    assert still == "raise" and after == "allow" and "not entered" in twice


def _raises(fn: Callable[[], Any]) -> str:
    with pytest.raises(RuntimeError) as info:
        fn()
    return str(info.value)


@pytest.mark.parametrize("bad, match", [
    ({"bogus": 1}, r"unknown option\(s\) \['bogus'\]"),
    ({"dask_compute": None}, "dask_compute=None is not one of 'allow', 'warn', 'raise'"),
    ({"transfer_guard": "Allow"}, "'allow', 'log', 'disallow'"),
])
def test_bad_settings_raise_and_change_nothing(bad: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        interop.config(**bad)
    with pytest.raises(ValueError, match="unknown option 'bogus'"):
        interop.config.get("bogus")
    assert clean()


# ------------------------------------------------------------------ modes
def test_one_mode_shared_by_8_threads_sees_each_threads_calls() -> None:
    mode, calls_per_thread = Recording(), 50
    barrier = threading.Barrier(THREADS)
    results: list = [None] * THREADS

    def worker(k: int) -> None:
        WHO.set(f"thread {k}")
        t = interop.tensor(np.full(3, float(k)))
        barrier.wait()
        with mode:
            barrier.wait()  # all 8 inside at once
            for _ in range(calls_per_thread):
                t = t + 1.0
            inside = _get_current_function_mode_stack()
        t = interop.add(t, 1.0)  # after its own exit: unseen, whatever the others do
        results[k] = (inside == [mode], to_numpy(t), clean())

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert mode.calls == {f"thread {k}": calls_per_thread for k in range(THREADS)}
    for k, (stack_ok, values, was_clean) in enumerate(results):
        assert stack_ok and was_clean
        np.testing.assert_array_equal(values, np.full(3, k + calls_per_thread + 1.0))
    assert clean()


def test_one_mode_shared_by_8_tasks_exiting_in_any_order() -> None:
    """Each task enters the same mode object; they exit in the reverse order of entering,
    interleaved at awaits (with tokens: 'Token was created in a different Context')."""
    mode, calls_per_task = Recording(), 20

    async def task(k: int) -> tuple:
        WHO.set(f"task {k}")
        t = interop.tensor(np.full(3, float(k)))
        with mode:
            for _ in range(calls_per_task):
                await asyncio.sleep(0)
                assert _get_current_function_mode_stack() == [mode]
                t = t + 1.0
            for _ in range(TASKS - k):
                await asyncio.sleep(0)
        t = t + 1.0
        return to_numpy(t), clean()

    async def main() -> list:
        return await asyncio.gather(*(task(k) for k in range(TASKS)))
    results = asyncio.run(main())
    assert mode.calls == {f"task {k}": calls_per_task for k in range(TASKS)}
    for k, (values, was_clean) in enumerate(results):
        np.testing.assert_array_equal(values, np.full(3, k + calls_per_task + 1.0))
        assert was_clean
    assert clean()


def test_a_tasks_inherited_mode_fires_after_its_creator_left_the_block() -> None:
    """The task runs after its creator's block ended, while another thread enters and leaves
    modes: its own copy of the context still holds the mode (a process-wide count said 0)."""
    mode = Recording()

    async def child(go: asyncio.Event) -> np.ndarray:
        WHO.set("child")
        await go.wait()
        return to_numpy(interop.tensor(np.ones(2)) + 1.0)

    def other_thread() -> None:
        for _ in range(20):
            with Recording(), DisableTorchFunction():
                interop.add(interop.tensor(np.ones(2)), 1.0)

    async def main() -> np.ndarray:
        go = asyncio.Event()
        with mode:
            task = asyncio.create_task(child(go))
        WHO.set("creator")
        interop.tensor(np.ones(2)) + 1.0  # outside its block: unseen
        await asyncio.to_thread(in_thread, other_thread)
        go.set()
        return await task
    np.testing.assert_array_equal(asyncio.run(main()), [2.0, 2.0])
    assert mode.calls == {"child": 1}
    assert clean()


def _called(fn: Callable[[], Any]) -> set[str]:
    """Names of the Python functions ``fn`` ran, from this thread's profiler hook."""
    names: set[str] = set()

    def hook(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            names.add(frame.f_code.co_name)
    sys.setprofile(hook)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return names


CALLS: dict[str, Callable[[interop.Tensor], Any]] = {
    "t + t": lambda t: t + t, "t.sum()": lambda t: t.sum(), "interop.add": lambda t: interop.add(t, t),
    "t[1:3]": lambda t: t[1:3], "t.shape": lambda t: t.shape, "np.add": lambda t: np.add(t, t),
}
SLOW = {"dispatch", "_dispatch_overloaded", "_get_overloaded_args"}


@pytest.mark.parametrize("call", list(CALLS))
def test_a_thread_without_a_mode_keeps_the_fast_path(call: str) -> None:
    t = interop.tensor(np.arange(8.0))
    inside, release = threading.Event(), threading.Event()
    mode = Recording()

    def holder() -> None:
        with mode, DisableTorchFunctionSubclass():
            inside.set()
            release.wait(30)

    th = threading.Thread(target=holder)
    th.start()
    assert inside.wait(30)
    try:
        assert tf.active() is None
        ran_here = _called(lambda: CALLS[call](t))
        with Recording():  # the probe sees the slow path where a mode is active
            ran_with_mode = _called(lambda: CALLS[call](t))
    finally:
        release.set()
        th.join(30)
    assert not ran_here & SLOW, ran_here & SLOW
    assert ran_with_mode & SLOW
    assert mode.calls == {}


def test_a_guard_object_shared_by_threads() -> None:
    guard, barrier = DisableTorchFunction(), threading.Barrier(4)

    class Logged(interop.Tensor):
        calls = 0

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls += 1
            return super().__torch_function__(func, types, args, kwargs)

    def worker() -> tuple:
        t = interop.tensor(np.ones(2)).as_subclass(Logged)
        barrier.wait()
        with guard:
            barrier.wait()
            out = interop.add(t, 1.0)
            barrier.wait()
        return type(out), to_numpy(out), clean()

    results = _run_parallel(worker, 4)
    assert Logged.calls == 0
    for cls, values, was_clean in results:
        assert cls is interop.Tensor and was_clean  # under the guard: no subclass, as torch
        np.testing.assert_array_equal(values, [2.0, 2.0])
    assert clean()


def _run_parallel(fn: Callable[[], Any], n: int) -> list:
    out: list = [None] * n

    def run(k: int) -> None:
        out[k] = fn()
    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    return out


def test_modes_exiting_out_of_order_in_one_context() -> None:
    """Each exit removes its own entry (torch pops the innermost, whichever it is)."""
    first, second = Recording(), Recording()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert _get_current_function_mode_stack() == [second]
    interop.add(interop.tensor(np.ones(2)), 1.0)
    second.__exit__(None, None, None)
    assert (first.calls, second.calls) == ({}, {"main": 1})
    assert clean()


@pytest.mark.parametrize("make", [Recording, DisableTorchFunction, DisableTorchFunctionSubclass])
def test_mode_or_guard_exit_where_not_active_raises_and_changes_nothing(make: type) -> None:
    obj = make()
    obj.__enter__()
    try:
        message = in_thread(lambda: _raises(lambda: obj.__exit__(None, None, None)))
        assert "exited in a thread or task where" in message and make.__name__ in message
        assert tf.active() is not None  # still active here
    finally:
        obj.__exit__(None, None, None)
    assert clean()
    assert make.__name__ in _raises(lambda: obj.__exit__(None, None, None))
