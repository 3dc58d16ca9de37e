"""torch functions that are compositions of backend primitives: fused arithmetic
(addmm, addcmul, lerp, ...), small pointwise functions (frac, heaviside, gcd, ...),
stacking and splitting helpers (hstack, tensor_split, rot90, ...) and a few
statistics (cummax, nansum, median, quantile, var_mean, ...), with torch's
signatures, dtypes and named-tuple results.
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import numpy as np

from .. import dtypes
from ..backends import views
from ..backends.registry import host_values, python_value
from ._args import cast, check_dim, float_input, ordered, promote
from .reductions import values_indices
from .registry import op, torch_alias, torch_names
from .shape import _reshape


def cop(name: str | None = None, **options: Any) -> Any:
    """``@op`` for this module: a torch function that is also a Tensor method gets both."""
    def register(impl: Any) -> Any:
        key = name or impl.__name__
        if f"torch.Tensor.{key}" in options.get("torch", ()):
            options["method"] = key  # torch has t.<key>(...): so does the interop Tensor
        op(key, **options)(impl)
        return impl
    return register


_MINMAX = namedtuple("aminmax", ["min", "max"])

# What Dask's array library cannot express (declared on the records, read by the tests and docs).
NO_DASK_ACCUMULATE = {"dask": "dask.array has no ufunc.accumulate"}


def _scaled(x: Any, s: Any) -> Any:
    return x if s == 1 else x * s


def _fused(input: Any, prod: Any, beta: Any, alpha: Any, *operands: Any) -> Any:
    """beta * input + alpha * prod in the operands' dtype (beta=0 ignores input, nan too);
    integer tensors take integer scalars (torch truncates 0.6 to 0)."""
    dt = dtypes.result_type(input, *operands)
    if dt.kind in "iu":
        alpha, beta = int(alpha), int(beta)
    out = _scaled(prod, alpha)
    if beta != 0:
        out = out + _scaled(input, beta)
    return out if out.dtype == dt else out.astype(dt)


# ------------------------------------------------------------------ fused arithmetic
@cop(method=False, torch=torch_names("addmm", method=True), family="composite")
def addmm(be: Any, input: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """beta * input + alpha * (mat1 @ mat2); beta=0 ignores input (nan included)."""
    return _fused(input, be.np.matmul(mat1, mat2), beta, alpha, mat1, mat2)


@cop(method=False, torch=torch_names("addmv", method=True), family="composite")
def addmv(be: Any, input: Any, mat: Any, vec: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """beta * input + alpha * (mat @ vec)."""
    return _fused(input, be.np.matmul(mat, vec), beta, alpha, mat, vec)


@cop(method=False, torch=torch_names("addr", method=True), family="composite")
def addr(be: Any, input: Any, vec1: Any, vec2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """beta * input + alpha * outer(vec1, vec2)."""
    prod = vec1[:, None] * vec2[None, :]
    if prod.dtype.kind == "b":
        return be.np.logical_or(prod, input) if beta else prod
    prod = _scaled(prod, alpha)
    return prod + _scaled(input, beta) if beta != 0 else prod


@cop(method=False, torch=torch_names("baddbmm", method=True), family="composite")
def baddbmm(be: Any, input: Any, batch1: Any, batch2: Any, *, beta: Any = 1,
            alpha: Any = 1) -> Any:
    """beta * input + alpha * (batch1 @ batch2), batch by batch."""
    return _fused(input, be.np.matmul(batch1, batch2), beta, alpha, batch1, batch2)


@cop(method=False, torch=torch_names("addbmm", method=True), family="composite")
def addbmm(be: Any, input: Any, batch1: Any, batch2: Any, *, beta: Any = 1,
           alpha: Any = 1) -> Any:
    """beta * input + alpha * sum_b(batch1[b] @ batch2[b])."""
    return _fused(input, be.np.sum(be.np.matmul(batch1, batch2), axis=0), beta, alpha, batch1, batch2)


@cop(method=False, torch=torch_names("addcmul", method=True), family="composite")
def addcmul(be: Any, input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Any:
    """input + value * tensor1 * tensor2."""
    a, b, c = promote(input, tensor1, tensor2)
    return a + _scaled(b * c, value)


@cop(method=False, torch=torch_names("addcdiv", method=True), family="composite")
def addcdiv(be: Any, input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Any:
    """input + value * tensor1 / tensor2 (integer tensors refused, as torch)."""
    a, b, c = promote(input, tensor1, tensor2)
    if getattr(b, "dtype", np.dtype("f")).kind in "biu":
        raise RuntimeError("Integer division with addcdiv is no longer supported; use "
                           "addcmul(input, tensor1, 1 / tensor2) or float tensors")
    return a + _scaled(b / c, value)


@cop(method=False, torch=torch_names("lerp", method=True), family="composite")
def lerp(be: Any, input: Any, end: Any, weight: Any) -> Any:
    """input + weight * (end - input), as torch computes it (exact at weight 0 and 1)."""
    a, b = promote(input, end)
    w = cast(weight, a.dtype) if hasattr(weight, "dtype") else weight
    return be.np.where(be.np.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w)).astype(a.dtype)


# ------------------------------------------------------------------ pointwise
@cop(method=False, torch=torch_names("frac", method=True), family="composite")
def frac(be: Any, input: Any) -> Any:
    """x - trunc(x)."""
    return input - be.np.trunc(input)


@cop(method=False, torch=torch_names("heaviside", method=True), family="composite")
def heaviside(be: Any, input: Any, values: Any) -> Any:
    """0 for x < 0, values for x == 0, 1 for x > 0 (and 0 for NaN, as torch's kernel)."""
    if getattr(input, "dtype", None) != getattr(values, "dtype", None):
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    return be.np.where(input == 0, values, input > 0).astype(input.dtype)


def _integer_pair(name: str, fn: str) -> None:
    def impl(be: Any, input: Any, other: Any) -> Any:
        a, b = promote(input, other)
        if getattr(a, "dtype", np.dtype("i")).kind not in "iu":
            raise RuntimeError(f'"{name}_cpu" not implemented for {a.dtype} tensors')
        return be.ufunc(fn)(a, b)
    impl.__name__, impl.__doc__ = name, f"Elementwise {name} of integer tensors."
    cop(name, method=False, torch=torch_names(name, method=True), family="composite")(impl)


_integer_pair("gcd", "gcd")
_integer_pair("lcm", "lcm")


@cop(method=False, torch=torch_names("ldexp", method=True), family="composite")
def ldexp(be: Any, input: Any, other: Any) -> Any:
    """input * 2 ** other, in floating point."""
    a = float_input(be, input)
    return a * be.np.exp2(cast(other, a.dtype) if hasattr(other, "dtype") else other)


@cop(method=False, torch=torch_names("float_power", method=True), family="composite")
def float_power(be: Any, input: Any, exponent: Any) -> Any:
    """input ** exponent in double precision (complex128 for complex operands)."""
    complex_ = any(getattr(x, "dtype", np.dtype(type(x) if not isinstance(x, bool) else "b")).kind
                   == "c" for x in (input, exponent))
    dt = np.dtype("complex128" if complex_ else "float64")
    return be.np.power(cast(input, dt), cast(exponent, dt) if hasattr(exponent, "dtype")
                       else exponent)


@cop(method=False, torch=torch_names("sgn", method=True), family="composite")
def sgn(be: Any, input: Any) -> Any:
    """sign for real tensors; x / |x| (0 at 0) for complex ones."""
    if input.dtype.kind != "c":
        return input.copy() if input.dtype.kind == "b" else be.np.sign(input)
    a = be.np.abs(input)
    return be.np.where(a == 0, 0, input / be.np.where(a == 0, 1, a)).astype(input.dtype)


def _inf_test(name: str, sign: int) -> None:
    def impl(be: Any, input: Any) -> Any:
        if input.dtype.kind in "biu":
            return be.np.zeros_like(input, dtype=bool)
        return (input == sign * np.inf)
    impl.__name__, impl.__doc__ = name, f"True where x is {'+' if sign > 0 else '-'}inf."
    cop(name, method=False, torch=torch_names(name, method=True), family="composite")(impl)


_inf_test("isposinf", 1)
_inf_test("isneginf", -1)


@cop(method=False, torch=torch_names("isreal", method=True), family="composite")
def isreal(be: Any, input: Any) -> Any:
    """True where the imaginary part is 0 (everywhere for real tensors)."""
    if input.dtype.kind != "c":
        return be.np.ones_like(input, dtype=bool)
    return be.np.imag(input) == 0


@cop(method=False, torch=torch_names("angle", method=True), family="composite")
def angle(be: Any, input: Any) -> Any:
    """The argument of each element (0 or pi for real numbers; nan stays nan)."""
    if input.dtype.kind == "c":
        return be.np.angle(input)
    x = float_input(be, input)
    return be.np.where(x < 0, x.dtype.type(math.pi), be.np.where(be.np.isnan(x), x, 0)).astype(x.dtype)


def _clamp_side(name: str, fn: str) -> None:
    def impl(be: Any, input: Any, bound: Any) -> Any:
        a, b = promote(input, bound)
        return getattr(be.np, fn)(a, b)
    impl.__name__, impl.__doc__ = name, f"{name}: elementwise bound, torch's promotion."
    cop(name, method=False, torch=torch_names(name, method=True), family="composite")(impl)


_clamp_side("clamp_min", "maximum")
_clamp_side("clamp_max", "minimum")


# ------------------------------------------------------------------ products
@cop(method=False, torch=torch_names("inner", method=True), family="composite")
def inner(be: Any, input: Any, other: Any) -> Any:
    """Sum over the last dims of both (a scalar operand multiplies)."""
    a, b = promote(input, other)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return be.np.tensordot(a, b, axes=([-1], [-1]))


@cop(method=False, torch=torch_names("kron", method=True), family="composite")
def kron(be: Any, input: Any, other: Any) -> Any:
    """The Kronecker product: every pair of axes (a's i-th, b's i-th) merged into one."""
    a, b = promote(input, other)
    n = max(a.ndim, b.ndim)
    a = be.np.reshape(a, (1,) * (n - a.ndim) + tuple(a.shape))
    b = be.np.reshape(b, (1,) * (n - b.ndim) + tuple(b.shape))
    pairs = be.np.reshape(a, [s for d in a.shape for s in (d, 1)]) * \
        be.np.reshape(b, [s for d in b.shape for s in (1, d)])
    return be.np.reshape(pairs, tuple(x * y for x, y in zip(a.shape, b.shape)))


@cop(method=False, torch=torch_names("vdot", method=True), family="composite")
def vdot(be: Any, input: Any, other: Any) -> Any:
    """sum(conj(input) * other) of two 1-d tensors of one dtype."""
    if input.dtype != other.dtype:
        raise RuntimeError(f"vdot: expected both vectors to have same dtype, but found "
                           f"{input.dtype} and {other.dtype}")
    return be.np.sum(be.np.conj(input) * other)


@cop(method=False, torch=torch_names("cross", method=True), family="composite")
def cross(be: Any, input: Any, other: Any, dim: Any = None) -> Any:
    """The 3-vector cross product along ``dim`` (default: the first dim of size 3)."""
    a, b = be.np.broadcast_arrays(*promote(input, other))
    if dim is None:
        dim = next(i for i, s in enumerate(a.shape) if s == 3)
    if a.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a.shape[dim]} and {b.shape[dim]}")
    x, y = ([be.np.take(v, i, axis=dim) for i in range(3)] for v in (a, b))
    return be.np.stack([x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2],
                        x[0] * y[1] - x[1] * y[0]], axis=dim)


@cop(method=False, torch=torch_names("diag_embed", method=True), family="composite")
def diag_embed(be: Any, input: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
    """Matrices with the last dim of ``input`` on their ``offset`` diagonal."""
    n = input.shape[-1] + abs(offset)
    rows = be.np.arange(input.shape[-1]) + max(-offset, 0)
    cols = be.np.arange(input.shape[-1]) + max(offset, 0)
    hot = (be.np.arange(n)[:, None] == rows) [:, None, :] & (be.np.arange(n)[None, :, None] == cols)
    out = be.np.sum(be.np.where(hot, input[..., None, None, :], input.dtype.type(0)), axis=-1)
    out = out.astype(input.dtype)
    d1, d2 = dim1 % (input.ndim + 1), dim2 % (input.ndim + 1)
    return be.np.moveaxis(out, (-2, -1), (d1, d2))


@cop(method=False, torch=torch_names("diagflat", method=True), family="composite")
def diagflat(be: Any, input: Any, offset: int = 0) -> Any:
    """A matrix with the flattened input on its ``offset`` diagonal."""
    return be.np.diag(be.np.reshape(input, (-1,)), k=offset)


# ------------------------------------------------------------------ stacking and splitting
def _stacker(name: str, fn: str) -> None:
    def impl(be: Any, tensors: Any) -> Any:
        parts = list(promote(*tensors)) if len(tensors) > 1 else list(tensors)
        if fn == "column_stack":  # vectors (and 0-d) as columns, then side by side
            return be.np.hstack([be.np.reshape(t, (-1, 1)) if t.ndim < 2 else t for t in parts])
        return getattr(be.np, fn)(parts)
    impl.__name__, impl.__doc__ = name, f"{name} of a sequence of tensors (dtypes promoted)."
    cop(name, method=False, torch=torch_names(name), family="composite")(impl)


for _name in ("hstack", "vstack", "dstack", "column_stack"):
    _stacker(_name, _name)


@cop(method=False, torch=torch_names("fliplr", method=True), family="composite")
def fliplr(be: Any, input: Any) -> Any:
    """Reverse the columns (dim 1)."""
    return be.np.flip(input, axis=1)


@cop(method=False, torch=torch_names("flipud", method=True), family="composite")
def flipud(be: Any, input: Any) -> Any:
    """Reverse the rows (dim 0)."""
    return be.np.flip(input, axis=0)


@cop(method=False, torch=torch_names("rot90", method=True), family="composite")
def rot90(be: Any, input: Any, k: int = 1, dims: Any = (0, 1)) -> Any:
    """Rotate by 90 degrees k times in the plane of ``dims``."""
    return be.np.rot90(input, k, axes=tuple(dims))


@cop(method=False, torch=torch_names("unflatten", method=True), family="composite")
def unflatten(be: Any, input: Any, dim: int, sizes: Any) -> Any:
    """Split ``dim`` into ``sizes`` (one entry may be -1)."""
    d = check_dim("unflatten", dim, input.ndim)
    sizes = list(sizes)
    if -1 in sizes:
        known = math.prod(s for s in sizes if s != -1)
        sizes[sizes.index(-1)] = input.shape[d] // known if known else 0
    return views.reshaped(_reshape(be, input, (*input.shape[:d], *sizes, *input.shape[d + 1:])),
                          input)


@cop(method=False, torch=torch_names("tensor_split", method=True), family="composite")
def tensor_split(be: Any, input: Any, indices_or_sections: Any, dim: int = 0) -> Any:
    """Split into n near-equal parts, or at the given indices."""
    d = check_dim("tensor_split", dim, input.ndim)
    spec = indices_or_sections
    if hasattr(spec, "ndim"):
        spec = host_values(spec, "tensor_split(): indices_or_sections").tolist()
    size = input.shape[d]
    if isinstance(spec, int):
        q, r = divmod(size, spec)
        bounds = [i * q + min(i, r) for i in range(spec + 1)]
    else:
        bounds = [0, *[min(max(int(i), 0), size) for i in spec], size]
    pre = (slice(None),) * d
    parts = ((*pre, slice(lo, max(lo, hi))) for lo, hi in zip(bounds, bounds[1:]))
    return tuple(views.remember(input[part], input, part) for part in parts)


def _split_at(name: str, dim: int, min_ndim: int) -> None:
    def impl(be: Any, input: Any, indices_or_sections: Any) -> Any:
        if input.ndim < min_ndim:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_ndim} "
                               f"dimension, but got a tensor with {input.ndim} dimensions!")
        d = 0 if name == "hsplit" and input.ndim == 1 else dim
        if isinstance(indices_or_sections, int) and input.shape[d] % indices_or_sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the "
                               f"size of the dimension {input.shape[d]} is not divisible by "
                               f"the split_size {indices_or_sections}!")
        return tensor_split(be, input, indices_or_sections, d)
    impl.__name__, impl.__doc__ = name, f"tensor_split along dim {dim}."
    cop(name, method=False, torch=torch_names(name, method=True), family="composite")(impl)


_split_at("hsplit", 1, 1)
_split_at("vsplit", 0, 2)
_split_at("dsplit", 2, 3)


@cop(method=False, torch=torch_names("select", method=True), family="composite")
def select(be: Any, input: Any, dim: int, index: int) -> Any:
    """input[..., index, ...] at ``dim`` (a view)."""
    d = check_dim("select", dim, input.ndim)
    if not -input.shape[d] <= index < input.shape[d]:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {d}")
    index = (slice(None),) * d + (index,)
    return views.remember(input[index], input, index)


@cop(method=False, torch=torch_names("argwhere", method=True), family="composite")
def argwhere(be: Any, input: Any) -> Any:
    """(n, ndim) int64 indices of the nonzero elements."""
    if input.size == 0:  # no elements, no indices: a known size (Dask's argwhere fails there)
        return be.np.zeros((0, input.ndim), dtype=dtypes.int64)
    if input.ndim == 0:  # (n, 0): found as one element's, without its column
        return be.np.argwhere(be.np.reshape(input, (1,)))[:, :0].astype(dtypes.int64)
    return be.np.argwhere(input).astype(dtypes.int64)


@cop(method=False, torch=torch_names("msort", method=True), family="composite")
def msort(be: Any, input: Any) -> Any:
    """Sort along dim 0."""
    return be.np.sort(ordered("msort", input), axis=0)


# ------------------------------------------------------------------ statistics
def _cum_extreme(name: str, better: str) -> None:
    def impl(be: Any, input: Any, dim: int) -> Any:
        d = check_dim(name, dim, ordered(name, input).ndim) if input.ndim else 0
        x = input if input.ndim else be.np.reshape(input, (1,))
        values = be.ufunc(better).accumulate(x, axis=d)
        n = x.shape[d]
        pos = be.np.reshape(be.np.arange(n), (n,) + (1,) * (x.ndim - d - 1))
        hit = (x == values) | (be.np.isnan(x) if x.dtype.kind == "f" else False)
        indices = be.ufunc("maximum").accumulate(be.np.where(hit, pos, 0), axis=d).astype(
            dtypes.int64)
        if not input.ndim:
            values, indices = be.np.reshape(values, ()), be.np.reshape(indices, ())
        return values_indices[name](values, indices)
    impl.__name__, impl.__doc__ = name, f"Running {better} along ``dim`` and where it was seen."
    cop(name, method=False, torch=torch_names(name, method=True), family="composite",
        lacks=NO_DASK_ACCUMULATE)(impl)


_cum_extreme("cummax", "fmax")
_cum_extreme("cummin", "fmin")


@cop(method=False, torch=torch_names("logcumsumexp", method=True), family="composite",
     lacks=NO_DASK_ACCUMULATE)
def logcumsumexp(be: Any, input: Any, dim: int) -> Any:
    """log(cumsum(exp(x))) along ``dim``, computed stably."""
    x = float_input(be, input)
    if not x.ndim:
        return x.copy()
    d = check_dim("logcumsumexp", dim, x.ndim)
    return be.ufunc("logaddexp").accumulate(x, axis=d)


@cop(method=False, torch=torch_names("nansum", method=True), family="composite",
     all_dims_if_empty=True)
def nansum(be: Any, input: Any, dim: Any = None, keepdim: bool = False, *,
           dtype: Any = None) -> Any:
    """Sum ignoring nan (integers accumulate in int64)."""
    d = check_dim("nansum", dim, input.ndim)
    dt = dtypes.as_dtype(dtype) or (dtypes.int64 if input.dtype.kind in "biu" else input.dtype)
    return be.np.nansum(input, axis=d, keepdims=keepdim, dtype=dt)


@cop(method=False, torch=torch_names("nanmean", method=True), family="composite",
     all_dims_if_empty=True)
def nanmean(be: Any, input: Any, dim: Any = None, keepdim: bool = False, *,
            dtype: Any = None) -> Any:
    """Mean ignoring nan (floating tensors only)."""
    x = input.astype(dtypes.as_dtype(dtype)) if dtype is not None else input
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype "
                           f"but got {x.dtype}")
    d = check_dim("nanmean", tuple(dim) if isinstance(dim, list) else dim, x.ndim)
    count = be.np.sum(~be.np.isnan(x), axis=d, keepdims=keepdim)
    return (be.np.nansum(x, axis=d, keepdims=keepdim) / count).astype(x.dtype)


@cop(method=False, torch=torch_names("aminmax", method=True), family="composite")
def aminmax(be: Any, input: Any, *, dim: Any = None, keepdim: bool = False) -> Any:
    """(min, max) together."""
    d = check_dim("aminmax", dim, ordered("aminmax", input).ndim)
    return _MINMAX(be.np.min(input, axis=d, keepdims=keepdim),
                   be.np.max(input, axis=d, keepdims=keepdim))


def _moments(name: str, root: bool) -> None:
    def impl(be: Any, input: Any, dim: Any = None, unbiased: Any = None, keepdim: bool = False,
             *, correction: Any = None) -> Any:
        if isinstance(dim, bool):
            dim, unbiased = None, dim
        ddof = float(correction) if correction is not None else (0.0 if unbiased is False else 1.0)
        d = check_dim(name, dim, input.ndim)
        var = be.np.var(input, axis=d, keepdims=keepdim, ddof=ddof)
        mean = be.np.mean(input, axis=d, keepdims=keepdim)
        return (be.np.sqrt(var) if root else var, mean)
    impl.__name__, impl.__doc__ = name, f"({'std' if root else 'var'}, mean) in one call."
    cop(name, method=False, torch=torch_names(name), family="composite",
        all_dims_if_empty=True)(impl)


_moments("var_mean", False)
_moments("std_mean", True)


def _lower_median(be: Any, x: Any, d: int, skip_nan: bool) -> tuple[Any, Any]:
    """torch's median: the lower of the two middle values, and its index."""
    order = be.xp.argsort(x, axis=d, stable=True)  # the standard's spelling: every backend's
    ranked = be.np.take_along_axis(x, order, axis=d)
    n = x.shape[d]
    if skip_nan:
        valid = be.np.sum(~be.np.isnan(x), axis=d, keepdims=True)
        k = be.np.maximum((valid - 1) // 2, 0)
    else:
        has_nan = be.np.any(be.np.isnan(x), axis=d, keepdims=True) if x.dtype.kind == "f" else False
        k = be.np.where(has_nan, n - 1, (n - 1) // 2) if x.dtype.kind == "f" else \
            be.np.full((1,) * x.ndim, (n - 1) // 2)
        if x.dtype.kind == "f":  # the first nan, as torch reports it
            first_nan = be.np.argmax(be.np.isnan(ranked), axis=d)
            k = be.np.where(has_nan, be.np.expand_dims(first_nan, d), k)
    k = be.np.broadcast_to(k, (*x.shape[:d], 1, *x.shape[d + 1:])).astype(np.int64)
    return (be.np.take_along_axis(ranked, k, axis=d), be.np.take_along_axis(order, k, axis=d))


def _median(name: str, skip_nan: bool) -> None:
    def impl(be: Any, input: Any, dim: Any = None, keepdim: bool = False) -> Any:
        ordered(name, input)
        if dim is None:
            flat = be.np.reshape(input, (-1,))
            if flat.size == 0:
                return be.np.asarray(np.nan, dtype=input.dtype)
            return be.np.reshape(_lower_median(be, flat, 0, skip_nan)[0], ())
        d = check_dim(name, dim, input.ndim) if input.ndim else 0
        x = input if input.ndim else be.np.reshape(input, (1,))
        values, indices = _lower_median(be, x, d, skip_nan)
        if not keepdim or not input.ndim:
            values, indices = be.np.squeeze(values, axis=d), be.np.squeeze(indices, axis=d)
        return values_indices["median"](values, indices.astype(dtypes.int64))
    impl.__name__ = name
    impl.__doc__ = "The lower median (torch's), with indices when ``dim`` is given."
    cop(name, method=False, torch=torch_names(name, method=True), family="composite")(impl)


_median("median", False)
_median("nanmedian", True)


def _quantile(name: str, skip_nan: bool) -> None:
    def impl(be: Any, input: Any, q: Any, dim: Any = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Any:
        fn = be.np.nanquantile if skip_nan else be.np.quantile
        if input.ndim == 0:  # a 0-d input is a 1-element vector to torch
            out = impl(be, be.np.reshape(input, (1,)), q, None if dim is None else 0, False,
                       interpolation=interpolation)
            return out
        qq = q.astype(input.dtype) if hasattr(q, "dtype") else q
        out = fn(input, qq, axis=dim, keepdims=keepdim, method=interpolation)
        if not skip_nan and input.dtype.kind == "f" and input.size:
            has_nan = be.np.any(be.np.isnan(input), axis=dim, keepdims=keepdim)
            out = be.np.where(has_nan, input.dtype.type(np.nan), out)
        return out.astype(input.dtype)
    impl.__name__, impl.__doc__ = name, "Quantiles (q in [0, 1]) along ``dim`` or overall."
    cop(name, method=False, torch=torch_names(name, method=True), family="composite")(impl)


_quantile("quantile", False)
_quantile("nanquantile", True)


@cop(method=False, torch=torch_names("dist", method=True), family="composite")
def dist(be: Any, input: Any, other: Any, p: Any = 2) -> Any:
    """The p-norm of input - other."""
    diff = be.np.abs(be.np.subtract(*promote(input, other)))
    if p == float("inf"):
        return be.np.max(diff)
    if p == float("-inf"):
        return be.np.min(diff)
    if p == 0:
        return be.np.sum(diff != 0).astype(diff.dtype)
    return be.np.sum(diff ** p) ** (1 / p)


@cop(method=False, torch=torch_names("cov", method=True), family="composite")
def cov(be: Any, input: Any, *, correction: int = 1, fweights: Any = None,
        aweights: Any = None) -> Any:
    """Covariance of the rows (variables) over the columns (observations)."""
    out = be.np.cov(input, ddof=correction, fweights=fweights, aweights=aweights)
    return out.astype(input.dtype if input.dtype.kind in "fc" else dtypes.get_default_dtype())


@cop(method=False, torch=torch_names("corrcoef", method=True), family="composite")
def corrcoef(be: Any, input: Any) -> Any:
    """Pearson correlation coefficients of the rows."""
    out = be.np.corrcoef(input)
    return out.astype(input.dtype if input.dtype.kind in "fc" else dtypes.get_default_dtype())


@cop(method=False, torch=torch_names("bucketize"), family="composite")
def bucketize(be: Any, input: Any, boundaries: Any, *, out_int32: bool = False,
              right: bool = False) -> Any:
    """The bucket index of each element among sorted ``boundaries``."""
    out = be.np.searchsorted(boundaries, input, side="right" if right else "left")
    return out.astype(np.int32 if out_int32 else np.int64)


@cop(method=False, torch=torch_names("histc", method=True), family="composite")
def histc(be: Any, input: Any, bins: int = 100, min: Any = 0, max: Any = 0) -> Any:  # noqa: A002
    """Counts in ``bins`` equal bins over [min, max] (the data's range when both are 0)."""
    lo, hi = float(python_value(min, "histc(): min")), float(python_value(max, "histc(): max"))
    if lo == hi and input.size:  # the data's range: a value read
        lo, hi = (float(v) for v in host_values(be.np.stack([be.np.min(input), be.np.max(input)]),
                                                "histc() without min and max: the data's range"))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    counts, _ = be.np.histogram(input, bins=bins, range=(lo, hi))
    return counts.astype(input.dtype)


@cop(method=False, torch=torch_names("trapezoid"), family="composite")
def trapezoid(be: Any, y: Any, x: Any = None, *, dx: Any = None, dim: int = -1) -> Any:
    """The trapezoid rule along ``dim`` (spacing ``dx``, or sample points ``x``)."""
    y = be.np.moveaxis(float_input(be, y), dim, -1)
    if x is None:
        widths = 1 if dx is None else dx
    else:  # sample points: along dim (same shape as y) or one 1-d row for every lane
        x = be.np.moveaxis(x, dim, -1) if x.ndim == y.ndim else x
        widths = x[..., 1:] - x[..., :-1]
    out = be.np.sum((y[..., 1:] + y[..., :-1]) * widths, axis=-1) / 2
    return out.astype(dtypes.result_type(y, x) if x is not None else y.dtype)


torch_alias("torch.trapz", to="trapezoid")


def _atleast(n: int) -> None:
    def impl(be: Any, *tensors: Any) -> Any:
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            return tuple(impl(be, *tensors[0]))
        out = [getattr(be.np, f"atleast_{n}d")(x) for x in tensors]
        return out[0] if len(out) == 1 else tuple(out)
    impl.__name__, impl.__doc__ = f"atleast_{n}d", f"Tensors with at least {n} dimensions."
    cop(f"atleast_{n}d", method=False, torch=(f"torch.atleast_{n}d",), family="composite")(impl)


_atleast(2)
_atleast(3)
