"""What the lazy, chunked libraries (Dask, Cubed) share below the contract.

Their arrays are graphs over chunks: nothing is read while operations build, a value
read computes (``to_host``, under ``dask_compute``), functions that need an axis or a
matrix whole get it by rechunking, indices are checked when the graph runs, and there are
no views (a slice remembers its base, for the write replay of ``views``).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from ..errors import BackendLacksError, shown_shape
from . import views
from .bounds import dims_indexed, in_bounds
from .contract import Backend


class ChunkedBackend(Backend):
    """A lazy library of chunked arrays with ``rechunk``, ``map_blocks`` and ``.chunks``."""

    lazy: ClassVar[bool] = True
    container: ClassVar[bool] = True

    def peek(self, raw: Any) -> Any:
        """Nothing is known without computing: the checks are left to the graph."""
        if isinstance(raw, (bool, int, float, complex, np.generic)):
            return super().peek(raw)
        return None

    def shape_of(self, raw: Any) -> tuple:
        return shown_shape(raw.shape)

    def chunking(self, raw: Any) -> Any:
        return raw.chunks

    def chunk_options(self, chunks: Any) -> dict[str, Any]:
        return {"chunks": "auto" if chunks is None else chunks}

    def shares_memory(self, a: Any, b: Any) -> bool | None:
        return None  # graphs, not memory

    def whole_along(self, raw: Any, *axes: int) -> Any:
        return raw.rechunk({axis % raw.ndim: -1 for axis in axes})

    def on_matrices(self, fn: Callable, raw: Any, matrix_shape: tuple | None = None) -> Any:
        whole = self.whole_along(raw, -2, -1)
        block_np = self.chunk_backend(raw).np
        chunks = None if matrix_shape is None else \
            (*whole.chunks[:-2], *((n,) for n in matrix_shape))
        return self.np.map_blocks(lambda block: fn(block, block_np), whole, dtype=raw.dtype,
                                  **({} if chunks is None else {"chunks": chunks}))

    def along_axis(self, fn: Callable, raw: Any, axis: int, size: int) -> Any:
        whole = self.whole_along(raw, axis)
        block_np = self.chunk_backend(raw).np
        chunks = (*whole.chunks[:axis], (size,), *whole.chunks[axis + 1:])
        return self.np.map_blocks(lambda block: fn(block, block_np), whole, chunks=chunks,
                                  dtype=raw.dtype)

    def select(self, raw: Any, index: Any, name: str) -> Any:
        if getattr(index, "dtype", None) == np.bool_:  # a 0-d mask (arrays take the advanced path):
            return raw[None][index[None]]          # Dask refuses it as it is
        out = self.getitem(raw, self.checked_index(index, raw.shape, name))
        return views.remember(out, raw, index)  # no views: writes into out must reach raw

    def write_at(self, raw: Any, index: Any, value: Any, name: str = "t[index] = value") -> None:
        views.put(raw, self.checked_index(index, raw.shape, name), value)

    def checked_index(self, index: Any, shape: tuple, name: str) -> Any:
        """The library does not check the values of a lazy integer index (Dask: an assignment
        drops the entries out of range, a read wraps them): they are bound-checked in the
        graph, so that computing raises instead of returning wrong numbers.  Host index
        arrays are checked now (they may be raveled into offsets, where Dask could not tell)."""
        items = index if isinstance(index, tuple) else (index,)
        if not any(getattr(i, "dtype", None) is not None and i.dtype.kind in "iu" for i in items):
            return index
        checked = []
        for item, d in zip(items, dims_indexed(items, len(shape))):
            if d is not None and getattr(item, "dtype", None) is not None \
                    and item.dtype.kind in "iu" and d < len(shape):
                if isinstance(item, self.array_type):
                    item = self.np.map_blocks(functools.partial(in_bounds, size=shape[d],
                                                                name=name), item, dtype=item.dtype)
                elif type(item) is np.ndarray:
                    in_bounds(item, shape[d], name)
            checked.append(item)
        return tuple(checked) if isinstance(index, tuple) else checked[0]

    def index_array(self, items: list) -> Any:
        return np.asarray(items)  # a host array: Dask indexes with it where sizes are unknown

    def reshape(self, raw: Any, shape: tuple) -> Any:
        if raw.size == 0:  # Dask fails on empty arrays; with no data there is nothing to move
            return self.np.empty_like(raw, shape=np.empty(raw.shape, bool).reshape(shape).shape)
        try:
            return self.np.reshape(raw, shape)
        except NotImplementedError:  # Dask cannot split chunks unevenly: one chunk, then reshape
            return self.np.reshape(raw.rechunk(-1), shape)

    def blockwise(self, impl: Callable, spec: Any, args: tuple, kwargs: dict) -> Any:
        x = args[0] if args else None
        axes = spec.axes_of(args, kwargs) if isinstance(x, self.array_type) else None
        if axes is None:
            return NotImplemented
        x = self._whole_except(x, axes)
        places = spec.aligned_places(args, kwargs)
        aligned = [(k, self._aligned_to(x, _at(args, kwargs, k), axes)) for k in places]
        wholes = [(k, a) for k, a in (*enumerate(args[1:], 1), *kwargs.items())
                  if isinstance(a, self.array_type) and k not in places]
        if x is None or any(a is None for _, a in aligned) \
                or any(not _known(a.shape) or a.nbytes > WHOLE_BYTES for _, a in wholes):
            return NotImplemented
        host = self.chunk_backend(x)
        probe = _probe(impl, host, x, axes, args, kwargs, aligned, wholes)
        if probe is None or not spec.summed and (
                probe.ndim <= max(axes) or any(probe.shape[a] != 1 for a in axes)):
            return NotImplemented  # a result whose axes are not the operand's

        # Each task carries its arguments: the graphs' own arrays stay out of them (a Dask
        # array pickles its whole graph, so every task would carry the layers before it)
        keys = [key for key, _ in (*aligned, *wholes)]
        plain_args = [None if isinstance(a, self.array_type) else a for a in args]
        plain_kwargs = {key: None if isinstance(v, self.array_type) else v
                        for key, v in kwargs.items()}

        def run(block: Any, *others: Any) -> Any:
            a, k = _placed(plain_args, plain_kwargs, block, dict(zip(keys, others)))
            out = impl(host, *a, **k)
            return host.np.expand_dims(out, axes) if spec.summed else out
        run.__name__ = impl.__name__
        if spec.summed:  # a partial sum per block, along new axes at ``axes``' places
            shape = np.expand_dims(np.empty(probe.shape, bool), axes).shape
            chunks = tuple((1,) * len(x.chunks[i]) if i in axes else (shape[i],)
                           for i in range(len(shape)))
        else:
            chunks = tuple(x.chunks[i] if i in axes else (probe.shape[i],)
                           for i in range(probe.ndim))
        out = self.per_block_layer(run, x, axes, [a for _, a in wholes], chunks, probe,
                                   [a for _, a in aligned])
        return self.np.sum(out, axis=axes, dtype=probe.dtype) if spec.summed else out

    def per_block_layer(self, fn: Callable, x: Any, axes: tuple[int, ...], wholes: list,
                        chunks: tuple, meta: Any, aligned: Sequence = ()) -> Any:
        """One layer of tasks ``fn(block, *aligned_blocks, *wholes)``, a task per block of
        ``x`` (whose other axes are whole), the ``aligned`` operands' blocks at the same
        place along ``axes`` (chunked as ``x``), the ``wholes`` passed whole to each,
        giving ``chunks``."""
        return NotImplemented

    def _aligned_to(self, x: Any, a: Any, axes: tuple[int, ...]) -> Any:
        """``a`` chunked as ``x`` along ``axes`` and whole along its other axes, or None where
        it is not an array of this library, its sizes there differ, or it does not fit."""
        if x is None or not isinstance(a, self.array_type) or a.ndim <= max(axes):
            return None
        if not _known(tuple(x.shape[i] for i in axes) + tuple(a.shape[i] for i in axes)):
            # unknown sizes (a boolean mask's rows): blocks pair up only as the same count of
            # blocks; the sizes are checked when the graph runs (each task's blocks must agree)
            same_blocks = all(len(a.chunks[i]) == len(x.chunks[i]) for i in axes)
            return self._whole_except(a, axes) if same_blocks else None
        if any(a.shape[i] != x.shape[i] for i in axes):
            return None
        a = self._whole_except(a, axes)
        if a is not None and any(a.chunks[i] != x.chunks[i] for i in axes):
            a = a.rechunk({i: x.chunks[i] for i in axes})
        return a

    def _whole_except(self, x: Any, axes: tuple[int, ...]) -> Any:
        """``x`` with every axis but ``axes`` in one chunk (rechunked where affordable), or
        None where those axes' sizes are unknown or one chunk would be too large."""
        others = [i for i in range(x.ndim) if i not in axes]
        if not _known(tuple(x.shape[i] for i in others)):
            return None
        if all(len(x.chunks[i]) == 1 for i in others):
            return x
        largest = max((max(x.chunks[i]) for i in axes), default=1)
        per_block = largest * np.prod([x.shape[i] for i in others]) * x.dtype.itemsize
        return self.whole_along(x, *others) if per_block <= WHOLE_BYTES else None

    def unique_slices(self, raw: Any, axis: int) -> tuple[Any, Any, Any]:
        raise BackendLacksError(
            f"torch.unique(dim=...) is not implemented by the {self.name} backend (its unique "
            "has no axis, and the count of distinct slices depends on the values); compute "
            "first: t.compute(), or call it without dim")


WHOLE_BYTES = 512 * 2 ** 20
"""The largest block (or whole operand) a blockwise layer makes or passes to each task."""


def _known(shape: tuple) -> bool:
    return all(s == s for s in shape)  # NaN: a size not known yet


def _probe(impl: Callable, host: Backend, x: Any, axes: tuple, args: tuple, kwargs: dict,
           aligned: list, wholes: list) -> Any:
    """``impl``'s result on small stand-ins (one element along ``axes`` of the first and the
    aligned operands, the whole operands zeros of their shape): its dtype and the sizes of
    its other axes, and its checks of the arguments, made without computing anything of the
    graph; None where it raises (the general path then says why, in its own words) or gives
    no single array of ``host``'s."""
    def one(a: Any) -> Any:
        return host.np.zeros(tuple(1 if i in axes else n for i, n in enumerate(a.shape)),
                             dtype=a.dtype)
    stand_ins = {k: one(a) for k, a in aligned}
    stand_ins.update({k: host.np.zeros(a.shape, dtype=a.dtype) for k, a in wholes})
    a, k = _placed(args, kwargs, one(x), stand_ins)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            out = impl(host, *a, **k)
    except Exception:  # noqa: BLE001 - the general graph says what is wrong, in its words
        return None
    return out if isinstance(out, host.array_type) else None


def _at(args: Sequence, kwargs: dict, key: int | str) -> Any:
    return kwargs[key] if isinstance(key, str) else args[key]


def _placed(args: Sequence, kwargs: dict, first: Any, at: dict) -> tuple[list, dict]:
    """``args`` and ``kwargs`` with ``first`` in first place and ``at``'s values at their
    positions (ints) and keywords (strs)."""
    a = [first, *(at.get(i, v) for i, v in enumerate(args[1:], 1))]
    return a, {key: at.get(key, v) for key, v in kwargs.items()}
