"""torch training code on CuPy-backed tensors through the torch face, against torch on CUDA,
in one process: the figures a user with a GPU asks for before moving a model.

Run (on a machine with an NVIDIA GPU, CuPy and torch with CUDA):
    python benchmarks/bench_gpu_training.py [--quick] [--json FILE]
Without a GPU the same program runs on NumPy against torch on the CPU (``--backend numpy``):
a dry run of every check, not a GPU figure.

For a small CNN (Conv2d, BatchNorm2d, ReLU, MaxPool2d, Linear; SGD with momentum) and an MLP
(Linear, ReLU; Adam), each moved with ``interop.to_backend(model, backend)`` beside the same
model on torch's device, from the same seed and on the same batches:

- **training**: a few hundred steps of an unmodified loop (``zero_grad``, cross-entropy,
  ``backward``, ``step``) over slices of one dataset; the final weights, BatchNorm statistics
  and optimizer state compared with torch's (float32; TF32 off on both sides), and every one
  of them checked to live on the backend's device;
- **copies**: the host-device copies one training step makes, counted by torch's profiler
  (CUPTI sees CuPy's copies as well as torch's); none may be implicit;
- **inference**: the CNN in ``eval()`` under ``no_grad`` at a small batch and at a batch that
  fills a good part of the GPU;
- **checkpoints**: ``torch.save`` of the backend model's state dict, read back with
  ``torch.load(weights_only=True)`` into a torch model on the device.

Every time is the best of a few synchronised runs, as a ratio to torch measured in the same
run.  No test asserts on a time (docs/benchmarks.md keeps the table).
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812
from torch import nn

import interop

CLASSES = 10


def cnn() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 8 * 8, CLASSES))


def mlp() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                         nn.Linear(512, CLASSES))


class Side:
    """One side of the comparison: a backend's face tensors, or torch's own on its device."""

    def __init__(self, name: str, backend: str | None, device: str) -> None:
        self.name, self.backend, self.device = name, backend, device

    def model(self, make: Callable[[], nn.Module]) -> nn.Module:
        model = make()
        return interop.to_backend(model, self.backend) if self.backend else model.to(self.device)

    def data(self, values: torch.Tensor) -> torch.Tensor:
        """``values`` (a torch tensor on ``self.device``) as this side's tensor, shared where
        the memory allows (DLPack on a GPU)."""
        if self.backend is None:
            return values
        if self.backend == "cupy":
            import cupy
            return interop.as_tensor(cupy.from_dlpack(values)).as_torch()
        return interop.as_tensor(values.cpu().numpy(), backend=self.backend).as_torch()

    def sync(self) -> None:
        if self.device.startswith("cuda"):
            torch.cuda.synchronize()
            if self.backend == "cupy":
                import cupy
                cupy.cuda.Device().synchronize()


def host(t: torch.Tensor) -> np.ndarray:
    """Explicit read of a value for the comparison (never inside a timed or counted step)."""
    if isinstance(t, interop.TorchTensor):
        return np.asarray(t.detach().as_interop().numpy(force=True))
    return t.detach().cpu().numpy()


def dataset(kind: str, n: int, device: str) -> tuple[torch.Tensor, torch.Tensor]:
    """A learnable synthetic task: labels from a fixed random projection of the inputs."""
    g = torch.Generator(device="cpu").manual_seed(1)
    shape = (n, 3, 32, 32) if kind == "cnn" else (n, 256)
    x = torch.randn(shape, generator=g)
    w = torch.randn(x[0].numel(), CLASSES, generator=g)
    y = (x.reshape(n, -1) @ w).argmax(dim=1)
    return x.to(device), y.to(device)


def train(model: nn.Module, opt: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor,
          batch: int, steps: int, start: int = 0) -> None:
    """The unmodified loop: slices of the dataset in order, nothing read back."""
    n = x.shape[0]
    for step in range(start, start + steps):
        i = (step * batch) % n
        opt.zero_grad()
        loss = F.cross_entropy(model(x[i:i + batch]), y[i:i + batch])
        loss.backward()
        opt.step()


def optimizer(kind: str, model: nn.Module) -> torch.optim.Optimizer:
    if kind == "cnn":
        return torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    return torch.optim.Adam(model.parameters(), lr=1e-3)


def state_tensors(model: nn.Module, opt: torch.optim.Optimizer) -> dict[str, torch.Tensor]:
    """Everything training leaves behind: weights, buffers, gradients, optimizer state."""
    out = dict(model.state_dict(keep_vars=True))
    out.update({f"{name}.grad": p.grad for name, p in model.named_parameters()
                if p.grad is not None})
    names = {id(p): name for name, p in model.named_parameters()}
    for p, state in opt.state.items():
        for key, value in state.items():
            if isinstance(value, torch.Tensor) and value.dim() > 0:
                out[f"{names[id(p)]}.{key}"] = value
    return out


def relative_error(have: torch.Tensor, want: torch.Tensor) -> float:
    """The largest difference relative to the tensor's largest value; absolute below 1e-3,
    where values are rounding noise around zero (a convolution's bias before BatchNorm has
    no gradient)."""
    expected = host(want)
    return float(np.abs(host(have) - expected).max()) / max(float(np.abs(expected).max()), 1e-3)


def on_backend(t: torch.Tensor, side: Side) -> bool:
    return isinstance(t, interop.TorchTensor) and t.backend == side.backend \
        and t.device.type == torch.device(side.device).type


def best_s(fn: Callable[[], Any], sync: Callable[[], None], repeat: int) -> float:
    fn()
    sync()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - start)
    return best


def copies(fn: Callable[[], Any], sync: Callable[[], None]) -> dict[str, int] | str:
    """The host-device copies ``fn`` makes, by kind, as torch's profiler (CUPTI) records
    them; a string where the profiler cannot see the device."""
    from torch.profiler import ProfilerActivity, profile
    if not torch.cuda.is_available():
        return "no CUDA profiler here"
    sync()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        sync()
    counts: Counter[str] = Counter()
    for event in prof.events():
        if "memcpy" in event.name.lower():
            counts[event.name] += 1
    return dict(counts)


def training_rows(kind: str, ours: Side, ref: Side, batch: int, steps: int,
                  n: int) -> dict[str, Any]:
    x_ref, y_ref = dataset(kind, n, ref.device)
    x, y = ours.data(x_ref), ours.data(y_ref)
    make = cnn if kind == "cnn" else mlp
    model, model_ref = ours.model(make), ref.model(make)
    opt, opt_ref = optimizer(kind, model), optimizer(kind, model_ref)
    start = time.perf_counter()
    train(model, opt, x, y, batch, steps)
    ours.sync()
    ours_total = time.perf_counter() - start
    start = time.perf_counter()
    train(model_ref, opt_ref, x_ref, y_ref, batch, steps)
    ref.sync()
    ref_total = time.perf_counter() - start

    state, state_ref = state_tensors(model, opt), state_tensors(model_ref, opt_ref)
    off_device = sorted(k for k, v in state.items() if not on_backend(v, ours))
    weights = set(model_ref.state_dict())
    errors = {name: relative_error(state[name], want) for name, want in state_ref.items()}
    worst_weight = max((e, n) for n, e in errors.items() if n in weights)
    worst_other = max((e, n) for n, e in errors.items() if n not in weights)
    one_step = lambda: train(model, opt, x, y, batch, 1, steps)  # noqa: E731
    one_step_ref = lambda: train(model_ref, opt_ref, x_ref, y_ref, batch, 1, steps)  # noqa: E731
    return {
        "model": kind, "batch": batch, "steps": steps,
        "state tensors": len(state), "off the device": off_device,
        "weights: worst relative error": worst_weight[0], "worst weight": worst_weight[1],
        "gradients and optimizer state: worst relative error": worst_other[0],
        "worst of those": worst_other[1],
        "step (s)": best_s(one_step, ours.sync, 5),
        "torch step (s)": best_s(one_step_ref, ref.sync, 5),
        "whole run (s)": ours_total, "torch whole run (s)": ref_total,
        "copies per step": copies(one_step, ours.sync),
        "torch copies per step": copies(one_step_ref, ref.sync),
    }


def inference_rows(ours: Side, ref: Side, batches: list[int], repeat: int) -> list[dict]:
    model, model_ref = ours.model(cnn).eval(), ref.model(cnn).eval()
    rows = []
    for batch in batches:
        x_ref, _ = dataset("cnn", batch, ref.device)
        x = ours.data(x_ref)
        with torch.no_grad():
            ours_s = best_s(lambda x=x: model(x), ours.sync, repeat)
            ref_s = best_s(lambda x_ref=x_ref: model_ref(x_ref), ref.sync, repeat)
            error = float(np.abs(host(model(x)) - host(model_ref(x_ref))).max())
        rows.append({"batch": batch, "inference (s)": ours_s, "torch inference (s)": ref_s,
                     "max abs difference": error,
                     "copies": copies(lambda x=x: model(x), ours.sync)})
    return rows


def checkpoint_row(ours: Side, ref: Side) -> dict[str, Any]:
    """``torch.save`` of the backend model, ``torch.load(weights_only=True)`` into torch's."""
    model = ours.model(cnn)
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(1.5)  # values that differ from a fresh model's
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=True)
    plain = all(type(v) in (torch.Tensor, nn.Parameter) for v in loaded.values())
    target = ref.model(cnn)
    target.load_state_dict(loaded)
    equal = all(np.array_equal(host(v), host(target.state_dict()[k]))
                for k, v in model.state_dict().items())
    back = interop.to_backend(copy.deepcopy(target), ours.backend)
    return {"bytes": buffer.getbuffer().nbytes, "only torch tensors": plain,
            "values equal": equal,
            "reloaded onto the backend": all(on_backend(p, ours) for p in back.parameters())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer steps, smaller batches")
    parser.add_argument("--backend", default="cupy", help="cupy (against torch CUDA) or numpy")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    device = "cuda" if args.backend == "cupy" else "cpu"
    torch.backends.cuda.matmul.allow_tf32 = False  # CuPy computes float32 in float32
    torch.backends.cudnn.allow_tf32 = False
    ours, ref = Side(f"interop on {args.backend}", args.backend, device), Side("torch", None, device)
    steps = 20 if args.quick else 300
    results: dict[str, Any] = {"backend": args.backend, "device": device, "torch": torch.__version__}
    if device == "cuda":
        results["gpu"] = torch.cuda.get_device_name()
    results["training"] = [
        training_rows("cnn", ours, ref, 64, steps, 64 * 50),
        training_rows("mlp", ours, ref, 256, steps, 256 * 50),
        training_rows("cnn", ours, ref, 1024, steps // 10, 1024 * 10),
    ]
    big = [256, 1024] if args.quick or device == "cpu" else [256, 16384, 65536]
    results["inference"] = inference_rows(ours, ref, big, 3 if args.quick else 5)
    results["checkpoint"] = checkpoint_row(ours, ref)

    print(f"{ours.name} against {ref.name} on {results.get('gpu', device)}")
    print(f"{'training':<22} {'steps':>5} {'step':>10} {'torch':>10} {'ratio':>6} "
          f"{'weights':>9}  copies/step (ours | torch)")
    for r in results["training"]:
        print(f"{r['model']} batch {r['batch']:<11} {r['steps']:>5} {r['step (s)'] * 1e3:8.2f}ms "
              f"{r['torch step (s)'] * 1e3:8.2f}ms {r['step (s)'] / r['torch step (s)']:5.2f}x "
              f"{r['weights: worst relative error']:9.2e}  {r['copies per step']} | "
              f"{r['torch copies per step']}")
        print(f"  {r['state tensors']} state tensors, off the device: {r['off the device'] or 'none'};"
              f" worst weight {r['worst weight']}; gradients and optimizer state "
              f"{r['gradients and optimizer state: worst relative error']:.2e} "
              f"({r['worst of those']})")
    print(f"{'inference (cnn)':<22} {'':>5} {'ours':>10} {'torch':>10} {'ratio':>6} {'max diff':>9}")
    for r in results["inference"]:
        print(f"batch {r['batch']:<16} {'':>5} {r['inference (s)'] * 1e3:8.2f}ms "
              f"{r['torch inference (s)'] * 1e3:8.2f}ms "
              f"{r['inference (s)'] / r['torch inference (s)']:5.2f}x "
              f"{r['max abs difference']:9.2e}  copies {r['copies']}")
    print("checkpoint:", results["checkpoint"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)


if __name__ == "__main__":
    main()
