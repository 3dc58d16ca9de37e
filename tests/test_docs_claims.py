"""What README.md and the pages under docs/ say works, is lazy or raises, checked: the text
and these tests change together.

The snippets of every page run in tests/test_docs_snippets.py; here are the claims
written in prose.  A list of what a backend lacks is read from the page itself and each
entry called, so an entry that starts working fails here until the text drops it.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import interop
from tests.conftest import to_numpy
from tests.test_docs_snippets import blocks
from tests.test_numpy_functions import count_computes

pytest.importorskip("dask.array")
torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_WORDS = " ".join(" ".join(p.read_text(encoding="utf-8").split()) for p in PAGES)
NUMPY_HOW_TO = (ROOT / "docs" / "how-to" / "numpy-code.md").read_text(encoding="utf-8")


def says(text: str, page: str = _WORDS) -> bool:
    """Whether the README or a page of the docs says ``text`` (line breaks and indentation
    aside)."""
    return " ".join(text.split()) in page


def _bullet(text: str, opening: str) -> str:
    """The bullet (to the next bullet or heading) that begins with ``opening``."""
    start = text.index(opening)
    end = re.search(r"\n(- |#)", text[start + 1:])
    return text[start:start + 1 + end.start()] if end else text[start:]


def _dask(*shape: int) -> interop.Tensor:
    x = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape) % 7 + 1
    return interop.tensor(x, backend="dask", chunks=tuple(max(1, s // 2) for s in shape))


_NUMPY_LACKS_ON_DASK = {
    "polyval": lambda: np.polyval(_dask(3), _dask(4)),
    "polyfit": lambda: np.polyfit(_dask(4), _dask(4), 1),
    "roots": lambda: np.roots(_dask(3)),
    "convolve": lambda: np.convolve(_dask(4), _dask(3)),
    "correlate": lambda: np.correlate(_dask(4), _dask(3)),
    "kron": lambda: np.kron(_dask(2, 2), _dask(2, 2)),
    "inner": lambda: np.inner(_dask(3), _dask(3)),
    "trapezoid": lambda: np.trapezoid(_dask(4)),
    "vander": lambda: np.vander(_dask(3)),
    "diagflat": lambda: np.diagflat(_dask(3)),
    "resize": lambda: np.resize(_dask(4), (2, 3)),
    "trim_zeros": lambda: np.trim_zeros(_dask(4)),
    "lexsort": lambda: np.lexsort((_dask(4), _dask(4))),
    "intersect1d": lambda: np.intersect1d(_dask(4), _dask(4)),
    "setdiff1d": lambda: np.setdiff1d(_dask(4), _dask(4)),
    "setxor1d": lambda: np.setxor1d(_dask(4), _dask(4)),
    "packbits": lambda: np.packbits(_dask(8) > 3),
    "unpackbits": lambda: np.unpackbits(interop.tensor(np.arange(4, dtype=np.uint8),
                                                       backend="dask")),
    "put": lambda: np.put(_dask(4), [0], 1.0),
    "place": lambda: np.place(_dask(4), _dask(4) > 2, [0.0]),
    "putmask": lambda: np.putmask(_dask(4), _dask(4) > 2, 0.0),
    "copyto": lambda: np.copyto(_dask(4), _dask(4)),
    "fill_diagonal": lambda: np.fill_diagonal(_dask(3, 3), 0.0),
    "put_along_axis": lambda: np.put_along_axis(
        _dask(2, 3), interop.tensor(np.zeros((2, 1), np.int64), backend="dask"), 0.0, axis=1),
    "linalg.eig": lambda: np.linalg.eig(_dask(3, 3)),
    "linalg.eigvals": lambda: np.linalg.eigvals(_dask(3, 3)),
    "linalg.tensorsolve": lambda: np.linalg.tensorsolve(_dask(4, 4), _dask(4)),
    "linalg.tensorinv": lambda: np.linalg.tensorinv(_dask(4, 2, 2), ind=1),
    "common_type": lambda: np.common_type(_dask(3)),
    "shares_memory": lambda: np.shares_memory(_dask(3), _dask(3)),
    "isrealobj": lambda: np.isrealobj(_dask(3)),
}


def test_the_numpy_how_tos_lacks_list_is_what_dask_lacks():
    """Every NumPy function docs/how-to/numpy-code.md lists as left on Dask raises the
    documented error; the list in the text and the calls here are the same names."""
    bullet = _bullet(NUMPY_HOW_TO, "- **What the backend lacks** raises `TypeError: numpy.")
    listed = re.findall(r"`([\w.]+)`", bullet.split("Left on\n  Dask")[1])
    listed = [name for name in listed if not name.startswith("tests/")]
    assert sorted(listed) == sorted(_NUMPY_LACKS_ON_DASK)
    for name in listed:
        with pytest.raises(TypeError, match="not implemented by the dask backend"):
            _NUMPY_LACKS_ON_DASK[name]()


@pytest.mark.parametrize("call", [
    lambda: torch.cummax(_dask(4, 3), 0), lambda: torch.unique(_dask(4, 3), dim=0),
    lambda: torch.as_strided(_dask(4, 3), (2, 2), (1, 1))],
    ids=["cummax", "unique(dim=0)", "as_strided"])
def test_the_documented_examples_of_what_interop_lacks_on_dask_raise(call):
    with pytest.raises(interop.errors.BackendLacksError, match="by the dask backend"):
        call()
    assert says("`torch.cummax`, `torch.unique(dim=0)`, `torch.as_strided`")


@pytest.mark.parametrize("call", [
    lambda d: np.add.reduce(d, axis=1), lambda d: np.add.at(d, [0, 0], 1.0),
    lambda d: np.sort(d, axis=0), lambda d: np.cross(d[:, :3], d[:, 1:]),
    lambda d: np.fft.fft(d, axis=1), lambda d: torch.linalg.det(d[:, :3].reshape(1, 3, 3)),
    lambda d: torch.msort(d), lambda d: torch.linalg.lu(d[:, :3]),
    lambda d: torch.linalg.lu_factor(d[:, :3])],
    ids=["add.reduce", "add.at", "sort", "cross", "fft over chunks", "det", "msort", "lu",
         "lu_factor"])
def test_what_the_docs_once_listed_as_lacking_runs_lazily_on_dask(call):
    """Once listed as raising on Dask; now lazy (no compute) and NumPy's or torch's values."""
    d = _dask(3, 4)
    ref = interop.tensor(to_numpy(d))
    with count_computes() as computes:
        got = call(d)
    assert computes == []
    expected = call(ref)
    if got is None:  # np.add.at: the target's values
        got, expected = d, ref
    for g, e in zip(*(x if isinstance(x, tuple) else (x,) for x in (got, expected))):
        assert g.backend == "dask"
        np.testing.assert_allclose(to_numpy(g), to_numpy(e), rtol=1e-10, atol=1e-12)


def test_is_lazy_array_answers_true_without_computing():
    import array_api_compat
    with count_computes() as computes:
        assert array_api_compat.is_lazy_array(_dask(4)) is True
    assert computes == []
    assert says("`array_api_compat.is_lazy_array(t)` is True for a Dask tensor")


def test_a_dask_tensors_namespace_and_device_give_dask_whatever_the_default():
    import interop.array_api as xp
    x = _dask(4)
    assert interop.default_backend() == "numpy"
    assert x.device == "cpu" and x.device.backend == "dask"
    assert xp.asarray(np.arange(3.0), device=x.device).backend == "dask"
    assert x.__array_namespace__().asarray(np.arange(3.0)).backend == "dask"
    assert xp.asarray(np.arange(3.0)).backend == "numpy"
    assert says("so `xp.asarray(r, device=x.device)` also gets a Dask tensor for Dask input, "
                "whatever the default backend")
    assert says("`interop.array_api` itself is the default backend's namespace")


def test_dtypes_as_the_docs_say():
    """docs/semantics.md, "Dtypes": what t.dtype is to NumPy's world and to torch."""
    t = interop.tensor(np.arange(3.0, dtype=np.float32))
    assert isinstance(t.dtype, np.dtype) and type(t.dtype) is not np.dtype
    assert interop.float32 == np.float32 and t.dtype == torch.float32
    assert np.zeros(3, dtype=t.dtype).dtype == np.float32
    assert torch.zeros(3, dtype=t.dtype).dtype == torch.float32
    assert says("`isinstance(t.dtype, np.dtype)` holds (xarray, pandas)")
    assert says("`type(t.dtype)` is not `np.dtype`")


def test_an_out_on_another_backend_receives_the_result_as_the_docs_say():
    out = interop.tensor(np.zeros(4))
    assert np.add(_dask(4), 1.0, out=out) is out and out.backend == "numpy"
    np.testing.assert_array_equal(to_numpy(out), to_numpy(_dask(4)) + 1)
    assert says("an `out=` tensor on another backend\n  than the inputs keeps its backend")


def test_dlpack_of_a_dask_tensor_computes_once_under_the_policy():
    d = _dask(4)
    with count_computes() as computes:
        got = torch.from_dlpack(d)
    assert len(computes) == 1
    np.testing.assert_array_equal(got.numpy(), to_numpy(d))
    with interop.config(dask_compute="raise"), pytest.raises(interop.DaskComputeError):
        torch.from_dlpack(d)
    assert says("a Dask tensor is computed once, under `dask_compute`")


def test_dtypes_numpy_lacks_raise_unsupported_dtype_error():
    """docs/errors.md, rule 7."""
    for make in (lambda: interop.as_tensor(torch.ones(2, dtype=torch.float8_e4m3fn)),
                 lambda: interop.tensor([1.0], dtype=torch.float8_e5m2)):
        with pytest.raises(interop.errors.UnsupportedDtypeError, match="float8.* is not supported"):
            make()
    errors_page = " ".join((ROOT / "docs" / "errors.md").read_text(encoding="utf-8").split())
    assert says("a torch `float8`, `complex32` or sub-byte tensor or dtype "
                "(`UnsupportedDtypeError`", errors_page)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_gradient_answers_in_numpys_form(backend):
    """docs/surfaces.md: the namespace's ``gradient`` is NumPy's, its form too."""
    import interop.array_api as xp
    x = np.arange(12.0).reshape(3, 4) ** 2
    t = interop.tensor(x, backend=backend, **({"chunks": (2, 2)} if backend == "dask" else {}))
    for f in (np.gradient, xp.gradient):
        one, both = f(t[0]), f(t)
        assert isinstance(one, interop.Tensor) and one.backend == backend
        np.testing.assert_allclose(to_numpy(one), np.gradient(x[0]))
        assert type(both) is tuple and len(both) == 2
        for g, e in zip(both, np.gradient(x)):
            np.testing.assert_allclose(to_numpy(g), e)


_FENCES = {"python": "runs", "text": "runs where it holds >>> examples", "bash": "commands",
           "py": "illustrative: needs what the tests lack (a GPU, a cluster, torchvision, "
                 "SciPy's Array API mode set before its import)", "": "a diagram"}


def test_every_fenced_block_is_run_or_marked_illustrative():
    """Every fenced block of README.md and docs/**/*.md: ``python`` blocks run in
    tests/test_docs_snippets.py, ``py`` marks an illustrative one (it names why nearby),
    and no block is in a language this list does not know."""
    seen = {}
    for page in PAGES:
        for language, _code, line in blocks(page):
            assert language in _FENCES, f"{page.name}:{line}: fence '{language}' is neither " \
                "run (python) nor marked illustrative (py)"
            seen.setdefault(language, []).append(f"{page.name}:{line}")
    assert len(seen.get("python", ())) >= 10


def test_gradient_of_unknown_sizes_says_how_to_learn_them():
    """Dask's own gradient fails an assertion on NaN chunks; interop names the fix, and after
    it NumPy's values come back."""
    x = np.arange(6.0) ** 2
    d = interop.tensor(x, backend="dask", chunks=2)
    masked = d[d > 2]
    with pytest.raises(interop.UnknownShapeError, match="numpy.gradient.*compute_chunk_sizes"):
        np.gradient(masked)
    np.testing.assert_allclose(to_numpy(np.gradient(masked.compute_chunk_sizes())),
                               np.gradient(x[x > 2]))
