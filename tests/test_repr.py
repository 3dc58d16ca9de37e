"""Text and HTML reprs: torch's text with the backend, Jupyter's card, and no Dask compute."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest

import interop
from interop.core.card import format_bytes
from interop.core.repr import _preview, _values

torch = pytest.importorskip("torch")


class Meters(interop.Tensor):
    unit = "m"


class Logged(interop.Tensor):
    calls: ClassVar[list] = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(getattr(func, "__name__", str(func)))
        return super().__torch_function__(func, types, args, kwargs)


_RNG = np.random.default_rng(0)
CASES = [
    np.array([1.0, 2.0], np.float32), np.array([1.5, 2.25], np.float32),
    np.arange(6).reshape(2, 3), np.array([True, False]), np.ones(40, bool), np.array(3.5, np.float32),
    np.zeros((0, 3), np.float32), np.array([1e10, 1.5], np.float32), np.array(8e6, np.float32),
    np.array([1e-5, 1], np.float32), np.array([np.nan, 1.0, np.inf, -np.inf], np.float32),
    np.array([np.nan, 1.5, -2.25], np.float32), np.zeros(3, np.float32),
    np.array([-0.0, 3.0], np.float32), np.arange(100.0, dtype=np.float32) * 1.5,
    np.arange(2000, dtype=np.float32), np.arange(5000.0, dtype=np.float32).reshape(50, 100) / 7,
    _RNG.standard_normal((4, 30)).astype(np.float32), _RNG.integers(-1000, 1000, (5, 40)),
    _RNG.integers(0, 2, (3, 50)).astype(bool), _RNG.standard_normal((2, 3, 40)).astype(np.float32) * 100,
    _RNG.standard_normal((60, 60)).astype(np.float32), _RNG.integers(0, 10**6, 3000),
    _RNG.integers(0, 5, (2, 2, 2, 30)), np.arange(17, dtype=np.float32) / 3,
    np.array([0.001, 1234.5], np.float32), np.array([-1, 7, 300], np.int64),
]


class TaskCounter:
    """Counts Dask tasks run while active (a real dask callback, not a mock)."""

    def __enter__(self):
        from dask.callbacks import Callback
        self.tasks = 0

        def pretask(key, dsk, state):
            self.tasks += 1
        self._cb = Callback(pretask=pretask)
        self._cb.__enter__()
        return self

    def __exit__(self, *exc):
        self._cb.__exit__(*exc)


@pytest.mark.parametrize("arr", CASES, ids=lambda a: f"{a.dtype}{a.shape}-{a.flat[-1] if a.size else ''}")
def test_text_repr_is_torchs_plus_backend(arr):
    expected = repr(torch.from_numpy(arr))[:-1] + ", backend='numpy')"
    assert repr(interop.tensor(arr)) == expected


def test_non_default_dtype_is_named_as_numpy_dtype():
    assert repr(interop.tensor([1, 2], dtype=interop.int32)) == \
        "tensor([1, 2], dtype=int32, backend='numpy')"
    assert repr(interop.tensor(np.array([1.0, 2.0]))) == \
        "tensor([1., 2.], dtype=float64, backend='numpy')"


def test_subclass_repr_names_the_class_as_torch_does():
    m = interop.tensor([1.0, 2.0]).as_subclass(Meters)
    tm = torch.tensor([1.0, 2.0]).as_subclass(type("Meters", (torch.Tensor,), {}))
    assert repr(m) == repr(tm)[:-1] + ", backend='numpy')"
    assert str(m) == f"{m}" == repr(m)
    assert repr(m[0] + m.sum()).startswith("Meters(")


def test_subclass_hook_sees_repr_and_can_call_super():
    Logged.calls.clear()
    t = interop.tensor([1.0]).as_subclass(Logged)
    assert repr(t) == "Logged([1.], backend='numpy')"
    assert "__repr__" in Logged.calls


def test_dask_repr_shows_shape_chunks_dtype_without_compute():
    d = interop.tensor(np.arange(12.0).reshape(3, 4), backend="dask", chunks=(1, 4))
    with TaskCounter() as counter:
        text = repr(d + 1)
        html = (d + 1)._repr_html_()
    assert text == "tensor(<lazy shape=(3, 4), chunks=(1, 4), dtype=float64>, backend='dask')"
    assert "<svg" in html and "chunks" in html
    assert counter.tasks == 0
    with TaskCounter() as counter:  # the counter does see a compute
        (d + 1).raw.compute()
    assert counter.tasks > 0


def test_html_card_does_not_go_through_the_hook():
    Logged.calls.clear()
    interop.tensor([1.0, 2.0]).as_subclass(Logged)._repr_html_()
    assert Logged.calls == []


@pytest.mark.parametrize("shape", [(2000,), (50, 100), (3, 400), (10, 10, 20), (1001, 1)])
@pytest.mark.parametrize("scale", [1.0, 1 / 7, 1e-6])
def test_gpu_preview_prints_as_the_whole_array_from_its_corners(shape, scale):
    """GPU data sends only the corners to the host; run here on the NumPy backend's namespace."""
    from interop.backends import registry
    raw = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) * np.float32(scale)
    corners = _preview(registry.get_backend("numpy"), raw)
    assert corners.size <= 7 ** len(shape)
    assert _values(corners, "tensor(", summarize=True) == _values(raw, "tensor(")


@pytest.mark.gpu
def test_cupy_repr_names_the_device():
    t = interop.tensor(np.arange(2000.0, dtype=np.float32), device="cuda")
    assert repr(t) == repr(interop.tensor(np.arange(2000.0, dtype=np.float32)))[:-len(
        "backend='numpy')")] + "device='cuda:0', backend='cupy')"


@pytest.mark.parametrize("n, text", [(0, "0 B"), (1023, "1023 B"), (1024, "1.00 KiB"),
                                     (8_000_000, "7.63 MiB"), (float("nan"), "unknown")])
def test_format_bytes(n, text):
    assert format_bytes(n) == text


def test_compute_progress_shows_dasks_bar(capsys):
    d = interop.ones((400, 400), backend="dask", chunks=(100, 100))
    assert (d * 2).sum().compute(progress=True).item() == 320000.0
    assert "100% Completed" in capsys.readouterr().out
    (d * 2).sum().compute()
    assert capsys.readouterr().out == ""  # only when asked


def test_compute_progress_with_a_distributed_client(capsys):
    distributed = pytest.importorskip("distributed")
    d = interop.ones((400, 400), backend="dask", chunks=(100, 100))
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1,
                            dashboard_address=":0") as client:
        assert (d + 1).mean().compute(progress=True).item() == 2.0
    out = capsys.readouterr()  # the text bar; the dashboard link is the client's, not repeated
    assert "100% Completed" in out.out and client.dashboard_link not in out.out


def test_a_tensor_on_torchs_meta_device_prints_as_torchs():
    """A meta tensor has a shape and a dtype and no data: printed as torch prints it, with
    interop's backend, never an error (the HTML card too)."""
    t = interop.as_tensor(torch.ones(2, 3, device="meta", dtype=torch.float64))
    assert t.device == "meta"
    assert repr(t) == "tensor(..., size=(2, 3), dtype=float64, device='meta', backend='torch')"
    assert repr(torch.ones(2, 3, device="meta", dtype=torch.float64)).startswith("tensor(...,")
    assert "size" in t._repr_html_() or "(2, 3)" in t._repr_html_()


# ------------------------------------------------------------------ the torch face
def _as_face(torch_repr: str, backend: str = "numpy") -> str:
    """torch's repr of a plain tensor as the face writes it: its class's name, and the backend
    before the autograd suffix (where torch ends, the face ends)."""
    body = torch_repr.removeprefix("tensor(").removesuffix(")").replace(  # rows align under
        "\n" + " " * len("tensor("), "\n" + " " * len("TorchTensor("))           # the prefix
    values, sep, grad = body.partition(", grad_fn=") if "grad_fn=" in body else \
        body.partition(", requires_grad=")
    grad_name = "grad_fn=" if "grad_fn=" in body else "requires_grad="
    tail = f", {grad_name}{grad}" if sep else ""
    return f"TorchTensor({values}, backend='{backend}'{tail})"


@pytest.mark.parametrize("program", [
    lambda x: x, lambda x: x.detach(), lambda x: (x * 2).sum(), lambda x: x * 2,
    lambda x: x.exp()[1:], lambda x: x.reshape(2, 2).t(), lambda x: (x - 1).relu().mean(0),
    lambda x: x.sum().detach(),
], ids=["leaf", "detached", "sum", "mul", "slice", "transpose", "mean", "detached-result"])
def test_face_repr_shows_grad_fn_as_torch_does(program):
    values = np.array([1.5, -2.0, 3.25, 4.0], np.float32)
    face = program(interop.tensor(values).as_torch(requires_grad=True))
    plain = program(torch.tensor(values, requires_grad=True))
    assert repr(face) == _as_face(repr(plain))
    assert type(face.grad_fn) is type(plain.grad_fn)


def test_face_repr_without_grad_and_on_dask():
    assert repr(interop.tensor([1.0, 2.0]).as_torch()) == "TorchTensor([1., 2.], backend='numpy')"
    d = interop.ones((4, 3), backend="dask", chunks=(2, 3)).as_torch(requires_grad=True)
    grad_fn = type(torch.ones(4, 3, requires_grad=True).sum(0).grad_fn).__name__
    assert repr(d.sum(0)) == ("TorchTensor(<lazy shape=(3,), chunks=(3,), dtype=float32>, "
                              f"backend='dask', grad_fn=<{grad_fn}>)")


def _card_facts(card: str) -> dict[str, str]:
    import html as html_lib
    import re
    return {k: html_lib.unescape(v) for k, v in
            re.findall(r"<span class='interop-([\w-]+)'(?: title='[^']*')?>([^<]*)</span>", card)}


def test_face_card_shows_its_autograd_state():
    """The face's card is the data's card (here a Dask tensor's, with its cost line) named
    TorchTensor, with requires_grad, the grad_fn of a result and the .grad of a leaf."""
    x = interop.ones((4, 3), backend="dask", chunks=(2, 3)).as_torch(requires_grad=True)
    y = (x * 3).sum()
    with TaskCounter() as counter:
        leaf, result = _card_facts(x._repr_html_()), _card_facts(y._repr_html_())
    assert counter.tasks == 0
    assert leaf["class"] == "TorchTensor" and leaf["requires-grad"] == "requires_grad=True"
    assert leaf["nchunks"] == "2 chunks" and "grad-fn" not in leaf and "grad" not in leaf
    assert result["grad-fn"] == f"grad_fn=<{type(y.grad_fn).__name__}>" == "grad_fn=<SumBackward0>"
    y.backward()
    assert _card_facts(x._repr_html_())["grad"] == "grad (4, 3)"
    plain = _card_facts(interop.tensor([1.0]).as_torch()._repr_html_())
    assert plain["requires-grad"] == "requires_grad=False" and "grad-fn" not in plain
    m = interop.tensor([1.0]).as_subclass(Meters)
    m.unit = "m"
    assert _card_facts(m.as_torch()._repr_html_())["class"] == "TorchTensor of Meters"
