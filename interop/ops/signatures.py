"""Real signatures for the generated callables, read from each record's implementation.

Implementations are written ``impl(be, input, dim=None, ..., *, dtype=None)``
with torch's parameter names; the public function drops ``be``, the method
calls its tensor ``self``, and ``out=`` forms gain their keyword.  Setting
``__signature__`` is what ``help()``, Jupyter's shift-tab, ``inspect`` and the
API reference read, so they show torch's names instead of ``(*args, **kwargs)``.
Each is a ``LazySignature``: worked out when first read, not by ``import interop``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

_P = inspect.Parameter
_POSITIONAL = (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)


def _readable(p: inspect.Parameter) -> inspect.Parameter:
    """``Any`` says nothing to a reader: drop it; keep annotations that inform."""
    return p.replace(annotation=_P.empty) if p.annotation in ("Any", _P.empty) else p


def public_signature(impl: Callable, *, method: bool = False, out: bool = False,
                     also: tuple[str, ...] = ()) -> inspect.Signature | None:
    """The user-facing signature of ``impl``: without ``be``; ``self`` first for methods;
    ``also``: keywords taken besides (NumPy's spellings), keyword-only."""
    try:
        params = list(inspect.signature(impl).parameters.values())[1:]
    except (TypeError, ValueError):  # a builtin without introspection: leave the default
        return None
    params = [_readable(p) for p in params]
    if method:
        if params and params[0].kind in _POSITIONAL:
            params[0] = params[0].replace(name="self")
        else:
            params.insert(0, _P("self", _P.POSITIONAL_ONLY))
    extra = (*also, "out") if out else also
    for name in extra:
        if all(p.name != name for p in params):
            at = next((i for i, p in enumerate(params) if p.kind is _P.VAR_KEYWORD), len(params))
            params.insert(at, _P(name, _P.KEYWORD_ONLY, default=None))
    return inspect.Signature(params)


class LazySignature(inspect.Signature):
    """A ``Signature`` whose parameters are made by ``make()`` when first read.

    ``inspect.signature`` returns a function's ``__signature__`` as it is, so this stands
    in for the real one: building the signatures of over a thousand callables is most of
    what generating them costs, and few are ever read.  ``make`` returning None gives the
    generic ``(*args, **kwargs)``."""

    def __init__(self, make: Callable[[], inspect.Signature | None]) -> None:
        self._make = make  # (Signature's own slots stay unset until first read)

    def __getattr__(self, name: str) -> Any:
        if name not in ("_parameters", "_return_annotation"):
            raise AttributeError(name)
        made = self._make() or _GENERIC
        self._parameters, self._return_annotation = made.parameters, made.return_annotation
        return getattr(self, name)

    def replace(self, **changes: Any) -> inspect.Signature:  # type: ignore[override]  # plain
        """A plain ``Signature`` with ``changes`` (``Signature.replace`` calls the class with
        parameters, which this one's constructor does not take)."""
        return inspect.Signature(list(self.parameters.values()),
                                 return_annotation=self.return_annotation).replace(**changes)


_GENERIC = inspect.Signature([_P("args", _P.VAR_POSITIONAL), _P("kwargs", _P.VAR_KEYWORD)])


def lazy_public_signature(impl: Callable, *, method: bool = False, out: bool = False,
                          also: tuple[str, ...] = ()) -> LazySignature:
    """``public_signature(impl, ...)``, worked out when first read."""
    return LazySignature(lambda: public_signature(impl, method=method, out=out, also=also))
