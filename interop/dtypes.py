"""Data types: names, the default float dtype, and torch's promotion rules.

Every backend we wrap (NumPy, CuPy, Dask) describes its dtypes with
``numpy.dtype``, so interop's dtypes *are* NumPy dtypes.  What differs from
NumPy is promotion on the torch-style surfaces: torch ranks operands by
category (bool < integer < floating < complex) and by kind (tensors with
dimensions > zero-dimensional tensors > Python scalars), and Python floats
become the *default* float dtype.  ``result_type`` implements that, once.
"""

from __future__ import annotations

import builtins as _builtins
import sys
from typing import Any

import numpy as np

from .errors import InteropWarning, UnsupportedDtypeError, unknown_name
from .numpy_compat import READS_NUMPY_DTYPE_PROTOCOL

_pybool, _pyint, _pyfloat, _pycomplex = _builtins.bool, _builtins.int, _builtins.float, _builtins.complex
PY_SCALARS = (_pybool, _pyint, _pyfloat, _pycomplex)

bool = np.dtype("bool")  # noqa: A001 - torch spells it interop.bool too
uint8 = np.dtype("uint8")
uint16 = np.dtype("uint16")
uint32 = np.dtype("uint32")
uint64 = np.dtype("uint64")
int8 = np.dtype("int8")
int16 = np.dtype("int16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
float16 = np.dtype("float16")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")

# torch's aliases, so code written for torch names keeps working.
half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001
cfloat, cdouble = complex64, complex128

ALL_DTYPES = (bool, uint8, uint16, uint32, uint64, int8, int16, int32, int64,
              float16, float32, float64, complex64, complex128)

_TORCH_NAMES = {"float": "float32", "double": "float64", "half": "float16",
                "long": "int64", "int": "int32", "short": "int16",
                "cfloat": "complex64", "cdouble": "complex128"}

_default_float = [float32]

# torch's legacy tensor type names (t.type()), and the dtype names accepted as strings
TENSOR_TYPES = {np.dtype(k): v for k, v in {
    "float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
    "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor", "int8": "CharTensor",
    "uint8": "ByteTensor", "uint16": "UInt16Tensor", "uint32": "UInt32Tensor",
    "uint64": "UInt64Tensor", "bool": "BoolTensor", "complex64": "ComplexFloatTensor",
    "complex128": "ComplexDoubleTensor"}.items()}
_BY_TENSOR_TYPE = {f"torch.{v}": k for k, v in TENSOR_TYPES.items()}
_DTYPE_NAMES = sorted({str(d) for d in TENSOR_TYPES} | set(_TORCH_NAMES) | {"bfloat16"})

BOOL, INT, FLOAT, COMPLEX = 0, 1, 2, 3
_CATEGORY = {"b": BOOL, "i": INT, "u": INT, "f": FLOAT, "c": COMPLEX}


class BFloat16UnavailableError(ModuleNotFoundError):
    """bfloat16 was asked for but the ml_dtypes package, which gives NumPy that dtype, is not
    installed."""


def bfloat16_dtype() -> np.dtype:
    """NumPy's bfloat16, from the ml_dtypes package (as JAX has it), imported when first asked."""
    try:
        import ml_dtypes
    except ImportError:
        raise BFloat16UnavailableError(
            "bfloat16 needs the ml_dtypes package, which gives NumPy and Dask a bfloat16 dtype: "
            "pip install ml_dtypes (or pip install 'interop-tensor[bfloat16]')") from None
    return np.dtype(ml_dtypes.bfloat16)


def is_bfloat16(dtype: np.dtype) -> _builtins.bool:
    """ml_dtypes' bfloat16 has NumPy kind 'V'; torch counts it as floating point."""
    return dtype.kind == "V" and dtype.name == "bfloat16"


def kind(dtype: np.dtype) -> str:
    """The dtype's NumPy kind, with bfloat16 as the float ('f') it is."""
    return "f" if is_bfloat16(dtype) else dtype.kind


def tensor_type_name(dtype: Any) -> str:
    """torch's legacy tensor type name of a dtype: ``FloatTensor``, ``BFloat16Tensor``."""
    d = np.dtype(dtype)
    return "BFloat16Tensor" if is_bfloat16(d) else TENSOR_TYPES.get(d, str(d))


def get_default_dtype() -> np.dtype:
    """The dtype Python floats become (torch: float32; settable)."""
    return _default_float[0]


def set_default_dtype(dtype: Any) -> None:
    """Set the dtype given to Python floats, as ``torch.set_default_dtype``."""
    d = as_dtype(dtype)
    if d not in (float32, float64, float16):
        raise TypeError(f"set_default_dtype: only floating dtypes are allowed, got {d}; "
                        "use interop.float32 or interop.float64")
    _default_float[0] = d


def default_complex() -> np.dtype:
    return complex128 if _default_float[0] == float64 else complex64


def _is_torch_dtype(x: Any) -> _builtins.bool:
    """``x`` is a ``torch.dtype`` (known by torch's class where torch is loaded: none is
    otherwise)."""
    torch = sys.modules.get("torch")
    return torch is not None and type(x) is torch.dtype


def as_dtype(dtype: Any) -> np.dtype | None:
    """Normalise a dtype given as NumPy dtype, string, Python type or torch dtype."""
    if dtype is None or type(dtype) is np.dtype:
        return dtype
    if _is_torch_dtype(dtype):  # torch.float32 -> "float32", without importing torch
        name = str(dtype).removeprefix("torch.")
        dtype = _TORCH_NAMES.get(name, name)
    elif type(dtype).__module__.startswith("array_api_strict"):  # its float64: "float64"
        dtype = str(dtype).rpartition(".")[2]
    if isinstance(dtype, str) and dtype in ("bfloat16", "torch.bfloat16", "torch.BFloat16Tensor"):
        return bfloat16_dtype()
    if isinstance(dtype, str):
        dtype = _TORCH_NAMES.get(dtype) or _BY_TENSOR_TYPE.get(dtype.removeprefix("torch.cuda."),
                                                                dtype)
    try:
        result = np.dtype(dtype)
    except TypeError as exc:
        if isinstance(dtype, str) and _not_held(dtype):
            raise UnsupportedDtypeError(
                f"dtype {dtype} is not supported: NumPy, and so interop, has no such dtype; "
                "convert the torch tensor first (t.float())") from None
        if isinstance(dtype, str):
            raise unknown_name("dtype", dtype, _DTYPE_NAMES, fix="or pass an interop dtype such "
                               "as interop.float32, a NumPy dtype, or a torch dtype") from None
        raise TypeError(f"unknown dtype {dtype!r}: pass an interop dtype such as interop.float32, "
                        "a NumPy dtype, or a torch dtype") from exc
    if _not_held(result.name):  # ml_dtypes' small floats and ints: torch has no arithmetic
        raise UnsupportedDtypeError(f"dtype {result} is not supported: interop tensors hold "
                                    "bool, 8- to 64-bit integers, 16- to 64-bit floats, "
                                    "bfloat16 and complex numbers; convert first (t.float())")
    if kind(result) not in _CATEGORY:
        raise UnsupportedDtypeError(f"dtype {result} is not supported: interop tensors hold "
                                    "bool, integer, floating or complex numbers")
    return result


def _not_held(name: str) -> _builtins.bool:
    """torch's (and ml_dtypes') dtypes NumPy's arithmetic lacks: 8-, 6- and 4-bit floats,
    complex32, sub-byte integers and bits types."""
    name = name.removeprefix("torch.")
    return name.startswith(("float8_", "float6_", "float4_", "bits")) or name in _SUB_BYTE


_SUB_BYTE = frozenset({"complex32", "chalf", *(f"{u}int{n}" for u in ("", "u") for n in range(1, 8))})


def is_numpy_dtype(dtype: Any) -> _builtins.bool:
    """Whether ``dtype`` is NumPy's own object (a ``DType`` passes ``isinstance(d, np.dtype)``
    too, for the NumPy world's checks, but is not one)."""
    return issubclass(type(dtype), np.dtype)


def category(dtype: np.dtype) -> _builtins.int:
    return _CATEGORY[kind(dtype)]


def is_floating_point(dtype: np.dtype) -> _builtins.bool:
    return kind(dtype) == "f"


def is_complex(dtype: np.dtype) -> _builtins.bool:
    return dtype.kind == "c"


def scalar_dtype(value: Any) -> np.dtype:
    """The dtype torch gives a Python scalar that becomes a tensor of its own."""
    if isinstance(value, np.generic):
        return value.dtype
    if isinstance(value, _pybool):
        return bool
    if isinstance(value, _pyint):
        return int64
    if isinstance(value, _pyfloat):
        return _default_float[0]
    if isinstance(value, _pycomplex):
        return default_complex()
    raise TypeError(f"expected a number, got {type(value).__name__}")


_BAREBONES = frozenset(np.dtype(n) for n in ("uint16", "uint32", "uint64"))
"""torch's unsigned types that promote with real floating dtypes only."""


def promote_types(a: np.dtype, b: np.dtype) -> np.dtype:
    """torch.promote_types: across categories the higher one's dtype wins (int32 + float32 is
    float32, where NumPy says float64); within a category, NumPy's lattice.

    torch promotes uint16, uint32 and uint64 with nothing but real floating dtypes; interop
    refuses, as torch, where the Array API standard has no answer either: uint64 with a
    signed integer (NumPy's float64) and bool with any of them.  Where the standard has
    one (int8 with uint16 is int32), a tensor, also the standard's array, gives it
    (docs/errors.md)."""
    ca, cb = category(a), category(b)
    if a != b and (a in _BAREBONES or b in _BAREBONES) and FLOAT not in (ca, cb) and (
            BOOL in (ca, cb) or COMPLEX in (ca, cb) or np.promote_types(a, b).kind == "f"):
        raise UnsupportedDtypeError(
            f"Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
            f"{a} and {b} (torch's rule); convert one first, e.g. .to(interop.int64)")
    if is_bfloat16(a) != is_bfloat16(b) and ca >= FLOAT and cb >= FLOAT:
        # torch: bfloat16 with float16 is float32, with any wider float or complex that one
        return np.promote_types(float32, b if is_bfloat16(a) else a)
    if ca == cb or {ca, cb} == {FLOAT, COMPLEX}:
        return np.promote_types(a, b)
    return a if ca > cb else b


def _combine(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
    """torch's combine_categories: the higher-priority group wins unless outranked in category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    ch, cl = category(higher), category(lower)
    if ch == COMPLEX:
        return higher
    if cl == COMPLEX:
        return promote_types(higher, complex64) if ch == FLOAT else lower
    if ch == FLOAT:
        return higher
    if ch == BOOL or cl == FLOAT:
        return promote_types(higher, lower)
    return higher


def _promote(current: np.dtype | None, new: np.dtype) -> np.dtype:
    return new if current is None else promote_types(current, new)


class OperandError(TypeError):
    """An operand that is neither an array nor a number."""


def result_type(*operands: Any) -> np.dtype:
    """torch.result_type over raw arrays, 0-d arrays and Python scalars."""
    dim = zero = wrapped = None
    for x in operands:
        dt: Any = getattr(x, "dtype", None)
        if dt is None:
            if not isinstance(x, PY_SCALARS):
                raise OperandError(f"expected a tensor or a number, got {type(x).__name__}")
            if isinstance(x, _pybool):
                wrapped = _promote(wrapped, bool)
            elif isinstance(x, _pyint):
                wrapped = _promote(wrapped, int64)
            elif isinstance(x, _pyfloat):
                wrapped = _promote(wrapped, _default_float[0])
            elif isinstance(x, _pycomplex):
                wrapped = _promote(wrapped, default_complex())
            continue
        if not isinstance(dt, np.dtype):
            dt = as_dtype(dt)  # a torch tensor's
        if isinstance(x, np.generic) or x.ndim == 0:
            zero = _promote(zero, dt)
        else:
            dim = _promote(dim, dt)
    result = _combine(dim, _combine(zero, wrapped))
    if result is None:
        raise TypeError("result_type: expected at least one tensor or number")
    return result


def can_cast(from_: np.dtype, to: np.dtype) -> _builtins.bool:
    """torch.can_cast: an in-place result may not move to a lower category."""
    return category(from_) <= category(to)


# ------------------------------------------------------------------ the dtype a tensor reports
def _sentinel_ending_in(byte: _builtins.int) -> object:
    """An object whose address ends in ``byte`` (see ``DType``), kept alive for good (objects
    are 16-byte aligned: ``byte`` is a multiple of 16)."""
    held = []
    while True:
        o = object()
        if id(o) & 0xFF == byte:
            return o
        held.append(o)


class DType:
    """``t.dtype``: a NumPy dtype that torch code and Array API code also accept.

    - NumPy: ``np.dtype(d)``, ``np.zeros(3, dtype=d)``, ``a.astype(d)``,
      ``np.result_type(d, ...)`` convert it (``__numpy_dtype__``; before NumPy 2.4, which
      reads only the ``dtype`` attribute, ``d.dtype`` too); ``d == np.float32``
      and ``d == "float32"`` hold; it hashes as the NumPy dtype, so NumPy-keyed dicts
      find it.
    - torch: ``d == torch.float32`` holds (both ways).  torch's argument parser takes
      any object with ``__torch_function__`` in a ``dtype=`` slot and hands the call
      to it, so ``torch.zeros(3, dtype=d)``, ``torch.promote_types(d, ...)``,
      ``w.to(d)`` and ``module.to(d)`` run with the torch dtype in its place.
    - Array API: ``x.dtype == xp.float32`` holds.
    - The NumPy world's type checks: ``isinstance(d, np.dtype)`` and
      ``isinstance(d, np.dtypes.Float64DType)`` hold (``__class__`` answers NumPy's class),
      so xarray's and pandas' dtype checks (``maybe_promote``, ``is_float_dtype``) pass;
      ``type(d)`` is ``DType``, and C code that checks NumPy's type exactly converts it
      through ``__numpy_dtype__``.

    ``torch.finfo(d)`` and ``torch.iinfo(d)`` do not dispatch: their parser accepts the
    object and then reads the byte after its header as a ``torch.dtype``'s ScalarType.
    The first slot (``_layout``; slots are laid out in name order) points to an object
    whose address ends in 0x80, past every ScalarType: both raise TypeError ("requires
    a floating point / an integer input type") instead of reading an arbitrary type's
    limits (byte 0 would read as uint8, 16 as a quantized uint8).  A torch that reads the
    byte as a type after all is met at its import (``check_torch_reads_no_type``).  Also impossible:
    ``d is torch.float32``, ``isinstance(d, torch.dtype)``, and finding ``d`` in a dict
    keyed by torch dtypes (they hash by identity).
    """

    __slots__ = ("_layout", "numpy")
    _LAYOUT = _sentinel_ending_in(0x80)

    def __init__(self, dtype: np.dtype) -> None:
        self._layout = DType._LAYOUT
        self.numpy = dtype

    @property
    def __numpy_dtype__(self) -> np.dtype:
        return self.numpy

    if not READS_NUMPY_DTYPE_PROTOCOL:  # NumPy before 2.4 (interop/numpy_compat.py)
        @property
        def dtype(self) -> np.dtype:
            """NumPy's ``dtype`` attribute protocol, how NumPy before 2.4 converts an
            object that is not a dtype (``np.dtype(d)``, ``dtype=d``, ``astype(d)``)."""
            return self.numpy

    @property  # type: ignore[misc]  # (read-only on purpose: NumPy's class, answered)
    def __class__(self) -> type:
        """NumPy's class of the dtype (``numpy.dtypes.Float64DType``), so that
        ``isinstance(d, np.dtype)`` holds where xarray and pandas check it (``type(d)``
        stays ``DType``: the trade-off is in docs/architecture.md)."""
        return type(self.numpy)

    def __getattr__(self, name: str) -> Any:  # kind, itemsize, name, char, type, str, ...
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.numpy, name)

    def __eq__(self, other: object) -> _builtins.bool:
        if isinstance(other, DType):
            return self.numpy == other.numpy
        if _is_torch_dtype(other):
            return str(other) == f"torch.{self.numpy.name}"
        try:
            return _pybool(self.numpy == other)
        except TypeError:
            return False

    def __ne__(self, other: object) -> _builtins.bool:
        return not self == other

    def __hash__(self) -> _builtins.int:
        return hash(self.numpy)

    def __str__(self) -> str:
        return str(self.numpy)

    def __repr__(self) -> str:
        return repr(self.numpy)

    def __reduce__(self) -> tuple:
        return (public_dtype, (self.numpy,))

    # torch.dtype's own attributes
    @property
    def is_floating_point(self) -> _builtins.bool:
        return is_floating_point(self.numpy)

    @property
    def is_complex(self) -> _builtins.bool:
        return self.numpy.kind == "c"

    @property
    def is_signed(self) -> _builtins.bool:
        return kind(self.numpy) in "ifc"

    def to_torch(self) -> Any:
        """The torch dtype of the same name (torch is loaded: only torch code asks)."""
        import torch
        return getattr(torch, self.numpy.name)

    @classmethod
    def __torch_function__(cls, func: Any, types: tuple, args: tuple = (),
                           kwargs: dict | None = None) -> Any:
        """torch's parser sent the call here for a dtype in a torch slot: run ``func``
        with torch's dtype in its place (tensors among the arguments dispatch as usual)."""
        return call_with_torch_objects(func, args, kwargs)


TORCH_STAND_INS: set[type] = set()
"""Types standing in for a torch object in a torch argument slot (dtype, device): each has
``to_torch()`` and a ``__torch_function__`` that calls ``call_with_torch_objects``."""


def call_with_torch_objects(func: Any, args: tuple, kwargs: dict | None) -> Any:
    """Run ``func`` with every stand-in among the arguments replaced by its torch object."""
    def swap(a: Any) -> Any:
        if type(a) is list or type(a) is tuple:
            return type(a)(swap(x) for x in a)
        return a.to_torch() if type(a) in TORCH_STAND_INS else a
    return func(*(swap(a) for a in args), **{k: swap(v) for k, v in (kwargs or {}).items()})


TORCH_STAND_INS.add(DType)


_PUBLIC: dict[np.dtype, DType] = {}


def public_dtype(dtype: np.dtype) -> DType:
    """The one ``DType`` for a NumPy dtype (what ``t.dtype`` returns)."""
    d = _PUBLIC.get(dtype)
    if d is None:
        d = _PUBLIC.setdefault(dtype, DType(dtype))
    return d


def complex_result(x: Any) -> Any:
    """``x`` as the complex dtype the standard gives eigenvalues of real matrices (NumPy
    returns real ones where all are real)."""
    import array_api_compat
    have = as_dtype(x.dtype)  # (a torch tensor's too)
    want = np.result_type(have, np.complex64)
    return x if have == want else array_api_compat.array_namespace(x).astype(x, want)


_SENTINEL_BYTES = (0xF0, 0xC0, 0x70, 0x50)
"""The other last bytes tried for ``DType._layout`` where a torch reads 0x80 as a type."""


def _torch_reads_a_type(torch: Any) -> str | None:
    """What ``torch.finfo``/``torch.iinfo`` answer for interop's float64/int64, where they
    answer instead of refusing (None: both refuse, as they must)."""
    for dtype, info in ((np.dtype(np.float64), torch.finfo), (np.dtype(np.int64), torch.iinfo)):
        try:
            got = info(public_dtype(dtype))
        except Exception:  # noqa: BLE001  (any refusal is loud: only an answer is wrong)
            continue
        return f"torch.{info.__name__}(<interop dtype {dtype}>) answers {got!r}"
    return None


def _point_layouts_at(sentinel: object) -> None:
    DType._LAYOUT = sentinel
    for d in _PUBLIC.values():
        d._layout = sentinel


def check_torch_reads_no_type(torch: Any) -> None:
    """After ``import torch``: ``torch.finfo``/``torch.iinfo`` of a ``DType`` must raise (see
    ``DType``: they read the object's memory as a ``torch.dtype``), never answer another
    type's limits.  Where this torch answers, the layout is changed until it refuses: other
    last bytes of the ``_layout`` address, each tried on this torch (a torch whose
    ScalarTypes reach the byte).  Where none makes it refuse (its ``torch.dtype`` layout
    moved), interop's dtypes leave torch's dtype arguments altogether: ``DType`` gives up its
    ``__torch_function__``, so torch's parser refuses it everywhere with a TypeError
    (``torch.finfo(t.dtype)``, ``torch.zeros(3, dtype=t.dtype)``), and an ``InteropWarning``
    says so at once, naming the fix ``t.dtype.to_torch()``.  ``import torch`` and torch code
    that never takes interop's dtypes are untouched."""
    answer = _torch_reads_a_type(torch)
    if answer is None:
        return
    first = DType._LAYOUT
    for byte in _SENTINEL_BYTES:
        _point_layouts_at(_sentinel_ending_in(byte))
        if _torch_reads_a_type(torch) is None:
            return
    _point_layouts_at(first)
    del DType.__torch_function__  # torch's parser now refuses DType in every dtype slot
    import warnings
    warnings.warn(f"torch {getattr(torch, '__version__', '?')}: {answer} (this torch reads "
                  "interop's dtype as another type): interop's dtypes are refused in torch's "
                  "dtype arguments (TypeError) rather than read as another type; pass "
                  "t.dtype.to_torch(), and please report it with the version",
                  InteropWarning, stacklevel=2)
