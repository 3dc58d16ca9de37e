"""``torch.autograd.gradcheck`` (float64) of torch's op_db operators on ``interop.TorchTensor``s
over NumPy and Dask arrays: every forward and backward ATen operation runs on the backend, and
the gradients autograd assembles from them agree with finite differences of the forward.

Each operator's first samples (``SAMPLES``) that ask for gradients are checked, in gradcheck's
fast mode (a random projection of the Jacobian: one backward and two perturbed forwards per
input, which keeps Dask's graphs and the run short); the forward's values are compared with
torch's on the same sample first.  The operators that pass are listed in
tests/helpers/gradcheck_passing.py and docs/torch_coverage.md, both written by
``python -m tests.test_torch_face_gradcheck`` (the survey of every differentiable operator);
each listed one is a test here.
"""

from __future__ import annotations

import functools
import signal
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import interop
from tests.conftest import use_our_hypothesis_profile
from tests.helpers.gradcheck_passing import PASSING

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch.testing._internal needs it
pytree = pytest.importorskip("torch.utils._pytree")

SAMPLES = 2  # the first samples of each operator that ask for gradients
BACKENDS = ("numpy", "dask")


def _chunks(shape: tuple) -> tuple:
    """Two chunks along the first axis, so reductions and contractions meet a boundary."""
    return tuple(max(1, (n + 1) // 2) if i == 0 else -1 for i, n in enumerate(shape))


def to_face(x, backend: str):
    """torch tensors in ``x`` (lists, tuples, dicts too) as TorchTensors on ``backend``, with
    their ``requires_grad``."""
    if isinstance(x, torch.Tensor):
        host = x.detach().resolve_conj().resolve_neg().numpy().copy()
        options = {"chunks": _chunks(host.shape)} if backend == "dask" else {}
        return interop.tensor(host, backend=backend, **options).as_torch(
            requires_grad=x.requires_grad)
    if type(x) in (list, tuple):
        return type(x)(to_face(v, backend) for v in x)
    if isinstance(x, dict):
        return {k: to_face(v, backend) for k, v in x.items()}
    return x


def _values(x):
    """Host values of a result (TorchTensors read through their interop tensor)."""
    if isinstance(x, interop.TorchTensor):
        return x.detach().as_interop().numpy()
    if isinstance(x, torch.Tensor):
        return x.detach().resolve_conj().resolve_neg().numpy()
    return x


def seed_on_backend(grad, backend: str):
    """gradcheck's gradient seeds (plain torch tensors) as TorchTensors on ``backend``, as they
    enter the graph: every backward operation then runs on the backend."""
    return grad if isinstance(grad, interop.TorchTensor) else to_face(grad, backend)


def check_forward(got, expected, name: str, backend: str) -> None:
    """The forward's results are TorchTensors on ``backend`` with torch's values and dtypes."""
    got_flat, expected_flat = pytree.tree_leaves(got), pytree.tree_leaves(expected)
    assert len(got_flat) == len(expected_flat), f"{name}: {len(got_flat)} results, torch's " \
        f"{len(expected_flat)}"
    for g, e in zip(got_flat, expected_flat):
        if not isinstance(e, torch.Tensor):
            continue
        assert isinstance(g, interop.TorchTensor) and g.backend == backend, \
            f"{name}: a {type(g).__name__} result, not a TorchTensor on {backend}"
        assert g.dtype == e.dtype and g.shape == e.shape, f"{name}: {g.dtype} {tuple(g.shape)}" \
            f" != torch's {e.dtype} {tuple(e.shape)}"
        np.testing.assert_allclose(_values(g), _values(e), rtol=1e-7, atol=1e-7, err_msg=name)


def _gradcheck(fn, inputs, opinfo) -> None:
    torch.autograd.gradcheck(fn, inputs, fast_mode=True, nondet_tol=opinfo.gradcheck_nondet_tol,
                             check_undefined_grad=False, check_batched_grad=False)


def torch_passes(opinfo, sample) -> bool:
    """True if gradcheck passes on torch's own tensors (samples where it does not, such as a
    negative base to a fractional power, check nothing)."""
    args, kwargs = (sample.input, *sample.args), sample.kwargs
    flat, spec = pytree.tree_flatten((args, kwargs))
    wanted = [i for i, x in enumerate(flat) if isinstance(x, torch.Tensor) and x.requires_grad]

    def fn(*inputs):
        leaves = list(flat)
        for i, x in zip(wanted, inputs):
            leaves[i] = x
        a, k = pytree.tree_unflatten(leaves, spec)
        return sample.output_process_fn_grad(opinfo.gradcheck_wrapper(opinfo.get_op(), *a, **k))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _gradcheck(fn, [flat[i] for i in wanted], opinfo)
    except Exception:  # noqa: BLE001 - torch's own failure: the sample checks nothing
        return False
    return True


def gradcheck_sample(opinfo, sample, backend: str) -> None:
    """One sample: the forward against torch's, then gradcheck on the backend."""
    args, kwargs = (sample.input, *sample.args), sample.kwargs
    flat, spec = pytree.tree_flatten((to_face(args, backend), to_face(kwargs, backend)))
    wanted = [i for i, x in enumerate(flat) if isinstance(x, torch.Tensor) and x.requires_grad]
    op = opinfo.get_op()

    def fn(*inputs):
        leaves = list(flat)
        for i, x in zip(wanted, inputs):
            leaves[i] = x
        a, k = pytree.tree_unflatten(leaves, spec)
        out = sample.output_process_fn_grad(opinfo.gradcheck_wrapper(op, *a, **k))
        for o in pytree.tree_leaves(out):
            if isinstance(o, interop.TorchTensor) and o.requires_grad:
                o.register_hook(functools.partial(seed_on_backend, backend=backend))
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = sample.output_process_fn_grad(opinfo.gradcheck_wrapper(op, *args, **kwargs))
        check_forward(fn(*[flat[i] for i in wanted]), expected, opinfo.name, backend)
        _gradcheck(fn, [flat[i] for i in wanted], opinfo)


def gradcheck_samples(opinfo):
    """The first ``SAMPLES`` float64 samples of ``opinfo`` with a tensor asking for gradients
    on which torch's own gradcheck passes."""
    torch.manual_seed(0)
    taken = []
    for sample in opinfo.sample_inputs("cpu", torch.float64, requires_grad=True):
        leaves = pytree.tree_leaves(((sample.input, *sample.args), sample.kwargs))
        if any(isinstance(x, torch.Tensor) and x.requires_grad for x in leaves) and \
                torch_passes(opinfo, sample):
            taken.append(sample)
            if len(taken) == SAMPLES:
                break
    return taken


def full_name(opinfo) -> str:
    return f"{opinfo.name}.{opinfo.variant_test_name}" if opinfo.variant_test_name else opinfo.name


@functools.cache
def differentiable_operators() -> dict:
    """op_db's operators with autograd at float64, by name (op_db loads once per process)."""
    from torch.testing._internal.common_methods_invocations import op_db
    use_our_hypothesis_profile()  # torch's test utilities just loaded their own
    return {full_name(o): o for o in op_db
            if o.supports_autograd and o.supports_dtype(torch.float64, "cpu")}


def run_operator(name: str, backend: str) -> str:
    """'' if every checked sample of operator ``name`` passes on ``backend``, else why not."""
    opinfo = differentiable_operators()[name]
    samples = gradcheck_samples(opinfo)
    if not samples:
        return "no sample asks for gradients (or torch's own gradcheck fails on them)"
    for sample in samples:
        try:
            gradcheck_sample(opinfo, sample, backend)
        except Exception as exc:  # noqa: BLE001 - any failure is the operator's
            return f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:150]}"
    return ""


# ------------------------------------------------------------------ the tests
CASES = [(backend, name) for backend in BACKENDS for name in PASSING[backend]]


# Operators torch 2.14 removed, with their op_db entries (interop's deprecated forms:
# tests/test_deprecations.py); listed where the floor's op_db still has them.
REMOVED_BY_NEWER_TORCH = {"qr", "cholesky"}


@pytest.mark.parametrize(("backend", "name"), CASES, ids=[f"{b}-{n}" for b, n in CASES])
def test_gradcheck(backend, name):
    if name in REMOVED_BY_NEWER_TORCH and name not in differentiable_operators():
        pytest.skip(f"torch {torch.__version__} removed {name}")
    assert run_operator(name, backend) == ""


def test_coverage_figures_and_page_agree():
    assert all(len(PASSING[b]) >= 150 for b in BACKENDS), {b: len(PASSING[b]) for b in BACKENDS}
    page = (Path(__file__).resolve().parents[1] / "docs" / "torch_coverage.md").read_text()
    for backend in BACKENDS:
        assert f"gradcheck on {backend}: {len(PASSING[backend])}/" in page
    section = page.partition(f"## On the {LABEL}")[2].partition("\n## ")[0]
    listed = {line.split(" | ")[0].removeprefix("| ") for line in section.splitlines()
              if line.endswith(" |") and " | pass" in line}
    assert listed == set(PASSING["numpy"]) | set(PASSING["dask"])


# ------------------------------------------------------------------ the survey
LIMIT_S = 120  # per operator: a run that takes longer is reported, not waited for
LABEL = "TorchTensor face: gradcheck (float64) on the NumPy and Dask"


class OperatorTimeout(BaseException):
    """Past ``LIMIT_S``: a BaseException, so that ``run_operator`` does not take it as a
    failing sample."""


def _timed_out(signum, frame):
    raise OperatorTimeout


def survey(backend: str) -> dict[str, str]:
    """operator -> '' (passes) or why not, over every differentiable float64 operator."""
    signal.signal(signal.SIGALRM, _timed_out)
    results = {}
    for name in sorted(differentiable_operators()):
        started = time.perf_counter()
        signal.alarm(LIMIT_S)
        try:
            results[name] = run_operator(name, backend)
        except OperatorTimeout:
            results[name] = f"TimeoutError: more than {LIMIT_S} s"
        finally:
            signal.alarm(0)
        print(f"{name}: {results[name] or 'pass'} ({time.perf_counter() - started:.1f} s)",
              flush=True)
    return results


def write(results: dict[str, dict[str, str]]) -> None:
    """tests/helpers/gradcheck_passing.py and the coverage page's section, from ``results``."""
    from tests.test_torch_opdb import write_section
    passing = {b: sorted(n for n, why in results[b].items() if not why) for b in BACKENDS}
    both = sorted(set(passing["numpy"]) & set(passing["dask"]))
    groups = {"BOTH": both, **{f"{b.upper()}_ONLY": sorted(set(passing[b]) - set(both))
                               for b in BACKENDS}}
    helper = Path(__file__).resolve().parent / "helpers" / "gradcheck_passing.py"
    helper.write_text(
        '"""The op_db operators whose float64 gradcheck passes on TorchTensors, per backend:\n'
        'generated by ``python -m tests.test_torch_face_gradcheck`` (do not edit)."""\n\n'
        + "".join(f"{name} = [\n" + "".join(f"    {n!r},\n" for n in names) + "]\n"
                  for name, names in groups.items())
        + "PASSING: dict[str, list[str]] = {\n" + "".join(
            f"    {b!r}: sorted(BOTH + {b.upper()}_ONLY),\n" for b in BACKENDS) + "}\n")
    total = len(results["numpy"])
    lines = [f"## On the {LABEL} backends", "",
             "`python -m tests.test_torch_face_gradcheck`: every op_db operator with autograd at "
             f"float64, its first {SAMPLES} samples asking for gradients (those where torch's own "
             "gradcheck passes) run through `torch.autograd.gradcheck` (fast mode) on "
             "`interop.TorchTensor`s over NumPy arrays and over Dask arrays (two chunks along "
             "the first axis), after the forward is compared with torch's: every forward and "
             "backward ATen operation runs on the backend (the gradient seeds too).", "",
             *(f"gradcheck on {b}: {len(passing[b])}/{total} operators pass" for b in BACKENDS),
             "", "| operator | numpy | dask |", "|---|---|---|"]
    for name in sorted(results["numpy"]):
        cells = [("pass" if not results[b][name] else results[b][name][:110].replace("|", "/"))
                 for b in BACKENDS]
        lines.append(f"| {name} | {cells[0]} | {cells[1]} |")
    write_section(Path(__file__).resolve().parents[1] / "docs" / "torch_coverage.md", LABEL,
                  lines)
    print(*lines[4:6], sep="\n")


if __name__ == "__main__":
    write({backend: survey(backend) for backend in BACKENDS})
