"""torch's own operator database (``op_db``) run through interop tensors on NumPy.

Every operator of ``op_db`` is a test: each float32 sample input torch generates is
converted to interop tensors, the same torch callable is called on them (so it
reaches ``Tensor.__torch_function__``), and the outcome is compared with torch's on
the original tensors: values, dtype and shape, the first argument after the call, and
the refusals (where torch raises, interop must too).  The operators known to fail are
listed, each with its reason, in tests/helpers/opdb_xfail.py (strict: a fixed one must leave
the list).  ``python -m tests.test_torch_opdb`` surveys float32, int64 and bool and
rewrites docs/torch_coverage.md with the pass rates.
"""

from __future__ import annotations

import functools
import math
import signal
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy, use_our_hypothesis_profile
from tests.helpers.opdb_xfail import XFAIL

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch.testing._internal needs it

DTYPES = ("float32", "int64", "bool")
TOLERANCE = {"float32": dict(rtol=1e-4, atol=1e-4), "complex64": dict(rtol=1e-4, atol=1e-4)}
# Random operators (torch and interop draw different numbers) and uninitialised ones
# (empty: no values to compare): shape and dtype are compared.
RANDOM = ("bernoulli", "multinomial", "normal", "normal.number_mean",
          "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
          "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout",
          "empty_like", "new_empty", "new_empty_strided", "rand_like", "randn_like",
          "randint_like")
RANDOM_SAMPLES = {  # operators random on some samples only: name -> is this sample random?
    "nn.functional.multi_head_attention_forward":  # dropout on the attention weights
        lambda sample: sample.kwargs.get("training", True) and sample.args[9] > 0,
}

NEEDS = {"bfloat16": "ml_dtypes"}  # operators that need an optional package on interop's side


def _torch_dtype(name: str):
    return getattr(torch, name)


def halved(shape: tuple, axes: tuple = (0,)) -> tuple:
    """Dask chunks: two along each of ``axes`` (negative ones count from the end), the
    other axes whole, so reductions, scans and contractions meet a chunk boundary."""
    along = {a % len(shape) for a in axes} if shape else set()
    return tuple(max(1, (n + 1) // 2) if i in along else -1 for i, n in enumerate(shape))


def to_interop(x, backend: str = "numpy", axes: tuple = (0,)):
    """torch tensors (also in lists, tuples, dicts) as interop tensors (a copy) on
    ``backend``; Dask ones in two chunks along ``axes`` (``halved``)."""
    if isinstance(x, torch.Tensor):
        host = x.detach().resolve_conj().resolve_neg().cpu().numpy().copy()
        if backend == "dask":
            return interop.tensor(host, backend="dask", chunks=halved(host.shape, axes))
        return interop.tensor(host, backend=backend)
    if type(x) in (list, tuple):
        return type(x)(to_interop(v, backend, axes) for v in x)
    if isinstance(x, dict):
        return {k: to_interop(v, backend, axes) for k, v in x.items()}
    return x


def compare(got, expected, where: str, values: bool = True) -> None:
    """``got`` (interop) equals torch's ``expected``: values, dtype and shape."""
    if isinstance(expected, torch.Tensor):
        assert isinstance(got, interop.Tensor), f"{where}: {type(got).__name__}, not a tensor"
        exp = expected.detach().resolve_conj().resolve_neg().cpu()  # (device='cuda' samples)
        res = to_numpy(got)
        if exp.dtype == torch.bfloat16:  # NumPy has it from ml_dtypes only: compared as float32
            assert str(res.dtype) == "bfloat16", f"{where}: dtype {res.dtype} != torch's bfloat16"
            exp, res = exp.float(), res.astype(np.float32)
        exp = exp.numpy()
        assert res.dtype == exp.dtype, f"{where}: dtype {res.dtype} != torch's {exp.dtype}"
        assert res.shape == exp.shape, f"{where}: shape {res.shape} != torch's {exp.shape}"
        if not values:
            return
        if exp.dtype.kind in "fc":
            np.testing.assert_allclose(res, exp, equal_nan=True, err_msg=where,
                                       **TOLERANCE.get(str(exp.dtype), {}))
        else:
            np.testing.assert_array_equal(res, exp, err_msg=where)
    elif isinstance(expected, (tuple, list)):
        assert isinstance(got, (tuple, list)), f"{where}: {type(got).__name__}, not a sequence"
        assert len(got) == len(expected), f"{where}: {len(got)} results, torch {len(expected)}"
        if hasattr(expected, "_fields"):
            assert getattr(got, "_fields", None) == expected._fields, f"{where}: fields"
        for i, (g, e) in enumerate(zip(got, expected)):
            compare(g, e, f"{where}[{i}]", values)
    elif isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(got), where
    else:  # a Python value: the same type (a 0-d tensor is no bool), then the same value
        assert type(got) is type(expected), \
            f"{where}: {type(got).__name__}, torch's {type(expected).__name__}"
        assert got == expected, f"{where}: {got!r} != torch's {expected!r}"


def _has_tensor(x) -> bool:
    if isinstance(x, torch.Tensor):
        return True
    if type(x) in (list, tuple):
        return any(_has_tensor(v) for v in x)
    return isinstance(x, dict) and any(_has_tensor(v) for v in x.values())


def _call(op, args, kwargs):
    """``op(*args, **kwargs)``, or the exception it raised."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return op(*args, **kwargs), None
    except Exception as exc:  # noqa: BLE001 - a refusal is an outcome to compare
        return None, exc


def run_sample(opinfo, sample, backend: str = "numpy", wrap: Callable = to_interop,
               unwrap: Callable = lambda x: x) -> None:
    """One sample through torch and through interop tensors: the same outcome, or raise.

    The interop inputs are copies made before torch runs (torch's in-place operations
    change their inputs); where torch refuses the sample, interop must refuse it too; the
    first argument is compared after the call as well (in-place forms write into it).
    ``wrap``/``unwrap`` make the inputs and read the results (the torch face's: TorchTensors)."""
    args = (sample.input, *sample.args)
    i_args, i_kwargs = wrap(args, backend), wrap(sample.kwargs, backend)
    expected, refused = _call(opinfo.op, args, sample.kwargs)
    got, failed = _call(opinfo.op, i_args, i_kwargs)
    if refused is not None:
        assert failed is not None, f"{opinfo.name}: torch raises {type(refused).__name__} " \
            f"({str(refused).splitlines()[0][:100] if str(refused) else ''}); interop returned"
        return
    if failed is not None:
        raise failed
    random = opinfo.name in RANDOM or RANDOM_SAMPLES.get(opinfo.name, lambda s: False)(sample)
    compare(unwrap(got), expected, opinfo.name, values=not random)
    if isinstance(args[0], torch.Tensor):
        compare(unwrap(i_args[0]), args[0], f"{opinfo.name} (its input after the call)")


def run_opinfo(opinfo, dtype: str, backend: str = "numpy", limit: int | None = None,
               run: Callable | None = None) -> tuple[int, int, str]:
    """(samples passed, samples run, first failure) for one OpInfo at one dtype; samples
    without a tensor argument (creation functions) never reach interop and are not run.
    ``run(opinfo, sample, backend)`` runs one sample (default: on interop tensors)."""
    run = run or run_sample
    passed = total = 0
    first = ""
    torch.manual_seed(0)  # the same samples every run, in any process: the xfail list is exact
    for sample in opinfo.sample_inputs("cpu", _torch_dtype(dtype), requires_grad=False):
        if not _has_tensor(((sample.input, *sample.args), sample.kwargs)):
            continue
        if total == limit:
            break
        total += 1
        try:
            run(opinfo, sample, backend)
            passed += 1
        except Exception as exc:  # noqa: BLE001 - any failure is a failing sample
            first = first or f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:160]}"
    return passed, total, first


def full_name(opinfo) -> str:
    return f"{opinfo.name}.{opinfo.variant_test_name}" if opinfo.variant_test_name else opinfo.name


def survey(names=None) -> dict[tuple[str, str], tuple[int, int, str]]:
    """(op, dtype) -> (passed, total, first failure) over op_db (or the ops in ``names``)."""
    from torch.testing._internal.common_methods_invocations import op_db
    results = {}
    for opinfo in op_db:
        if names is not None and full_name(opinfo) not in names:
            continue
        for dtype in DTYPES:
            if not opinfo.supports_dtype(_torch_dtype(dtype), "cpu"):
                continue
            passed, total, first = run_opinfo(opinfo, dtype)
            if total:
                results[full_name(opinfo), dtype] = passed, total, first
    return results


def summary(results) -> str:
    ops = {op for op, _ in results}
    op_pass = {op for op in ops if all(p == t for (o, _), (p, t, _) in results.items() if o == op)}
    pairs = sum(p == t for p, t, _ in results.values())
    return (f"op_db on the numpy backend: {len(op_pass)}/{len(ops)} operators pass all samples "
            f"({100 * len(op_pass) / max(len(ops), 1):.1f}%); {pairs}/{len(results)} "
            f"operator x dtype pairs")


# ------------------------------------------------------------------ the tests
@functools.cache
def float32_operators() -> dict:
    """Every op_db operator that takes float32, by name (op_db loads once per process)."""
    from torch.testing._internal.common_methods_invocations import op_db
    use_our_hypothesis_profile()  # torch's test utilities just loaded their own
    return {full_name(o): o for o in op_db if o.supports_dtype(torch.float32, "cpu")}


OPERATORS = sorted(float32_operators())


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(reason=XFAIL[n], strict=True)) if n in XFAIL else n
    for n in OPERATORS])
def test_operator(name):
    if name in NEEDS:
        pytest.importorskip(NEEDS[name])
    passed, total, first = run_opinfo(float32_operators()[name], "float32")
    if not total:
        pytest.skip("no sample takes a tensor: the call never reaches interop")
    assert passed == total, f"{name}: {passed}/{total} samples; {first}"


def test_xfail_list_names_operators_of_op_db():
    assert set(XFAIL) <= set(OPERATORS), sorted(set(XFAIL) - set(OPERATORS))


def test_documented_figure_is_this_run():
    """docs/torch_coverage.md's float32 line agrees with the list this test holds to."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "torch_coverage.md").read_text()
    found = [line for line in text.splitlines() if line.startswith("float32:")]
    assert found, "docs/torch_coverage.md has no float32 line: run python -m tests.test_torch_opdb"
    passing, total = map(int, found[0].split()[1].split("/"))
    assert total - passing == len(XFAIL), (found[0], len(XFAIL))


def _per_dtype(results) -> list[str]:
    """'float32: 547/652 operators pass every sample' for each dtype surveyed."""
    lines = []
    for dtype in DTYPES:
        runs = {op: (p, t) for (op, d), (p, t, _) in results.items() if d == dtype}
        passing = sum(p == t for p, t in runs.values())
        lines.append(f"{dtype}: {passing}/{len(runs)} operators pass every sample")
    return lines


def write_table(results, path: Path) -> None:
    lines = ["# torch op_db coverage (numpy backend)", "",
             "Generated by `python -m tests.test_torch_opdb`: every sample input of torch's "
             "operator database, run through interop tensors and compared with torch "
             "(values, dtype, shape; float32 to 1e-4). `k/n` is samples passed; an operator "
             "passes when all its samples do. Samples without a tensor argument (creation "
             "functions such as `torch.zeros`) never reach interop and are left out; "
             "operators whose OpInfo calls a `torch.Tensor` method descriptor "
             "(`torch.Tensor.__radd__(t, 1)`) cannot take a non-torch `self` and fail.", "",
             summary(results), "", *_per_dtype(results), "",
             "| operator | " + " | ".join(DTYPES) + " | first failure |",
             "|---|" + "---|" * (len(DTYPES) + 1)]
    for op in sorted({op for op, _ in results}):
        cells, failure = [], ""
        for dtype in DTYPES:
            if (op, dtype) not in results:
                cells.append("")
                continue
            passed, total, first = results[op, dtype]
            cells.append("pass" if passed == total else f"{passed}/{total}")
            failure = failure or first
        lines.append(f"| {op} | " + " | ".join(cells) + f" | {failure.replace('|', '/')} |")
    path.write_text("\n".join(lines) + "\n")


BACKEND_LIMIT_S = 120  # per operator: a run that takes longer is reported, not waited for
BACKEND_SAMPLES = 12  # the first samples of each operator (max_pool2d alone has 1440)
BACKEND_LABELS = {"dask": "Dask", "jax": "JAX", "torch": "PyTorch", "cubed": "Cubed",
                  "cupy": "CuPy", "gpulike": "gpulike"}
TOO_SLOW = {"dask": {"nn.functional.conv_transpose3d": "not run: its first sample's graph "
                     "takes minutes (one task per kernel offset and chunk; a known gap of the "
                     "Dask path)"},
            # Cubed writes every intermediate array to Zarr and copies the whole plan at each
            # operation: graphs of thousands of small tasks take minutes on 2 cores (each
            # first 12 samples alone, this session: quiet machine / under load).
            "cubed": {"nn.functional.max_pool3d": "not run: 316 s for its first 12 samples "
                      "(274 s to more under load: a strided window per kernel offset)",
                      "grid_sampler_3d": "not run: 111 s for its first 12 samples (105 to "
                      "141 s: a gather per corner of each cell), near the 120 s limit",
                      "nn.functional.conv_transpose3d": "not run: 49 s for its first 10 "
                      "samples on a quiet machine, 193 s under load (one task per kernel "
                      "offset and chunk, as on Dask)"}}
SECTIONS = "\n## On the "  # each backend's section of the coverage page starts so


class OperatorTimeout(BaseException):
    """An operator ran past ``BACKEND_LIMIT_S``: a BaseException, so that the per-sample
    ``except Exception`` does not take it as one failing sample and go on to the next."""


def _timed_out(signum, frame):
    raise OperatorTimeout


def run_backend(backend: str, shard: int = 0, shards: int = 1) -> dict:
    """Every ``shards``-th float32 operator that passes on NumPy (from the ``shard``-th), its
    first samples on ``backend``'s tensors: {"failures": {op: "k/n: why"}, "ran": count}."""
    operators, too_slow = float32_operators(), TOO_SLOW.get(backend, {})
    signal.signal(signal.SIGALRM, _timed_out)
    failures, ran = {}, 0
    for name in [n for n in OPERATORS if n not in XFAIL][shard::shards]:
        if name in too_slow:
            failures[name] = f"0/0: {too_slow[name]}"
            continue
        started = time.perf_counter()
        signal.alarm(BACKEND_LIMIT_S)
        try:
            passed, total, first = run_opinfo(operators[name], "float32", backend,
                                              BACKEND_SAMPLES)
        except OperatorTimeout:
            passed, total, first = 0, 1, f"TimeoutError: more than {BACKEND_LIMIT_S} s"
        finally:
            signal.alarm(0)
        print(f"{name}: {passed}/{total} in {time.perf_counter() - started:.1f} s", flush=True)
        ran += bool(total)
        if total and passed < total:
            failures[name] = f"{passed}/{total}: {first}"
    return {"failures": failures, "ran": ran}


def run_sharded(backend: str, jobs: int) -> dict:
    """``run_backend`` in ``jobs`` processes at once (one shard each), merged."""
    import json
    import subprocess
    import tempfile
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        outs = [Path(tmp) / f"{k}.json" for k in range(jobs)]
        procs = [subprocess.Popen([sys.executable, "-m", "tests.test_torch_opdb", "--backend",
                                   backend, "--shard", f"{k}/{jobs}", "--out", str(out)],
                                  cwd=root) for k, out in enumerate(outs)]
        codes = [p.wait() for p in procs]
        if any(codes):
            raise RuntimeError(f"op_db shards on {backend} exited with {codes}")
        parts = [json.loads(out.read_text()) for out in outs]
    return {"failures": {k: v for p in parts for k, v in p["failures"].items()},
            "ran": sum(p["ran"] for p in parts)}


def write_backend_section(path: Path, backend: str, results: dict) -> str:
    """(Re)write ``backend``'s section of the coverage page: the figure and each operator
    that fails there; the figure's line is returned."""
    failures, ran, too_slow = results["failures"], results["ran"], TOO_SLOW.get(backend, {})
    label = BACKEND_LABELS[backend]
    layout = ("in two chunks along the first axis (values computed for the comparison)"
              if backend == "dask" else f"on the {backend} backend")
    lines = [f"## On the {label} backend", "",
             f"`python -m tests.test_torch_opdb --backend {backend}`: every float32 operator "
             f"that passes on NumPy, its first {BACKEND_SAMPLES} samples run again on tensors "
             f"{layout}.", "",
             f"float32 on {backend}: {ran - len(set(failures) - set(too_slow))}/{ran} of the "
             f"operators that pass on NumPy pass on {label} ({len(too_slow)} not run)", "",
             "| operator | samples passed | first failure |", "|---|---|---|"]
    lines += [f"| {op} | {why.split(':', 1)[0]} | {why.split(': ', 1)[1].replace('|', '/')} |"
              for op, why in sorted(failures.items())]
    write_section(path, label, lines)
    return lines[4]


def write_section(path: Path, label: str, lines: list[str]) -> None:
    """(Re)write the coverage page's section ``lines`` (its heading ``## On the <label> ...``
    first), keeping the main table and the other sections."""
    main, _, rest = path.read_text().partition(SECTIONS)
    sections = {part.partition(" backend")[0]: SECTIONS + part.rstrip("\n")
                for part in rest.split(SECTIONS) if part}
    sections[label] = "\n" + "\n".join(lines)
    path.write_text(main.rstrip("\n") + "\n" + "".join(
        sections[k] + "\n" for k in sorted(sections)))


def backend_main(argv: list[str]) -> None:
    """``--backend NAME [--jobs N]``: run (N processes at once) and rewrite NAME's section of
    docs/torch_coverage.md; ``--shard K/N --out FILE``: one shard's results, as JSON."""
    import argparse
    import json
    parser = argparse.ArgumentParser(prog="python -m tests.test_torch_opdb")
    parser.add_argument("--backend", required=True, choices=sorted(BACKEND_LABELS))
    parser.add_argument("--jobs", type=int, default=1, help="processes at once (shards)")
    parser.add_argument("--shard", help="K/N: only every N-th operator from the K-th")
    parser.add_argument("--out", help="with --shard: write its results (JSON) here")
    args = parser.parse_args(argv)
    if args.shard:
        k, n = map(int, args.shard.split("/"))
        Path(args.out).write_text(json.dumps(run_backend(args.backend, k, n)))
        return
    results = run_sharded(args.backend, args.jobs) if args.jobs > 1 else \
        run_backend(args.backend)
    page = Path(__file__).resolve().parents[1] / "docs" / "torch_coverage.md"
    print(write_backend_section(page, args.backend, results))


if __name__ == "__main__" and sys.argv[1:2] == ["--backend"]:
    backend_main(sys.argv[1:])
elif __name__ == "__main__":
    res = survey(set(sys.argv[1:]) or None)
    print(summary(res))
    if len(sys.argv) == 1:
        page = Path(__file__).resolve().parents[1] / "docs" / "torch_coverage.md"
        sections = page.read_text().partition(SECTIONS)[1:]
        write_table(res, page)
        if sections[0]:  # the backends' sections are rewritten by --backend, kept by this run
            page.write_text(page.read_text() + "".join(sections))
    else:
        for key, value in sorted(res.items()):
            print(key, value)
