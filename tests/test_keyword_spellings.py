"""Keywords that name a parameter another way (``op(keywords=...)``).

interop's functions take NumPy's keyword spellings where NumPy's function of the same name
has them (``tensordot(a, b, axes=1)``, ``tril(m, k=1)``, ``median(x, axis=0)``), for the
parameter they name: code and libraries that call a tensor's module with NumPy's spelling
(``opt_einsum``) work, and the result is what NumPy's spelling gives NumPy.  And torch's
keywords for the parameters its signatures spell ``*size`` (``t.reshape(shape=(2, 3))``,
``t.view(size=...)``, ``zeros(size=...)``) give what torch gives."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import interop
from interop.ops import TABLE
from tests.conftest import to_numpy

A = np.arange(12.0).reshape(3, 4) / 7 - 0.5
B = np.arange(20.0).reshape(4, 5) / 3
S = np.array([[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 5.0]])
V = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0])

# name -> (arrays, NumPy keywords); the interop function of that name takes the same call
# (first results compared where torch's returns (values, indices)).
CASES = {
    "tensordot": ((A, B), {"axes": 1}),
    "tril": ((S,), {"k": -1}), "triu": ((S,), {"k": 1}), "diag": ((V,), {"k": 1}),
    "diagflat": ((V[:3],), {"k": -1}), "diagonal": ((S,), {"axis1": 1, "axis2": 0}),
    "roll": ((A,), {"shift": 2}), "tile": ((S,), {"reps": (2, 1)}),
    "rot90": ((A,), {"axes": (1, 0)}), "transpose": ((A,), {"axes": (1, 0)}),
    "sort": ((A,), {"axis": 0}), "argsort": ((V,), {"axis": 0}),
    "diff": ((A,), {"axis": 0}), "gradient": ((V,), {"axis": 0}),
    "trapezoid": ((A,), {"axis": 0}), "unique": ((np.array([3, 1, 3, 2]),), {"axis": 0}),
    "median": ((A,), {"axis": 0, "keepdims": True}), "nanmedian": ((A,), {"axis": 0}),
    "nansum": ((A,), {"axis": 0, "keepdims": True}), "nanmean": ((A,), {"axis": 1}),
    "quantile": ((A, 0.25), {"axis": 0, "method": "lower"}),
    "nanquantile": ((A, 0.5), {"axis": 1, "keepdims": True}),
    "std": ((A,), {"ddof": 1}), "var": ((A,), {"ddof": 0}),
    "cov": ((A,), {"ddof": 0}),
    "histogram": ((V,), {"bins": 3, "weights": V / 2}),
    "take": ((V, np.array([0, 3])), {}),
    "isin": ((), {"element": V, "test_elements": np.array([1.0, 9.0])}),
    "linspace": ((), {"start": 0.0, "stop": 2.0, "num": 5}),
    "logspace": ((), {"start": 0.0, "stop": 2.0, "num": 3}),
    "arange": ((), {"start": 1, "stop": 7}),
    "zeros": ((), {"shape": (2, 3)}), "ones": ((), {"shape": (2,)}),
    "full": ((), {"shape": (2, 2), "fill_value": 1.5}),
    "full_like": ((S,), {"fill_value": 2.5}),
}
_FIRST = {"median", "nanmedian", "sort", "histogram"}  # torch's (values, indices): values
_NUMPY_ONLY = {"unique": "Dask's unique has no axis (BackendLacksError)"}


@pytest.mark.parametrize("name", CASES)
def test_numpys_spelling_gives_numpys_result(name, default_backend):
    if name in _NUMPY_ONLY and default_backend != "numpy":
        pytest.skip(_NUMPY_ONLY[name])
    arrays, kwargs = CASES[name]
    tensors = [interop.tensor(a) for a in arrays]
    ours = getattr(interop, name)(*tensors, **{k: interop.tensor(v) if isinstance(
        v, np.ndarray) else v for k, v in kwargs.items()})
    theirs = getattr(np, name)(*arrays, **kwargs)
    if name in _FIRST:
        ours, theirs = ours[0], theirs[0] if isinstance(theirs, tuple) else theirs
    if name == "gradient":  # torch's is a tuple of one tensor per dimension
        ours = ours[0]
    np.testing.assert_allclose(to_numpy(ours), np.asarray(theirs), rtol=1e-6)


# torch's keyword calls for parameters taken as ``*args``: (label, call on a module and a
# (2, 3) tensor of it), each run on torch and on interop.
TORCH_KEYWORDS = {
    "reshape": lambda m, t: t.reshape(shape=(3, 2)),
    "torch.reshape": lambda m, t: m.reshape(t, shape=(6,)),
    "view": lambda m, t: t.view(size=(3, 2)),
    "view dtype": lambda m, t: t.view(dtype=m.int32),
    "expand": lambda m, t: t[:1].expand(size=(4, 3)),
    "permute": lambda m, t: t.permute(dims=(1, 0)),
    "torch.permute": lambda m, t: m.permute(t, dims=(1, 0)),
    "repeat": lambda m, t: t.repeat(repeats=(2, 1)),
    "sum_to_size": lambda m, t: t.sum_to_size(size=(1, 3)),
    "new_zeros": lambda m, t: t.new_zeros(size=(2,)),
    "new_ones": lambda m, t: t.new_ones(size=(1, 2)),
    "new_empty": lambda m, t: t.new_empty(size=(3,)).shape,
    "resize_": lambda m, t: t.clone().resize_(size=(2, 2)),
    "zeros": lambda m, t: m.zeros(size=(2, 3)),
    "ones": lambda m, t: m.ones(size=(2,)),
    "empty": lambda m, t: m.empty(size=(2, 1)).shape,
    "rand": lambda m, t: m.rand(size=(4,)).shape,
    "randn": lambda m, t: m.randn(size=(1, 4)).shape,
}


@pytest.mark.parametrize("label", TORCH_KEYWORDS)
def test_torchs_keyword_for_a_star_parameter_gives_torchs_result(label, default_backend):
    torch = pytest.importorskip("torch")
    call = TORCH_KEYWORDS[label]
    theirs = call(torch, torch.arange(6.0).reshape(2, 3))
    ours = call(interop, interop.arange(6.0).reshape(2, 3))
    if isinstance(theirs, torch.Size):
        assert tuple(ours) == tuple(theirs)
    else:
        np.testing.assert_array_equal(to_numpy(ours), theirs.numpy())


def test_every_declared_spelling_is_numpys_or_torchs():
    """A record's other keyword names are its NumPy namesake's (which NumPy takes by keyword),
    or torch's keyword for an ``*args`` parameter (tested above); the signature shows them."""
    torch_keywords = {label.split()[0].removeprefix("torch.") for label in TORCH_KEYWORDS}
    for entry in TABLE.values():
        numpy_fn = getattr(np, entry.name, None)
        try:
            numpy_names = {p.name for p in inspect.signature(numpy_fn).parameters.values()
                           if p.kind is not p.POSITIONAL_ONLY} if callable(numpy_fn) else set()
        except ValueError:  # NumPy before 2.4 gives its C callables no signature: unchecked there
            continue
        for theirs in entry.keywords:
            assert theirs in numpy_names or entry.name in torch_keywords, (entry.name, theirs)
        if entry.function and entry.keywords:
            params = inspect.signature(getattr(interop, entry.name)).parameters
            assert set(entry.keywords) <= set(params), entry.name


def test_both_spellings_at_once_are_refused():
    with pytest.raises(TypeError, match="tensordot.*'dims'.*'axes'"):
        interop.tensordot(interop.tensor(A), interop.tensor(B), dims=1, axes=1)


@pytest.mark.parametrize("equation, shapes", [
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]), ("ij,jk->ki", [(3, 4), (4, 5)]),
    ("ijk,jl->kli", [(3, 4, 2), (4, 6)]), ("ij,ij->", [(3, 4), (3, 4)])])
def test_opt_einsum_contracts_tensors(equation, shapes, default_backend):
    """opt_einsum calls the tensor's module with NumPy's spellings (tensordot(axes=),
    transpose(x, axes)); its result is NumPy's einsum's, as a tensor."""
    opt_einsum = pytest.importorskip("opt_einsum")
    arrays = [np.random.default_rng(i).random(s) for i, s in enumerate(shapes)]
    out = opt_einsum.contract(equation, *[interop.tensor(a) for a in arrays])
    assert isinstance(out, interop.Tensor) and out.backend == default_backend
    np.testing.assert_allclose(to_numpy(out), np.einsum(equation, *arrays), rtol=1e-10)
