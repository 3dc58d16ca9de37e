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
