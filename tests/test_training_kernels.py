"""The edges of interop's own forms of the ATen kernels a training step reaches
(``_log_softmax``, ``nll_loss_forward``/``backward``, ``threshold_backward``,
``native_batch_norm_backward``) and of the convolution's backward along a batch's chunks:
empty and 0-d inputs, unknown Dask sizes under ``dask_compute="raise"``, operands on two
backends, threads, bad arguments, and the same kernels called after their siblings (the
face's named reductions beside ATen's numbered ones, a hooked subclass, a mode), each against
torch's kernels on the same data."""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy

import numpy as np
import pytest

import interop
from interop.errors import DaskComputeError
from tests.conftest import to_numpy
from tests.helpers.hooks import Logged, counting_mode

torch = pytest.importorskip("torch")
aten = torch.ops.aten
RNG = np.random.default_rng(11)
X = RNG.standard_normal((6, 4))
LOGP = X - np.log(np.exp(X).sum(1, keepdims=True))
T = np.array([0, 3, 1, -100, 2, 3])


def same(got, expected):
    got, expected = (got, expected) if isinstance(expected, tuple) else ((got,), (expected,))
    for g, e in zip(got, expected):
        np.testing.assert_allclose(to_numpy(g), e.numpy(), rtol=1e-10, atol=1e-12)


def both(call, *arrays, backend="numpy"):
    """``call`` on torch tensors and on interop tensors of ``backend``: (interop's, torch's)."""
    return (call(*(interop.tensor(np.array(a), backend=backend) for a in arrays)),
            call(*(torch.from_numpy(np.array(a)) for a in arrays)))


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_empty_and_0d_inputs_match_torch(backend):
    for reduction in (0, 1, 2):
        same(*both(lambda x, t, r=reduction: aten.nll_loss_forward(x, t, None, r, -100),
                   LOGP[:0], T[:0], backend=backend))
    same(*both(lambda x: aten._log_softmax(x, 1, False), X[:0], backend=backend))
    same(*both(lambda x: aten._log_softmax(x, 0, False), np.array(2.0), backend=backend))
    same(*both(lambda g, x: aten.threshold_backward(g, x, 0), np.array(1.5), np.array(-1.0),
               backend=backend))
    same(*both(lambda g, y: aten._log_softmax_backward_data(g, y, 0, torch.float64),
               np.array(0.5), np.array(0.0), backend=backend))


def test_bad_arguments_are_refused_as_torch_refuses_them():
    x, t = interop.tensor(LOGP), interop.tensor(T)
    with pytest.raises(RuntimeError, match=r"nll_loss_forward: expected target dtype to be Long"
                                           r".*convert with \.long\(\)"):
        aten.nll_loss_forward(x, interop.tensor(T.astype(float)), None, 1, -100)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of "
                                         r"\[-2, 1\], but got 2\)"):
        aten._log_softmax(interop.tensor(X), 2, False)
    with pytest.raises(IndexError, match=r"Dimension out of range"):
        aten._log_softmax_backward_data(interop.tensor(X), interop.tensor(LOGP), 5,
                                        torch.float64)
    with pytest.raises(TypeError, match=r"threshold_backward.*threshold.*number"):
        aten.threshold_backward(interop.tensor(X), interop.tensor(X), None)
    # torch's ATen takes any int here; interop names the three it knows
    with pytest.raises(ValueError, match=r"nll_loss_backward: reduction 5 is not one of 'none', "
                                         r"'mean', 'sum'"):
        aten.nll_loss_backward(interop.tensor(np.array(1.0)), x, t, None, 5, -100,
                               interop.tensor(np.array(5.0)))
    g = interop.tensor(RNG.standard_normal((2, 3, 4)))
    with pytest.raises(RuntimeError, match=r"training needs save_mean and save_invstd"):
        aten.native_batch_norm_backward(g, g, None, None, None, None, None, True, 1e-5,
                                        [True, True, True])
    with pytest.raises(RuntimeError, match=r"evaluation needs running_mean and running_var"):
        aten.native_batch_norm_backward(g, g, None, None, None, None, None, False, 1e-5,
                                        [True, True, True])


def _unknown_rows(a):
    """``a`` on Dask with rows whose count is known only after computing (a boolean mask)."""
    t = interop.tensor(a, backend="dask", chunks=(3, *a.shape[1:]))
    keep = interop.tensor(np.ones(a.shape[0], bool), backend="dask", chunks=3)
    return t[keep]


def test_unknown_dask_sizes_build_without_computing_and_then_match_torch():
    """Rows of unknown count (NaN chunks): the kernels build their graphs under
    ``dask_compute="raise"`` (the blockwise form declines sizes it cannot check and the
    general one runs), and computed they equal torch's."""
    x = RNG.standard_normal((6, 2, 5, 5))
    w = RNG.standard_normal((3, 2, 3, 3))
    g = RNG.standard_normal((6, 3, 3, 3))
    with interop.config(dask_compute="raise"):
        lazy_x, lazy_g = _unknown_rows(x), _unknown_rows(g)
        assert lazy_x.raw.chunks[0][0] != lazy_x.raw.chunks[0][0]  # NaN: unknown
        conv = aten.convolution_backward(lazy_g, lazy_x, interop.tensor(w, backend="dask"), [3],
                                         [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
                                         [True, True, True])
        nll = aten.nll_loss_forward(_unknown_rows(LOGP), _unknown_rows(T), None, 1, -100)
        bn = aten.native_batch_norm_backward(lazy_x, lazy_x, None, None, None,
                                             interop.tensor(x.mean((0, 2, 3))),
                                             interop.tensor(1 / x.std((0, 2, 3))), True, 1e-5,
                                             [True, True, True])
    same(conv, aten.convolution_backward(
        *map(torch.from_numpy, (g, x, w)), [3], [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
        [True, True, True]))
    same(nll, aten.nll_loss_forward(torch.from_numpy(LOGP), torch.from_numpy(T), None, 1, -100))
    tx = torch.from_numpy(x)
    same(bn, aten.native_batch_norm_backward(
        tx, tx, None, None, None, torch.from_numpy(x.mean((0, 2, 3))),
        torch.from_numpy(1 / x.std((0, 2, 3))), True, 1e-5, [True, True, True]))


def test_operands_on_two_backends_follow_the_promotion_policy():
    """A NumPy gradient beside Dask operands joins Dask (host data onto the lazy backend, as
    every mixed call does): the result is Dask's, with torch's values."""
    g = RNG.standard_normal((6, 3, 3, 3))
    x = RNG.standard_normal((6, 2, 5, 5))
    w = RNG.standard_normal((3, 2, 3, 3))
    got = aten.convolution_backward(interop.tensor(g), interop.tensor(x, backend="dask",
                                                                      chunks=(2, 2, 5, 5)),
                                    interop.tensor(w, backend="dask"), [3], [1, 1], [0, 0],
                                    [1, 1], False, [0, 0], 1, [True, True, True])
    assert all(t.backend == "dask" for t in got)
    same(got, aten.convolution_backward(*map(torch.from_numpy, (g, x, w)), [3], [1, 1], [0, 0],
                                        [1, 1], False, [0, 0], 1, [True, True, True]))
    got = aten.nll_loss_backward(interop.tensor(np.array(1.3)), interop.tensor(LOGP, backend="dask"),
                                 interop.tensor(T, backend="dask"), None, 1, -100,
                                 interop.tensor(np.array(5.0)))
    assert got.backend == "dask"
    same(got, aten.nll_loss_backward(torch.tensor(1.3, dtype=torch.float64),
                                     torch.from_numpy(LOGP), torch.from_numpy(T), None, 1, -100,
                                     torch.tensor(5.0, dtype=torch.float64)))


def _one_training_step(seed):
    """A small CNN's gradients, on a face over NumPy and on torch (the same initial weights:
    a copy, so threads need not share torch's global seed)."""
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal((8, 1, 6, 6)), rng.integers(0, 3, 8)
    net = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2),
                              torch.nn.ReLU(), torch.nn.Flatten(),
                              torch.nn.Linear(32, 3)).double()
    reference = copy.deepcopy(net)
    moved = interop.to_backend(net, "numpy")
    torch.nn.functional.cross_entropy(moved(interop.tensor(x).as_torch()),
                                      interop.tensor(y).as_torch()).backward()
    torch.nn.functional.cross_entropy(reference(torch.from_numpy(x)),
                                      torch.from_numpy(y)).backward()
    return ([np.asarray(p.grad.as_interop().numpy()) for p in moved.parameters()],
            [p.grad.numpy() for p in reference.parameters()])


def test_threads_and_asyncio_tasks_each_get_their_own_results():
    seeds = range(6)
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(_one_training_step, seeds))

    async def steps():
        return await asyncio.gather(*(asyncio.to_thread(_one_training_step, s) for s in seeds))
    for got, want in [*results, *asyncio.run(steps())]:
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)



def test_the_same_kernels_after_their_siblings_under_a_subclass_and_a_mode():
    """ATen's numbered reduction, then the face's named one (the same record), then
    ``F.nll_loss`` and ``F.log_softmax`` (siblings whose plans a cache could hand over), then
    all again through a hooked subclass and inside a ``TorchFunctionMode``: each time torch's
    values, the subclass kept."""
    want_fwd = aten.nll_loss_forward(torch.from_numpy(LOGP), torch.from_numpy(T), None, 2, -100)
    want_ls = torch.log_softmax(torch.from_numpy(X), 1)

    def round_of(make):
        same(aten.nll_loss_forward(make(LOGP), make(T), None, 2, -100), want_fwd)
        same(torch.nn.functional.nll_loss(make(LOGP), make(T), reduction="sum"), want_fwd[0])
        same(aten._log_softmax(make(X), 1, False), want_ls)
        same(torch.nn.functional.log_softmax(make(X), 1), want_ls)
        face = interop.tensor(LOGP).as_torch().requires_grad_()
        loss = torch.nn.functional.nll_loss(face, interop.tensor(T).as_torch(), reduction="sum")
        loss.backward()  # the face: nll_loss_forward/backward with the reduction by name
        ref = torch.from_numpy(LOGP).requires_grad_()
        torch.nn.functional.nll_loss(ref, torch.from_numpy(T), reduction="sum").backward()
        same(face.grad.as_interop(), ref.grad)

    round_of(interop.tensor)
    Logged.calls.clear()
    round_of(lambda a: interop.tensor(a).as_subclass(Logged))
    got = aten._log_softmax(interop.tensor(X).as_subclass(Logged), 1, False)
    assert type(got) is Logged and Logged.calls
    with counting_mode() as mode:
        round_of(interop.tensor)
    assert mode.seen > 0


def test_the_face_runs_the_records_not_torchs_decompositions():
    """Pins the ATen names these records answer (underscored overloads torch may rename):
    each overload exists, and the face finds the record by its name and argument names
    (else torch's decomposition would run: right values, several times the cost)."""
    from interop.surfaces.torch_face import aten as face_aten
    for name in ("_log_softmax", "_log_softmax_backward_data", "nll_loss_forward",
                 "nll_loss_backward", "threshold_backward", "native_batch_norm_backward",
                 "convolution_backward"):
        overload = getattr(aten, name).default  # an AttributeError names a renamed overload
        assert face_aten._from_record(overload) is not None, name


def test_no_compute_hides_behind_the_step_under_raise():
    """The kernels on lazy operands under ``dask_compute="raise"``: nothing computes until
    asked (a compute would raise DaskComputeError here)."""
    with interop.config(dask_compute="raise"):
        lazy = interop.tensor(LOGP, backend="dask", chunks=(2, 4))
        out, total = aten.nll_loss_forward(lazy, interop.tensor(T, backend="dask", chunks=2),
                                           None, 1, -100)
        grad = aten.nll_loss_backward(out, lazy, interop.tensor(T, backend="dask", chunks=2),
                                      None, 1, -100, total)
        with pytest.raises(DaskComputeError):
            float(out)
    lp, t = torch.from_numpy(LOGP), torch.from_numpy(T)
    loss, total = aten.nll_loss_forward(lp, t, None, 1, -100)
    same(grad, aten.nll_loss_backward(loss, lp, t, None, 1, -100, total))
