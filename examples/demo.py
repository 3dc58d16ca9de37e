"""The interop tour: one tensor, three backends, three APIs, one hook.

Run: bash scripts/demo.sh           (NumPy; add --backend dask to run on Dask)
"""

from __future__ import annotations

import argparse

import numpy as np

import interop


def main(backend: str) -> None:
    interop.set_default_backend(backend)
    print(f"== interop {interop.__version__} on the {backend} backend")

    x = interop.tensor(np.arange(12.0).reshape(3, 4))
    print("x =", x)
    print("torch-style:   x.sum(dim=0) =", x.sum(dim=0))
    print("               x.max(dim=1) =", x.max(dim=1))
    print("operators:     (x @ x.T)[0] =", (x @ x.T)[0])

    class Meters(interop.Tensor):
        """A subclass that carries a unit through every operation."""
        unit = "m"

    d = interop.tensor([1.0, 2.5, 4.0]).as_subclass(Meters)
    d.label = "distances"
    total = (d * 2).sum()
    print(f"subclass:      {type(total).__name__} {total.item()} {total.unit} ({total.label})")

    calls = []

    class Traced(interop.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(getattr(func, "__qualname__", repr(func)))
            return super().__torch_function__(func, types, args, kwargs)

    t = interop.randn(4, 3).as_subclass(Traced)
    (t.abs() + 1).log().mean(dim=0)[1:]
    print("one hook sees every call:", " -> ".join(calls))

    with _Counting() as mode:
        y = interop.exp(x - x.amax(dim=1, keepdim=True))
        (y / y.sum(dim=1, keepdim=True)).sum(dim=1)
    print(f"a TorchFunctionMode counted {mode.count} calls")

    if backend == "dask":
        print("lazy until asked:", interop.mean(x, dim=1))


class _Counting(interop.TorchFunctionMode):
    def __init__(self) -> None:
        self.count = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.count += 1
        return func(*args, **(kwargs or {}))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", default="numpy", choices=("numpy", "dask", "cupy"))
    main(parser.parse_args().backend)
