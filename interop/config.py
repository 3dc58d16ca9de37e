"""Global options: ``interop.config(...)`` reads and sets them, and works as a context manager."""

from __future__ import annotations

from typing import Any

from .backends import registry

_OPTIONS = {
    "implicit_transfer": registry.implicit_transfer,
    "dask_compute": registry.dask_compute,
    "transfer_guard": registry.transfer_guard,
}
_CHOICES = {
    "implicit_transfer": (False, True),
    "dask_compute": ("allow", "warn", "raise"),
    "transfer_guard": ("allow", "log", "disallow"),
}


class config:  # noqa: N801 - used like a function: interop.config(implicit_transfer=True)
    """Set options for the process (``interop.config(x=...)``) or for a block (``with``).

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
    """

    def __init__(self, **options: Any) -> None:
        unknown = set(options) - set(_OPTIONS)
        if unknown:
            raise ValueError(f"interop.config: unknown option(s) {sorted(unknown)}; known: "
                             f"{sorted(_OPTIONS)}")
        for k, v in options.items():
            if v not in _CHOICES[k]:
                raise ValueError(f"interop.config: {k}={v!r} is not one of "
                                 f"{', '.join(map(repr, _CHOICES[k]))}")
        self._previous = {k: _OPTIONS[k][0] for k in options}
        for k, v in options.items():
            _OPTIONS[k][0] = v

    def __enter__(self) -> config:
        return self

    def __exit__(self, *exc: object) -> None:
        for k, v in self._previous.items():
            _OPTIONS[k][0] = v

    @staticmethod
    def get(name: str) -> Any:
        return _OPTIONS[name][0]


def transfer_guard(level: str) -> config:
    """Set the guard on implicit device transfers ('allow', 'log', 'disallow'), as JAX's.

    Process-wide when called, or for a block: ``with interop.transfer_guard('disallow'):``.
    """
    return config(transfer_guard=level)
