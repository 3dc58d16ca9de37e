"""torch's sampling functions on interop tensors (torch.normal, torch.multinomial), as
``torch.distributions`` calls them in ``sample()``.

Draws follow torch's seeding: a draw without a generator takes its seed from torch's default
generator (``torch.manual_seed(s)`` repeats it), one with a ``torch.Generator`` from that
generator, one with an ``interop.Generator`` from it.  The seed starts the backend's own
generator, so Dask draws lazily, chunk by chunk.  The values differ from torch's own draws
(another generator), as NumPy's differ from CuPy's.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ... import dtypes
from ...errors import ArgumentTypeError
from ..registry import op
from .factories import Generator


def backend_rng(be: Any, generator: Any) -> Any:
    """The backend's random generator for one draw, seeded as the module docstring says."""
    if isinstance(generator, Generator):
        return generator.for_backend(be)
    torch = sys.modules["torch"]  # reached from torch's functions only
    seed = int(torch.randint(0, 2 ** 62, (), generator=generator))
    return be.random(seed)


def _shape_and_chunks(be: Any, *operands: Any) -> tuple[tuple, dict]:
    arrays = [o for o in operands if hasattr(o, "shape")]
    shape = np.broadcast_shapes(*(tuple(a.shape) for a in arrays))
    if be.chunking(arrays[0]) is None:
        return shape, {}
    return shape, be.chunk_options(be.chunking(be.np.broadcast_to(arrays[0], shape)))


@op(function=False, method=False, torch=("torch.normal",))
def normal(be: Any, mean: Any, std: Any = 1.0, *, generator: Any = None) -> Any:
    """Samples of N(mean, std) elementwise (mean or std a tensor, the other maybe a number)."""
    tensors = [x for x in (mean, std) if hasattr(x, "dtype")]
    dtype = tensors[0].dtype
    if dtype.kind not in "fc":
        raise RuntimeError(f"normal expects floating point mean and std, got {dtype}; convert "
                           "with .float()")
    if be.peek((be.np.asarray(std) < 0).any()):  # (lazy: unknown without computing)
        raise RuntimeError("normal expects all elements of std >= 0.0")
    shape, chunks = _shape_and_chunks(be, mean, std)
    eps = backend_rng(be, generator).standard_normal(shape, **chunks).astype(dtype)
    return mean + std * eps


def _check_probabilities(be: Any, input: Any, num_samples: int, replacement: bool) -> None:
    if input.ndim not in (1, 2):
        raise RuntimeError(f"multinomial: prob_dist must be 1 or 2 dim, got {input.ndim}")
    if input.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got "
                           f"{input.dtype}")
    if num_samples <= 0:
        raise RuntimeError("multinomial: cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > input.shape[-1]:
        raise RuntimeError("multinomial: cannot sample n_sample > prob_dist.size(-1) samples "
                           "without replacement")
    if be.peek((input < 0).any() | ~be.np.isfinite(input).all()):
        raise RuntimeError("multinomial: probability tensor contains either `inf`, `nan` or "
                           "element < 0")


@op(function=False, method="multinomial",
    torch=("torch.multinomial", "torch.Tensor.multinomial"))
def multinomial(be: Any, input: Any, num_samples: int, replacement: bool = False, *,
                generator: Any = None) -> Any:
    """Category indices drawn from each row of unnormalised probabilities (int64): with
    replacement by inverting the cumulative sums, without by an exponential race (the
    ``num_samples`` smallest E/p, E ~ Exp(1), are a draw without replacement)."""
    _check_probabilities(be, input, num_samples, replacement)
    p = input if input.ndim == 2 else input[None]
    rng = backend_rng(be, generator)
    rows = be.chunking(p)
    chunks = {} if rows is None else be.chunk_options((rows[0], -1))
    if replacement:
        cdf = be.np.cumsum(p, axis=-1)
        u = rng.random((p.shape[0], num_samples), **chunks).astype(p.dtype) * cdf[:, -1:]
        picks = (cdf[:, None, :] <= u[:, :, None]).sum(axis=-1)
        picks = be.np.minimum(picks, p.shape[-1] - 1)
    else:
        alive = p > 0
        race = be.np.where(alive, rng.exponential(size=p.shape, **chunks) / be.np.where(alive, p, 1),
                           np.inf)
        picks = be.xp.argsort(race, axis=-1, stable=True)[:, :num_samples]
    picks = picks.astype(dtypes.int64)
    return picks if input.ndim == 2 else picks[0]


@op(function=False, method="bernoulli",
    torch=("torch.bernoulli", "torch.Tensor.bernoulli"))
def bernoulli(be: Any, input: Any, p: Any = None, *, generator: Any = None) -> Any:
    """0/1 draws in ``input``'s dtype, 1 with probability ``input`` (or ``p``) elementwise."""
    if input.dtype.kind not in "fc":
        raise RuntimeError(f"bernoulli_ only supports floating point dtypes, got {input.dtype}; "
                           "convert with .float()")
    prob = input if p is None else p
    if be.peek(((be.np.asarray(prob) < 0) | (be.np.asarray(prob) > 1)).any()):
        raise RuntimeError("bernoulli: Expected p_in >= 0 && p_in <= 1 to be true")
    shape, chunks = _shape_and_chunks(be, input)
    draws = backend_rng(be, generator).random(shape, **chunks)
    return (draws < prob).astype(input.dtype)


# ------------------------------------------------------------------ in-place fills
# ``t.uniform_()``, ``t.normal_()``, ...: torch's samplers that overwrite a tensor, as
# ``torch.nn.init`` fills a module's weights (``kaiming_uniform_``, ``xavier_normal_``,
# ``trunc_normal_``).  Each record draws a tensor like ``input``; its in-place form writes it.

def _numbers(name: str, **numbers: Any) -> None:
    """torch's TypeError for a distribution parameter that is not a number."""
    for param, value in numbers.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ArgumentTypeError(f"{name}_(): argument '{param.rstrip('_')}' must be float, not "
                            f"{type(value).__name__}")


def _draws(be: Any, name: str, input: Any, generator: Any,
           **numbers: Any) -> tuple[Any, tuple, dict]:
    """The generator, shape and chunking of one draw like ``input`` (floating point only, as
    torch's samplers are), once the distribution's parameters are checked to be numbers."""
    _numbers(name, **numbers)
    if input.dtype.kind not in "f" and not dtypes.is_bfloat16(input.dtype):
        raise NotImplementedError(f"{name}_ not implemented for {input.dtype} tensors; draw into "
                                  "a floating point tensor (.float()) and convert")
    shape, chunks = _shape_and_chunks(be, input)
    return backend_rng(be, generator), shape, chunks


@op(function=False, method=False, inplace="uniform_", torch=("torch.Tensor.uniform_",))
def uniform(be: Any, input: Any, from_: float = 0.0, to: float = 1.0, *,
            generator: Any = None) -> Any:
    """Samples of U[from, to) shaped as ``input`` (``from_``: Python's spelling of torch's
    ``from``)."""
    rng, shape, chunks = _draws(be, "uniform", input, generator, from_=from_, to=to)
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={from_} > to={to}")
    return (from_ + (to - from_) * rng.random(shape, **chunks)).astype(input.dtype)


@op(function=False, method=False, inplace="normal_", torch=("torch.Tensor.normal_",))
def normal_fill(be: Any, input: Any, mean: float = 0.0, std: float = 1.0, *,
                generator: Any = None) -> Any:
    """Samples of N(mean, std) shaped as ``input``."""
    rng, shape, chunks = _draws(be, "normal", input, generator, mean=mean, std=std)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return (mean + std * rng.standard_normal(shape, **chunks)).astype(input.dtype)


@op(function=False, method=False, inplace="log_normal_", torch=("torch.Tensor.log_normal_",))
def log_normal(be: Any, input: Any, mean: float = 1.0, std: float = 2.0, *,
               generator: Any = None) -> Any:
    """exp of N(mean, std) samples, shaped as ``input``."""
    _numbers("log_normal", mean=mean, std=std)
    if std <= 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    return be.np.exp(normal_fill(be, input, mean, std, generator=generator))


@op(function=False, method=False, inplace="exponential_", torch=("torch.Tensor.exponential_",))
def exponential(be: Any, input: Any, lambd: float = 1.0, *, generator: Any = None) -> Any:
    """Samples of Exp(lambd) (rate ``lambd``), shaped as ``input``."""
    rng, shape, chunks = _draws(be, "exponential", input, generator, lambd=lambd)
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return (rng.exponential(size=shape, **chunks) / lambd).astype(input.dtype)


@op(function=False, method=False, inplace="cauchy_", torch=("torch.Tensor.cauchy_",))
def cauchy(be: Any, input: Any, median: float = 0.0, sigma: float = 1.0, *,
           generator: Any = None) -> Any:
    """Samples of Cauchy(median, sigma), shaped as ``input`` (by its inverse distribution)."""
    rng, shape, chunks = _draws(be, "cauchy", input, generator, median=median, sigma=sigma)
    if sigma <= 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    u = rng.random(shape, **chunks)
    return (median + sigma * be.np.tan(np.pi * (u - 0.5))).astype(input.dtype)


@op(function=False, method=False, inplace="geometric_", torch=("torch.Tensor.geometric_",))
def geometric(be: Any, input: Any, p: float, *, generator: Any = None) -> Any:
    """The trial of the first success, each with probability ``p`` (1, 2, ...), shaped as
    ``input``."""
    rng, shape, chunks = _draws(be, "geometric", input, generator, p=p)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    u = rng.random(shape, **chunks)
    return (be.np.floor(be.np.log1p(-u) / np.log1p(-p)) + 1).astype(input.dtype)
