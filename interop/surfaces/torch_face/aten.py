"""The one mapping from ATen overloads to the operation table, made once per overload.

``handler_for(func)`` decides, in this order:

1. an adapter (``adapters.ADAPTERS``): the few ATen operations whose arguments say something
   else than the record's (``aten.convolution``'s ``transposed`` picks conv or its transpose);
2. the record of the same name, where the names agree: ``aten.<name>.<overload>`` when a record
   lists it, else the record answering ``torch.<name>``, ``torch.Tensor.<name>``,
   ``torch.nn.functional.<name>`` (``torch.special``, ``torch.linalg``, ``torch.fft`` for
   ``special_*``, ``linalg_*``, ``fft_*``), used only if the overload's argument names are the
   record's (``self``, the operand, is the record's first argument: ``input``, ``A``);
   arguments the record lacks must hold their inert value (``layout=torch.strided``,
   ``pin_memory=False``, the operands' own device); an in-place overload without a record of
   its own runs its functional form and writes the result back;
3. torch's decomposition of the overload into others (``decompose``);
4. else a ``NotImplementedError`` naming the overload and the backend: never torch's own kernels.

The handler unboxes the arguments (``boxes.unboxed``), runs the operation through the same
public path the plain facade uses (``dispatch.make_public``: fast paths, promotion, errors in
torch's words), and boxes the results; an in-place or ``out=`` overload returns the tensor it
wrote, as ATen does.
"""

from __future__ import annotations

import inspect
import keyword
from collections.abc import Callable
from typing import Any, Literal

from ...core.dispatch import make_public
from ...ops import TABLE, TORCH_NAMES
from ...ops.registry import Op
from ...upstream import UpstreamChangedError, changed
from . import adapters, boxes, decompose
from .boxes import PLAIN, boxed, unboxed
from .records import record

Handler = Callable[[tuple, dict], Any]
HANDLERS: dict[Any, Handler] = {}
"""OpOverload -> its handler, filled on first use of each overload."""

_ENTRIES: dict[str, Op] = {name: entry for entry in TABLE.values() for name in entry.torch}
_NAMESPACES = (("special_", "torch.special."), ("linalg_", "torch.linalg."),
               ("fft_", "torch.fft."))
_P = inspect.Parameter


_OVERLOAD_READS = ("_schema", "_opname", "_overloadname")
"""torch's ``OpOverload`` attributes this module reads (checked on the first overload)."""


def handler_for(func: Any) -> Handler:
    """The handler of ATen overload ``func`` (made once, then ``HANDLERS[func]``)."""
    if not HANDLERS:
        missing = [name for name in _OVERLOAD_READS if not hasattr(func, name)]
        if missing:
            raise UpstreamChangedError(changed(f"torch's OpOverload attributes {missing}",
                                               "torch", f"interop cannot run {func}"))
    handler = _adapted(func) or _from_record(func) or _from_functional(func) or \
        decompose.decomposed(func, handler_for) or _refusal(func)
    HANDLERS[func] = handler
    return handler


def candidate_names(func: Any) -> tuple[str, ...]:
    """The torch names whose record may run ATen overload ``func``, most specific first."""
    name = func._opname
    own = (f"aten.{name}.{func._overloadname}",) + (
        (f"aten.{name}",) if func._overloadname == "default" else ())
    spaced = tuple(space + name[len(prefix):] for prefix, space in _NAMESPACES
                   if name.startswith(prefix))
    return (*own, *spaced, f"torch.{name}", f"torch.Tensor.{name}",
            f"torch.nn.functional.{name}")


def _written_argument(schema: Any) -> int | str | None:
    """Where the tensor an in-place or ``out=`` overload returns comes from: its position
    among the arguments, or its keyword (``out``); None for a new result."""
    if len(schema.returns) != 1 or schema.returns[0].alias_info is None or \
            not schema.returns[0].alias_info.is_write:
        return None
    alias = schema.returns[0].alias_info.before_set
    for i, arg in enumerate(schema.arguments):
        if arg.alias_info is not None and arg.alias_info.before_set == alias:
            return arg.name if arg.kwarg_only else i
    return None


def _boxing(func: Any, call: Callable[..., Any], arguments: Callable | None = None) -> Handler:
    """The handler running ``call`` on the unboxed arguments (reshaped by ``arguments`` where
    the record's signature asks), boxing what it returns."""
    written = _written_argument(func._schema)

    def run(args: tuple, kwargs: dict) -> Any:
        iargs = [a._t if type(a) is boxes.TorchTensor else a if type(a) in PLAIN else unboxed(a)
                 for a in args]
        ikwargs = {k: unboxed(v) for k, v in kwargs.items()} if kwargs else kwargs
        if arguments is not None:
            iargs, ikwargs = arguments(args, iargs, ikwargs)
        out = call(*iargs, **ikwargs)
        if written is None:
            return boxed(out)
        target = kwargs[written] if isinstance(written, str) else args[written]
        if type(target) is boxes.TorchTensor and target.shape != target._t._raw.shape:
            boxes.restate(target)  # squeeze_, resize_, an out= resized: torch's sizes too
        return target
    return run


def _adapted(func: Any) -> Handler | None:
    adapter = adapters.ADAPTERS.get(str(func)) or \
        adapters.ADAPTERS.get(f"{func.namespace}.{func._opname}")
    return None if adapter is None else _boxing(func, adapter, _with_defaults(func))


def _with_defaults(func: Any) -> Callable:
    """The reshaping that hands an adapter every argument of the overload: torch leaves out
    those equal to the schema's defaults, so the schema's defaults are put back (an adapter's
    own defaults never decide)."""
    arguments = func._schema.arguments
    positional = [a for a in arguments if not a.kwarg_only]
    keywords = [a for a in arguments if a.kwarg_only and a.has_default_value()]

    def complete(args: tuple, iargs: list, ikwargs: dict) -> tuple[list, dict]:
        missing = positional[len(iargs):]
        if missing:
            iargs = [*iargs, *(a.default_value for a in missing if a.has_default_value())]
        if keywords:
            ikwargs = {**{a.name: a.default_value for a in keywords}, **ikwargs}
        return iargs, ikwargs
    return complete


def _from_record(func: Any) -> Handler | None:
    inplace = func._schema.name.endswith("_") and _written_argument(func._schema) == 0
    for name in candidate_names(func):
        entry, route = _ENTRIES.get(name), TORCH_NAMES.get(name)
        if entry is None or route is None:
            continue
        if inplace and entry.inplace is None:
            continue  # the out-of-place record of an in-place overload's name
        arguments = _agreement(func, entry)
        if arguments is False:
            continue
        public = make_public(route, str(func), f"aten.{func._opname}")
        return _boxing(func, public, arguments)
    return None


def _from_functional(func: Any) -> Handler | None:
    """An in-place overload without a record of its own (``squeeze_``, ``bernoulli_``): its
    out-of-place form, whose result replaces the target's array where it is a view of it (the
    target's shape changes: ``squeeze_``) and is written into it otherwise."""
    schema = func._schema
    if not schema.name.endswith("_") or _written_argument(schema) != 0:
        return None
    packet = getattr(boxes.TORCH.ops.aten, func._opname[:-1], None)
    names = [a.name for a in schema.arguments]
    functional = next((o for o in (getattr(packet, name) for name in packet.overloads())
                       if [a.name for a in o._schema.arguments] == names), None) \
        if packet is not None else None  # (transpose_.default is transpose.int)
    if functional is None:
        return None
    run = handler_for(functional)
    if run in _REFUSALS:
        return None  # nothing runs the functional form either: the in-place one is refused
    aliases = functional._schema.returns[0].alias_info is not None
    complete = _with_defaults(func)  # the in-place form's defaults (bernoulli_'s p=0.5)

    def run_inplace(args: tuple, kwargs: dict) -> Any:
        target, out = args[0], run(*complete(args, list(args), kwargs))
        if aliases:  # its own interop tensor now: others sharing the old one keep their shape
            target._t = out._t
            boxes.restate(target)
        else:
            record("torch.Tensor.copy_")(target._t, out._t)
        return target
    return run_inplace


def _record_parameters(entry: Op) -> list[inspect.Parameter]:
    try:
        return list(inspect.signature(entry.impl).parameters.values())[1:]  # without ``be``
    except (TypeError, ValueError):
        return []


_POSITIONAL = (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)


def _agreement(func: Any, entry: Op) -> Callable | None | Literal[False]:
    """How ``func``'s arguments reach ``entry``'s implementation: None when they go as they
    come (the names agree, position by position); a function reshaping them (keywords the
    record takes by name, a list of tensors spread over ``*tensors``, inert values dropped,
    enumerations as the record spells them); False when the names do not agree, or the record
    needs an argument the overload does not have."""
    params = _record_parameters(entry)
    by_name = {p.name: p for p in params}
    spread = next((i for i, p in enumerate(params) if p.kind is _P.VAR_POSITIONAL), len(params))
    any_keyword = any(p.kind is _P.VAR_KEYWORD for p in params)
    actions: list[tuple[str, str, Any]] = []  # (schema name, action, detail) per argument
    covered: set[str] = set()
    for i, arg in enumerate(func._schema.arguments):
        name = arg.name
        if i == 0 and name in ("self", "input", "x") and params and \
                params[0].kind in _POSITIONAL:
            name = params[0].name  # the operand, whatever the record calls it (input, A, x)
        elif name == "self" and "self" not in by_name:
            name = "input"
        # a name that is a Python keyword is the record's with an underscore (``from_``)
        own = by_name.get(f"{name}_" if keyword.iskeyword(name) else name)
        in_order = not arg.kwarg_only and all(a in ("position", "spread") for _, a, _ in actions)
        if in_order and i < spread and own is params[i] and own.kind in _POSITIONAL:
            actions.append((arg.name, "position", None))
            covered.add(name)
        elif own is not None and own.kind in (_P.POSITIONAL_OR_KEYWORD, _P.KEYWORD_ONLY):
            actions.append((arg.name, "keyword", name))
            covered.add(name)
        elif arg.name == "device":
            actions.append((arg.name, "device", None))
        elif arg.name in adapters.INERT:
            actions.append((arg.name, "inert", arg.default_value if arg.has_default_value()
                            else None))
        elif in_order and i >= spread and not any_keyword:  # into ``*sizes``, ``*tensors``
            listed = i == spread and str(arg.type) in _SPREAD
            actions.append((arg.name, "spread" if listed else "position", _SPREAD.get(
                str(arg.type))))
        elif any_keyword and (arg.kwarg_only or i >= spread):  # taken by name: ``**kwargs``
            actions.append((arg.name, "keyword", name))
        else:
            return False
    required = {p.name for p in params if p.kind in _POSITIONAL and p.default is _P.empty}
    if not required <= covered:
        return False
    as_they_come = all(action == "position" or action == "keyword" and arg.kwarg_only and
                       detail == arg.name
                       for (_, action, detail), arg in zip(actions, func._schema.arguments))
    enumerated = any(a.name in adapters.ENUMERATIONS and str(a.type) == "int"
                     for a in func._schema.arguments)
    if as_they_come and not enumerated:
        return None
    kinds = [a for _, a, _ in actions if a != "keyword"]
    if kinds[-1:] == ["spread"] and all(a == "position" for a in kinds[:-1]) and all(
            detail == arg.name for (_, action, detail), arg in zip(actions, func._schema.arguments)
            if action == "keyword") and not enumerated:
        return _spreading(len(kinds) - 1)  # view(self, size): view(t, *size), the common case
    return _reshaper(func, actions, "device" in by_name)


_SPREAD = {"List[Tensor]": "tensors", "List[int]": "sizes", "List[SymInt]": "sizes"}
"""Lists an overload passes where the record takes ``*tensors`` or ``*sizes`` (an empty list
of sizes stays one argument: ``view(t, ())`` is 0-d)."""


def _spreading(at: int) -> Callable:
    """The reshaping that spreads positional argument ``at`` (the last), sizes or tensors."""
    def arguments(args: tuple, iargs: list, ikwargs: dict) -> tuple[list, dict]:
        if len(iargs) <= at or not iargs[at]:
            return iargs, ikwargs
        return [*iargs[:at], *iargs[at]], ikwargs
    return arguments


def _reshaper(func: Any, actions: list[tuple[str, str, Any]], takes_device: bool) -> Callable:
    """The argument reshaping of ``_agreement``."""
    names = [a.name for a in func._schema.arguments]
    enumerations = {a.name: adapters.ENUMERATIONS[a.name] for a in func._schema.arguments
                    if a.name in adapters.ENUMERATIONS and str(a.type) == "int"}
    label = str(func)

    def arguments(args: tuple, iargs: list, ikwargs: dict) -> tuple[list, dict]:
        given = dict(zip(names, iargs))
        given.update(ikwargs)
        out_args: list = []
        out_kwargs: dict = {}
        for name, action, detail in actions:
            if name not in given:
                continue
            value = given[name]
            if name in enumerations:
                value = enumerations[name][value]
            if action == "position":
                out_args.append(value)
            elif action == "spread":
                out_args.extend(value) if value or detail == "tensors" else out_args.append(value)
            elif action == "keyword":
                out_kwargs[detail] = value
            elif action == "device":
                if value is not None and not adapters.same_device(value, args):
                    if not takes_device:
                        raise NotImplementedError(
                            f"{label}: device={value} differs from the operands'; move the "
                            "result afterwards (x.to(device))")
                    out_kwargs["device"] = value
            elif not adapters.inert(name, value, detail):
                raise NotImplementedError(f"{label}: {name}={value!r} is not supported on "
                                          f"interop's backends; leave {name} at its default")
        return out_args, out_kwargs
    return arguments


def _refusal(func: Any) -> Handler:
    def refuse(args: tuple, kwargs: dict) -> Any:
        face = boxes.first_face((*args, *kwargs.values()))
        where = f"the {face.backend} backend" if face is not None else "any backend"
        raise NotImplementedError(
            f"{func} is not implemented by interop for {where}: no "
            "record of the operation table runs it and torch has no decomposition of it; "
            "interop does not fall back to torch's own kernels. Work on t.as_interop() "
            "(interop's functions), or on a torch tensor (torch.from_dlpack(t.as_interop())).")
    _REFUSALS.add(refuse)
    return refuse


_REFUSALS: set[Handler] = set()
"""The handlers that only refuse (an overload nothing runs)."""
