"""The dispatch core: one path from any surface to a backend and back.

    public callable --(fast path, or the override protocol)--> route.run(cls, args, kwargs)
    run: unwrap Tensors (no copy) -> common backend -> bring foreign operands in
         -> impl(be, *raw_args) -> wrap the result once, as ``cls``, finalized

One module per job:

- ``routes``: ``Route``, what a callable runs, decided once; the registry that finds the
  route of any surface's callable;
- ``unwrap``: arguments to raw arrays, the promotion policy applied;
- ``running``: implementations called, and backends' errors restated in torch's words;
- ``writes``: in-place writes, checked before anything is written;
- ``runs``: the routes of the operation table's entries;
- ``callables`` and ``operator_methods``: the generated functions, methods, properties,
  ``t[i]`` and operators, with their fast paths;
- ``handler``: the default ``__torch_function__``, installed onto ``Tensor``;
- ``wrapping`` and ``shortcuts``: results back to tensors, and the operators' raw shortcut.

The fast path applies when no mode or guard is active in this thread or task and
every argument is an exact ``Tensor``, a plain value, or a subclass that keeps the
default ``__torch_function__`` (then the result class is simply the lowest
subclass, which is what the default handler would produce).
"""

from ..tensor import make
from .callables import DispatchedProperty, active, call, dispatch, make_getitem, make_public, plain_call
from .handler import default_torch_function
from .operator_methods import make_operator
from .routes import RESOLVERS, Route, route_for
from .running import backend_error, call_impl, restated, run_op
from .runs import make_inplace_route, make_route
from .unwrap import exact_tensors, unwrap_call
from .wrapping import finish, wrap
from .writes import onto_target, write_into

__all__ = ["RESOLVERS", "DispatchedProperty", "Route", "active", "backend_error", "call",
           "call_impl", "default_torch_function", "dispatch", "exact_tensors", "finish",
           "make", "make_getitem", "make_inplace_route", "make_operator", "make_public",
           "make_route", "onto_target", "plain_call", "restated", "route_for", "run_op",
           "unwrap_call", "wrap", "write_into"]
