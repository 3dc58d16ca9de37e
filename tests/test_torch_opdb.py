"""torch's own operator database (``op_db``) run through interop tensors on NumPy.

For each OpInfo and each of float32, int64 and bool that it supports, every
sample input torch generates is converted to interop tensors, the same torch
callable is called on them (so it reaches ``Tensor.__torch_function__``), and
the result is compared with torch's on the original tensors: values, dtype
and shape.  An operator passes a dtype when all its samples match.

``test_milestone`` asserts the families the issue names all pass, and
``test_milestone_summary`` that the summary line over them reads n/n.
``python -m tests.test_torch_opdb`` surveys the whole ``op_db`` (minutes) and
rewrites docs/torch_coverage.md with the pass rate.
"""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch.testing._internal needs it

DTYPES = ("float32", "int64", "bool")
TOLERANCE = {"float32": dict(rtol=1e-4, atol=1e-4), "complex64": dict(rtol=1e-4, atol=1e-4)}
# Random operators (torch and interop draw different numbers) and uninitialised ones
# (empty: no values to compare): shape and dtype are compared.
RANDOM = ("nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
          "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout",
          "empty_like", "new_empty", "new_empty_strided", "rand_like", "randn_like",
          "randint_like")

# The families the first milestone names; each must pass every sample.
MILESTONE = (
    # elementwise unary
    "abs", "neg", "sign", "floor", "ceil", "trunc", "square", "sqrt", "rsqrt", "exp", "exp2",
    "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "reciprocal", "sigmoid", "deg2rad",
    "rad2deg", "isnan", "isinf", "isfinite", "signbit", "logical_not", "bitwise_not", "round",
    "positive", "nan_to_num",
    # elementwise binary
    "add", "sub", "mul", "div.no_rounding_mode", "div.trunc_rounding", "div.floor_rounding",
    "true_divide", "floor_divide", "remainder", "fmod", "pow",
    "maximum", "minimum", "fmax", "fmin", "atan2", "hypot", "logaddexp", "logaddexp2",
    "copysign", "nextafter", "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and",
    "logical_or", "logical_xor",
    # comparison, where, clamp
    "eq", "ne", "lt", "le", "gt", "ge", "where", "clamp", "isclose", "allclose", "equal",
    # reductions
    "sum", "prod", "mean", "amax", "amin", "argmax", "argmin", "all", "any", "logsumexp",
    "count_nonzero", "cumsum", "cumprod",
    # shape and view
    "reshape", "view", "flatten", "squeeze", "unsqueeze", "permute", "transpose", "t", "flip",
    "roll", "cat", "stack", "split", "chunk", "expand", "tile", "repeat", "movedim", "narrow",
    "tril", "triu", "unbind", "broadcast_to", "ravel",
    # indexing
    "index_select", "gather", "take_along_dim", "masked_fill", "masked_select",
    # matmul family
    "matmul", "mm", "bmm", "mv", "dot", "outer", "tensordot", "einsum",
    # torch.nn.functional
    "softmax", "log_softmax", "nn.functional.relu", "nn.functional.gelu", "nn.functional.silu",
    "nn.functional.layer_norm", "nn.functional.linear", "nn.functional.mse_loss",
    "nn.functional.cross_entropy", "nn.functional.nll_loss",
)


# ------------------------------------------------------------------ the harness
def _torch_dtype(name: str):
    return getattr(torch, name)


def to_interop(x):
    """torch tensors (also in lists, tuples, dicts) as NumPy-backed interop tensors (a copy)."""
    if isinstance(x, torch.Tensor):
        return interop.tensor(x.detach().resolve_conj().resolve_neg().cpu().numpy().copy())
    if type(x) in (list, tuple):
        return type(x)(to_interop(v) for v in x)
    if isinstance(x, dict):
        return {k: to_interop(v) for k, v in x.items()}
    return x


def compare(got, expected, where: str, values: bool = True) -> None:
    """``got`` (interop) equals torch's ``expected``: values, dtype and shape."""
    if isinstance(expected, torch.Tensor):
        assert isinstance(got, interop.Tensor), f"{where}: {type(got).__name__}, not a tensor"
        exp = expected.detach().resolve_conj().resolve_neg().numpy()
        res = to_numpy(got)
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
    else:
        assert got == expected, f"{where}: {got!r} != torch's {expected!r}"


def _has_tensor(x) -> bool:
    if isinstance(x, torch.Tensor):
        return True
    if type(x) in (list, tuple):
        return any(_has_tensor(v) for v in x)
    return isinstance(x, dict) and any(_has_tensor(v) for v in x.values())


def run_opinfo(opinfo, dtype: str) -> tuple[int, int, str]:
    """(samples passed, samples run, first failure) for one OpInfo at one dtype; samples
    without a tensor argument (creation functions) never reach interop and are not run."""
    passed = total = 0
    first = ""
    samples = opinfo.sample_inputs("cpu", _torch_dtype(dtype), requires_grad=False)
    for sample in samples:
        args = (sample.input, *sample.args)
        if not _has_tensor((args, sample.kwargs)):
            continue
        total += 1
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = opinfo.op(*args, **sample.kwargs)
        except Exception:  # noqa: BLE001 - torch refuses this sample: nothing to compare
            total -= 1
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = opinfo.op(*to_interop(args), **to_interop(sample.kwargs))
            compare(got, expected, opinfo.name, values=opinfo.name not in RANDOM)
            passed += 1
        except Exception as exc:  # noqa: BLE001 - any failure is a failing sample
            first = first or f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
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
@pytest.fixture(scope="module")
def milestone_results():
    return survey(set(MILESTONE))


def test_milestone_ops_exist_in_op_db(milestone_results):
    found = {op for op, _ in milestone_results}
    assert found == set(MILESTONE), f"not in op_db: {sorted(set(MILESTONE) - found)}"


@pytest.mark.parametrize("name", MILESTONE)
def test_milestone(name, milestone_results):
    for dtype in DTYPES:
        if (name, dtype) in milestone_results:
            passed, total, first = milestone_results[name, dtype]
            assert passed == total, f"{name} {dtype}: {passed}/{total} samples; {first}"



def test_milestone_summary(milestone_results, capsys):
    line = summary(milestone_results)
    with capsys.disabled():
        print(f"\n{line} (the milestone's families)")
    n = len(MILESTONE)
    assert line.startswith(f"op_db on the numpy backend: {n}/{n} operators pass"), line

def write_table(results, path: Path) -> None:
    lines = ["# torch op_db coverage (numpy backend)", "",
             "Generated by `python -m tests.test_torch_opdb`: every sample input of torch's "
             "operator database, run through interop tensors and compared with torch "
             "(values, dtype, shape; float32 to 1e-4). `k/n` is samples passed; an operator "
             "passes when all its samples do. Samples without a tensor argument (creation "
             "functions such as `torch.zeros`) never reach interop and are left out; "
             "operators whose OpInfo calls a `torch.Tensor` method descriptor "
             "(`torch.Tensor.__radd__(t, 1)`) cannot take a non-torch `self` and fail.", "",
             summary(results), "", "| operator | " + " | ".join(DTYPES) + " | first failure |",
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


if __name__ == "__main__":
    res = survey(set(sys.argv[1:]) or None)
    print(summary(res))
    if len(sys.argv) == 1:
        write_table(res, Path(__file__).resolve().parents[1] / "docs" / "torch_coverage.md")
    else:
        for key, value in sorted(res.items()):
            print(key, value)
