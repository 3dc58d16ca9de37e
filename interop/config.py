"""Options: ``interop.config(...)`` sets them for the current context, or for a block (``with``).

Settings are context-local (``contextvars``): each thread and each asyncio
task has its own.  Per context and per option there is a small stack of
entries: a ``with interop.config(...)`` block pushes one on entry and removes
its own on exit (wherever it is in the stack, so blocks that exit out of
order never leave a value behind), and a plain call changes the innermost
entry (undone with the enclosing block that set that option, if any, else
kept for the context).  A context with no entry for an option reads the
process default (``interop.config.set_default``).  Readers call
``setting(name)``; nothing here is a mutable global they could touch.
"""

from __future__ import annotations

import contextvars
import sysconfig
import threading
import warnings
from collections.abc import Callable, Mapping
from types import FrameType, MappingProxyType, ModuleType
from typing import Any, NamedTuple

from .errors import DaskComputeError, DaskComputeWarning
from .upstream import private, warn_changed

_CHOICES = {
    "implicit_transfer": (False, True),
    "dask_compute": ("allow", "warn", "raise"),
    "transfer_guard": ("allow", "log", "disallow"),
    "persist_state": ("step", "never"),
    "progress": ("auto", True, False),
    "kernels": ("auto", "torch", "interop"),
}
_defaults: dict[str, Any] = {"implicit_transfer": False, "dask_compute": "allow",
                             "transfer_guard": "allow", "persist_state": "step",
                             "progress": "auto", "kernels": "auto"}
"""The process defaults, replaced whole by ``config.set_default`` (never changed in place)."""
_defaults_lock = threading.Lock()


class _Entry(NamedTuple):
    owner: object | None  # the config object that set it; None: the context's own value
    value: Any
    block: bool  # False while its config object has not been entered: a plain call, so far


_stacks: contextvars.ContextVar[Mapping[str, tuple[_Entry, ...]]] = contextvars.ContextVar(
    "interop_settings", default=MappingProxyType({}))
"""option -> its entries in this context, innermost last (copied on every change)."""


def setting(name: str) -> Any:
    """The value of option ``name`` in the current thread or task: the one accessor readers use."""
    entries = _stacks.get().get(name)
    if entries:
        return entries[-1].value
    try:
        return _defaults[name]
    except KeyError:
        raise ValueError(f"interop.config: unknown option {name!r}; known: "
                         f"{sorted(_CHOICES)}") from None


def _validated(options: dict[str, Any]) -> dict[str, Any]:
    unknown = set(options) - set(_CHOICES)
    if unknown:
        raise ValueError(f"interop.config: unknown option(s) {sorted(unknown)}; known: "
                         f"{sorted(_CHOICES)}")
    for k, v in options.items():
        if v not in _CHOICES[k]:
            raise ValueError(f"interop.config: {k}={v!r} is not one of "
                             f"{', '.join(map(repr, _CHOICES[k]))}")
    return options


def _settled(entries: tuple[_Entry, ...]) -> tuple[_Entry, ...]:
    """``entries`` with a plain call on top folded into the entry below it (or made the base)."""
    if not entries or entries[-1].block:
        return entries
    top = entries[-1]
    if len(entries) == 1:
        return (_Entry(None, top.value, True),)
    below = entries[-2]
    return (*entries[:-2], below._replace(value=top.value))


def _change(options: dict[str, Any], edit: Callable[[tuple[_Entry, ...], str, Any],
                                                   tuple[_Entry, ...]]) -> None:
    """Apply ``edit(entries, option, value) -> entries`` to each option, in this context only."""
    stacks = dict(_stacks.get())
    for name, value in options.items():
        entries = edit(stacks.get(name, ()), name, value)
        if entries:
            stacks[name] = entries
        else:
            stacks.pop(name, None)
    _stacks.set(stacks)


class config:  # noqa: N801 - used like a function: interop.config(implicit_transfer=True)
    """Set options for this thread or task (``interop.config(x=...)``) or for a block (``with``).

    Options:

    - ``implicit_transfer`` (False): allow operands on different devices to be
      moved to one device instead of raising.
    - ``dask_compute`` ('allow'): what happens when a value of a Dask tensor is
      read implicitly (``item()``, ``bool()``, ``float()``/``int()``,
      ``tolist()``, ``numpy()``, ``np.asarray``): 'allow' computes, 'warn'
      computes and issues a ``DaskComputeWarning``, 'raise' raises
      ``DaskComputeError``.  ``t.compute()``, ``interop.compute`` and
      ``t.to(backend='numpy')`` always compute; printing never does.
    - ``transfer_guard`` ('allow'): what an implicit move between devices
      (host and GPU, or two GPUs; only possible with ``implicit_transfer=True``)
      does: 'allow' moves, 'log' moves and logs to the ``interop.transfer``
      logger, 'disallow' raises ``DeviceMismatchError``.  Explicit moves
      (``t.to(...)``, ``t.cuda()``, ``t.cpu()``) are never guarded.
    - ``persist_state`` ('step'): a torch training loop on a lazy backend (weights
      moved by ``interop.to_backend``) persists the optimizer's state after each
      ``optimizer.step()`` (weights, gradients, momenta, the modules' buffers), so
      each step's graph is one step long; 'never' keeps the whole loop one lazy
      graph (it grows with every step).  A persist is a compute: ``dask_compute``
      governs it.
    - ``progress`` ('auto'): the progress bar of a compute that runs for more
      than a second: 'auto' shows it in a notebook and an interactive terminal,
      never under CI or pytest; False never shows it; True shows it wherever
      the compute runs.  ``t.compute(progress=...)`` wins over it.
    - ``kernels`` ('auto'): who computes the heavy kernels (convolutions, pools,
      normalisations, softmax, losses, attention, and their gradients) on NumPy
      blocks: 'auto' runs torch's CPU kernels where torch is importable and has
      the dtype (zero-copy, results stay NumPy), else interop's own forms, and
      on a ``dask.distributed`` worker imports torch only where its memory
      limit leaves room for it (an import that pauses the worker would stall
      the compute; the worker warns in its log instead); 'torch' imports it on
      any worker; 'interop' always runs interop's own forms (for tests and
      comparisons).  Dask's and Cubed's chunk tasks run in worker threads,
      which read the process default: set it for them with ``set_default``.

    Settings are per context, like ``decimal.localcontext`` and torch's
    per-thread grad mode: a block in one thread or asyncio task never changes
    another's.  A new thread starts from the process defaults (set with
    ``interop.config.set_default(...)``), not from the settings of the thread
    that started it (unless Python copies contexts into new threads:
    ``sys.flags.thread_inherit_context``); an asyncio task, ``asyncio.to_thread``
    and ``contextvars.copy_context().run`` start from a copy of their creator's.
    So work that a thread pool (Dask's threaded scheduler too) runs for you
    reads the process defaults: set program-wide settings with ``set_default``.
    Calling ``interop.config(x=...)`` without ``with`` sets ``x`` for the
    current context (until the enclosing ``with`` block that set ``x`` exits,
    if there is one).  The object may be entered again, nested or in other
    threads and tasks; each exit removes its own context's entry.
    """

    def __init__(self, **options: Any) -> None:
        self._options = _validated(options)
        _change(options, self._push_plain)

    def __enter__(self) -> config:
        _change(self._options, self._push_block)
        return self

    def __exit__(self, *exc: object) -> None:
        _change(self._options, self._remove_block)

    def _push_plain(self, entries: tuple[_Entry, ...], _: str, value: Any) -> tuple[_Entry, ...]:
        return (*_settled(entries), _Entry(self, value, False))  # a block once entered

    def _push_block(self, entries: tuple[_Entry, ...], _: str, value: Any) -> tuple[_Entry, ...]:
        if entries and entries[-1].owner is self and not entries[-1].block:
            return (*entries[:-1], entries[-1]._replace(block=True))  # `with config(...)`
        return (*_settled(entries), _Entry(self, value, True))  # entered again, or elsewhere

    def _remove_block(self, entries: tuple[_Entry, ...], name: str, _: Any) -> tuple[_Entry, ...]:
        entries = _settled(entries)  # a plain call inside the block ends with it
        for i in range(len(entries) - 1, -1, -1):
            if entries[i].owner is self and entries[i].block:
                return entries[:i] + entries[i + 1:]
        raise RuntimeError(f"interop.config({name}=...): exited in a thread or task where this "
                           "block was not entered; enter and exit it in the same one")

    def __repr__(self) -> str:
        return f"interop.config({', '.join(f'{k}={v!r}' for k, v in self._options.items())})"

    get = staticmethod(setting)

    @staticmethod
    def set_default(**options: Any) -> None:
        """Set the process defaults: what every thread and task without its own setting reads.

        Use it at start-up for settings meant for the whole program, worker
        threads included: ``interop.config.set_default(dask_compute='raise')``.
        """
        global _defaults
        _validated(options)
        with _defaults_lock:
            _defaults = {**_defaults, **options}


def transfer_guard(level: str) -> config:
    """Set the guard on implicit device transfers ('allow', 'log', 'disallow'), as JAX's.

    For the current thread or task when called, or for a block:
    ``with interop.transfer_guard('disallow'):`` (see ``interop.config``).
    """
    return config(transfer_guard=level)


# The frames of the callers interop recognises (this module, torch_face/saving.py,
# torch_participant._calling_batch_norm): CPython's, checked once at import.
_getframe: Callable[[int], FrameType] = private("sys", "_getframe")

# Libraries whose frames stand between the user's line and a value read: interop itself,
# and torch, NumPy and Dask when the user's call came in through their functions.
_LIBRARY_FRAMES = frozenset({"interop", "torch", "numpy", "dask"})


def user_stacklevel() -> int:
    """``warnings.warn``'s stacklevel, from the caller of this, that names the user's line.

    Walks out of the frames of interop (and of the libraries that called into
    it), so a warning points at the code that asked for the value.
    """
    frame: FrameType | None = _getframe(2)
    level = 2
    while frame is not None and \
            frame.f_globals.get("__name__", "").partition(".")[0] in _LIBRARY_FRAMES:
        frame, level = frame.f_back, level + 1
    return level


def _asked_by_laziness_probe() -> bool:
    """Whether the code reading values (the first frames outside interop) is array-api-compat's
    ``is_lazy_array``, or a vendored copy (SciPy's, scikit-learn's), or a helper of the same
    package it called: it decides known array types by class and probes others with
    ``bool()``, reading a raising one as lazy (``check_laziness_probe`` checks each copy at the
    first lazy value read after its import)."""
    frame: FrameType | None = _getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("interop."):
        frame = frame.f_back
    while frame is not None and "array_api_compat" in frame.f_globals.get("__name__", ""):
        if frame.f_code.co_name == "is_lazy_array":
            return True
        frame = frame.f_back
    return False


class _LazinessProbe:
    """An Array API object of one element that reads as a lazy tensor does when ``bool()`` is
    asked by array-api-compat's laziness probe, and as False otherwise."""

    shape = (1,)

    def __array_namespace__(self, api_version: Any = None) -> ModuleType:
        namespace = ModuleType(f"{__name__}.laziness_probe")  # (a module: hashable, named)
        namespace.any = lambda x, *args, **kwargs: x  # type: ignore[attr-defined]
        return namespace

    def __bool__(self) -> bool:
        if _asked_by_laziness_probe():
            raise TypeError("lazy")
        return False


UNCHECKED_PROBES: list[Any] = []
"""array-api-compat and its vendored copies imported since the last lazy value read (each is
checked then: during its own import, the libraries it asks about may be half loaded)."""


def check_laziness_probe(compat: Any) -> None:
    """array-api-compat's (or a vendored copy's) ``is_lazy_array`` must be recognised by its
    frames, or it would compute a lazy tensor to answer "not lazy" under the default
    ``dask_compute='allow'``; an ``InteropWarning`` says so where it is not."""
    is_lazy_array = getattr(compat, "is_lazy_array", None)
    try:
        recognised = is_lazy_array is None or is_lazy_array(_LazinessProbe())
    except Exception:  # noqa: BLE001  (said below, never raised into the user's value read)
        recognised = False
    if not recognised:
        warn_changed(f"{compat.__name__}.is_lazy_array calling bool() in its own frame (or a "
                     "helper's of its package)", compat.__name__,
                     "is_lazy_array(a lazy tensor) computes it and answers False; "
                     "interop.config(dask_compute='raise') makes that compute an error")


_INSTALLED = tuple({sysconfig.get_paths()[k] for k in ("purelib", "platlib")})
_WRAPPERS = frozenset({"wrapper", "wrapped", "inner", "decorated", "decorator", "func", "f",
                       "fun", "<lambda>", "__call__"})


def _consumer() -> str | None:
    """The installed library's function that asked for the values (``scipy.signal.
    _signaltools.detrend``), or None if the first frame outside interop, torch, NumPy and Dask
    is not an installed library's (the user's own code): its outermost frame of that library
    with a name of its own (not a decorator's ``wrapper``)."""
    frame: FrameType | None = _getframe(2)
    while frame is not None and \
            frame.f_globals.get("__name__", "").partition(".")[0] in _LIBRARY_FRAMES:
        frame = frame.f_back
    if frame is None or not frame.f_code.co_filename.startswith(_INSTALLED):
        return None
    package, named = frame.f_globals.get("__name__", "").partition(".")[0], None
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == package:
        code = frame.f_code
        if code.co_name not in _WRAPPERS and not code.co_name.startswith("_"):
            named = f"{frame.f_globals['__name__']}.{code.co_name}"
        frame = frame.f_back
    return named


def check_value_read(why: str, what: str) -> None:
    """An implicit value read is about to compute ``what`` (a lazy array, described for the
    message): ``interop.config(dask_compute=...)`` says whether it may, for every lazy backend.

    array-api-compat's ``is_lazy_array`` gets its answer at once, without a compute: the
    ``TypeError`` the standard has ``bool()`` raise where a value is not available (no
    protocol lets an array say it is lazy; docs/errors.md)."""
    while UNCHECKED_PROBES:
        check_laziness_probe(UNCHECKED_PROBES.pop())
    if _asked_by_laziness_probe():
        raise TypeError(f"{why or 'reading the values'} of a lazy array, asked by "
                        "array_api_compat.is_lazy_array: lazy (nothing was computed)")
    policy = setting("dask_compute")
    if policy == "allow":
        return
    consumer = _consumer()
    msg = (f"{why or 'reading the values'} computes {what}; call t.compute() to compute "
           f"explicitly, or set interop.config(dask_compute='allow') (now {policy!r})"
           if consumer is None else
           f"{consumer} reads the values of its input ({why or 'a value read'}), which "
           f"computes {what}: that library computes with NumPy there. Compute first and pass "
           "the result (t.compute()), keep the data on NumPy (t.to(backend='numpy')), or "
           f"allow it: interop.config(dask_compute='allow') (now {policy!r})")
    if policy == "raise":
        raise DaskComputeError(msg)
    warnings.warn(msg, DaskComputeWarning, stacklevel=user_stacklevel())
