"""Generate docs/support-matrix.md: every operation of the table, on every surface and backend.

Each cell is the outcome of a real call made now, not a claim: the
operation's sample arguments (tensors of that backend) go through the interop
function or method, the torch callable named in the table, the NumPy function
of the same name and the Array API namespace's function of the same name.
Results on Dask (computed) and CuPy must equal the NumPy backend's result on
the same surface.  Run: ``python scripts/support_matrix.py [--out PATH] [--check]``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
import types
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

import interop
from interop.backends import registry
from interop.ops import TABLE, Op

SURFACES = ("interop", "torch", "NumPy", "Array API")
BACKENDS = ("numpy", "dask", "cupy", "torch", "jax", "cubed")
WORKS, RAISES, DIFFERS, ABSENT, NOT_RUN, LACKS, TORCH_LIMIT = "✓", "✗", "≠", "—", "·", "⊘", "†"
# Headline columns: every mark a surface's own operation can get, in this order.
MARKS = {WORKS: "works", DIFFERS: "differs", RAISES: "raises", LACKS: "declared gap",
         TORCH_LIMIT: "torch limitation", NOT_RUN: "not run"}
OUT = Path(__file__).resolve().parent.parent / "docs" / "support-matrix.md"

M = np.arange(12, dtype=np.float32).reshape(3, 4) / 3 + 0.5
I64 = np.array([[1, 0, 2], [2, 1, 0]])
B = np.array([[True, False, True], [False, False, True]])
ONE = np.array([2.5], dtype=np.float32)

# Arguments tried in order until the interop surface accepts one on NumPy.
GENERIC = [(M,), (M, M), (M, 1), (M, 0), (I64,), (I64, I64), (B,), (B, B), (M, M, M),
           (M, M, 0.5), ((3, 4),), (3,), (M, (4, 3)), (M, 1, 0), ([M, M],), (M, 0, 1)]
# Operations no generic argument list fits.
SAMPLES: dict[str, tuple] = {
    "item": (ONE,), "__bool__": (ONE,), "__float__": (ONE,), "__int__": (ONE,),
    "__complex__": (ONE,), "__index__": (np.array([3]),), "__format__": (ONE.reshape(()), ".2f"),
    "astype": (M, np.float64), "fill": (M.copy(), 1.5), "copy": (M.copy(), M),
    "full": ((2, 3), 1.5), "randint": (0, 5, (3,)), "rechunk": (M, 2),
    "map_blocks": (M, lambda b: b + 1), "can_cast": (np.float32, np.int32),
    "promote_types": (np.int32, np.float32), "imag": (M.astype(np.complex64),),
    "gather": (M[:2, :3], 1, I64), "masked_fill": (M[:2, :3], B, -1.0),
    "masked_select": (M[:2, :3], B),
    "index_add": (M, 0, np.array([0, 2, 0]), M), "scatter": (M[:2, :3], 1, I64, M[:2, :3]),
    "scatter_add": (M[:2, :3], 1, I64, M[:2, :3]), "matmul": (M, M.T), "mm": (M, M.T),
    "bmm": (M[None], M.T[None]), "mv": (M, M[0]), "dot": (M[0], M[0]),
    "einsum": ("ij,kj->ik", M, M), "expand": (M[:1], 3, 4), "broadcast_to": (M[0], (2, 4)),
    "narrow": (M, 1, 1, 2), "searchsorted": (np.sort(M[0]), M[0]), "_chunk_cat": ([M, M], 1, 3),
    "_softmax_backward_data": (M, M, 1, np.float32),
    "stft": (M, 2, 1, None, None, True, "reflect", False, None, True),
    "istft": ((M[:2] + 1j * M[1:]).astype(np.complex64), 2, 1),
    "grid_sample": (M[None, None], np.full((1, 2, 2, 2), 0.3, np.float32)),
    "grid_sampler": (M[None, None], np.full((1, 2, 2, 2), 0.3, np.float32), 0, 0, False),
    "grid_sampler_2d": (M[None, None], np.full((1, 2, 2, 2), 0.3, np.float32), 1, 1, True),
    "grid_sampler_3d": (M[None, None, None], np.full((1, 1, 2, 2, 3), 0.3, np.float32), 0, 2,
                        False),
    "affine_grid": (np.eye(2, 3, dtype=np.float32)[None], (1, 1, 2, 3), False),
    "ctc_loss": (np.log(np.full((3, 1, 3), 1 / 3, np.float32)), np.array([[1, 2]]), (3,), (2,)),
    "ctc_loss_reduction_code": (np.log(np.full((3, 1, 3), 1 / 3, np.float32)),
                                np.array([[1, 2]]), (3,), (2,), 0, 1, False),
}
RANDOM = {"rand", "randn", "randint", "rand_like", "randn_like", "empty", "empty_like", "new_empty",
          "svd_lowrank", "pca_lowrank", "bernoulli", "multinomial", "normal", "dropout",
          "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "rrelu"}
"""Operations whose values are random (or uninitialised): any values on Dask count as works."""


def _available(backend: str) -> bool:
    try:
        registry.get_backend(backend)
        return backend != "cupy" or _gpu()
    except ImportError:
        return False


def _gpu() -> bool:
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no driver, no device: no GPU
        return False


@contextlib.contextmanager
def _default_backend(name: str) -> Iterator[None]:
    """Creation functions make tensors on the default backend: set it for the call."""
    previous = registry.default_backend().name
    interop.set_default_backend(name)
    try:
        yield
    finally:
        interop.set_default_backend(previous)


def _to(x: Any, backend: str) -> Any:
    if isinstance(x, np.ndarray):
        return interop.tensor(x, backend=backend)
    if isinstance(x, list):
        return [_to(v, backend) for v in x]
    return x


def _host(x: Any) -> Any:
    """Computed host values of a result (tensors, tuples of them, Python values)."""
    if isinstance(x, interop.Tensor):
        raw = x.raw
        return registry.backend_of(raw).to_host(raw)
    if isinstance(x, (tuple, list)):
        return [_host(v) for v in x]
    return x


def _backends_of(x: Any) -> set[str]:
    if isinstance(x, interop.Tensor):
        return {x.backend}
    if isinstance(x, (tuple, list)):
        return set().union(*map(_backends_of, x)) if x else set()
    if hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, np.generic):
        return {type(x).__module__}  # a foreign array (a torch.Tensor from torch.zeros)
    return set()


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and a.dtype == b.dtype and (
            a.dtype.kind not in "fc" or np.allclose(a, b, atol=_rounding(b), equal_nan=True)) and (
            a.dtype.kind in "fc" or np.array_equal(a, b))
    return type(a) is type(b) and (a == b or a != a)


def _rounding(b: np.ndarray) -> float:
    """The absolute tolerance for floating results: the dtype's resolution at the result's
    scale (float32 FFTs of two libraries differ by ~1e-6 where NumPy's gives 0)."""
    finite = np.abs(b[np.isfinite(b)]) if b.size else b
    return 10 * float(np.finfo(b.dtype).resolution) * max(1.0, float(finite.max(initial=0)))


def _torch_callable(entry: Op) -> Callable | None:
    try:
        import torch
    except ImportError:
        return None
    for name in entry.torch:
        aten = name.startswith("aten.")  # torch.ops.aten.<op>.<overload>
        obj: Any = torch.ops if aten else torch
        try:
            for part in name.split(".")[0 if aten else 1:]:
                obj = getattr(obj, part)
        except AttributeError:
            continue
        return obj
    return None


def _torch_descriptor(fn: Callable) -> bool:
    """A ``torch.Tensor`` slot written in C (``torch.Tensor.view``, ``.T``): torch checks its
    ``self`` is a torch tensor before ``__torch_function__`` can run, so no other class's
    tensor can reach it (docs/torch_coverage.md, the operator database says the same)."""
    return isinstance(fn, (types.MethodDescriptorType, types.GetSetDescriptorType,
                           types.WrapperDescriptorType, types.MemberDescriptorType))


def _namespace_callable(space: Any, entry: Op) -> Callable | None:
    fn = getattr(space, entry.name, None)
    return fn if callable(fn) and not isinstance(fn, type) else None


def _interop_callable(entry: Op) -> Callable | None:
    """The interop function or Tensor method; None for an entry torch's names alone reach
    (torch.lstm, torch.normal: what torch's modules and distributions call)."""
    if entry.function:
        return getattr(interop, entry.name)
    if entry.property:
        return lambda t: getattr(t, entry.method)
    name = entry.method or entry.inplace
    return getattr(interop.Tensor, name) if name else None


@functools.cache
def _array_api_namespace() -> Any:
    """What ``t.__array_namespace__()`` returns (None where tensors have no namespace)."""
    get = getattr(interop.tensor(0.0), "__array_namespace__", None)
    return get() if get is not None else None


def _surfaces(entry: Op) -> dict[str, Callable | None]:
    return {"interop": _interop_callable(entry), "torch": _torch_callable(entry),
            "NumPy": _namespace_callable(np, entry),
            "Array API": _namespace_callable(_array_api_namespace(), entry)}


def _call(fn: Callable, args: tuple, backend: str, creation: bool) -> Any:
    with warnings.catch_warnings(), _default_backend(backend):
        warnings.simplefilter("ignore")
        kwargs = {"like": interop.zeros(1)} if creation and fn.__module__ == "numpy" else {}
        result = fn(*[_to(a, backend) for a in args], **kwargs)
        return result, _host(result)


def sample(entry: Op) -> tuple | None:
    """The first argument list the interop surface (or, for a torch-only entry, the torch
    surface) accepts on NumPy (or Dask), or None."""
    fn = _interop_callable(entry) or _torch_callable(entry)
    if fn is None:
        return None
    for backend in ("numpy", "dask"):
        for args in ([SAMPLES[entry.name]] if entry.name in SAMPLES else GENERIC):
            try:
                _call(fn, args, backend, entry.creation)
                return args
            except Exception:  # noqa: BLE001, S112 - try the next candidate
                continue
    return None


def _cell(fn: Callable | None, args: tuple, backend: str, entry: Op, reference: list) -> str:
    if fn is None:
        return ABSENT
    try:
        result, host = _call(fn, args, backend, entry.creation)
    except interop.errors.BackendLacksError:
        return LACKS  # the record declares it (see "Declared gaps" below)
    except Exception as error:  # noqa: BLE001 - any failure is the fact this cell records
        return TORCH_LIMIT if isinstance(error, TypeError) and _torch_descriptor(fn) else RAISES
    if _backends_of(result) - {backend}:
        return DIFFERS
    if backend == "numpy":
        reference.append(host)
        return WORKS
    if not reference or entry.name in RANDOM or entry.family == "dask":
        return WORKS
    return WORKS if _same(host, reference[0]) else DIFFERS


def row(entry: Op) -> tuple[str, dict[str, str]]:
    """One operation: its names, and per surface the outcome on each backend."""
    args = sample(entry)
    cells = {}
    for surface, fn in _surfaces(entry).items():
        if fn is None:
            cells[surface] = ABSENT
            continue
        reference: list = []
        cells[surface] = " ".join(
            _cell(fn, args, be, entry, reference) if _available(be) and args is not None
            else NOT_RUN
            for be in BACKENDS)
    return _names(entry), cells


def _names(entry: Op) -> str:
    forms = [f"`interop.{entry.name}`"] if entry.function else []
    if entry.method:
        forms.append(f"`Tensor.{entry.method}`")
    if entry.inplace:
        forms.append(f"`{entry.inplace}`")
    return ", ".join(forms or [f"`{name}`" for name in entry.torch])  # torch's names alone


def tally(cells: list[dict[str, str]]) -> tuple[Counter, Counter]:
    """Per surface, how many operations it has (cells other than —), and per surface,
    backend and mark how many cells carry that mark."""
    operations: Counter = Counter()
    marks: Counter = Counter()
    for row_cells in cells:
        for surface, text in row_cells.items():
            if text == ABSENT:
                continue
            operations[surface] += 1
            for be, mark in zip(BACKENDS, text.split(" ")):
                marks[surface, be, mark] += 1
    return operations, marks


UNVERIFIED = "not verified in this build"


def unverified_reason(backend: str) -> str | None:
    """Why this build cannot run ``backend`` (None where it can): its cells are then not
    outcomes, and the headline says so instead of counting them."""
    if _available(backend):
        return None
    return "no GPU here" if backend == "cupy" else f"{backend} is not installed here"


def _headline(operations: Counter, marks: Counter) -> list[str]:
    """One line per surface and backend, counted over the surface's own operations; a
    backend this build cannot run is not counted (a row of "·" is not 0 working)."""
    columns = " | ".join(f"{mark} {name}" for mark, name in MARKS.items())
    lines = [f"| surface | backend | operations | {columns} |", "|---|---|---|" + "---|" * len(MARKS)]
    for surface in SURFACES:
        for be in BACKENDS:
            reason = unverified_reason(be)
            if reason:
                counts = f"{UNVERIFIED} ({reason})" + " |" * (len(MARKS) - 1)
            else:
                counts = " | ".join(str(marks[surface, be, mark]) for mark in MARKS)
            lines.append(f"| {surface} | {be} | {operations[surface]} | {counts} |")
    return lines


def _unverified_note() -> list[str]:
    missing = [(be, unverified_reason(be)) for be in BACKENDS if unverified_reason(be)]
    if not missing:
        return []
    listed = "; ".join(f"**{be}**: {reason}" for be, reason in missing)
    note = (f"Not verified in this build: {listed}. Their cells show {NOT_RUN} (not run), "
            "which says nothing about whether the operation works there.")
    if any(be == "cupy" for be, _ in missing):
        note += (" CuPy runs the same tests on a machine with a GPU (`bash scripts/gpu_check.sh`); "
                 "the last run on a real GPU is on the [benchmarks page](benchmarks.md#on-a-gpu).")
    return [note, ""]


def render() -> str:
    rows = {name: row(entry) for name, entry in sorted(TABLE.items(), key=lambda kv: (kv[1].family, kv[0]))}
    operations, marks = tally([cells for _, cells in rows.values()])
    lines = [
        "# Support matrix",
        "",
        "<!-- Generated by scripts/support_matrix.py; do not edit by hand. -->",
        "",
        "Every operation in interop's table, called now on each API surface and backend "
        "(generated by `python scripts/support_matrix.py`; the docs build regenerates it). "
        "Each cell shows the outcome on **numpy dask cupy torch jax cubed**, in that order:",
        "",
        f"- {WORKS} the call returned, with results on that backend and (on the others) equal to "
        "the NumPy backend's result on the same surface;",
        f"- {DIFFERS} it returned, but on another backend or with other values;",
        f"- {LACKS} the backend's library cannot express it, as the operation's record "
        "declares (the reasons are listed at the end);",
        f"- {TORCH_LIMIT} torch limitation: the torch callable is a `torch.Tensor` method or "
        "attribute written in C, which checks that its `self` is a torch tensor before "
        "`__torch_function__` can run, so no other tensor class can reach it;",
        f"- {RAISES} it raised; {ABSENT} the surface has no callable of that name;",
        f"- {NOT_RUN} not run: no GPU or the backend's library is not installed here, or no "
        "sample argument list ran on the interop surface on NumPy or Dask.",
        "",
        "*interop* is the interop function or Tensor method; *torch* the torch callable named in "
        "the table, called with interop tensors (through `__torch_function__`); *NumPy* "
        "`numpy.<name>` (creation functions with `like=`); *Array API* "
        "`t.__array_namespace__().<name>`. Creation functions run with the column's backend as "
        "the default backend.",
        "",
        f"Each surface is counted over its own operations: those of the {len(TABLE)} in the "
        f"table that have a callable on that surface (cells other than {ABSENT}). Every such "
        "operation gets exactly one mark per backend:",
        "",
        *_headline(operations, marks),
        "",
        *_unverified_note(),
    ]
    family = None
    for name, (names, cells) in rows.items():
        if TABLE[name].family != family:
            family = TABLE[name].family
            lines += ["", f"## {family or 'other'}", "",
                      f"| operation | names | {' | '.join(SURFACES)} |",
                      "|---|---|" + "---|" * len(SURFACES)]
        lines.append(f"| {name.replace('_', chr(92) + '_')} | {names} | "
                     f"{' | '.join(cells[s] for s in SURFACES)} |")
    return "\n".join(lines + _declared_gaps() + _torch_raises(rows)) + "\n"


def _torch_raises(rows: dict) -> list[str]:
    """Why the interop surface raises on torch tensors: the torch backend runs torch's own
    functions, so where the generic sample is no valid torch call (NumPy's interop
    implementation is more lenient), torch's error is the right outcome."""
    at = BACKENDS.index("torch")
    raised = [name for name, (_, cells) in rows.items()
              if cells["interop"] != ABSENT and cells["interop"].split(" ")[at] == RAISES]
    if not raised or not _available("torch"):
        return []
    lines = ["", "## Raised on torch", "",
             f"The {len(raised)} operations whose interop surface raises (✗) on the torch "
             "backend with the sample arguments, and whether torch itself raises on the same "
             "arguments as torch tensors (then torch's own error is the right outcome: the "
             "torch backend runs torch's functions, and the sample, which interop's own "
             "implementation takes on NumPy, is no valid torch call).", "",
             "| operation | torch itself on these arguments |", "|---|---|"]
    for name in raised:
        lines.append(f"| {name.replace('_', chr(92) + '_')} | {_torch_itself(TABLE[name])} |")
    return lines


def _torch_itself(entry: Op) -> str:
    import torch
    fn, args = _torch_callable(entry), sample(entry)
    if fn is None:
        return "no torch callable: " + (
            "a Dask collection method" if entry.family == "dask" else "interop's own")
    raw = [torch.asarray(a.copy()) if isinstance(a, np.ndarray) else
           [torch.asarray(v.copy()) for v in a] if isinstance(a, list) else a for a in args]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(*raw)
    except Exception as error:  # noqa: BLE001 - the error is what this cell records
        text = str(error).splitlines()[0][:110].replace("|", "\\|")
        return f"raises too: {type(error).__name__}: {text}"
    return "returns: a gap of the torch backend"


def _declared_gaps() -> list[str]:
    """The records' ``lacks=`` declarations: the same source the runtime error and tests read."""
    lines = ["", "## Declared gaps", "",
             "What a backend's library cannot express, declared on the operation's record; "
             "calling it there raises `interop.errors.BackendLacksError` with the reason.", "",
             "| operation | backend | reason |", "|---|---|---|"]
    for name, entry in sorted(TABLE.items()):
        for backend, why in sorted(entry.lacks.items()):
            lines.append(f"| {name.replace('_', chr(92) + '_')} | {backend} | {why} |")
    return lines


def write(path: Path = OUT) -> bool:
    """Write the page if its text changed; True when it did."""
    text = render()
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="fail if the page is out of date")
    opts = parser.parse_args(argv)
    if opts.check:
        current = opts.out.read_text(encoding="utf-8") if opts.out.exists() else ""
        if current != render():
            print(f"{opts.out} is out of date: run python scripts/support_matrix.py")
            return 1
        return 0
    print(f"{opts.out}: {'written' if write(opts.out) else 'up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
