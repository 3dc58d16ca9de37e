"""The kernels of a training step, in one run: interop against the raw backend.

Run: .venv/bin/python benchmarks/bench_training_kernels.py [--quick]

- ``convolutions`` (NumPy, one thread): the training benchmark's two layers and a ViT-style
  patch embedding over 2048 images, a ResNet-style downsampling layer (3x3, stride 2) over
  256: the forward and the weights' and input's gradients through interop (``F.conv2d`` and
  ``aten.convolution_backward`` on NumPy tensors), the same implementation called on raw
  ndarrays (the raw backend: interop's dispatch left out), the other form (forward and
  weights' gradient: one product per kernel offset, what a backend without strided views
  runs, and what NumPy ran before ``Backend.windows``; a strided layer's input gradient: the
  transposed convolution over the gradient spread apart by the stride, what an immutable
  backend runs), and torch's kernels; all of these under ``kernels="interop"`` (interop's own
  forms), and interop's call again under ``kernels="auto"`` (torch's kernels on the NumPy
  blocks: the kernel providers).
- ``records`` (Dask, graph building only): the ATen kernels a training step reaches, as
  interop's records through the torch face, as torch's decomposition of the same overload
  through the same face (what ran before they were records), and the records'
  implementations called on raw Dask arrays.

Best of repeats, each variant timed in turn, ratios to the raw backend.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np


def best(fn: Callable[[], object], repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def auto(fn: Callable[[], object]) -> Callable[[], object]:
    """``fn`` with torch's kernels providing (the rest of the section runs interop's forms)."""
    import interop

    def run() -> object:
        with interop.config(kernels="auto"):
            return fn()
    return run


def convolutions(repeats: int) -> None:
    import torch

    import interop
    from interop.backends import registry
    from interop.ops.nn import backward, conv
    torch.set_num_threads(1)
    numpy_backend = registry.get_backend("numpy")

    class WithoutWindows(type(numpy_backend)):
        def windows(self, raw: object, window: tuple, axes: tuple) -> None:
            return None
    class Immutable(type(numpy_backend)):
        mutable = False
    per_offset, immutable = WithoutWindows(), Immutable()
    rng = np.random.default_rng(0)
    layers = {  # (input, weight, stride, padding, whether its input needs a gradient)
        "strided 4x4, 3->8 on 32x32": ((2048, 3, 32, 32), (8, 3, 4, 4), 4, 0, False),
        "3x3, 8->16 on 8x8, padded": ((2048, 8, 8, 8), (16, 8, 3, 3), 1, 1, True),
        "patch 8x8, 3->64 on 32x32": ((2048, 3, 32, 32), (64, 3, 8, 8), 8, 0, False),
        "3x3 stride 2, 16->32 on 16x16, padded": ((256, 16, 16, 16), (32, 16, 3, 3), 2, 1, True)}
    print("convolution on NumPy, one thread: ms (ratio to the raw backend); a first layer's "
          "input (the images) needs no gradient")
    for label, (x_shape, w_shape, stride, pad, inner) in layers.items():
        label = f"{label}, {x_shape[0]} images"
        x = rng.standard_normal(x_shape, dtype=np.float32)
        w = rng.standard_normal(w_shape, dtype=np.float32)
        g = rng.standard_normal(tuple(torch.nn.functional.conv2d(
            torch.from_numpy(x), torch.from_numpy(w), None, stride, pad).shape), dtype=np.float32)
        xi, wi, gi = interop.tensor(x), interop.tensor(w), interop.tensor(g)
        xt, wt, gt = torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(g)
        kernel, strides, pads = w_shape[2:], (stride,) * 2, (pad,) * 2

        def grad(gg: object, xx: object, ww: object, which: int) -> object:
            return torch.ops.aten.convolution_backward(
                gg, xx, ww, None, [stride] * 2, [pad] * 2, [1, 1], False, [0, 0], 1,
                [which == 0, which == 1, False])[which]
        forward = {
            "interop": lambda: torch.nn.functional.conv2d(xi, wi, None, stride, pad),
            "auto": auto(lambda: torch.nn.functional.conv2d(xi, wi, None, stride, pad)),
            "raw": lambda: conv.convolution(numpy_backend, x, w, None, stride, pad, 1, 1, 2),
            "per offset": lambda: conv.convolution(per_offset, x, w, None, stride, pad, 1, 1, 2),
            "torch": lambda: torch.nn.functional.conv2d(xt, wt, None, stride, pad)}
        weights = {
            "interop": lambda: grad(gi, xi, wi, 1),
            "auto": auto(lambda: grad(gi, xi, wi, 1)),
            "raw": lambda: backward._weight_gradient(numpy_backend, x, g, kernel, strides, pads,
                                                     (1, 1), 1),
            "per offset": lambda: backward._weight_gradient(per_offset, x, g, kernel, strides,
                                                            pads, (1, 1), 1),
            "torch": lambda: grad(gt, xt, wt, 1)}
        inputs = {
            "interop": lambda: grad(gi, xi, wi, 0),
            "auto": auto(lambda: grad(gi, xi, wi, 0)),
            "raw": lambda: backward._input_gradient(numpy_backend, g, w, x_shape[2:], strides,
                                                    pads, (1, 1), False, 1),
            "transposed": lambda: backward._input_gradient(immutable, g, w, x_shape[2:],
                                                           strides, pads, (1, 1), False, 1),
            "torch": lambda: grad(gt, xt, wt, 0)}
        for what, variants in (("forward", forward), ("weights' gradient", weights),
                               ("input's gradient", inputs if inner else None)):
            if variants is None:
                continue
            times = {name: best(fn, repeats) for name, fn in variants.items()}
            print(f"  {label}, {what}: " + ", ".join(
                f"{name} {t * 1e3:.1f} ({t / times['raw']:.2f}x)" for name, t in times.items()))


def records(repeats: int) -> None:
    import dask.array as da
    import torch

    import interop
    from interop.backends import registry
    from interop.ops.nn import activations, batch_norm, loss
    from interop.surfaces.torch_face import aten as face_aten
    from interop.surfaces.torch_face import decompose
    dask_backend = registry.get_backend("dask")
    aten = torch.ops.aten
    rng = np.random.default_rng(1)
    x = da.from_array(rng.standard_normal((2048, 8, 8, 8), dtype=np.float32),
                      chunks=(1024, 8, 8, 8))
    logits = da.from_array(rng.standard_normal((2048, 10), dtype=np.float32), chunks=(1024, 10))
    logp = logits - da.log(da.exp(logits).sum(1, keepdims=True))
    target = da.from_array(rng.integers(0, 10, 2048), chunks=1024)
    stats = [da.from_array(v) for v in (rng.standard_normal(8, dtype=np.float32),
                                        rng.random(8, dtype=np.float32) + 0.5)]
    loss_value = da.from_array(np.float32(1.5))

    def face(*arrays: object) -> list:
        return [interop.as_tensor(a).as_torch() for a in arrays]
    mask = [True, True, True]
    cases = {  # overload -> (face arguments, the record's implementation on raw arrays)
        "native_batch_norm_backward": (
            aten.native_batch_norm_backward.default,
            (*face(x, x), None, None, None, *face(*stats), True, 1e-5, mask),
            lambda: batch_norm.native_batch_norm_backward(
                dask_backend, x, x, None, None, None, *stats, True, 1e-5, mask)),
        "nll_loss_forward": (
            aten.nll_loss_forward.default, (*face(logp, target), None, 1, -100),
            lambda: loss.nll_loss_forward(dask_backend, logp, target, None, 1, -100)),
        "nll_loss_backward": (
            aten.nll_loss_backward.default,
            (*face(loss_value, logp, target), None, 1, -100, *face(loss_value)),
            lambda: loss.nll_loss_backward(dask_backend, loss_value, logp, target, None, 1,
                                           -100, loss_value)),
        "_log_softmax": (aten._log_softmax.default, (*face(logits), 1, False),
                         lambda: activations._log_softmax(dask_backend, logits, 1, False)),
        "_log_softmax_backward_data": (
            aten._log_softmax_backward_data.default,
            (*face(logits, logp), 1, torch.float32),
            lambda: activations._log_softmax_backward_data(dask_backend, logits, logp, 1,
                                                           torch.float32)),
        "threshold_backward": (aten.threshold_backward.default, (*face(x, x), 0.0),
                               lambda: activations.threshold_backward(dask_backend, x, x, 0.0)),
    }
    print("graph building on Dask (2048 samples in 2 chunks): ms (ratio to the raw backend)")
    for name, (overload, args, raw) in cases.items():
        record = face_aten.handler_for(overload)
        decomposition = decompose.decomposed(overload, face_aten.handler_for)
        times = {"interop's record": best(lambda: record(args, {}), repeats),
                 "torch's decomposition": best(lambda: decomposition(args, {}), repeats),
                 "raw": best(raw, repeats)}
        print(f"  {name}: " + ", ".join(f"{k} {t * 1e3:.2f} ({t / times['raw']:.2f}x)"
                                        for k, t in times.items()))


def main() -> None:
    from threadpoolctl import threadpool_limits
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    repeats = 3 if args.quick else 7
    import interop
    interop.config.set_default(kernels="interop")  # interop's own forms, but in "auto" cells
    with threadpool_limits(1, user_api="blas"):
        convolutions(repeats)
        records(repeats)


if __name__ == "__main__":
    main()
