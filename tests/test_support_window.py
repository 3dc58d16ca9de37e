"""The support window (docs/install.md, "Supported versions"): the floors declared in pyproject.toml are the
versions requirements/oldest.txt pins (what CI's oldest set installs), and what the floors
found stays fixed on whichever NumPy and SciPy run the tests: NumPy converts ``t.dtype``
(by ``__numpy_dtype__`` from NumPy 2.4, by the ``dtype`` attribute before it), and every
name ``interop.array_api.special`` offers is SciPy's public function, as SciPy computes it."""

from __future__ import annotations

import inspect
import pathlib
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import interop
from interop import numpy_compat

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _pyproject_floors() -> dict[str, str]:
    """``name -> floor`` for every ``name>=floor`` in pyproject.toml's dependencies and extras."""
    text = (ROOT / "pyproject.toml").read_text()
    return {m[1].lower(): m[2] for m in re.finditer(r'"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?>=([0-9.]+)', text)}


def _oldest_pins() -> dict[str, str]:
    lines = (ROOT / "requirements" / "oldest.txt").read_text().splitlines()
    return dict(line.lower().split("==") for line in lines if line and not line.startswith("#"))


def test_the_oldest_set_pins_exactly_the_declared_floors():
    """Each library in requirements/oldest.txt is declared with that floor, and every floor of
    interop's own dependencies and backends is in the oldest set (tested, not only declared)."""
    floors, pins = _pyproject_floors(), _oldest_pins()
    pins.pop("jaxlib")  # jax's own dependency, pinned with it
    for name, pin in pins.items():
        assert name in floors, f"{name}=={pin} is tested as a floor but pyproject.toml declares none"
        assert tuple(map(int, floors[name].split("."))) <= tuple(map(int, pin.split("."))), \
            f"{name}: pyproject.toml's floor {floors[name]} is below the tested {pin}"
        assert pin.startswith(floors[name]), f"{name}: floor {floors[name]}, tested {pin}"
    for runtime in ("numpy", "array-api-compat", "dask", "distributed", "torch", "jax", "cubed"):
        assert runtime in pins, f"{runtime}'s floor is declared but not in the oldest set"


def test_numpy_converts_the_tensor_dtype():
    """The conversions NumPy 2.2 and 2.3 refused (they read no ``__numpy_dtype__``)."""
    t = interop.tensor([1.0, 2.0], dtype=interop.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no DeprecationWarning from NumPy's dtype protocol
        assert np.dtype(t.dtype) == np.float32 and type(np.dtype(t.dtype)) is type(np.dtype("f4"))
        assert np.zeros(2, dtype=t.dtype).dtype == np.float32
        assert np.arange(3).astype(t.dtype).dtype == np.float32
        assert np.result_type(t.dtype, np.int8) == np.float32
        assert np.asarray(t, dtype=interop.tensor([1], dtype=interop.int16).dtype).dtype == np.int16
    # the dtype attribute is answered only where NumPy needs it
    assert hasattr(t.dtype, "dtype") is (not numpy_compat.READS_NUMPY_DTYPE_PROTOCOL)


def test_the_dtype_protocol_flag_is_what_numpy_does():
    class ByProtocol:
        @property
        def __numpy_dtype__(self):
            return np.dtype(np.int8)
    try:
        reads = np.dtype(ByProtocol()) == np.int8
    except TypeError:
        reads = False
    assert numpy_compat.READS_NUMPY_DTYPE_PROTOCOL is reads




def test_every_special_name_is_scipys_public_function():
    scipy_special = pytest.importorskip("scipy.special")
    from interop.array_api import special
    names = dir(special)
    assert {"digamma", "psi", "gammaln", "entr", "logit", "erf", "ndtr"} <= set(names)
    for name in names:
        assert getattr(special, name) is inspect.unwrap(getattr(scipy_special, name)), name
    with pytest.raises(AttributeError, match="offers SciPy's elementwise functions"):
        special.logsumexp  # noqa: B018  (a reduction, not a ufunc)


@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::DeprecationWarning")
@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_every_special_name_computes_as_scipy(backend):
    """Each ufunc on tensors of its arity, against SciPy on NumPy arrays (float64 inputs
    where the ufunc has a float loop; SciPy's own warnings for arguments out of a domain are
    SciPy's).  Dask runs ufuncs with one output: the others are refused by name."""
    pytest.importorskip("scipy")
    if backend == "dask":
        pytest.importorskip("dask")
    from interop.array_api import special
    host = np.array([0.25, 0.5, 1.5, 2.5])
    failures = []
    for name in dir(special):
        fn = getattr(special, name)
        args = [host + 0.125 * k for k in range(fn.nin)]
        try:
            want = fn(*args)
        except TypeError:  # integer-only loops (SciPy refuses floats): not an elementwise float
            continue
        tensors = [interop.tensor(a, backend=backend) for a in args]
        if backend == "dask" and fn.nout > 1:  # Dask runs one-output ufuncs only: refused clearly
            with pytest.raises(TypeError, match="not implemented by the dask backend"):
                fn(*tensors)
            continue
        got = fn(*tensors)
        for w, g in zip(want if isinstance(want, tuple) else (want,),
                        got if isinstance(got, tuple) else (got,)):
            if not isinstance(g, interop.Tensor) or g.backend != backend \
                    or not np.allclose(np.asarray(g), w, equal_nan=True):
                failures.append(name)
    assert not failures, f"special functions that differ from SciPy's on {backend}: {failures}"


_UNDER_ARRAY_API = """
import os; os.environ["SCIPY_ARRAY_API"] = "1"
import numpy as np, scipy.special, interop
t = interop.tensor([0.5, 1.5, 2.5], backend="dask")
xp = t.__array_namespace__()
a, b = scipy.special.digamma(t), xp.special.digamma(t)
print(type(a).__name__, a.device.backend, np.allclose(np.asarray(a), np.asarray(b)),
      np.allclose(np.asarray(b), scipy.special.psi(np.array([0.5, 1.5, 2.5]))))
"""


def test_digamma_under_scipys_array_api_mode():
    """SciPy's ``digamma`` (an alias SciPy 1.17 defines outside its ``_ufuncs``) through
    SciPy's Array API dispatch: SciPy asks the tensor's namespace, which answers SciPy's ufunc."""
    pytest.importorskip("scipy")
    pytest.importorskip("dask")
    out = subprocess.run([sys.executable, "-c", _UNDER_ARRAY_API], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["Tensor", "dask", "True", "True"]


def test_a_torch_tensor_comes_in_writable_and_shared():
    """NumPy 2.2's ``np.from_dlpack`` marks every import read-only; a CPU torch tensor still
    comes in writable, sharing its memory (``numpy_compat.FROM_DLPACK_KEEPS_WRITEABLE``)."""
    torch = pytest.importorskip("torch")
    w = torch.zeros(3)
    t = interop.from_dlpack(w)
    t.add_(1.0)
    assert w.tolist() == [1.0, 1.0, 1.0]


def test_like_creates_on_the_like_tensors_backend_on_every_numpy():
    """NumPy before 2.4 gives its C creation functions no signature: ``like=`` is still seen."""
    pytest.importorskip("dask")
    d = interop.tensor([1.0], backend="dask")
    for made in (np.zeros(3, like=d), np.asarray([1.0, 2.0], like=d), np.arange(3, like=d),
                 np.empty(2, like=d), np.ones(2, like=d)):
        assert isinstance(made, interop.Tensor) and made.backend == "dask"


def test_the_tensor_dtype_is_a_dtype_to_interop_itself():
    """Before NumPy 2.4 ``t.dtype`` answers ``.dtype`` and ``.shape`` (NumPy's protocol), as an
    array does: ``to()`` still reads it as a dtype, and counting over every axis is an int64."""
    t = interop.tensor([1, 0, 2])
    assert t.to(interop.tensor([1.0]).dtype).dtype == interop.float32
    assert interop.count_nonzero(t).dtype == interop.int64 and int(interop.count_nonzero(t)) == 2
