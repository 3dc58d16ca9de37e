"""Training where the data lives: a torch training loop on a lazy backend (Dask, Cubed) whose
graph stays one step long.

On a lazy backend ``optimizer.step()`` builds the new weights as a graph over the old ones, so
without help the weights after step n hold the tasks of every step before.  After each
``optimizer.step()`` (torch's global step post-hook, registered when the face is first made)
the optimizer's state is persisted: its parameters, their gradients, the optimizer's own
tensors (momentum, Adam's moments) and the buffers of the modules ``interop.to_backend``
moved that hold those parameters (BatchNorm's running statistics), all in one
``persist`` call, so the forward and backward they share run once.  The lazy scalars the
loop's thread made since the last step and still holds (a loss kept to read later, a metric)
join that call: read after the step, they are chunks, not a second run of the step's forward
(which a later compute of their graph would be: the scheduler has released its tasks).  Each
array is replaced in place by its persisted self, so every holder (the module, the
optimizer, a ``state_dict``) sees it.  With a ``distributed`` client the persist returns
at once: the cluster computes step n while Python builds step n+1, and before step n+1's
state is persisted the step waits for step n's, so at most one step is in flight (the
client never runs ahead of the cluster, and the scheduler holds two steps' graphs at most).
With Dask's local schedulers the persist computes then.

Why after the step: it is the one moment in a loop where the state is whole (gradients
accumulated, weights updated) and the next step's graph has not started; persisting on a
value read (``loss.item()``) would leave loops that never read unbounded, and every k steps
would make a graph k steps long for nothing (a step depends on the one before, so k steps
run no more in parallel than one).  ``interop.config(persist_state="never")`` keeps the whole
loop one lazy graph.  A persist is a compute: ``interop.config(dask_compute=...)`` governs it.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from ...backends import registry, views
from ...config import check_value_read, setting
from ...core.tensor import Tensor
from . import boxes

_MOVED: weakref.WeakSet = weakref.WeakSet()
"""Modules ``interop.to_backend`` moved onto a lazy backend: their buffers join the state."""
_HOOK: list[Any] = []  # the handle of the registered step post-hook, once
_IN_FLIGHT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""optimizer -> [(backend, the arrays its last step persisted)]: waited for by its next step."""


def install(torch: Any) -> None:
    """Register the step post-hook with torch, once (torch's public hook for all optimizers;
    on an optimizer over torch's own tensors it returns after a type check per parameter)."""
    if not _HOOK:
        from torch.optim.optimizer import register_optimizer_step_post_hook
        _HOOK.append(register_optimizer_step_post_hook(_after_step))


def track(module: Any) -> None:
    """``module`` was moved onto a lazy backend: its buffers are state its optimizer's step
    persists (BatchNorm's running mean and variance are written by the forward, not by the
    optimizer)."""
    _MOVED.add(module)


def _after_step(optimizer: Any, args: Any, kwargs: Any) -> None:
    if setting("persist_state") == "never":
        return
    state = state_of(optimizer)
    if state:
        for be, held in _IN_FLIGHT.pop(optimizer, ()):
            be.settle(held)  # one step in flight: the one just built waits for the last
        scalars = _scalars_made()
        _IN_FLIGHT[optimizer] = persist_in_place(
            state, f"{type(optimizer).__name__}.step()", scalars)


def _scalars_made() -> list[Tensor]:
    """The lazy 0-d tensors made since the last step and still held (its losses, metrics):
    persisted with the state, from the same graph, they are read later without computing
    their step's forward again, and hold its chunks, not its graph and the weights before."""
    made = boxes.lazy_scalars()
    faces = list(made)
    made.clear()
    return [face._t for face in faces]


def _lazy(face: Any) -> bool:
    return type(face) is boxes.TorchTensor and registry.owner(face._t._raw).lazy


def state_of(optimizer: Any) -> list[Tensor]:
    """The lazy tensors a step of ``optimizer`` leaves as state (none if its parameters are
    not lazy TorchTensors): parameters, gradients, the optimizer's tensors, and the buffers of
    the moved modules that hold its parameters; each array once."""
    params = [p for group in optimizer.param_groups for p in group["params"]]
    if not any(_lazy(p) for p in params):
        return []
    faces = [*params, *(p.grad for p in params if p.grad is not None)]
    for per_param in optimizer.state.values():
        faces += [v for v in per_param.values() if isinstance(v, boxes.TORCH.Tensor)]
    ids = {id(p) for p in params}
    for module in list(_MOVED):
        if any(id(p) in ids for p in module.parameters()):
            faces += list(module.buffers())
    seen: set[int] = set()
    state = []
    for face in faces:
        if _lazy(face) and id(face._t._raw) not in seen:
            seen.add(id(face._t._raw))
            state.append(face._t)
    return state


def persist_in_place(tensors: list[Tensor], why: str,
                     scalars: Sequence[Tensor] = ()) -> list[tuple[Any, tuple]]:
    """``tensors``' arrays (and ``scalars``', the step's losses) persisted together and each
    replaced in place by its persisted self: their graphs become their chunks, held in
    (cluster) memory.  A compute, so ``dask_compute`` decides; under ``"raise"`` the error
    names ``why``.  Returns each backend with the arrays it persisted (``be.settle`` waits
    for them)."""
    raws = [t._raw for t in tensors]
    ids = {id(raw) for raw in raws}
    taken = [s._raw for s in scalars if id(s._raw) not in ids]
    what = (f"{len(raws)} lazy tensors of the training state ({_nbytes(raws)}: weights, "
            "gradients, optimizer state, buffers)"
            + (f" and {len(taken)} lazy scalars made since the last step (losses)"
               if taken else "")
            + ", persisted so that each step's graph stays one step long "
            "(interop.config(persist_state='never') builds one growing graph instead)")
    check_value_read(f"{why} on a lazy backend", what)
    raws += list({id(raw): raw for raw in taken}.values())
    by_backend: dict[Any, list[Any]] = {}
    for raw in raws:
        by_backend.setdefault(registry.owner(raw), []).append(raw)
    persisted = []
    for be, group in by_backend.items():
        held = be.persist(*group)
        for raw, new in zip(group, held):
            views.WITHOUT_VIEWS[type(raw)](raw, new)
        persisted.append((be, held))
    return persisted


def _nbytes(raws: list[Any]) -> str:
    total = sum(int(r.size) * r.dtype.itemsize for r in raws if r.size == r.size)
    return f"{total / 2 ** 20:.1f} MiB" if total >= 2 ** 20 else f"{total / 2 ** 10:.1f} KiB"
