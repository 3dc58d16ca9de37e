"""The operation table: each operation declared once, with every name it answers to.

An entry names the implementation (written against a backend's namespaces,
taking raw arrays), the interop function and Tensor method it becomes, its
in-place form, and its torch names.  ``interop.ops.install`` generates the
public callables from this table; ``lookup_torch`` finds an entry by the
torch name of a callable that torch passed to ``__torch_function__``.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..config import user_stacklevel
from ..errors import BackendLacksError, InteropDeprecationWarning
from .blockwise import Blockwise, lowered
from .normalize import normalizing


@dataclass
class Op:
    """One operation.  ``impl(be, *args, **kwargs)`` gets raw arrays on backend ``be``."""

    name: str
    impl: Callable[..., Any]
    function: bool = True          # interop.<name>
    method: str | None = None      # Tensor.<method>
    inplace: str | None = None     # Tensor.<inplace>, writing through to the buffer
    torch: tuple[str, ...] = ()    # torch names ("torch.add", "torch.Tensor.add", ...)
    aliases: tuple[str, ...] = ()  # more interop function names
    creation: bool = False         # takes backend=/device= instead of tensor operands
    property: bool = False         # Tensor.<method> is a property (dispatches <name>.__get__)
    out: bool = False              # accepts out= (a Tensor written through)
    family: str = ""
    doc: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    lacks: dict[str, str] = field(default_factory=dict)  # backend name -> why it cannot run there
    native: bool = True            # a backend may run its library's own function instead
    bare: Callable[..., Any] | None = None  # impl without its dimension normaliser
    fits: Callable[[tuple], bool] | None = None  # args the bare impl takes as they are
    keywords: dict[str, str] = field(default_factory=dict)  # another spelling -> the parameter
    deprecated: str = ""           # when it goes and what to call instead; every call warns

    @builtins.property
    def native_names(self) -> tuple[str, ...]:
        """The torch names a backend whose library is torch runs its own function under, in
        place of ``impl`` (``Backend.native``): those of the out-of-place forms, aliases
        included; none for creation functions (``backend=`` picks theirs) and records
        marked ``native=False``."""
        if not self.native:
            return ()
        return tuple(n for n in self.torch if n.rsplit(".", 1)[-1] != self.inplace)

    @builtins.property
    def inplace_native_names(self) -> tuple[str, ...]:
        """The torch names of the in-place form (``torch.Tensor.add_``, ``torch.relu_``)."""
        if not self.native or not self.inplace:
            return ()
        return tuple(n for n in self.torch if n.rsplit(".", 1)[-1] == self.inplace)


TABLE: dict[str, Op] = {}

AXIS = {"axis": "dim", "keepdims": "keepdim"}
"""NumPy's spelling of a reduction's ``dim`` and ``keepdim`` (``op(keywords=AXIS)``)."""
SIZE = {"size": "size"}
"""torch's keyword for a ``*size`` parameter (``zeros(size=(2, 3))``)."""
SHAPE = {**SIZE, "shape": "size"}
"""... and NumPy's spelling of it (``zeros(shape=(2, 3))``)."""


def op(name: str | None = None, *, function: bool = True, method: bool | str = True,
       inplace: bool | str = False, torch: tuple[str, ...] | None = None,
       aliases: tuple[str, ...] = (), creation: bool = False, out: bool = False,
       property: bool = False, family: str = "", wrap: bool = True,
       targets: bool = False, all_dims_if_empty: bool = False,
       tensor_dim_is_other: bool = False, writes: bool = False, rebinds: bool = False,
       lacks: dict[str, str] | None = None, native: bool = True,
       keywords: dict[str, str] | None = None,
       blockwise: Blockwise | None = None,
       deprecated: str = "") -> Callable[[Callable], Callable]:
    """Declare an operation; its torch names default to torch.<name>, Tensor.<name>, Tensor.<name>_.

    ``wrap=False``: the result is returned as the implementation made it (``numpy()``
    returns an ndarray, not a tensor).  ``targets=True``: only the first argument is an
    operand; tensors after it name a target (``t.to(other)``), so may sit on any device.
    ``all_dims_if_empty``: ``dim=()`` means every dimension (torch's sum, mean, amax, ...);
    ``tensor_dim_is_other``: a tensor where ``dim`` stands is an operand (``torch.max(x, y)``).
    Dimension arguments are normalised before ``impl`` runs (``interop.ops.normalize``).
    ``writes=True``: the first argument is written in place (``t[i] = v``): it keeps its
    backend, and the other arguments are brought onto it.
    ``rebinds=True``: the result replaces the first argument's array (``t.resize_(n)``
    changes ``t``'s shape, which no write into its buffer can); it is computed on that
    argument's backend, and tensors after it are read where they are (only their shapes).
    ``family``: for the modules outside the domain packages (attributes, dtypes, dask);
    elsewhere the package is the family (``domain_of``).
    ``lacks={"dask": "why"}``: the backends whose library cannot express it; calls there raise
    ``BackendLacksError``, and the tests and the support matrix read the same declaration.
    ``native=False``: the operation speaks of interop's own objects (backends, its repr), so a
    backend whose library is torch itself never runs torch's function in its place
    (``Backend.native``).
    ``keywords={"axes": "dims"}``: other keyword names taken for a parameter: NumPy's, where
    its function of the same name spells one differently (``tensordot(a, b, axes=1)``, as
    ``opt_einsum`` calls it; the meaning stays torch's), and torch's keyword for a parameter
    the implementation takes as ``*args`` (``{"size": "shape"}``: ``view(size=(2, 3))``).
    ``blockwise=Blockwise(axes=...)``: the axes along which it is independent, so a chunked
    backend runs it one task per chunk (``ops.blockwise``).
    ``deprecated="removed in ...; use ..."``: every spelling warns
    (``InteropDeprecationWarning``) and runs ``impl`` on every backend (torch's own function
    may be the one removed).
    """
    def register(impl: Callable) -> Callable:
        key = name or impl.__name__.rstrip("_")
        meth = (key if method is True else method) or None
        inpl = (f"{meth or key}_" if inplace is True else inplace) or None
        names = torch if torch is not None else (
            *((f"torch.{key}", *(f"torch.{a}" for a in aliases)) if function else ()),
            *((f"torch.Tensor.{meth}.__get__" if property else f"torch.Tensor.{meth}",)
              if meth else ()),
            *((f"torch.Tensor.{inpl}",) if inpl else ()),
        )
        if key in TABLE:
            raise ValueError(f"operation {key!r} is declared twice")
        # The refusal sits inside the normaliser: the fast path's ``bare`` call keeps it.
        run = lowered(impl, blockwise) if blockwise is not None else impl
        run = deprecating(run, key, deprecated) if deprecated else run
        checked = normalizing(refusing(run, names[0] if names else key, lacks or {}), key,
                              all_dims_if_empty=all_dims_if_empty,
                              tensor_dim_is_other=tensor_dim_is_other)
        spellings = dict(keywords or {})
        call = spelled(checked.call, key, spellings, _star_parameter(impl)) if spellings \
            else checked.call
        TABLE[key] = Op(key, call, bare=checked.bare, fits=checked.fits, keywords=spellings,
                        function=function, method=meth, inplace=inpl, torch=names,
                        aliases=aliases, creation=creation, out=out, property=property,
                        family=family or domain_of(impl),
                        doc=(impl.__doc__ or "").strip(),
                        extra={**({} if wrap else {"wrap": False}),
                               **({"targets": True} if targets else {}),
                               **({"writes": True} if writes else {}),
                               **({"rebinds": True} if rebinds else {})},
                        lacks=dict(lacks or {}), deprecated=deprecated,
                        native=native and not creation and not deprecated)
        return impl
    return register


def domain_of(impl: Callable) -> str:
    """The family of an operation declared in a domain package: its name
    (``interop.ops.linalg.lu`` -> ``linalg``); so where a record lives is its family."""
    parts = impl.__module__.split(".")
    return parts[2] if len(parts) > 3 and parts[:2] == ["interop", "ops"] else ""


def refusing(impl: Callable, label: str, lacks: dict[str, str]) -> Callable:
    """``impl``, raising ``BackendLacksError`` on the backends its record says it lacks."""
    if not lacks:
        return impl

    @functools.wraps(impl)
    def checked(be: Any, *args: Any, **kwargs: Any) -> Any:
        why = lacks.get(getattr(be, "name", None))
        if why is not None:
            raise BackendLacksError(
                f"{label} is not implemented by the {be.name} backend ({why}); compute first: "
                "t.compute() or interop.tensor(t, backend='numpy'), or run it on a backend "
                f"that has it (not {', '.join(sorted(lacks))})")
        return impl(be, *args, **kwargs)
    return checked


def deprecating(impl: Callable, name: str, advice: str) -> Callable:
    """``impl``, warning first that ``name`` is deprecated (``advice``: when it goes, and what
    to call instead), at the user's line."""
    @functools.wraps(impl)
    def warned(be: Any, *args: Any, **kwargs: Any) -> Any:
        warnings.warn(f"{name} is deprecated: {advice}", InteropDeprecationWarning,
                      stacklevel=user_stacklevel())
        return impl(be, *args, **kwargs)
    return warned


def _star_parameter(impl: Callable) -> tuple[str, int] | None:
    """The name of ``impl``'s ``*args`` parameter and how many positional ones precede it
    (``be`` aside), read from its code (``inspect.signature`` costs import time); None if it
    has none."""
    code = getattr(inspect.unwrap(impl), "__code__", None)
    if code is None or not code.co_flags & inspect.CO_VARARGS:
        return None
    return code.co_varnames[code.co_argcount + code.co_kwonlyargcount], code.co_argcount - 1


def spelled(call: Callable, label: str, spellings: dict[str, str],
            star: tuple[str, int] | None) -> Callable:
    """``call`` taking the keywords ``spellings`` names (another name -> the parameter's);
    a keyword for the ``*args`` parameter ``star`` (its name, and the count of positional
    parameters before it) passes its value as that one positional argument (``size_arg``
    reads ``f((2, 3))`` as ``f(2, 3)``).  Only calls with keywords come here: the fast path
    calls the bare implementation."""
    star_name, before = star or (None, 0)

    @functools.wraps(call)
    def renamed(be: Any, *args: Any, **kwargs: Any) -> Any:
        for theirs, ours in spellings.items():
            if theirs not in kwargs:
                continue
            if ours == star_name:
                if len(args) != before:
                    raise TypeError(f"{label}(): got '{theirs}' both by keyword and by "
                                    "position: pass one")
                args = (*args, kwargs.pop(theirs))
            elif ours in kwargs:
                raise TypeError(f"{label}(): got both '{ours}' and its other spelling "
                                f"'{theirs}': pass one")
            else:
                kwargs[ours] = kwargs.pop(theirs)
        return call(be, *args, **kwargs)
    renamed.spellings = spellings  # type: ignore[attr-defined]  # (read by native calls)
    return renamed


def torch_names(name: str, module: str = "torch", *, function: bool = False,
                method: bool = False, also: tuple[str, ...] = ()) -> tuple[str, ...]:
    """torch's names for an operation, where ``op``'s default rule does not give them (the
    one way to spell them): ``<module>.<name>`` (``torch``, ``torch.linalg``,
    ``torch.nn.functional``; ``aten`` adds the default overload), then ``torch.<name>``
    (``function``) and ``torch.Tensor.<name>`` (``method``) where torch has those too,
    then ``also``."""
    own = (f"aten.{name}", f"aten.{name}.default") if module == "aten" else (f"{module}.{name}",)
    return (*own, *((f"torch.{name}",) if function and module != "torch" else ()),
            *((f"torch.Tensor.{name}",) if method else ()), *also)


def torch_alias(*names: str, to: str) -> None:
    """Add torch names (aliases, reflected operators) to an existing entry."""
    entry = TABLE[to]
    entry.torch = (*entry.torch, *names)
