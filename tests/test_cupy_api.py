"""Every CuPy call interop makes exists in CuPy's API as called: checked without a GPU.

CuPy installs and imports on a machine without one (``pip install cupy-cuda12x``; only
making arrays needs a device), so its functions, their signatures and its ufuncs' methods can
be read in CI.  The calls are found in the code, so the list cannot go stale:

- the CuPy backend's own (``interop/backends/cupy/``): every attribute chain from ``cupy``,
  ``cupyx`` or ``compat_cupy`` resolves, and a call's keywords are in the signature;
- the operations' (``interop/ops/``): every ``be.np.<name>(...)``, ``be.xp.<name>(...)``,
  ``linalg(be, "<name>")(...)``, ``be.ufunc("<name>")`` and special function the backend's
  namespaces must answer, keywords included, unless the record declares CuPy lacks it;
- the ufunc methods CuPy has (``cupy/ufunc_methods.NATIVE``) are exactly those its ufuncs
  answer without "is not supported yet".
"""

from __future__ import annotations

import ast
import inspect
import pathlib
from typing import Any

import numpy as np
import pytest

import interop

cupy = pytest.importorskip("cupy")

ROOT = pathlib.Path(interop.__file__).parent
BACKEND = ROOT / "backends" / "cupy"
OPS = ROOT / "ops"


def _chain(node: ast.AST) -> list[str] | None:
    """``a.b.c`` as ['a', 'b', 'c'] (None for anything but names and attributes)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def _keywords(call: ast.Call) -> tuple[str, ...]:
    return tuple(k.arg for k in call.keywords if k.arg is not None)


def _sites(paths: list[pathlib.Path], roots: set[str]) -> list[tuple[str, list[str], tuple]]:
    """(where, attribute chain, keywords of the call if it is called) for each chain from
    ``roots``, the longest only (``cupy.cuda.Device``, not also ``cupy.cuda``)."""
    found = []
    for path in paths:
        tree = ast.parse(path.read_text())
        called = {id(n.func): n for n in ast.walk(tree) if isinstance(n, ast.Call)}
        inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and id(node) not in inner:
                chain = _chain(node)
                if chain and chain[0] in roots and len(chain) > 1:
                    call = called.get(id(node))
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    found.append((where, chain, _keywords(call) if call else ()))
    return found


def _resolve(root: Any, names: list[str]) -> Any:
    obj = root
    for name in names:
        obj = getattr(obj, name)  # AttributeError: CuPy has no such thing
    return obj


def _accepts(fn: Any, keywords: tuple[str, ...]) -> list[str]:
    """The keywords ``fn``'s signature refuses ([] where it has none to read)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return []
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return []
    return [k for k in keywords if k not in params]


def _backend():
    return interop.get_backend("cupy")


# ------------------------------------------------------------------ the backend's own calls
def _roots():
    import array_api_compat.cupy as compat_cupy
    import cupyx
    import cupyx.scipy.special  # noqa: F401 (cupyx.scipy.special resolves as an attribute)
    return {"cupy": cupy, "cupyx": cupyx, "compat_cupy": compat_cupy}


BACKEND_SITES = _sites(sorted(BACKEND.glob("*.py")), {"cupy", "cupyx", "compat_cupy"})


def test_the_backend_calls_cupy():
    assert len(BACKEND_SITES) >= 15, BACKEND_SITES


@pytest.mark.parametrize("where, chain, keywords", BACKEND_SITES,
                         ids=[f"{w}:{'.'.join(c)}" for w, c, _ in BACKEND_SITES])
def test_backend_call_exists_in_cupy(where, chain, keywords):
    fn = _resolve(_roots()[chain[0]], chain[1:])
    assert not _accepts(fn, keywords), f"{where}: {'.'.join(chain)} takes no {_accepts(fn, keywords)}"


# ------------------------------------------------------------------ the operations' calls
def _declared_missing() -> set[str]:
    """Functions of the ops modules CuPy does not run: records that say CuPy lacks them, and
    Dask's own API (``family="dask"``: chunked tensors only; their calls may name what CuPy
    has not)."""
    from interop.ops.registry import TABLE
    return {r.impl.__name__ for r in TABLE.values() if "cupy" in r.lacks or r.family == "dask"}


def _ops_sites() -> list[tuple[str, str, list[str], tuple]]:
    """(where, kind, names, keywords): be.np / be.xp chains, linalg(be, "name") calls,
    be.ufunc("name") and be.ufunc_reduce("name", ...) calls, in functions CuPy serves."""
    missing = _declared_missing()
    found = []
    for path in sorted(OPS.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name in missing:
                continue
            called = {id(n.func): n for n in ast.walk(fn) if isinstance(n, ast.Call)}
            inner = {id(n.value) for n in ast.walk(fn) if isinstance(n, ast.Attribute)}
            for node in ast.walk(fn):
                where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
                if isinstance(node, ast.Attribute) and id(node) not in inner:
                    chain = _chain(node)
                    if chain and chain[:2] in (["be", "np"], ["be", "xp"]) and len(chain) > 2:
                        call = called.get(id(node))
                        found.append((where, chain[1], chain[2:], _keywords(call) if call else ()))
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Call):
                    inner_call = node.func  # linalg(be, "name")(...)
                    if isinstance(inner_call.func, ast.Name) and inner_call.func.id == "linalg" \
                            and len(inner_call.args) == 2 \
                            and isinstance(inner_call.args[1], ast.Constant):
                        found.append((where, "np", ["linalg", inner_call.args[1].value],
                                      _keywords(node)))
                if isinstance(node, ast.Call) and _chain(node.func) in (["be", "ufunc"],
                                                                       ["be", "ufunc_reduce"]) \
                        and node.args and isinstance(node.args[0], ast.Constant):
                    found.append((where, "ufunc", [node.args[0].value], ()))
    return found


OPS_SITES = _ops_sites()


def test_the_operations_call_the_backends_namespaces():
    assert len(OPS_SITES) >= 300, len(OPS_SITES)


@pytest.mark.parametrize("where, kind, names, keywords", OPS_SITES,
                         ids=[f"{w}:{k}.{'.'.join(n)}" for w, k, n, _ in OPS_SITES])
def test_operation_call_exists_on_cupy(where, kind, names, keywords):
    be = _backend()
    if kind == "ufunc":
        assert hasattr(cupy, names[0]), f"{where}: cupy has no ufunc {names[0]}"
        return
    fn = _resolve(be.np if kind == "np" else be.xp, names)
    refused = _accepts(fn, keywords)
    assert not refused, f"{where}: {kind}.{'.'.join(names)} on CuPy takes no {refused}"


def test_special_functions_the_operations_name_exist_on_cupy():
    """torch.special's table names SciPy's functions; the CuPy backend's module (cupyx's,
    with the recurrences it lacks) has each, or the operation declares CuPy lacks it."""
    from interop.ops.elementwise import special
    missing = _declared_missing()
    names = {fname for fname, *_ in special.UNARY.values()} | \
        {fname for fname, *_ in special.BINARY.values()} | \
        {f"eval_{fname}" for fname in special.POLYNOMIALS.values()}
    module = _backend().special
    absent = sorted(n for n in names if not hasattr(module, n) and n not in missing)
    assert not absent, f"cupyx.scipy.special lacks {absent}: supply them (cupy/special.py) " \
                       "or declare lacks={'cupy': ...} on their records"


# ------------------------------------------------------------------ ufunc methods
def _cupy_has(ufunc: Any, method: str) -> bool:
    """Whether CuPy's ufunc answers ``method`` itself: called on a stand-in object, a method
    CuPy lacks raises "is not supported yet" before looking at its argument."""
    try:
        if method == "at":
            getattr(ufunc, method)(object(), 0, 1)
        elif method == "reduceat":
            getattr(ufunc, method)(object(), [0])
        else:
            getattr(ufunc, method)(object())
    except NotImplementedError as exc:
        assert "not supported" in str(exc), exc
        return False
    except Exception:  # noqa: BLE001 - it went on to use the argument: it has the method
        return True
    return True


BINARY_UFUNCS = sorted(name for name, v in vars(np).items() if isinstance(v, np.ufunc)
                       and v.nin == 2 and v.nout == 1 and hasattr(cupy, name)
                       and isinstance(getattr(cupy, name), cupy.ufunc))


@pytest.mark.parametrize("method", ["reduce", "accumulate", "reduceat", "at"])
def test_the_table_of_native_ufunc_methods_is_cupys(method):
    from interop.backends.cupy.ufunc_methods import NATIVE
    has = {name for name in BINARY_UFUNCS if _cupy_has(getattr(cupy, name), method)}
    assert has == set(NATIVE[method]) & set(BINARY_UFUNCS), \
        f"CuPy's {method}: has {sorted(has)}, NATIVE says {sorted(NATIVE[method])}"


def test_scatter_kernels_are_the_ufuncs_with_at():
    from interop.backends.cupy.ufunc_methods import NATIVE
    with_kernel = {name for name in BINARY_UFUNCS
                   if getattr(getattr(cupy, name), "_scatter_op", None) is not None}
    assert with_kernel == set(NATIVE["at"])
