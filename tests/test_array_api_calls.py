"""Every function of ``interop.array_api`` takes the calls its standard signature allows.

``tests/test_array_api.py`` checks what ``inspect.signature`` says; this calls each
function the two ways the standard's signature (array-api-strict's) allows at the
extremes: required positional-only parameters by position and nothing else, then every
other parameter by keyword, each given its default (consumers such as SciPy pass
``prepend=None`` or ``copy=None`` on by keyword).  Both calls must give
array-api-strict's result for the same call, on every backend.
"""

from __future__ import annotations

import inspect

import array_api_strict as strict
import numpy as np
import pytest

import interop
import interop.array_api as xp
from interop.array_api import _names
from tests.conftest import to_numpy

QUALNAMES = [*_names.CREATION, *_names.ARRAY, *(f"linalg.{n}" for n in _names.LINALG),
             *(f"fft.{n}" for n in _names.FFT_CREATION + _names.FFT)]

SQUARE = [[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]]
VECTOR = [3.0, 1.0, 2.0, 1.0]
COMPLEX = [[1 + 1j, 2, 0], [3, 4j, 1], [0, 1, 2]]
_COMMON = {
    "x": SQUARE, "x1": SQUARE, "x2": [[1.0, 0.5, 2.0], [0.0, 3.0, 1.0], [1.0, 1.0, 1.0]],
    "shape": (2, 3), "fill_value": 1.5, "start": 0.0, "stop": 1.0, "num": 5, "n": 3,
    "n_rows": 3, "obj": [1.0, 2.0], "kind": "real floating", "indices": [0, 2], "axis": 0,
    "axes": (1, 0), "source": 0, "destination": 1, "repeats": 2, "shift": 1,
    "repetitions": (2, 1), "condition": [[True, False, True]] * 3,
    "dtype": "float32", "from_": "int32", "to": "int64", "type": "float32",
}
# Values a function needs where the common ones will not do (what array-api-strict accepts:
# integer bitwise operands, 1-d cumulative sums, complex FFT input, ...): by name prefix,
# then by name (which wins).
_BY_PREFIX = {
    "bitwise_": {"x": [[1, 2], [4, 8]], "x1": [[1, 2], [4, 8]], "x2": [[3, 1], [2, 1]]},
    "logical_": {"x": [True, False], "x1": [True, False], "x2": [True, True]},
    "unique_": {"x": VECTOR}, "cumulative_": {"x": VECTOR}, "fft.": {"x": COMPLEX},
}
_BY_NAME = {
    "nonzero": {"x": VECTOR}, "sort": {"x": VECTOR}, "argsort": {"x": VECTOR},
    "take": {"x": VECTOR}, "take_along_axis": {"indices": [[0], [2], [1]]},
    "isin": {"x1": [1, 2, 3], "x2": [2, 5]}, "imag": {"x": COMPLEX}, "iinfo": {"type": "int16"},
    "linalg.outer": {"x1": [1.0, 2.0], "x2": [3.0]},
    "linalg.cross": {"x1": [[1.0, 2.0, 3.0]], "x2": [[0.0, 1.0, 5.0]]},
    "searchsorted": {"x1": [1.0, 2.0, 3.0], "x2": [2.5, 0.0]},
    "squeeze": {"x": [SQUARE], "axis": 0}, "reshape": {"shape": (9,)},
    "broadcast_to": {"shape": (2, 3, 3)}, "tensordot": {"axes": 1},
    "linalg.tensordot": {"axes": 1}, "linalg.matrix_power": {"n": 2},
    "fft.fftfreq": {"n": 4}, "fft.rfftfreq": {"n": 4},
    **{f"fft.{name}": {"x": VECTOR} for name in ("rfft", "ihfft", "fftshift", "ifftshift")},
    "fft.rfftn": {"x": SQUARE},
}
_ARRAYS = ("x", "x1", "x2", "indices", "condition")
_DTYPES = ("dtype", "from_", "to", "type")
# Results that no two implementations need agree on: uninitialised values, and the signs of
# singular vectors (only shapes and dtypes are compared there).
_ANY_VALUES = {"empty", "empty_like", "linalg.svd"}


def _value(ns, qualname: str, name: str):
    """The sample for parameter ``name`` of ``qualname`` in namespace ``ns`` (arrays made by
    ``ns.asarray``, dtypes named in ``ns``)."""
    if name == "arrays":
        return [_value(ns, qualname, "x")] * 2
    values = dict(_COMMON)
    for prefix, special in _BY_PREFIX.items():
        if qualname.startswith(prefix):
            values.update(special)
    values.update(_BY_NAME.get(qualname, {}))
    value = values.get(name)
    if name in _DTYPES:
        return getattr(ns, value)
    return ns.asarray(np.asarray(value)) if name in _ARRAYS else value


def _function(ns, qualname: str):
    for part in qualname.split("."):
        ns = getattr(ns, part)
    return ns


def _call(ns, qualname: str, every_keyword: bool):
    """``qualname`` of ``ns`` called by the standard's signature (``interop.array_api``'s,
    which tests/test_array_api.py compares with array-api-strict's): the required
    parameters by position; with ``every_keyword``, every one that may be passed by keyword
    by keyword, each at its default where it has one (positional-only ones by position)."""
    args, kwargs = [], {}
    for p in inspect.signature(_function(xp, qualname)).parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            args += {"arrays": [_value(ns, qualname, "x")] * 2, "shapes": [(2, 1), (1, 3)],
                     "arrays_and_dtypes": [_value(ns, qualname, "x"), ns.float32]}[p.name]
        elif p.default is not p.empty:
            if every_keyword and p.kind is p.POSITIONAL_ONLY:
                args.append(p.default)
            elif every_keyword:
                kwargs[p.name] = p.default
        elif p.kind is p.POSITIONAL_ONLY or not every_keyword:
            args.append(_value(ns, qualname, p.name))
        else:
            kwargs[p.name] = _value(ns, qualname, p.name)
    return _function(ns, qualname)(*args, **kwargs)


def _host(result):
    if isinstance(result, (tuple, list)):
        return [_host(r) for r in result]
    if isinstance(result, interop.Tensor):
        return to_numpy(result)
    if hasattr(result, "__dlpack__"):
        return np.from_dlpack(result)
    if hasattr(result, "bits"):  # finfo, iinfo: their numbers, and the dtype's name
        return {k: str(getattr(result, k)).rsplit(".", 1)[-1] if k == "dtype" else
                getattr(result, k) for k in ("bits", "eps", "max", "min", "dtype")
                if hasattr(result, k)}
    return str(result).rsplit(".", 1)[-1] if "dtype" in type(result).__name__.lower() else result


def _assert_same(got, want, exact: bool) -> None:
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _assert_same(g, w, exact)
    elif isinstance(want, np.ndarray):
        assert (got.shape, got.dtype) == (want.shape, want.dtype)
        if exact:
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-12)
    else:
        assert got == want


@pytest.fixture(autouse=True, scope="module")
def strict_2025_12():
    strict.set_array_api_strict_flags(api_version="2025.12")
    yield
    strict.reset_array_api_strict_flags()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # log(0), 1/0 of the common samples
@pytest.mark.parametrize("every_keyword", [False, True], ids=["positional", "keywords"])
@pytest.mark.parametrize("qualname", QUALNAMES)
def test_calls_the_standard_allows_give_stricts_result(qualname, every_keyword,
                                                       default_backend):
    want = _host(_call(strict, qualname, every_keyword))
    got = _host(_call(xp, qualname, every_keyword))
    _assert_same(got, want, exact=qualname not in _ANY_VALUES)
