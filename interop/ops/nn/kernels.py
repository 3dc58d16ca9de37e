"""Kernel providers: which implementation computes a heavy kernel on one block.

A record says what an operation means; the heavy kernels it reaches (convolutions and their
gradients, pools, normalisations, softmax, losses, attention) are functions ``f(be, x, ...)``
on raw arrays, written on the backend's primitives (interop's own forms).  Decorated with
``@provided(torch_form)``, such a function runs ``torch_form(torch, x, ...)`` instead where
torch's CPU kernel can compute the block: ``x`` an exact NumPy array of a dtype torch's
kernels have (float32, float64), torch importable, and ``interop.config(kernels=...)`` not
'interop' (under 'auto', a Dask worker without room for torch below its pause threshold
keeps interop's forms: ``TORCH_IMPORT_ROOM``).  The form takes the arrays in with
``torch.from_numpy`` (no copy) and gives NumPy arrays back (``.numpy()``, no copy), so eager
NumPy tensors, the torch face over them, and Dask's and Cubed's chunk tasks (which call the
same functions on NumPy blocks) all run torch's kernels.  Everywhere else (CuPy, Dask
graphs, JAX, integer convolutions, a worker without torch) interop's own form runs, and a
call torch refuses (its argument checks) runs interop's form too, which raises interop's own
error or computes.

The choice is this module's ``provided`` wrapper, one place, per call: a type test, a dtype
test, a context-variable read.  Importing interop does not import torch: the first call that
could use it does, once.
"""

from __future__ import annotations

import functools
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ...backends.dask.workers import memory_room
from ...config import setting
from ...errors import InteropWarning

_DTYPES = frozenset({np.dtype(np.float32), np.dtype(np.float64)})
"""The dtypes whose blocks torch's kernels take (its integer convolutions do not exist)."""

_torch: Any = None
"""torch, once imported; False where it cannot be (a Dask worker without it)."""

WORKER_THREADS: int | None = 1
"""torch's intra-op threads in a kernel called outside the main thread (None: torch's
default, a thread per core): Dask's and Cubed's worker threads already keep every core busy,
one block each, and torch's OpenMP team in each of them would oversubscribe the cores
(docs/architecture.md, "Kernels": measured)."""

_threads_set = threading.local()


TORCH_IMPORT_ROOM = 640 * 2**20
"""What 'auto' needs free below a Dask worker's pause threshold to import torch there:
``import torch`` holds 184 MiB (torch's CPU build) to 513 MiB (its CUDA build, pip's default
on Linux) for good (docs/benchmarks.md), plus its first buffers.  A worker pushed past the
threshold by it stops running tasks for good, and the compute waiting on it never ends
(measured: 1 GiB workers, whose threshold is 819 MiB, held 879 MiB each with the CUDA
build).  'torch' imports it anyway."""

_no_room = False
"""True once 'auto' left torch unimported in this worker for want of memory."""
_room_lock = threading.Lock()


def torch_module(kernels: str = "torch") -> Any:
    """torch, or None where it is not importable (imported on the first call only), or where
    ``kernels`` is 'auto' and this process is a Dask worker without ``TORCH_IMPORT_ROOM``."""
    global _torch
    if _torch is None:
        if kernels == "auto" and "torch" not in sys.modules and not room_for_torch():
            return None
        try:
            import torch
        except ImportError:
            _torch = False
        else:
            if threading.current_thread() is threading.main_thread():
                torch.get_num_threads()  # fixes this thread's count before a worker sets its own
            _torch = torch
    return _torch or None


def room_for_torch() -> bool:
    """Whether this process may import torch under 'auto': anywhere but a Dask worker whose
    memory below its pause threshold is short of ``TORCH_IMPORT_ROOM`` (decided once, under a
    lock: a worker's threads ask together; the refusal warns once, in the worker's log)."""
    global _no_room
    with _room_lock:
        if _no_room:
            return False
        room = memory_room()
        if room is None or room >= TORCH_IMPORT_ROOM:
            return True
        _no_room = True
    warnings.warn(
        f"interop.config(kernels='auto') keeps interop's own kernels on this Dask worker: "
        f"{max(room, 0) >> 20} MiB are left below its pause threshold, and importing torch "
        f"for its kernels holds up to {TORCH_IMPORT_ROOM >> 20} MiB for good, which would pause "
        "the worker. Give the workers more memory (or install torch's CPU build) and set "
        "client.run(interop.config.set_default, kernels='torch') to use torch's kernels, or "
        "kernels='interop' to keep interop's without this warning.", InteropWarning,
        stacklevel=2)
    return False


def torch_for(x: Any) -> Any:
    """torch, where its CPU kernel computes a block whose first operand is ``x``; else None."""
    if type(x) is not np.ndarray or x.dtype not in _DTYPES:
        return None
    kernels = setting("kernels")
    if kernels == "interop":
        return None
    torch = _torch if _torch is not None else torch_module(kernels)
    if not torch:
        return None
    if WORKER_THREADS and not getattr(_threads_set, "done", False) \
            and threading.current_thread() is not threading.main_thread():
        torch.set_num_threads(WORKER_THREADS)  # this thread's OpenMP team (per thread)
        _threads_set.done = True
    return torch


def provided(torch_form: Callable[..., Any]) -> Callable[[Callable], Callable]:
    """Decorate interop's form ``f(be, x, ...)`` of a kernel: ``torch_form(torch, x, ...)``
    computes the call instead where ``torch_for(x)`` says so, unless it returns
    ``NotImplemented`` (a case it does not cover) or torch refuses the arguments."""
    def decorate(impl: Callable) -> Callable:
        @functools.wraps(impl)
        def chosen(be: Any, *args: Any, **kwargs: Any) -> Any:
            torch = torch_for(args[0] if args else next(iter(kwargs.values()), None))
            if torch is not None:
                try:
                    out = torch_form(torch, *args, **kwargs)
                except (RuntimeError, ValueError, TypeError, IndexError, NotImplementedError):
                    out = NotImplemented  # torch's checks: interop's form gives its own error
                if out is not NotImplemented:
                    return out
            return impl(be, *args, **kwargs)
        chosen.interop_form = impl  # type: ignore[attr-defined]  # (tests call each form)
        chosen.torch_form = torch_form  # type: ignore[attr-defined]
        return chosen
    return decorate


def tensor(torch: Any, a: Any) -> Any:
    """A NumPy array as a torch tensor sharing its memory (None stays None); a read-only or
    negatively strided array (a broadcast, a flip), which torch cannot share, is copied."""
    if a is None:
        return None
    if not a.flags.writeable or any(s < 0 for s in a.strides):
        a = np.array(a)
    return torch.from_numpy(a)


def array(t: Any) -> Any:
    """A torch result as a NumPy array sharing its memory (None stays None; tuples of them)."""
    if t is None:
        return None
    if isinstance(t, (tuple, list)):
        return tuple(array(x) for x in t)
    return t.numpy()
