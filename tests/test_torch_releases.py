"""Where the torch releases in the support window (2.13, 2.14) disagree, interop follows the
torch loaded in the process, and with none loaded the newest release's rule
(``interop/ops/torch_releases.py``): replicate padding's empty results, and the error types of
``stft`` on integers, ``istft`` on real input, and subtracting or negating bool tensors (an
error that is both releases' type)."""

from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest

import interop

torch = pytest.importorskip("torch")
F = torch.nn.functional

PADS = [(shape, pads) for shape, k in (((3, 4), 1), ((1, 3, 4), 1), ((1, 3, 4), 2),
                                       ((2, 3, 4, 5), 2), ((1, 2, 3, 4, 5), 3), ((0, 3, 4), 2),
                                       ((1, 0, 4), 1), ((0, 2, 3, 4), 2))
        for pads in itertools.product([-4, -3, 0, 1] if k < 3 else [-3, 0, 1], repeat=2 * k)]


def _outcome(call, *args, **kwargs):
    try:
        return call(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - a refusal is an outcome to compare
        return exc


@pytest.mark.parametrize(("backend", "every"), [("numpy", 1), ("dask", 9)])
def test_replicate_padding_refuses_what_the_loaded_torch_refuses(backend, every):
    """Combinations of small, cropping and emptying pads (on Dask, every ninth): torch's
    result, or its refusal."""
    mismatched = []
    for shape, pads in PADS[::every]:
        x = np.arange(float(np.prod(shape))).reshape(shape)
        want = _outcome(F.pad, torch.from_numpy(x), pads, mode="replicate")
        got = _outcome(F.pad, interop.tensor(x, backend=backend), pads, mode="replicate")
        if isinstance(want, Exception):
            if not isinstance(got, RuntimeError):
                mismatched.append((shape, pads, f"torch raises, interop gives {got!r}"))
        elif isinstance(got, Exception) or not np.array_equal(got.numpy(), want.numpy()):
            mismatched.append((shape, pads, f"torch gives {tuple(want.shape)}, interop {got!r}"))
    assert not mismatched, mismatched[:5]


def test_without_torch_the_newest_rule_holds():
    """No torch loaded: a 2-d replicate pad that empties one padded dim is refused (2.14's
    rule), and nothing imports torch to decide it."""
    code = ("import sys, numpy as np, interop\n"
            "try:\n"
            "    interop.pad(interop.zeros(1, 3, 4), (-4, 0, -2, 0), mode='replicate')\n"
            "except RuntimeError as e:\n"
            "    print('refused', 'torch' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "refused False", out.stderr[-2000:]


@pytest.mark.parametrize(("name", "call"), [
    ("stft of integers", lambda x: torch.stft(x.long() if isinstance(x, torch.Tensor)
                                              else x.long(), 16, return_complex=True)),
    ("istft of a real spectrum", lambda x: torch.istft(
        torch.view_as_real(torch.stft(x, 16, return_complex=True)) if isinstance(x, torch.Tensor)
        else interop.tensor(torch.view_as_real(torch.stft(torch.from_numpy(x.numpy()), 16,
                                                          return_complex=True)).numpy()), 16)),
    # 2.13 raises RuntimeError, 2.14 NotImplementedError (a fuzzed program found the change)
    ("a bool tensor subtracted", lambda x: x - (x > 0)),
    ("subtracting from a bool tensor", lambda x: torch.sub(x > 0, 1)),
    ("a bool tensor subtracted in place", lambda x: x.sub_(x > 0)),
    ("a bool tensor negated", lambda x: -(x > 0)),
])
def test_refusals_are_the_loaded_torchs_type(name, call):
    signal = np.random.default_rng(0).normal(size=64).astype(np.float32)
    want = _outcome(lambda: call(torch.from_numpy(signal)))
    got = _outcome(lambda: call(interop.tensor(signal)))
    assert isinstance(want, Exception), f"{name}: this torch computes it"
    assert isinstance(got, type(want)), f"{name}: torch raises {type(want).__name__}, " \
        f"interop {type(got).__name__}"
    assert isinstance(got, RuntimeError), "both releases' type: 2.13 raised RuntimeError"
