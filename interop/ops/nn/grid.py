"""F.grid_sample (torch.grid_sampler, grid_sampler_2d/3d) and F.affine_grid
(torch.affine_grid_generator) on backend arrays, with torch's coordinate rules.

grid_sample: each output point's grid coordinates in [-1, 1] are mapped to input pixels
(``align_corners`` decides whether -1/1 are the corner pixels' centres or edges), the
padding mode applied (``border`` clamps, ``reflection`` mirrors, ``zeros`` reads 0 outside),
and the input read at the 1 (nearest), 2**d (bilinear) or 16 (bicubic, torch's cubic
convolution with A = -0.75, padding applied per tap) surrounding pixels, weighted.  All the
taps are one ``take_along_axis`` over the flattened spatial dims, so NumPy, CuPy and Dask
(lazily: the indices come from the grid's values) run the same code.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ...errors import UnsupportedDtypeError
from ..registry import op, torch_names
from ..shape.manipulation import _reshape as reshape_any
from .common import NN

MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}


def _unnormalize(be: Any, c: Any, size: int, align_corners: bool, flat: bool) -> Any:
    """Grid coordinate in [-1, 1] -> pixel coordinate along a dim of ``size``, in the
    arithmetic of torch's CPU kernel: its vectorised 2-d one (``flat``) or its 3-d one."""
    if align_corners and size == 1:  # every coordinate is pixel 0 (inf * 0 stays nan)
        return be.np.where(be.np.isfinite(c), 0.0, be.np.nan).astype(c.dtype)
    if flat:
        if align_corners:
            return (c + 1) * ((size - 1) / 2)
        return (c + 1) * (size / 2) - 0.5
    if align_corners:
        return (c + 1) / 2 * (size - 1)
    return ((c + 1) * size - 1) / 2


def _reflected(be: Any, x: Any, size: int, align_corners: bool, flat: bool) -> Any:
    """``x`` mirrored into the image: about the corner pixels' centres (align_corners) or
    their outer edges, as torch's reflect_coordinates (2-d: its vectorised form); a
    non-finite coordinate becomes nan, as it does in torch's arithmetic."""
    low = 0.0 if align_corners else -0.5
    span = float(size - 1 if align_corners else size)
    if span == 0:
        return be.np.zeros_like(x)
    finite = be.np.isfinite(x)
    distance = be.np.abs(be.np.where(finite, x, 0).astype(x.dtype) - low)
    if flat:
        extra = distance - be.np.trunc(distance / (2 * span)) * (2 * span)
        out = be.np.minimum(extra, 2 * span - extra) + low
    else:
        extra = be.np.fmod(distance, span)
        even = be.np.fmod(be.np.floor(distance / span), 2) == 0
        out = be.np.where(even, extra + low, span - extra + low)
    return be.np.where(finite, out, be.np.nan).astype(x.dtype)


def _padded(be: Any, x: Any, size: int, padding: int, align_corners: bool, flat: bool) -> Any:
    """torch's compute_coordinates: border clamps, reflection mirrors then clamps (a nan
    clamps to 0 in torch's 2-d kernel, to the last pixel in its 3-d one); zeros leaves the
    coordinate, an infinite one taken as nan (torch's arithmetic makes it one)."""
    if padding == PADDINGS["zeros"]:
        return be.np.where(be.np.isinf(x), be.np.nan, x).astype(x.dtype)
    if padding == PADDINGS["reflection"]:
        x = _reflected(be, x, size, align_corners, flat)
    x = be.np.clip(x, 0, size - 1)
    return be.np.where(be.np.isnan(x), 0 if flat else size - 1, x).astype(x.dtype)


def _index(be: Any, x: Any, size: int) -> Any:
    """Integer pixel indices of integral float coordinates; nan and far-away ones become
    indices just outside the image (-2, size + 1), so they stay out of bounds."""
    return be.np.where(be.np.isnan(x), -2, be.np.clip(x, -2, size + 1)).astype(np.int64)


def _cubic_coefficients(t: Any) -> tuple[Any, Any, Any, Any]:
    """torch's cubic convolution weights (A = -0.75) of the taps at -1, 0, 1, 2 from
    ``t`` in [0, 1), its get_cubic_upsample_coefficients (a nan stays nan)."""
    a = -0.75

    def far(x: Any) -> Any:  # 1 <= |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    def near(x: Any) -> Any:  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1
    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _taps(be: Any, c: Any, size: int, mode: int, padding: int, align_corners: bool,
          flat: bool) -> list[tuple[Any, Any]]:
    """(integer pixel index, weight or None) of each tap along one spatial dim."""
    x = _unnormalize(be, c, size, align_corners, flat)
    if mode == MODES["bicubic"]:
        x = be.np.where(be.np.isinf(x), be.np.nan, x).astype(x.dtype)
        x0 = be.np.floor(x)
        weights = _cubic_coefficients(x - x0)
        return [(_index(be, _padded(be, x0 + (k - 1), size, padding, align_corners, flat), size),
                 w) for k, w in enumerate(weights)]
    x = _padded(be, x, size, padding, align_corners, flat)
    if mode == MODES["nearest"]:
        return [(_index(be, be.np.rint(x), size), None)]
    x0 = be.np.floor(x)
    i0 = _index(be, x0, size)
    if flat:
        e = x - x0
        return [(i0, 1 - e), (i0 + 1, e)]
    return [(i0, (x0 + 1) - x), (i0 + 1, x - x0)]


def _check(name: str, input: Any, grid: Any, mode: int, padding: int) -> None:
    """torch's checks of grid_sampler, in its order."""
    if input.ndim < 1 or grid.ndim < 1 or input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"{name}(): expected grid and input to have same batch size, but "
                           f"got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"{name}(): expected grid to have size {input.ndim - 2} in last "
                           f"dimension, but got grid with sizes {list(grid.shape)}")
    for i in range(2, input.ndim):
        if input.shape[i] <= 0:
            raise RuntimeError(f"{name}(): expected input to have non-empty spatial dimensions,"
                               f" but input has sizes {list(input.shape)} with dimension {i} "
                               "being empty")
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(f"{name}(): expected 4D or 5D input and grid with same number of "
                           f"dimensions, but got input with sizes {list(input.shape)} and grid "
                           f"with sizes {list(grid.shape)}")
    if input.ndim == 5 and mode == MODES["bicubic"]:
        raise RuntimeError(f"{name}(): bicubic interpolation only supports 4D input")
    if mode not in MODES.values() or padding not in PADDINGS.values():
        raise ValueError(f"{name}(): interpolation_mode must be 0 (bilinear), 1 (nearest) or "
                         f"2 (bicubic) and padding_mode 0 (zeros), 1 (border) or 2 "
                         f"(reflection); got {mode} and {padding}")
    if input.dtype.kind != "f":
        raise UnsupportedDtypeError(f"{name}(): not implemented for {input.dtype}; convert the "
                                    "input and grid to a float dtype (.float())")
    if grid.dtype != input.dtype:
        raise RuntimeError(f"{name}(): expected input and grid to have the same dtype, but got "
                           f"{input.dtype} and {grid.dtype}; convert one (grid.to(input.dtype))")


def sample(be: Any, input: Any, grid: Any, mode: int, padding: int, align_corners: bool,
           name: str = "grid_sampler") -> Any:
    """torch.grid_sampler with its integer mode and padding codes."""
    _check(name, input, grid, mode, padding)
    dtype = input.dtype  # half stays half: torch's CPU kernel rounds each step to it too
    n, c, *sizes = input.shape
    d = len(sizes)
    out = tuple(grid.shape[1:-1])
    g = reshape_any(be, grid, (n, int(np.prod(out)), d))
    flat = d == 2
    per_dim = [_taps(be, g[..., d - 1 - k], sizes[k], mode, padding, bool(align_corners), flat)
               for k in range(d)]  # grid's last entry is x (the last spatial dim)
    strides = [int(np.prod(sizes[k + 1:])) for k in range(d)]
    indices, valid, weights = [], [], []
    for combo in itertools.product(*per_dim):
        index, ok = 0, True
        for k, (i, _) in enumerate(combo):
            ok = ok & (i >= 0) & (i < sizes[k])
            index = index + be.np.clip(i, 0, sizes[k] - 1) * strides[k]
        weight = None  # torch's products: y * x in 2-d, x * y * z in 3-d
        for _, w in combo if flat else combo[::-1]:
            weight = w if weight is None else (weight if w is None else weight * w)
        indices.append(index)
        valid.append(ok)
        weights.append(weight)
    taps, points = len(indices), g.shape[1]
    pixels = reshape_any(be, input, (n, c, int(np.prod(sizes))))
    index = reshape_any(be, be.np.stack(indices, axis=1), (n, 1, taps * points))
    values = reshape_any(be, be.np.take_along_axis(pixels, index, axis=2), (n, c, taps, points))
    valid = be.np.stack(valid, axis=1)[:, None]
    if weights[0] is None:
        values = be.np.where(valid, values, 0)
    elif flat:  # torch's 2-d kernel reads 0 outside, then weighs (0 * nan is nan)
        values = be.np.where(valid, values, 0) * be.np.stack(weights, axis=1)[:, None]
    else:  # its 3-d kernel adds only the taps inside
        values = be.np.where(valid, values * be.np.stack(weights, axis=1)[:, None], 0)
    result = be.np.sum(values, axis=2) if taps > 1 else values[:, :, 0]
    return reshape_any(be, result.astype(dtype), (n, c, *out))


def _code(table: dict, value: Any, what: str) -> int:
    """A mode given by name (F.grid_sample) or by torch's integer code (torch.grid_sampler)."""
    if isinstance(value, str):
        if value not in table:
            raise ValueError(f"nn.functional.grid_sample(): expected {what} to be "
                             f"{' or '.join(repr(k) for k in table)}, but got: '{value}'")
        return table[value]
    return int(value)


@op(method=False, torch=torch_names("grid_sample", NN))
def grid_sample(be: Any, input: Any, grid: Any, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: Any = None) -> Any:
    """Sample ``input`` (N, C, H, W) or (N, C, D, H, W) at ``grid``'s [-1, 1] coordinates."""
    return sample(be, input, grid, _code(MODES, mode, "mode"),
                  _code(PADDINGS, padding_mode, "padding_mode"), bool(align_corners))


@op(method=False, torch=("torch.grid_sampler",))
def grid_sampler(be: Any, input: Any, grid: Any, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Any:
    """torch.grid_sampler: grid_sample with integer codes (mode 0 bilinear, 1 nearest,
    2 bicubic; padding 0 zeros, 1 border, 2 reflection)."""
    return sample(be, input, grid, interpolation_mode, padding_mode, align_corners)


def _fixed_rank(rank: int) -> None:
    name = f"grid_sampler_{rank - 2}d"

    def impl(be: Any, input: Any, grid: Any, interpolation_mode: int, padding_mode: int,
             align_corners: bool) -> Any:
        if input.ndim != rank or grid.ndim != rank:
            raise RuntimeError(f"grid_sampler(): expected {rank}D input and grid with same "
                               f"number of dimensions, but got input with sizes "
                               f"{list(input.shape)} and grid with sizes {list(grid.shape)}")
        return sample(be, input, grid, interpolation_mode, padding_mode, align_corners)
    impl.__name__ = name
    impl.__doc__ = f"torch.{name}: torch.grid_sampler for {rank}-d input only."
    op(name, method=False, torch=(f"torch.{name}",))(impl)


_fixed_rank(4)
_fixed_rank(5)


def _base_coordinates(steps: int, align_corners: bool) -> np.ndarray:
    """torch's linspace_from_neg_one: -1..1 (pixel centres without align_corners)."""
    if steps <= 1:
        return np.zeros(steps)
    ramp = np.linspace(-1.0, 1.0, steps)
    return ramp if align_corners else ramp * (steps - 1) / steps


@op(method=False, torch=(*torch_names("affine_grid", NN), "torch.affine_grid_generator"))
def affine_grid(be: Any, theta: Any, size: Any, align_corners: Any = None) -> Any:
    """The grid (N, H, W, 2) or (N, D, H, W, 3) that affine matrices ``theta`` (N, 2, 3) or
    (N, 3, 4) map the output's [-1, 1] coordinates to, for grid_sample."""
    size = tuple(int(s) for s in size)
    if theta.dtype.kind != "f":
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) not in (4, 5):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    d = len(size) - 2
    if theta.ndim != 3 or theta.shape[-2:] != (d, d + 1):
        raise ValueError(f"Expected a batch of {d}D affine matrices of shape Nx{d}x{d + 1} for "
                         f"size {size}. Got {tuple(theta.shape)}.")
    if min(size) <= 0 and not (align_corners and min(size[2:]) == 1):
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"affine_grid: theta holds {theta.shape[0]} matrices but size asks "
                           f"for a batch of {size[0]}; they must agree")
    spatial = size[2:]
    axes = [_base_coordinates(s, bool(align_corners)) for s in reversed(spatial)]  # x, y, z
    mesh = np.meshgrid(*axes[::-1], indexing="ij")  # (D,) H, W each
    base = np.stack([*mesh[::-1], np.ones(spatial)], axis=-1).reshape(-1, d + 1)
    base = be.asarray(base.astype(theta.dtype))
    grid = be.np.einsum("pk,njk->npj", base, theta)
    return reshape_any(be, grid, (size[0], *spatial, d))
