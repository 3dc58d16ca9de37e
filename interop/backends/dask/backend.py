"""The Dask backend: lazy, chunked, out-of-core and distributed.

Its chunks are NumPy arrays, or CuPy arrays on a GPU; ``chunk_backend`` says
which, and the device follows from it.  Nothing here computes a graph except
``compute``/``persist`` (asked for explicitly) and ``to_host``, which applies
``interop.config(dask_compute=...)`` to every implicit value read
(``registry.host_values`` is the gate the rest of interop reads through).
"""

from __future__ import annotations

import contextlib
import math
import re
import sys
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import array_api_compat.dask.array as compat_dask
import dask
import dask.array as da
import dask.highlevelgraph
import numpy
import numpy as np

from ...config import check_value_read
from ...devices import Device
from ...errors import LinAlgError, UnknownShapeError, shown_shape
from ...upstream import private
from .. import registry, views
from ..chunked import ChunkedBackend
from ..contract import Backend
from ..progress import choose as progress_choice
from . import indexing as dask_indexing
from . import numpy_functions as dask_numpy
from . import standard, ufunc_methods


class _WithLazyExtras:
    """A Dask module (``dask.array``, ``dask.array.linalg``) with the NumPy functions it lacks
    added, built lazily from its blocks (``dask_numpy``): sort along an axis, batched det,
    eigh, pinv, ... so operations written against ``be.np`` run on Dask unchanged."""

    linalg: Any  # (the top namespace's own extended submodules and sized extremes)
    fft: Any
    min: Any
    max: Any

    def __init__(self, module: Any, extras: dict[str, Any]) -> None:
        self._module = module
        self.__dict__.update({k: v for k, v in extras.items()
                              if not hasattr(module, k) or k in dask_numpy.REPLACE_DASKS})

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)


def _sized_extremum(reduce: Any) -> Any:
    """Dask's ``min``/``max``, with an empty result made directly: Dask's own computes a
    wrongly shaped one ((1, 0) for a (5, 0, 5) input in chunks, reduced along axis 0)."""
    def extremum(x: Any, axis: Any = None, keepdims: bool = False, **options: Any) -> Any:
        result = reduce(x, axis=axis, keepdims=keepdims, **options)
        if 0 in result.shape and all(n == n for n in result.shape):  # known, empty
            return da.empty(result.shape, dtype=result.dtype)
        return result
    extremum.__name__ = reduce.__name__
    return extremum


def _namespace() -> _WithLazyExtras:
    plain: dict = {}
    linalg: dict = {}
    fft: dict = {}
    for func, lazy in dask_numpy.lazy_functions().items():
        if func not in dask_numpy.VALUE_ANSWERS:  # those read values: the NumPy surface's own
            module = getattr(func, "__module__", "")
            (linalg if module == "numpy.linalg" else fft if module == "numpy.fft" else
             plain)[func.__name__] = lazy
    namespace = _WithLazyExtras(da, plain)
    namespace.linalg = _WithLazyExtras(da.linalg, linalg)  # replaces Dask's: a superset of it
    namespace.fft = _WithLazyExtras(da.fft, fft)
    namespace.min, namespace.max = _sized_extremum(da.min), _sized_extremum(da.max)
    return namespace


class DaskBackend(ChunkedBackend):
    name = "dask"
    standard_fixes = standard.RULES
    array_type = da.Array
    xp = compat_dask
    np = _namespace()

    def chunk_backend(self, raw: da.Array) -> Backend:
        return registry.backend_of(raw._meta) or self._host()

    @staticmethod
    def _host() -> Backend:
        return registry.get_backend("numpy")

    def device_of(self, raw: da.Array) -> Device:
        """The chunks' device, naming Dask: creation functions given it make Dask arrays."""
        chunks = self.chunk_backend(raw)
        return Device(chunks.device_of(raw._meta), backend=self.name)

    def asarray(self, data: Any, dtype: numpy.dtype | None = None, device: Device | None = None,
                copy: bool | None = None, chunks: Any = "auto", **options: Any) -> da.Array:
        if isinstance(data, da.Array):
            out = data.astype(dtype) if dtype is not None and data.dtype != dtype else data
            return out if chunks == "auto" else out.rechunk(chunks)
        if device is not None:
            device = Device(device).memory
        holder = self._host() if device is None else registry.backend_for_device(device)
        local = holder.asarray(data, dtype=dtype, device=device, copy=copy)
        return da.from_array(local, chunks=chunks, asarray=False)

    def create(self, fn: str, *args: Any, device: Device | None = None, chunks: Any = None,
               **kwargs: Any) -> da.Array:
        if fn == "eye" and kwargs.get("M") not in (None, args[0]):  # Dask's eye with M != N
            n, m = args[0], kwargs.pop("M")  # builds a graph that fails: a square one, sliced
            return self.create("eye", max(n, m), device=device, chunks=chunks, **kwargs)[:n, :m]
        out = getattr(da, fn)(*args, chunks=chunks or "auto", **kwargs)
        return out if device is None else self.to_device(out, device)

    def to_device(self, raw: da.Array, device: Any) -> da.Array:
        """The same lazy array with each chunk on ``device`` (CuPy chunks for 'cuda:N')."""
        device = Device(device).memory
        if device == self.device_of(raw):
            return raw
        holder = registry.backend_for_device(device)
        meta = holder.asarray(np.empty((0,) * raw.ndim, dtype=raw.dtype), device=device)
        return raw.map_blocks(_chunk_to, str(device), dtype=raw.dtype, meta=meta)

    def view_at(self, raw: da.Array, index: tuple) -> da.Array:
        """Dask has no views: the slice remembers ``raw`` so that writes into it are replayed."""
        return views.remember(raw[index], raw, index)

    def ufunc_reduce(self, name: str, raw: da.Array, axis: Any,
                     keepdims: bool = False) -> da.Array:
        """Dask's ufuncs have no ``reduce``: chunk by chunk, then the partial results."""
        return ufunc_methods.reduce(getattr(np, name), raw, axis=axis, keepdims=keepdims)

    def advanced_index(self, raw: da.Array, items: tuple) -> da.Array:
        """Several index arrays, or an n-d one, as one lazy take (``dask_indexing``)."""
        return dask_indexing.take(raw, items)

    def advanced_assign(self, raw: da.Array, items: tuple, value: Any) -> None:
        if dask_indexing.native(raw, items):
            raw[items] = value
        else:
            replace_in_place(raw, dask_indexing.put(raw, items, value))

    def per_block_layer(self, fn: Any, x: da.Array, axes: tuple[int, ...], wholes: list,
                        chunks: tuple, meta: Any, aligned: Sequence = ()) -> da.Array:
        """One ``da.blockwise`` layer: ``x``'s axes in ``axes`` keep their index (their
        chunks, or ``chunks``' sizes there: a partial sum per block), its other axes are
        contracted whole, the result's other axes are new; the ``aligned`` operands share
        ``x``'s indices along ``axes`` (their other axes whole); each whole operand's axes
        are its own and contracted, so each task gets it entire (its blocks concatenated).
        An operand without an index would be a literal: Dask copies its graph into the
        layer, and a graph built on such layers (training steps) doubles each time.  Layers
        like this fuse."""
        x_ind = tuple(f"x{d}" for d in range(x.ndim))
        out_ind = tuple(x_ind[i] if i in axes else f"out{i}" for i in range(len(chunks)))
        new_axes = {c: chunks[i][0] for i, c in enumerate(out_ind) if i not in axes}
        resized = {x_ind[i]: chunks[i] for i in axes if chunks[i] != x.chunks[i]}
        operands = [x, x_ind]
        for j, a in enumerate(aligned):
            operands += [a, tuple(x_ind[d] if d in axes else f"a{j}_{d}" for d in range(a.ndim))]
        for k, w in enumerate(wholes):
            operands += [w, tuple(f"w{k}_{d}" for d in range(w.ndim))]
        return da.blockwise(fn, out_ind, *operands, new_axes=new_axes, adjust_chunks=resized,
                            concatenate=True, dtype=meta.dtype, meta=meta,
                            name=f"{fn.__name__}-{uuid.uuid4().hex}")

    def in_one_task(self, impl: Any, shape: tuple, dtype: Any, *args: Any) -> da.Array:
        """One blockwise task on the arrays, each given whole (its blocks concatenated: none
        of its axes is the output's): unlike a delayed call, which copies the arrays' graphs
        into its own, the graph stays one layer deeper."""
        first = next(a for a in args if isinstance(a, da.Array))
        pairs: list = []
        for i, a in enumerate(args):
            if isinstance(a, da.Array):
                pairs += [a, tuple(f"a{i}_{d}" for d in range(a.ndim))]
            else:
                pairs += [a, None]
        out = tuple(f"out{d}" for d in range(len(shape)))
        return da.blockwise(_whole, out, impl, None, self.chunk_backend(first), None, *pairs,
                            new_axes=dict(zip(out, shape)), concatenate=True, dtype=dtype,
                            meta=first._meta)

    def contiguous(self, raw: da.Array) -> da.Array:
        return raw  # chunks have no memory layout to fix until they are computed

    def unique_all(self, flat: da.Array) -> tuple[Any, Any, Any]:
        return tuple(da.unique(flat, return_inverse=True, return_counts=True))

    def per_block(self, fn: Any, raw: da.Array) -> da.Array:
        return raw.map_blocks(fn, dtype=raw.dtype, meta=raw._meta)

    def svdvals(self, a: da.Array) -> da.Array:
        return self.np.linalg.svdvals(a)

    def random(self, seed: Any) -> Any:
        return da.random.default_rng(np.random.default_rng(seed))

    def from_foreign(self, raw: Any, source: Backend, chunks: Any = "auto", **options: Any) -> da.Array:
        # The chunks stay on the source's device: a CuPy array becomes a Dask array of CuPy chunks.
        # Arrays without NumPy's protocols (torch's, JAX's) cannot be chunks: their host values are.
        if not source.numpy_protocols:
            raw = source.to_host(raw, "bringing an array into a Dask graph")
        return da.from_array(raw, chunks=chunks, asarray=False)

    def compute(self, *raws: Any, progress: bool | None = None, **kwargs: Any) -> tuple:
        with graph_errors("compute()"):
            values = _run(dask.compute, raws, progress, kwargs)
        return tuple(_array(r) for r in values)

    def persist(self, *raws: Any, progress: bool | None = None, **kwargs: Any) -> tuple:
        return _run(dask.persist, raws, progress, kwargs)

    def settle(self, raws: Sequence[Any]) -> None:
        """Wait for the futures a ``distributed`` client's persist put in ``raws``' graphs."""
        if "distributed" not in sys.modules:
            return
        from distributed import futures_of, wait
        futures = [f for raw in raws for f in futures_of(raw)]
        if futures:
            wait(futures)

    def compute_chunk_sizes(self, raw: da.Array) -> da.Array:
        """Learn NaN chunk sizes in place, as Dask does, and drop the empty chunks that leaves.

        Dask 2026.8 miscomputes on empty chunks: a (1,) array of chunks (0, 1)
        times 1 gives two values, cumsum and argmax fail.  The rechunked graph is
        put in place the way Dask's own ``__setitem__`` does it.
        """
        raw.compute_chunk_sizes()
        kept = tuple(tuple(c for c in sizes if c) or (0,) for sizes in raw.chunks)
        if kept != raw.chunks:
            replace_in_place(raw, raw.rechunk(kept))
        return raw

    def assign_masked(self, target: da.Array, mask: da.Array, values: da.Array) -> bool:
        """``target[mask] = values`` for values of unknown (NaN) size, lazily; False if not possible.

        Dask refuses such writes.  Values selected with the same mask
        (``f(x[mask])``, as array-api-extra's ``apply_where`` writes them) come
        in one chunk per mask chunk, in NumPy's order when only the first axis
        is chunked: chunk k of the values then fills the True entries of mask
        chunk k, in a task of its own.  A chunk whose count does not match raises
        when computed (even where NumPy, which counts only the total, would not).
        """
        if not isinstance(values, da.Array):
            return False  # host values have a known size: the library's own write takes them
        if target.size == 0 and values.size == 0 and mask.shape == target.shape:
            return True  # nothing selected, nothing to write (Dask fails on empty arrays)
        if mask.ndim == 0:
            flat = target.reshape(1)
            if not self.assign_masked(flat, mask.reshape(1), values):
                return False
            replace_in_place(target, flat.reshape(()))
            return True
        if not (values.ndim == 1 and has_unknown_sizes(values) and mask.shape == target.shape
                and all(n == 1 for n in mask.numblocks[1:])
                and values.numblocks[0] == mask.numblocks[0]):
            return False
        source = target.rechunk(mask.chunks)
        name = "masked-assign-" + dask.base.tokenize(source, mask, values)
        tasks = {(name, *idx): (_put_masked, (source.name, *idx), (mask.name, *idx),
                                (values.name, idx[0]))
                 for idx in np.ndindex(*mask.numblocks)}
        graph = dask.highlevelgraph.HighLevelGraph.from_collections(
            name, tasks, dependencies=[source, mask, values])
        replace_in_place(target, da.Array(graph, name, chunks=source.chunks, meta=source._meta))
        return True

    def explain_error(self, name: str, args: list, exc: Exception) -> Exception | None:
        """Operations that need unknown (NaN) sizes say how to learn them.

        Only errors about sizes: a dtype mistake or a function Dask lacks stays
        what it is, since computing the sizes would not help.
        """
        unknown = [shown_shape(a.shape) for a in _arrays(args) if has_unknown_sizes(a)]
        if not unknown or not _about_sizes(exc):
            return None
        return UnknownShapeError(
            f"{name}: needs sizes that this lazy tensor does not know yet (shape "
            f"{unknown[0]}: unknown sizes come from boolean masking, unique or nonzero); call "
            f"t.compute_chunk_sizes() first (it computes the chunk sizes, not the values). "
            f"Dask said: {str(exc).strip().splitlines()[0]}")

    def to_host(self, raw: da.Array, why: str = "") -> numpy.ndarray:
        """The values on the host: the only implicit compute, governed by ``dask_compute``."""
        check_value_read(why, f"a lazy Dask tensor (shape {tuple(raw.shape)}, "
                              f"{raw.npartitions} chunks)")
        with graph_errors(why):
            local = _array(_run(dask.compute, (raw,), None, {})[0])
        return self.chunk_backend(raw).to_host(local, why)


def _array(value: Any) -> Any:
    """A computed value as an array: Dask gives 0-d results as NumPy scalars, which are no
    backend's arrays (no ``__dlpack__``, and ``t.numpy()`` of a 0-d tensor is a 0-d array)."""
    return np.asarray(value) if isinstance(value, np.generic) else value


@contextlib.contextmanager
def graph_errors(why: str) -> Iterator[None]:
    """Errors of the graph's tasks (raised by operations built earlier) keep their type, as
    callers catch Dask's and NumPy's own, with a note saying where they come from; a
    singular matrix is interop's LinAlgError, which torch-style code catches too."""
    note = (f"raised while computing the Dask graph for {why or 'its values'}: by an "
            "operation built earlier, not by this call")
    try:
        yield
    except np.linalg.LinAlgError as exc:
        raise LinAlgError(f"{str(exc).strip()} ({note})") from exc
    except Exception as exc:
        exc.interop_graph_error = True  # type: ignore[attr-defined]  # (a mark read below)
        if hasattr(exc, "add_note"):  # Python >= 3.11
            exc.add_note(f"({note})")
        raise


def replace_in_place(raw: da.Array, new: da.Array) -> None:
    """``raw`` becomes ``new`` in place (the way Dask's own ``__setitem__`` does it: its
    ``_name`` and ``_chunks`` setters drop what Dask caches from them), so every tensor holding
    ``raw`` sees the change.  Checked after: a Dask that caches more than its setters drop
    fails here by name, never with a stale shape."""
    raw._meta, raw.dask, raw._name, raw._chunks = new._meta, new.dask, new.name, new.chunks
    if raw.shape != new.shape or raw.name != new.name or raw.npartitions != new.npartitions:
        import dask
        raise RuntimeError(
            f"interop's in-place write into a Dask array left it stale (shape {raw.shape}, "
            f"expected {new.shape}): Dask {dask.__version__} caches state that its _name/"
            "_chunks setters do not reset; please report it with the version")


def replace_contents(raw: da.Array, value: Any) -> None:
    """``raw[...] = value`` for a value of ``raw``'s shape (or broadcastable to it), by taking
    its graph: Dask's assignment needs known sizes, this does not."""
    new = value if isinstance(value, da.Array) else da.asarray(value)
    if new.dtype != raw.dtype:
        new = new.astype(raw.dtype)
    if new.ndim != raw.ndim or not has_unknown_sizes(raw) and new.shape != raw.shape:
        new = da.broadcast_to(new, raw.shape)
    replace_in_place(raw, new)


def _put_masked(block: Any, mask: Any, values: Any) -> Any:
    """One chunk of a lazy ``target[mask] = values`` (a copy: chunks may be shared)."""
    out = block.copy()
    out[mask] = values
    return out


def _chunk_to(chunk: Any, device: Any) -> Any:
    """One chunk moved to ``device`` (runs inside a task, on whichever worker holds it)."""
    source = registry.backend_of(chunk)
    target = registry.backend_for_device(device)
    return target.asarray(source.to_host(chunk), device=device)  # no copy on the host


def has_unknown_sizes(raw: da.Array) -> bool:
    """True when some chunk sizes are NaN (after boolean masking, unique, nonzero)."""
    return any(math.isnan(s) for s in raw.shape)


def _arrays(args: Any) -> list:
    """The Dask arrays among ``args``, also inside lists and tuples (cat, stack)."""
    found = []
    for a in args:
        if isinstance(a, da.Array):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found.extend(_arrays(a))
    return found


# What Dask, NumPy and interop's own checks say when a size is NaN (messages seen in
# tests/test_dask_unknown.py's audit): "chunk sizes are unknown", "unknown chunks",
# "cannot convert float NaN to integer", "'float' object cannot be interpreted ...".
_SIZE_WORDS = re.compile(r"unknown (chunk|shape|size)|(is|are) unknown|\bnan\b|'float' object", re.I)


def _about_sizes(exc: BaseException | None) -> bool:
    """True if ``exc`` or an exception it was raised from is about NaN sizes."""
    while exc is not None:
        if _SIZE_WORDS.search(str(exc)):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _run(evaluate: Any, raws: tuple, progress: bool | None, kwargs: dict) -> tuple:
    """``evaluate(*raws)`` (dask.compute or dask.persist), with Dask's progress bar when asked
    (``progress=True``) or, not asked, when it runs over a second where someone watches
    (``interop.backends.progress``).

    Local schedulers: ``dask.diagnostics.ProgressBar`` (terminal and Jupyter).
    With a ``distributed`` client active, the graph runs on the cluster under
    ``distributed.progress``: a widget in a Jupyter kernel where ipywidgets is
    installed, else a text bar (the client's repr has the dashboard link).
    """
    choice = progress_choice(progress)
    if not choice.show:
        return evaluate(*raws, **kwargs)
    client = _client() if "scheduler" not in kwargs else None
    if client is None:
        from dask.diagnostics import ProgressBar
        with ProgressBar(minimum=choice.after, out=choice.out):
            return evaluate(*raws, **kwargs)
    from distributed import progress as show
    from distributed import wait
    running = client.persist(list(raws))
    if choice.after:  # not asked: a bar only if the cluster is still busy after a second
        try:
            wait(running, timeout=choice.after)
            return evaluate(*running, **kwargs)
        except TimeoutError:
            pass
    if _widgets_available():
        from IPython.display import display
        display(show(running, notebook=True))  # a widget that follows the cluster's progress
    else:
        show(running, notebook=False)  # a text bar that returns when the graph is done
    return evaluate(*running, **kwargs)


def _widgets_available() -> bool:
    """True in a Jupyter kernel that can draw ipywidgets (Dask's widget progress bar)."""
    if not private("distributed.utils", "is_kernel")():
        return False
    try:
        import ipywidgets  # noqa: F401  (optional: the bar falls back to text)
    except ImportError:
        return False
    return True


def _client() -> Any:
    """The active distributed client, without importing distributed if nobody has."""
    if "distributed" not in sys.modules:
        return None
    from distributed import default_client
    try:
        return default_client()
    except ValueError:
        return None


backend = DaskBackend()
views.WITHOUT_VIEWS[da.Array] = replace_contents
private("dask.array", "Array._meta")  # (read and written throughout: checked at load)


def _whole(impl: Any, backend: Any, *args: Any) -> Any:
    """``in_one_task``'s task: ``impl`` on the chunks' backend and whole arrays."""
    return impl(backend, *args)
