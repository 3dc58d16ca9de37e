"""What a tensor says about itself, and conversions: shape, dtype, device, item, to, repr.

These are table entries like any other, so a subclass's ``__torch_function__``
sees ``t.shape`` (as ``Tensor.shape.__get__``), ``len(t)``, ``float(t)`` and
``repr(t)`` exactly as torch's subclasses do (docs/protocols.md, "Properties, indexing
and other dunders").
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes
from ..backends import registry
from ..core.repr import format_tensor
from ..core.tensor import to_raw
from ..devices import Device
from ..errors import ShapeError, UnknownShapeError, shown_shape
from ._args import kept_scalars
from .annotations import VectorDim
from .registry import op


def _prop(name: str, doc: str) -> Any:
    return op(name, function=False, property=True, family="attributes",
              torch=(f"torch.Tensor.{name}.__get__",))


@_prop("shape", "The size of each dimension, as a tuple.")
def shape(be: Any, input: Any) -> tuple:
    """The size of each dimension, as a tuple of ints (None for unknown Dask sizes)."""
    return be.shape_of(input)


@_prop("dtype", "The element type.")
def dtype(be: Any, input: Any) -> dtypes.DType:
    """The element type: a NumPy dtype that torch's dtypes and interop.float32 compare equal to
    (``dtypes.DType``)."""
    return dtypes.public_dtype(be.dtype_of(input))


@_prop("ndim", "Number of dimensions.")
def ndim(be: Any, input: Any) -> int:
    """Number of dimensions."""
    return input.ndim


@_prop("is_nested", "False: interop has no nested tensors.")
def is_nested(be: Any, input: Any) -> bool:
    """False: interop has no nested (ragged) tensors; torch's attention modules ask."""
    return False


@_prop("layout", "torch.strided: interop tensors are dense.")
def layout(be: Any, input: Any) -> Any:
    """torch.strided (torch's own object, as ``torch.masked`` tests set membership), or the
    string ``"strided"`` while torch is not loaded: interop tensors are dense and strided."""
    torch = sys.modules.get("torch")
    return "strided" if torch is None else torch.strided


_DENSE_HOST_ANSWERS = ("is_quantized", "is_meta", "is_sparse", "is_sparse_csr", "is_mkldnn")
"""What torch code asks of a tensor before taking a special path (torchvision's roi_align asks
``is_quantized``): an interop tensor is none of these, on any backend."""
_OTHER_DEVICES = ("is_mps", "is_xpu", "is_xla", "is_vulkan", "is_ipu", "is_maia", "is_mtia")
"""Device kinds interop has no backend for (torchmetrics asks ``is_mps``)."""


def _constant_false(name: str, doc: str) -> None:
    def answer(be: Any, input: Any) -> bool:
        return False
    answer.__name__, answer.__doc__ = name, doc
    op(name, function=False, method=name, property=True, family="attributes",
       torch=(f"torch.Tensor.{name}.__get__",))(answer)


for _name in _DENSE_HOST_ANSWERS:
    _constant_false(_name, "False: interop tensors are dense and hold plain numbers.")
for _name in _OTHER_DEVICES:
    _constant_false(_name, f"False: no backend of interop runs on {_name[3:]} devices.")


@op(function=False, family="attributes", method="is_cpu", property=True,
    torch=("torch.Tensor.is_cpu.__get__",))
def is_cpu(be: Any, input: Any) -> bool:
    """True where the data is in host memory (NumPy, Dask, a CPU torch or JAX array)."""
    return be.device_of(input).type == "cpu"


@_prop("device", "Where the data lives.")
def device(be: Any, input: Any) -> Device:
    """Where the data lives: device('cpu') or device('cuda', N); equal to 'cpu' / 'cuda:N'."""
    return be.device_of(input)


@op(function=False, family="attributes")
def size(be: Any, input: Any, dim: VectorDim | None = None) -> Any:
    """The shape (a tuple), or the size of dimension ``dim`` (None where unknown, as ``shape``)."""
    shape = be.shape_of(input)
    return shape if dim is None else shape[dim]


@op(function=True, family="attributes", aliases=("nelement",))
def numel(be: Any, input: Any) -> int:
    """Number of elements (unknown Dask sizes raise, saying how to learn them)."""
    n = math.prod(input.shape)
    if n != n:
        raise UnknownShapeError(
            f"numel(): this lazy tensor does not know its size yet (shape {shown_shape(input.shape)}: "
            "unknown sizes come from boolean masking, unique or nonzero); call "
            "t.compute_chunk_sizes() first (it computes the chunk sizes, not the values)")
    return n


@op(function=False, family="attributes", aliases=("ndimension",), torch=("torch.Tensor.dim",
                                                             "torch.Tensor.ndimension"))
def dim(be: Any, input: Any) -> int:
    """Number of dimensions."""
    return input.ndim


@op(function=False, family="attributes")
def element_size(be: Any, input: Any) -> int:
    """Bytes per element."""
    return input.dtype.itemsize


@op(function=True, family="attributes")
def is_floating_point(be: Any, input: Any) -> bool:
    return input.dtype.kind == "f"


@op(function=True, family="attributes")
def is_complex(be: Any, input: Any) -> bool:
    return input.dtype.kind == "c"


@op(function=True, family="attributes")
def is_signed(be: Any, input: Any) -> bool:
    """True for signed integer, floating and complex dtypes (torch.masked asks of int inputs)."""
    return input.dtype.kind in "ifc"


def _one_value(name: str, input: Any) -> Any:
    n = math.prod(input.shape)
    if n != 1:
        raise ShapeError(f"{name}: a Tensor with {n} elements cannot be converted to Scalar; "
                         "index one element first (t[i].item()) or reduce (t.sum().item())")
    return registry.python_value(input, f"{name}()")


@op(function=False, family="attributes")
def item(be: Any, input: Any) -> Any:
    """The value of a one-element tensor as a Python number (computes on Dask)."""
    return _one_value("item", input)


@op(function=False, family="attributes")
def tolist(be: Any, input: Any) -> Any:
    """Nested Python lists (computes on Dask, copies from the GPU)."""
    return registry.host_values(input, "tolist()").tolist()


@op(function=False, family="attributes", wrap=False)
def numpy(be: Any, input: Any, *, force: bool = False) -> np.ndarray:
    """The values as a NumPy array: shared memory for NumPy tensors; Dask computes.

    GPU tensors raise, as torch's do: call ``.cpu()`` first (or pass force=True).
    """
    if be.device_of(input).type != "cpu" and not force:
        raise TypeError(f"can't convert {be.device_of(input).type} tensor to numpy. Use "
                        "Tensor.cpu() to copy the tensor to host memory first.")
    return registry.host_values(input, "numpy()")


def _dunder(name: str, native: bool = True) -> Any:
    return op(name, function=False, method=name, family="attributes",
              torch=(f"torch.Tensor.{name}",), native=native)


@_dunder("__len__")
def len_(be: Any, input: Any) -> int:
    if input.ndim == 0:
        raise TypeError("len() of a 0-d tensor")
    return int(input.shape[0])


@_dunder("__bool__")
def bool_(be: Any, input: Any) -> bool:
    n = math.prod(input.shape)
    if n != 1:
        raise RuntimeError(f"Boolean value of Tensor with {'no values' if n == 0 else 'more than one value'}"
                           " is ambiguous; use .any() or .all()")
    return bool(_one_value("bool", input))


@_dunder("__float__")
def float_(be: Any, input: Any) -> float:
    return float(_one_value("float", input))


@_dunder("__int__")
def int_(be: Any, input: Any) -> int:
    return int(_one_value("int", input))


@_dunder("__complex__")
def complex_(be: Any, input: Any) -> complex:
    return complex(_one_value("complex", input))


@_dunder("__index__")
def index_(be: Any, input: Any) -> int:
    if input.dtype.kind not in "iub":
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return int(_one_value("__index__", input))


@_dunder("__contains__")
def contains_(be: Any, input: Any, element: Any) -> bool:
    return bool(registry.python_value(be.np.any(input == element), "x in t"))


@_dunder("__repr__", native=False)  # interop's repr: the class and backend shown
def repr_(be: Any, input: Any, *, tensor_contents: Any = None, name: str = "tensor") -> str:
    """torch's repr with the backend shown; ``name`` is the tensor's class (see ops.install)."""
    return format_tensor(be, input, name)


@_dunder("__format__", native=False)
def format_(be: Any, input: Any, format_spec: str, *, name: str = "tensor") -> str:
    if input.ndim == 0 and format_spec:
        return format(_one_value("format", input), format_spec)
    return format(format_tensor(be, input, name), format_spec)


# ------------------------------------------------------------------ conversions
@op(function=False, family="attributes", targets=True, native=False)  # backend= is interop's
def to(be: Any, input: Any, *args: Any, dtype: Any = None, device: Any = None,
       backend: Any = None, copy: bool = False, non_blocking: bool = False, chunks: Any = None,
       **options: Any) -> Any:
    """Move or convert: ``t.to('cuda')``, ``t.to(interop.float64)``, ``t.to(backend='dask')``.

    Every host/GPU move is explicit here; nothing else moves data between devices.

    >>> t = interop.tensor([1, 2])
    >>> t.to(interop.float64)
    tensor([1., 2.], dtype=float64, backend='numpy')
    >>> t.to(backend='dask').device
    device(type='cpu', backend='dask')
    """
    flags = [a for a in args if isinstance(a, bool)]  # to(..., non_blocking, copy)
    if len(flags) > 1:
        copy = copy or flags[1]
    options.pop("memory_format", None)  # backends choose their own layout
    for a in args:  # torch accepts a dtype, a device or a tensor positionally
        if isinstance(a, bool):
            continue
        if isinstance(a, (type, np.dtype)):  # np.float64, float: types (which have .shape and
            dtype = a  # .dtype too); a dtype, t.dtype too (.shape; .dtype before NumPy 2.4)
        elif _is_device(a):
            device = a
        elif getattr(a, "shape", None) is not None and getattr(a, "dtype", None) is not None:
            owner = registry.backend_of(a)
            if owner is None:
                raise TypeError(f"to(): cannot take the dtype and device of a "
                                f"{type(a).__name__}; pass a tensor, a dtype or a device")
            dtype, device = owner.dtype_of(a), owner.device_of(a)
        else:
            dtype = a
    if chunks is not None:
        options["chunks"] = chunks
    if device is not None and backend is None and be.container:  # Dask: its chunks move
        backend = be.name
    return to_raw(input, dtype=dtype, device=device, backend=backend, copy=copy or None,
                  **options)


def _is_device(a: Any) -> bool:
    """An interop or torch device, or a string naming a device rather than a dtype."""
    if isinstance(a, Device) or type(a).__name__ == "device" and hasattr(a, "index"):
        return True
    if not isinstance(a, str):
        return False
    try:
        dtypes.as_dtype(a)
        return False
    except TypeError:  # an unknown dtype name (UnknownNameError) is taken for a device name
        return True


@op(function=False, family="attributes")
def cpu(be: Any, input: Any) -> Any:
    """The same values in host memory (NumPy backend; Dask stays Dask with host chunks)."""
    return to(be, input, device="cpu")


@op(function=False, family="attributes")
def cuda(be: Any, input: Any, device: Any = None, non_blocking: bool = False) -> Any:
    """The same values on a GPU (CuPy backend)."""
    target = Device(device) if isinstance(device, (str, Device)) else Device("cuda", device or 0)
    return to(be, input, device=target)


def _cast_method(name: str, target: np.dtype | Callable[[], np.dtype]) -> Any:
    """``t.float()`` and its kind; ``target`` may be a function giving the dtype when first
    called (bfloat16 comes from the optional ml_dtypes package)."""
    def impl(be: Any, input: Any, memory_format: Any = None) -> Any:
        dt = target() if callable(target) else target
        return input if input.dtype == dt else input.astype(dt)
    impl.__name__ = name
    impl.__doc__ = (f"Convert to {name if callable(target) else target} (the tensor itself "
                    "when it already is).")
    return impl


for _name, _dt in (("float", dtypes.float32), ("double", dtypes.float64),
                   ("half", dtypes.float16), ("int", dtypes.int32), ("long", dtypes.int64),
                   ("short", dtypes.int16), ("bool", dtypes.bool), ("byte", dtypes.uint8),
                   ("char", dtypes.int8), ("cfloat", dtypes.complex64),
                   ("cdouble", dtypes.complex128), ("bfloat16", dtypes.bfloat16_dtype)):
    op(_name, function=False, family="attributes",
       lacks={"cubed": "no bfloat16 dtype in Zarr, where Cubed stores every array"}
       if _name == "bfloat16" else None)(_cast_method(_name, _dt))


@op(function=False, family="attributes", method="type")
def type_(be: Any, input: Any, dtype: Any = None) -> Any:
    """Convert to ``dtype``; with no argument, torch's tensor type name ('torch.FloatTensor')."""
    if dtype is None:
        prefix = "torch.cuda." if be.device_of(input).type == "cuda" else "torch."
        return prefix + dtypes.tensor_type_name(input.dtype)
    return input.astype(dtypes.as_dtype(dtype))


@op(function=False, family="attributes")
def type_as(be: Any, input: Any, other: Any) -> Any:
    """Convert to ``other``'s dtype."""
    return input.astype(other.dtype)


@op(function=True, family="attributes")
def astype(be: Any, input: Any, dtype: Any, *, copy: bool = True) -> Any:
    """Convert to ``dtype`` (Array API name)."""
    dt = dtypes.as_dtype(dtype)
    return be.astype(input, dt) if copy or be.dtype_of(input) != dt else input


@op(function=True, family="attributes", method="detach")
def detach(be: Any, input: Any) -> Any:
    """The tensor itself: interop tensors carry no autograd graph."""
    return input


@op(function=False, family="attributes", method="requires_grad", property=True,
    torch=("torch.Tensor.requires_grad.__get__",))
def requires_grad(be: Any, input: Any) -> bool:
    """Always False: interop computes values, not gradients."""
    return False


@op(function=False, family="attributes", method="is_cuda", property=True,
    torch=("torch.Tensor.is_cuda.__get__",))
def is_cuda(be: Any, input: Any) -> bool:
    return be.device_of(input).type == "cuda"


@op(function=False, family="attributes", method="nbytes", property=True,
    torch=("torch.Tensor.nbytes.__get__",))
def nbytes(be: Any, input: Any) -> int:
    return int(math.prod(input.shape) * input.dtype.itemsize)


@op(function=False, family="attributes", method="strides", property=True, torch=())
def strides(be: Any, input: Any) -> tuple:
    """NumPy's strides in bytes (``t.stride()`` is torch's, in elements); a lazy tensor's
    are those its chunks will have, C-contiguous."""
    own = getattr(input, "strides", None)
    if own is not None:
        return tuple(own)
    if any(size != size for size in input.shape):
        raise UnknownShapeError("strides: a lazy tensor of unknown (NaN) size has no strides yet; "
                                "call t.compute_chunk_sizes() first")
    step, out = input.dtype.itemsize, []
    for size in reversed(input.shape):
        out.append(step)
        step *= int(size)
    return tuple(reversed(out))


@op(function=False, family="attributes", method="itemsize", property=True,
    torch=("torch.Tensor.itemsize.__get__",))
def itemsize(be: Any, input: Any) -> int:
    return input.dtype.itemsize


@op(function=False, family="attributes", inplace="fill_", method=False,
    torch=("torch.fill", "torch.fill_", "torch.Tensor.fill_"))
def fill(be: Any, input: Any, value: Any) -> Any:
    """A tensor like ``input`` filled with ``value`` (``fill_`` writes it in place)."""
    if not hasattr(value, "dtype"):
        try:  # checked now: Dask would fail only when the graph runs, the target lost
            dtypes.scalar_dtype(value)
        except TypeError as exc:
            raise TypeError(f"fill_(): argument 'value' must be a number ({exc}); pass a bool, "
                            "int, float or complex") from None
        (value,) = kept_scalars("fill_", input.dtype, value)  # a value Dask would fail on later
        shape = be.shape_of(input)
        if None not in shape:  # (full_like serves unknown sizes: they are not a shape)
            # made by the backend (CuPy's full_like writes -0.0 as +0.0: backends/cupy/fills.py)
            return be.create("full", shape, value, dtype=input.dtype,
                             device=be.device_of(input), chunks=be.chunking(input))
    return be.np.full_like(input, value)


@op(function=False, family="attributes", inplace="zero_", method=False,
    torch=("torch.zero_", "torch.Tensor.zero_"))
def zero(be: Any, input: Any) -> Any:
    """Zeros like ``input`` (``zero_`` writes them in place)."""
    return be.np.zeros_like(input)


@op(function=False, family="attributes", inplace="copy_", method=False)
def copy(be: Any, input: Any, src: Any, non_blocking: bool = False) -> Any:
    """``src`` broadcast to ``input``'s shape and dtype (``copy_`` writes it in place)."""
    return be.np.broadcast_to(src, tuple(input.shape)).astype(input.dtype)
