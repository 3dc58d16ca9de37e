"""torch's operator database (``op_db``) through the torch face: the samples of every float32
operator that passes on the plain facade, as ``interop.TorchTensor``s (``t.as_torch()``) over
NumPy arrays and over Dask arrays (two chunks along the first axis).

The torch callable is called on the TorchTensors, so it runs as torch runs it: torch's argument
parsing, its composite functions and decompositions, then every ATen operation on the backend.
The outcome is compared with torch's on its own tensors, as tests/test_torch_opdb.py compares
the plain facade's: values, dtype and shape, the first argument after the call, the refusals;
every tensor result must be a TorchTensor on the backend (nothing runs on torch's kernels).

``python -m tests.test_torch_face_opdb [--jobs N]`` surveys each operator's first ``SAMPLES``
samples on both backends and writes the figures and the failures, each with its reason, to
docs/torch_coverage.md and tests/helpers/face_opdb_xfail.py.  CI runs each operator's first
sample on NumPy and on Dask (``CI_SAMPLES``: seconds); the listed failures must fail, strictly.
"""

from __future__ import annotations

import functools
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import interop
from tests.helpers.face_opdb_xfail import FACE_XFAIL, SURVEY_ONLY

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch.testing._internal needs it
opdb = pytest.importorskip("tests.test_torch_opdb")

BACKENDS = ("numpy", "dask")
SAMPLES = 12  # surveyed: each operator's first samples, as the plain facade's backend runs
CI_SAMPLES = 1  # in CI: each operator's first sample
LIMIT_S = 60  # per operator in the survey: longer is reported, not waited for
PAGE = Path(__file__).resolve().parents[1] / "docs" / "torch_coverage.md"
LABEL = "TorchTensor face: op_db (float32) on the NumPy and Dask"


WHY = {  # the listed failures, explained (the survey's error where none is written here)
    "histogramdd": "torch.histogramdd's composite reaches aten._histogramdd_bin_edges and "
                   "_histogramdd_from_bin_cts, kernels no record answers (the record runs "
                   "torch.histogramdd whole, which the face never sees)",
    "nn.functional.ctc_loss": "F.ctc_loss reaches aten._ctc_loss (the loss with its alpha "
                              "table), which no record answers",
    "nn.functional.linear_cross_entropy.chunked": "the chunked strategy is "
        "torch_nn._linear_cross_entropy_batch_chunked, an operator of torch's nn library with "
        "neither a decomposition nor a record",
    "nn.functional.linear_cross_entropy.chunked_none": "the chunked strategy is "
        "torch_nn._linear_cross_entropy_batch_chunked_no_reduction, an operator of torch's nn "
        "library with neither a decomposition nor a record",
    "tensor_split": "with a tensor of indices, torch's C++ composite reads its values from "
                    "the tensor's storage, which a TorchTensor does not have; pass the indices "
                    "as a list",
    "linalg.matrix_rank": "on an empty (0, 0) matrix torch's C++ composite makes the result "
                          "with at::zeros, without a tensor operand: a plain torch tensor",
    "linalg.matrix_rank.hermitian": "on an empty (0, 0) matrix torch's C++ composite makes "
                                    "the result with at::zeros, without a tensor operand: a "
                                    "plain torch tensor",
    "argwhere": "aten.argwhere reaches the nonzero record, whose Dask path (da.argwhere) fails "
                "on a (5, 0) array in two chunks (Dask's reshape of an empty array); the plain "
                "facade's torch.argwhere takes its own record",
}


def to_face(x, backend: str):
    """torch tensors in ``x`` as TorchTensors on ``backend`` (copies; Dask: two chunks)."""
    return _faces(opdb.to_interop(x, backend))


def _faces(x):
    if isinstance(x, interop.Tensor):
        return x.as_torch()
    if type(x) in (list, tuple):
        return type(x)(_faces(v) for v in x)
    if isinstance(x, dict):
        return {k: _faces(v) for k, v in x.items()}
    return x


def _unfaced(x):
    """Results with each TorchTensor as its interop tensor (what ``opdb.compare`` reads); a
    plain torch tensor stays one, and fails the comparison: it ran on torch's kernels."""
    if isinstance(x, interop.TorchTensor):
        return x.as_interop()
    if isinstance(x, (list, tuple)):
        items = [_unfaced(v) for v in x]
        if hasattr(x, "_make"):
            return x._make(items)
        return type(x)(items)
    return x


def run_sample(opinfo: Any, sample: Any, backend: str) -> None:
    """One sample through torch and through TorchTensors: the same outcome, or raise."""
    opdb.run_sample(opinfo, sample, backend, wrap=to_face, unwrap=_unfaced)


def run_operator(name: str, backend: str, limit: int) -> str:
    """'' if the first ``limit`` samples of ``name`` pass through the face, else why not."""
    passed, total, first = opdb.run_opinfo(opdb.float32_operators()[name], "float32", backend,
                                           limit, run=run_sample)
    return "" if passed == total else first


@functools.cache
def plain_passing(backend: str) -> list[str]:
    """The float32 operators that pass on the plain facade on ``backend``: op_db's, less the
    NumPy failures (tests/helpers/opdb_xfail.py) and, for Dask, those the coverage page lists
    as failing on Dask."""
    passing = [n for n in opdb.OPERATORS if n not in opdb.XFAIL]
    if backend == "dask":
        section = PAGE.read_text().partition("## On the Dask backend")[2].partition("\n## ")[0]
        failing = {line.split(" | ")[0].removeprefix("| ") for line in section.splitlines()
                   if line.startswith("| ") and not line.startswith("| operator")}
        passing = [n for n in passing if n not in failing]
    return passing


# ------------------------------------------------------------------ the tests
@pytest.mark.parametrize("backend", BACKENDS)
def test_operators_through_the_face(backend):
    """Every operator that passes on the plain facade passes its first sample through the face,
    but those listed, which fail (strictly: a fixed one must leave the list).  One test per
    backend: a test per operator would cost pytest's overhead 1300 times over."""
    failures = {}
    for name in plain_passing(backend):
        if name in opdb.NEEDS and not _importable(opdb.NEEDS[name]):
            continue
        failures[name] = run_operator(name, backend, CI_SAMPLES)
    failing = {n for n, why in failures.items() if why}
    unexpected = {n: failures[n] for n in sorted(failing - set(FACE_XFAIL[backend]))}
    fixed = sorted(set(FACE_XFAIL[backend]) - failing)
    assert not unexpected, f"failing through the face on {backend}: {unexpected}"
    assert not fixed, f"passing now on {backend}: take them off the list: {fixed}"


def _importable(module: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(module) is not None


def test_listed_failures_are_operators_that_pass_on_the_plain_facade():
    for backend in BACKENDS:
        assert set(FACE_XFAIL[backend]) <= set(plain_passing(backend)), backend


def test_documented_figures_are_the_list():
    """The page's figures for the installed torch (op_db's operators differ by release)."""
    page = PAGE.read_text()
    for backend in BACKENDS:
        plain = len(plain_passing(backend))
        listed = len(FACE_XFAIL[backend]) + len(SURVEY_ONLY[backend])
        assert f"through the face on {backend}: {plain - listed}/{plain} " in page, backend


# ------------------------------------------------------------------ the survey
class OperatorTimeout(BaseException):
    """Past ``LIMIT_S``: a BaseException, so ``run_operator`` does not take it as a failure."""


def _timed_out(signum, frame):
    raise OperatorTimeout


def survey(backend: str, shard: int = 0, shards: int = 1) -> dict[str, tuple[str, str]]:
    """operator -> (failure with ``CI_SAMPLES``, failure with ``SAMPLES``), '' for a pass."""
    signal.signal(signal.SIGALRM, _timed_out)
    results = {}
    for name in plain_passing(backend)[shard::shards]:
        started = time.perf_counter()
        signal.alarm(LIMIT_S)
        try:
            first = run_operator(name, backend, CI_SAMPLES)
            results[name] = first, first or run_operator(name, backend, SAMPLES)
        except OperatorTimeout:
            results[name] = "", f"TimeoutError: more than {LIMIT_S} s"
        finally:
            signal.alarm(0)
        print(f"{backend} {name}: {results[name][1] or 'pass'} "
              f"({time.perf_counter() - started:.1f} s)", flush=True)
    return results


def survey_sharded(backend: str, jobs: int) -> dict[str, tuple[str, str]]:
    """``survey`` in ``jobs`` processes at once, merged."""
    import json
    import subprocess
    import tempfile
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        outs = [Path(tmp) / f"{k}.json" for k in range(jobs)]
        procs = [subprocess.Popen([sys.executable, "-m", "tests.test_torch_face_opdb", "--shard",
                                   backend, f"{k}/{jobs}", str(out)], cwd=root)
                 for k, out in enumerate(outs)]
        if any(p.wait() for p in procs):
            raise RuntimeError(f"op_db-through-the-face shards on {backend} failed")
        return {k: tuple(v) for out in outs for k, v in json.loads(out.read_text()).items()}


def write(results: dict[str, dict[str, tuple[str, str]]]) -> None:
    """tests/helpers/face_opdb_xfail.py and the coverage page's section, from ``results``."""
    failing = {b: {n: WHY.get(n, why) for n, (_, why) in results[b].items() if why}
               for b in BACKENDS}
    ci = {b: {n: failing[b][n] for n, (first, _) in results[b].items() if first}
          for b in BACKENDS}
    later = {b: {n: failing[b][n] for n in failing[b] if n not in ci[b]} for b in BACKENDS}
    helper = Path(__file__).resolve().parent / "helpers" / "face_opdb_xfail.py"
    helper.write_text(
        '"""The op_db operators that pass on the plain facade and fail through the torch face\n'
        "(float32), per backend, with the reason: generated by\n"
        '``python -m tests.test_torch_face_opdb`` (do not edit)."""\n\n'
        + _listing("FACE_XFAIL", "failing on their first sample (CI)", ci)
        + _listing("SURVEY_ONLY", "failing on a later sample (the survey)", later))
    lines = [f"## On the {LABEL} backends", "",
             ("`python -m tests.test_torch_face_opdb`: every float32 operator that passes on "
              f"the plain facade, its first {SAMPLES} samples as `interop.TorchTensor`s "
              "(`t.as_torch()`) over NumPy arrays and over Dask arrays (two chunks along the "
              "first axis), compared with torch as the plain facade's are (values, dtype, shape, "
              "the input after the call, the refusals); every tensor result must be a "
              "TorchTensor on the backend. CI runs each operator's first sample "
              "(`tests/test_torch_face_opdb.py`)."), ""]
    for b in BACKENDS:
        plain = len(results[b])
        lines.append(f"through the face on {b}: {plain - len(failing[b])}/{plain} of the "
                     f"operators that pass on the plain facade ({b}) pass, with torch "
                     f"{'.'.join(torch.__version__.split('.')[:2])}")
    lines += ["", ("The plain facade's figures are op_db's float32 operators in the torch surveyed "
                   f"({len(opdb.OPERATORS)} in torch {torch.__version__.split('+')[0]}) less those "
                   "tests/helpers/opdb_xfail.py lists "
                   f"({len(opdb.XFAIL)}) on NumPy, and less those the Dask section lists on "
                   "Dask."),
              "", "| operator | backend | why it fails through the face |", "|---|---|---|"]
    lines += [f"| {n} | {b} | {why.replace('|', '/')} |"
              for b in BACKENDS for n, why in sorted(failing[b].items())]
    opdb.write_section(PAGE, LABEL, lines)
    print(*lines[4:6], sep="\n")


def _listing(name: str, comment: str, groups: dict[str, dict[str, str]]) -> str:
    """Python source of ``name``: backend -> {operator: reason}."""
    return (f"{name}: dict[str, dict[str, str]] = {{  # {comment}\n"
            + "".join(f"    {b!r}: {{\n" + "".join(f"        {n!r}: {why!r},\n"
                                                   for n, why in sorted(groups[b].items()))
                      + "    },\n" for b in BACKENDS) + "}\n")


if __name__ == "__main__" and sys.argv[1:2] == ["--shard"]:
    import json
    backend, part, out = sys.argv[2:5]
    k, n = map(int, part.split("/"))
    Path(out).write_text(json.dumps(survey(backend, k, n)))
elif __name__ == "__main__":
    jobs = int(sys.argv[sys.argv.index("--jobs") + 1]) if "--jobs" in sys.argv else 1
    write({b: survey_sharded(b, jobs) if jobs > 1 else survey(b) for b in BACKENDS})
