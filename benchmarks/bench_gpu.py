"""On a CUDA GPU: interop on CuPy against raw CuPy (and torch on CUDA), measured in one run.

Run: python benchmarks/bench_gpu.py [--quick] [--json FILE]

- the per-call overhead, ``t + t`` at (8,) float32, and large elementwise and matmul calls
  at (4096, 4096) (``bench_backends.cupy_rows``);
- an MLP forward ``softmax(gelu(x @ w1) @ w2)`` written with ``torch.nn.functional`` on
  interop tensors over CuPy, against the same three operations written in CuPy and in torch
  on CUDA, at (64, 256) and (4096, 4096) (x of that shape, square weights).

Every call is synchronised; raw and interop runs alternate and the best of each is kept.
The targets the project holds itself to (docs/backends.md, "On a GPU") are printed beside
the figures; no test asserts on them.
"""

from __future__ import annotations

import argparse
import json
import math

from bench_backends import best_pair_s, cupy_rows

import interop

TARGETS = {"t + t (8,)": "raw + 1.5 us", "a * b + a (4096, 4096)": "1.02x",
           "mlp (64, 256)": "1.2x raw CuPy", "mlp (4096, 4096)": "1.2x raw CuPy"}


def mlp_rows(quick: bool) -> list[dict]:
    """The MLP through torch.nn.functional on interop CuPy tensors, in CuPy, in torch CUDA."""
    import cupy
    import cupyx.scipy.special
    import torch
    import torch.nn.functional as F  # noqa: N812

    sync = cupy.cuda.Device().synchronize
    rows = []
    for n, d in ((64, 256), (1024, 1024) if quick else (4096, 4096)):
        rng = cupy.random.default_rng(0)
        x, w1, w2 = (rng.standard_normal(s, dtype=cupy.float32) / math.sqrt(d)
                     for s in ((n, d), (d, d), (d, d)))
        tx, tw1, tw2 = (interop.as_tensor(a) for a in (x, w1, w2))
        cx, cw1, cw2 = (torch.from_dlpack(a) for a in (x, w1, w2))

        def raw() -> object:
            h = x @ w1
            h = 0.5 * h * (1 + cupyx.scipy.special.erf(h / math.sqrt(2)))
            z = h @ w2
            e = cupy.exp(z - z.max(axis=-1, keepdims=True))
            out = e / e.sum(axis=-1, keepdims=True)
            sync()
            return out

        def ours() -> object:
            out = F.softmax(F.gelu(tx @ tw1) @ tw2, dim=-1)
            sync()
            return out

        def on_torch() -> object:
            out = F.softmax(F.gelu(cx @ cw1) @ cw2, dim=-1)
            torch.cuda.synchronize()
            return out

        repeat = 10 if quick else 30
        raw_s, ours_s = best_pair_s(raw, ours, repeat)
        torch_s, _ = best_pair_s(on_torch, ours, repeat)
        rows.append({"name": f"mlp ({n}, {d})", "raw": raw_s, "interop": ours_s,
                     "torch_cuda": torch_s})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, short budget")
    parser.add_argument("--json", help="also write the rows here")
    args = parser.parse_args()
    rows = [{"name": f"{name if name != 'a + b' else 't + t'} {shape}", "raw": raw,
             "interop": ours} for _, name, shape, raw, ours, _ in cupy_rows(args.quick)]
    rows += mlp_rows(args.quick)
    print(f"{'operation':<26} {'raw CuPy':>11} {'interop':>11} {'ratio':>7} {'+':>9} "
          f"{'torch CUDA':>11}  target")
    for r in rows:
        unit, scale = ("us", 1e6) if r["raw"] < 1e-2 else ("ms", 1e3)
        torch_s = r.get("torch_cuda")
        torch_text = f"{torch_s * scale:9.2f}{unit}" if torch_s else " " * 11
        print(f"{r['name']:<26} {r['raw'] * scale:9.2f}{unit} {r['interop'] * scale:9.2f}{unit} "
              f"{r['interop'] / r['raw']:6.2f}x {(r['interop'] - r['raw']) * 1e6:7.2f}us "
              f"{torch_text}  {TARGETS.get(r['name'], '')}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
