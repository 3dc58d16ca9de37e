"""Global options: ``interop.config(...)`` reads and sets them, and works as a context manager."""

from __future__ import annotations

from typing import Any

from .backends import registry

_OPTIONS = {
    "implicit_transfer": registry.implicit_transfer,
    "dask_compute": registry.dask_compute,
}
_CHOICES = {
    "implicit_transfer": (False, True),
    "dask_compute": ("allow", "warn", "raise"),
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
