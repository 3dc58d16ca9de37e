"""One ``torch.save``, one read of values: the host tensors a checkpoint stores, per save.

Pickle asks each TorchTensor for its reduction alone, so without help a state dict of Dask
tensors computed once per tensor (their shared graph as often), and a weight tied under two
names (``decoder.weight = encoder.weight``: ``state_dict()`` detaches each name into its own
face over the same array) was read and stored twice, loading untied.  Here the first lazy
tensor a save meets computes every lazy tensor of the object being saved, together (one
``compute`` per backend, under ``dask_compute``), and each array's host tensor is made once
per save and handed to every face over it: torch's pickler stores one storage for it, and
``torch.load`` gives the names one tensor again, as torch's own checkpoints do.

The object being saved and the save's pickler are ``torch.serialization._save``'s locals
``obj`` and ``pickler``: where a torch names them otherwise, each tensor is read alone, as
before (the values are right, the two economies are lost; a test pins the names).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

import numpy as np

from ...backends import registry
from ...config import check_value_read
from . import boxes

_SAVED_OBJECT, _PICKLER = "obj", "pickler"  # the locals of torch.serialization._save read here
_PER_SAVE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""torch.save's pickler -> {id(array): (array, host values or None, its torch tensor)}: one
save's tensors (the arrays are held, so no id is reused while the save runs)."""


def host_tensor(raw: Any, frame: FrameType | None, make: Callable[[np.ndarray], Any]) -> Any:
    """The torch tensor a checkpoint stores for array ``raw`` (``make`` builds it from host
    values), made once per save (``frame``: torch.save's, where found)."""
    table = _table(frame)
    if table is None:
        return make(_host(raw))
    entry = table.get(id(raw))
    if entry is None:
        if registry.owner(raw).lazy:
            _read_lazy_arrays(frame, table)
            entry = table.get(id(raw))
        if entry is None:
            entry = table[id(raw)] = (raw, _host(raw), None)
    array, host, made = entry
    if made is None:
        made = make(host)
        table[id(raw)] = (array, None, made)
    return made


def _host(raw: Any) -> np.ndarray:
    return registry.owner(raw).to_host(raw, "torch.save of a TorchTensor")


def _table(frame: FrameType | None) -> dict | None:
    pickler = frame.f_locals.get(_PICKLER) if frame is not None else None
    if pickler is None:
        return None
    try:
        return _PER_SAVE.setdefault(pickler, {})
    except TypeError:  # (a pickler that takes no weak reference: each tensor alone)
        return None


def _read_lazy_arrays(frame: FrameType | None, table: dict) -> None:
    """Every lazy array of the object being saved, computed together per backend."""
    saved = frame.f_locals.get(_SAVED_OBJECT) if frame is not None else None
    by_backend: dict[Any, dict[int, Any]] = {}
    for raw in _arrays_in(saved):
        be = registry.owner(raw)
        if be.lazy and id(raw) not in table:
            by_backend.setdefault(be, {})[id(raw)] = raw
    for be, raws in by_backend.items():
        check_value_read("torch.save of TorchTensors", f"{len(raws)} lazy {be.name} tensors "
                         "of the object saved, computed together")
        for (key, raw), host in zip(raws.items(), be.compute(*raws.values())):
            table[key] = (raw, np.asarray(host), None)


def _arrays_in(obj: Any, depth: int = 0) -> Iterator[Any]:
    """The backend arrays of the TorchTensors in ``obj`` (dicts, lists, tuples: a state dict,
    a checkpoint dict of state dicts)."""
    if depth > 8:
        return
    if isinstance(obj, boxes.TorchTensor):
        yield obj._t._raw
    elif isinstance(obj, dict):
        for value in obj.values():
            yield from _arrays_in(value, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            yield from _arrays_in(value, depth + 1)
