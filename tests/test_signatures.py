"""Every generated function and method shows real parameter names, torch's where torch has them.

``help()``, Jupyter's shift-tab and the API reference read ``inspect.signature``;
the records' implementations carry torch's names, and the generated callables
expose them.  The reference is the signature line at the top of each torch
function's docstring (``sum(input, dim, keepdim=False, *, dtype=None) -> Tensor``).
"""

from __future__ import annotations

import inspect
import pydoc
import re

import pytest

import interop
from interop.core.dispatch import route_for
from interop.ops import TABLE

# Dask's own keyword arguments pass straight through: their names are Dask's to choose.
TAKES_BACKEND_KWARGS = {"compute", "persist"}

# torch names whose parameters interop spells differently, and why (a fixed one must go).
KNOWN_DIFFERENCES = {
    # creation functions take backend=/chunks= in place of torch's layout= (strided only)
    "torch.full": "no layout=", "torch.arange": "no layout=", "torch.linspace": "no layout=",
    "torch.logspace": "no layout=", "torch.eye": "no layout=", "torch.randint": "no layout=",
    # the legacy names share one record with torch.linalg.*, whose parameter is A
    "torch.inverse": "torch.linalg.inv's A", "torch.det": "torch.linalg.det's A",
    "torch.logdet": "torch.linalg's A", "torch.matrix_power": "torch.linalg.matrix_power's A",
    "torch.pinverse": "torch.linalg.pinv's A",
    # binary elementwise operations are generated with (input, other) by one factory
    "torch.pow": "exponent is other", "torch.dot": "tensor is other",
    # aliases share their operation's record: torch documents them with other names
    "torch.swapaxes": "transpose's dim0/dim1", "torch.true_divide": "div's input/other",
    "torch.unsafe_split": "split's input (torch documents it as tensor)",
}


def _generated_callables():
    for entry in TABLE.values():
        if entry.function:
            for name in (entry.name, *entry.aliases):
                yield f"interop.{name}", getattr(interop, name), False
        for name in (entry.method, entry.inplace):
            attr = getattr(interop.Tensor, name) if name and not entry.property else None
            if callable(attr) and route_for(attr) is not None:
                yield f"Tensor.{name}", attr, True


CALLABLES = sorted({label: (f, m) for label, f, m in _generated_callables()}.items())


@pytest.mark.parametrize("label, func, is_method",
                         [(label, f, m) for label, (f, m) in CALLABLES], ids=[c[0] for c in CALLABLES])
def test_parameters_are_named(label: str, func, is_method: bool) -> None:
    params = list(inspect.signature(func).parameters.values())
    bare = [p.kind for p in params if p.name != "self"] == [inspect.Parameter.VAR_POSITIONAL,
                                                           inspect.Parameter.VAR_KEYWORD]
    if label.rsplit(".", 1)[-1] not in TAKES_BACKEND_KWARGS:  # (*tensors) is torch's own form
        assert not bare and params, f"{label}{inspect.signature(func)} names no parameter"
    if is_method:
        assert params[0].name == "self", f"{label}{inspect.signature(func)}"


def test_help_shows_torchs_parameters() -> None:
    text = pydoc.render_doc(interop.sum, renderer=pydoc.plaintext)
    assert ("sum(input, dim: 'DimOrDims | None' = None, keepdim: 'KeepDim' = False, *, "
            "dtype: 'DType' = None") in text  # the annotations say what each argument is
    assert "(self, dim: 'DimOrDims | None' = None, keepdim" in str(inspect.signature(interop.Tensor.sum))
    assert "out" in inspect.signature(interop.matmul).parameters  # an out= form says so
    assert list(inspect.signature(interop.Tensor.add_).parameters) == ["self", "other", "alpha"]


def _documented_parameters(torch_callable, short: str) -> list[set[str]]:
    """Each overload's parameter names, from the signature lines heading torch's docstring."""
    found = []
    for line in (torch_callable.__doc__ or "").splitlines()[:40]:
        m = re.match(rf"^{re.escape(short)}\((.*)\)\s*(->.*)?$", line.strip())
        if m:
            names = (re.split(r"[=:]", a.strip())[0].strip() for a in m.group(1).split(","))
            found.append({n for n in names if n.isidentifier() and n != "out"
                          and n not in ("Tensor", "LongTensor")})
    return found


def _torch_functions():
    torch = pytest.importorskip("torch")
    for entry in TABLE.values():
        if not entry.function:
            continue
        for torch_name in entry.torch:
            if torch_name.startswith("torch.Tensor"):
                continue
            obj = torch
            for part in torch_name.split(".")[1:]:
                obj = getattr(obj, part, None)
            overloads = _documented_parameters(obj, torch_name.rsplit(".", 1)[-1]) if obj else []
            if overloads:
                yield torch_name, getattr(interop, entry.name), overloads


def test_names_agree_with_torchs_documentation() -> None:
    differing, checked = set(), 0
    for torch_name, func, overloads in _torch_functions():
        checked += 1
        params = inspect.signature(func).parameters.values()
        ours = {p.name for p in params}
        if not any(p.kind is p.VAR_POSITIONAL for p in params) and \
                not any(names <= ours for names in overloads):
            differing.add(torch_name)
    assert checked > 400
    assert differing == set(KNOWN_DIFFERENCES), (
        f"new differences: {sorted(differing - set(KNOWN_DIFFERENCES))}; "
        f"fixed (remove from KNOWN_DIFFERENCES): {sorted(set(KNOWN_DIFFERENCES) - differing)}")


@pytest.mark.parametrize("name", ["__bool__", "__setitem__", "sum", "reshape"])
def test_signatures_made_when_first_read_act_as_signatures(name):
    """``Signature.replace`` (the official Array API suite's signature test calls it) and
    ``bind_partial`` work on the signatures made on first read, as on inspect's own."""
    sig = inspect.signature(getattr(interop.Tensor, name))
    replaced = sig.replace(return_annotation=int)
    assert replaced.return_annotation is int and replaced.parameters == sig.parameters
    assert list(sig.bind_partial(interop.tensor([1.0])).arguments) == ["self"]
