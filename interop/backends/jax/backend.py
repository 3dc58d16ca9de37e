"""The JAX backend: ``jax.Array`` on JAX's CPU devices, immutable, traceable.

- Namespaces: ``jax.numpy`` is both the Array API namespace (JAX implements the
  standard itself; array-api-compat has no wrapper for it) and the NumPy-shaped one.
- 64 bits: loading this backend turns on ``jax_enable_x64`` (JAX's default is 32-bit,
  which would turn torch's int64 and float64 into int32 and float32).  It is a global
  JAX setting: the user's own JAX code then gets 64-bit defaults too.
- Devices: JAX's CPU devices are interop's ``cpu`` with ``backend='jax'`` (as Dask's).
- No NumPy protocols (``numpy_protocols = False``): ``np.exp(t)`` runs ``jax.numpy.exp``.
- Immutable (``mutable = False``): in-place forms and writes through views are replayed
  out of place (``views.forward``), the tensors holding the array rebound.
- Traceable: ``Tensor`` (and each subclass) is a JAX pytree, so ``jax.jit``, ``jax.grad``
  and ``jax.vmap`` trace through interop code; the arrays are tracers there, and a value
  read (``bool(t)``, ``t.item()``, a size taken from values) raises ``TracedValueError``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy
import numpy as np

from ...devices import Device
from ...errors import DeviceMismatchError, TracedValueError
from .. import registry, views
from ..contract import Backend
from .native import PRIMITIVES

jax.config.update("jax_enable_x64", True)

ArrayImpl = type(jnp.zeros(0))
JAX_CPU = Device("cpu", backend="jax")


_AT = {None: "set", "add": "add", "multiply": "multiply", "minimum": "min", "maximum": "max"}


_TRACED = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
           jax.errors.TracerIntegerConversionError, jax.errors.TracerBoolConversionError,
           jax.errors.NonConcreteBooleanIndexError)


def _at(base: Any, index: Any, value: Any) -> Any:
    """``base`` with ``base[index] = value``: JAX's out-of-place write."""
    return base.at[index].set(value)


def _replace(raw: Any, value: Any) -> None:
    """``raw[...] = value`` for an immutable array: its holders take a new array."""
    new = jnp.broadcast_to(jnp.asarray(value).astype(raw.dtype), raw.shape)
    views.forward(raw, jnp.array(new, copy=True) if new is value else new)


def _register(array_type: type) -> None:
    """Writes into arrays of ``array_type`` (JAX's array, or one of its tracers) replay."""
    if array_type not in views.IMMUTABLE:
        views.IMMUTABLE[array_type] = _at
        views.WITHOUT_VIEWS[array_type] = _replace


_UFUNCS: dict[str, Any] = {}


class _Special:
    """SciPy's special functions for JAX arrays: ``jax.scipy.special``'s (traceable), else
    SciPy's on the host values (a value read: refused under tracing)."""

    _ALIASES: ClassVar[dict[str, str]] = {"psi": "digamma"}

    def __getattr__(self, name: str) -> Any:
        import jax.scipy.special
        fn = getattr(jax.scipy.special, self._ALIASES.get(name, name), None)
        if fn is not None:
            return fn
        import scipy.special  # optional: only the special functions JAX lacks need it
        host = getattr(scipy.special, name)

        def on_host(*args: Any, **kwargs: Any) -> Any:
            out = host(*(backend.to_host(a, f"scipy.special.{name}") if isinstance(a, jax.Array)
                         else a for a in args), **kwargs)
            return tuple(map(jnp.asarray, out)) if isinstance(out, tuple) else jnp.asarray(out)
        return on_host


_SPECIAL = _Special()


class _HostRandom:
    """A NumPy ``Generator`` whose draws come back as JAX arrays (torch's seeding semantics:
    one stream per seed, the same values as the NumPy backend's)."""

    def __init__(self, seed: Any) -> None:
        self._rng = np.random.default_rng(seed)

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._rng, name)

        def draw(*args: Any, **kwargs: Any) -> Any:
            out = method(*args, **kwargs)
            return jnp.asarray(out) if isinstance(out, np.ndarray) else out
        return draw


class _Linalg:
    """``jax.numpy.linalg`` reading one triangle in eigvalsh, as LAPACK (NumPy, torch) does:
    JAX symmetrises the input by default."""

    def __getattr__(self, name: str) -> Any:
        return getattr(jnp.linalg, name)

    @staticmethod
    def eigvalsh(a: Any, UPLO: str = "L") -> Any:  # noqa: N803
        return jnp.linalg.eigvalsh(_one_triangle(a, UPLO))


def _one_triangle(a: Any, uplo: str) -> Any:
    """The Hermitian matrix that ``a``'s lower (``'L'``) or upper triangle defines."""
    part = jnp.tril(a) if uplo.upper() == "L" else jnp.triu(a)
    strict = jnp.tril(a, -1) if uplo.upper() == "L" else jnp.triu(a, 1)
    diagonal = jnp.real(jnp.diagonal(a, axis1=-2, axis2=-1)) if jnp.iscomplexobj(a) else None
    full = part + jnp.conj(jnp.swapaxes(strict, -1, -2))
    if diagonal is not None:  # LAPACK ignores the imaginary part of the diagonal
        full = full - jnp.imag(jnp.diagonal(full, axis1=-2, axis2=-1))[..., None] * 1j * \
            jnp.eye(a.shape[-1], dtype=a.dtype)
    return full


class _NumPy:
    """``jax.numpy`` as the NumPy-shaped namespace, with ``_Linalg`` for its linalg."""

    linalg = _Linalg()

    def __getattr__(self, name: str) -> Any:
        found = getattr(jnp, name)
        setattr(self, name, found)  # looked up once: later calls find a plain attribute
        return found


class JaxBackend(Backend):
    name = "jax"
    array_type = ArrayImpl
    numpy_protocols = False
    native_ops = True  # JAX's convolution and pools (``native``)
    mutable = False
    xp = jnp
    np = _NumPy()

    def native(self, names: tuple[str, ...]) -> Any:
        """XLA's own primitive where JAX has one for the operation (``native.PRIMITIVES``:
        convolutions, pools): one op under ``jax.jit`` instead of interop's generic form."""
        for name in names:
            found = PRIMITIVES.get(name)
            if found is not None:
                return found
        return None

    def numpy_function(self, func: Any, method: str = "__call__") -> Any:
        """NumPy's function of the same name in ``jax.numpy``; ufunc methods too (``reduce``,
        ``accumulate``, ``outer``), except ``at``, which writes in place."""
        if method == "__call__" or method == "at":
            return super().numpy_function(func, method)
        ufunc = super().numpy_function(func)
        return getattr(ufunc, method, None)

    def owns(self, raw: Any) -> bool:
        if isinstance(raw, jax.Array):  # concrete arrays and tracers alike
            _register(type(raw))
            return True
        return False

    def device_of(self, raw: Any) -> Device:
        return JAX_CPU

    def serves(self, device: Device) -> bool:
        return device.type == "cpu" and device.backend in (None, self.name)

    def native_device(self, device: Device) -> Any:
        return jax.devices("cpu")[0]

    def copy(self, raw: Any) -> Any:
        return jnp.array(raw, copy=True)

    def asarray(self, data: Any, dtype: numpy.dtype | None = None, device: Device | None = None,
                copy: bool | None = None, **options: Any) -> Any:
        if device is not None and Device(device).type != "cpu":
            raise DeviceMismatchError(f"the jax backend holds data on the cpu, not on {device}: "
                                      "use backend='cupy' (or device='cuda') for GPU tensors")
        if isinstance(data, np.ndarray) and not data.flags.c_contiguous:
            data = np.ascontiguousarray(data)
        return jnp.array(data, dtype=dtype, copy=copy is not False) \
            if not isinstance(data, jax.Array) else jnp.asarray(data, dtype=dtype, copy=copy)

    def create(self, fn: str, *args: Any, device: Device | None = None, chunks: Any = None,
               **kwargs: Any) -> Any:
        return getattr(jnp, fn)(*args, **kwargs)

    def to_device(self, raw: Any, device: Any) -> Any:
        if Device(device).type == "cpu":
            return raw
        return super().to_device(raw, device)

    def random(self, seed: Any) -> Any:
        return _HostRandom(seed)

    def contiguous(self, raw: Any) -> Any:
        return raw  # JAX arrays have no memory layout to fix

    def ufunc(self, name: str) -> Any:
        """``jax.numpy``'s ufunc ``name``; a function that is not one (``maximum``) made one
        (``jnp.frompyfunc``), for its ``accumulate``, ``reduce``, ``reduceat``."""
        fn = getattr(jnp, name, None)
        if fn is None or isinstance(fn, jnp.ufunc):
            return fn if fn is not None else super().ufunc(name)
        made = _UFUNCS.get(name)
        if made is None:
            made = _UFUNCS[name] = jnp.frompyfunc(fn, 2, 1)
        return made

    @property
    def special(self) -> Any:
        return _SPECIAL

    def per_block(self, fn: Any, raw: Any) -> Any:
        return jnp.asarray(fn(self.to_host(raw, "a SciPy function")))

    # Writes: out of place, replayed (views.py); the holders of the array are rebound.
    def view_at(self, raw: Any, index: tuple) -> Any:
        return views.remember(raw[index], raw, index)

    def advanced_assign(self, raw: Any, items: tuple, value: Any) -> None:
        views.forward(raw, views.latest(raw).at[items].set(value))

    def updated(self, raw: Any, index: Any, value: Any, how: str | None = None) -> Any:
        return getattr(raw.at[index], _AT[how])(value)

    def write_at(self, raw: Any, index: Any, value: Any, name: str = "t[index] = value") -> None:
        views.forward(raw, views.latest(raw).at[index].set(value))

    def to_host(self, raw: Any, why: str = "") -> numpy.ndarray:
        try:
            return np.asarray(raw)
        except (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError) as exc:
            raise TracedValueError(
                f"{why or 'a value read'}: the values of a JAX-backed tensor are not known while "
                "jax.jit, jax.grad or jax.vmap traces the function; compute without reading "
                "values (interop.where(...) instead of if/else on a tensor, sizes from shapes), "
                "or read them outside the traced function") from exc

    def peek(self, raw: Any) -> Any:
        """None for a value being traced (jit, grad, vmap): a check that needs it is left out."""
        try:
            return super().peek(raw)
        except TracedValueError:
            return None

    def explain_error(self, name: str, args: list, exc: Exception) -> Exception | None:
        """JAX's errors for values needed while tracing, in interop's words (a size, an index
        or a condition that depends on values: nonzero, unique, t[mask], t[t.argmax()])."""
        if not isinstance(exc, _TRACED):
            return None
        return TracedValueError(
            f"{name}: needs values of a JAX-backed tensor (a size, an index or a condition "
            "that depends on them) while jax.jit, jax.grad or jax.vmap traces the function; "
            "keep sizes static (interop.where(mask, x, 0) instead of x[mask]), or run this "
            "part outside the traced function")

    def register_tensor_type(self, cls: type) -> None:
        """``cls`` (``Tensor`` or a subclass) becomes a JAX pytree with one leaf, its array;
        its class and attributes travel in the tree's static part."""
        try:
            jax.tree_util.register_pytree_node(cls, _flatten, _unflatten)
        except ValueError:  # registered already
            pass


class _Static:
    """A tensor's static part in a pytree: how pickle would rebuild it, less the array.
    Equal when the class and the attributes are (jit caches compiled code by it)."""

    __slots__ = ("rebuild", "args")

    def __init__(self, rebuild: Any, args: tuple) -> None:
        self.rebuild, self.args = rebuild, args

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Static) or self.rebuild is not other.rebuild \
                or len(self.args) != len(other.args):
            return False
        for a, b in zip(self.args, other.args):
            if a is not b:
                try:
                    if not bool(a == b):
                        return False
                except Exception:  # noqa: BLE001 - arrays among the attributes: by identity
                    return False
        return True

    def __hash__(self) -> int:
        return hash((self.rebuild, self.args[0]))


def _flatten(t: Any) -> tuple[tuple, _Static]:
    rebuild, (cls, raw, *rest) = t.__reduce_ex__(2)
    return (raw,), _Static(rebuild, (cls, *rest))


def _unflatten(static: _Static, leaves: tuple) -> Any:
    cls, *rest = static.args
    (raw,) = leaves
    if isinstance(raw, jax.Array):
        registry.backend_of(raw)  # a tracer type seen for the first time: known from now on
    return static.rebuild(cls, raw, *rest)


backend = JaxBackend()
_register(ArrayImpl)
