"""Run a function once a given module is imported: now if it is loaded, else right after it
loads (a one-shot import hook), so that ``import interop`` imports no optional library and
interop still registers itself with the ones the user imports (einops' backends, torch's
DataLoader collation).

The function runs inside the user's ``import torch`` / ``import einops``: whatever it raises
(a name the library moved, a registry it renamed) is caught and reported as an
``InteropWarning`` naming the module and what failed, and the import goes on: interop's
registration is lost, never the user's import.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from collections.abc import Callable
from typing import Any

from ..errors import InteropWarning
from ..upstream import warn_changed


def _run(name: str, then: Callable[[Any], None], module: Any) -> None:
    """``then(module)``; what it raises becomes an InteropWarning (the host import goes on)."""
    try:
        then(module)
    except Exception as exc:  # noqa: BLE001  (any failure: the user's import must not fail)
        what = getattr(then, "__qualname__", repr(then))
        version = getattr(sys.modules.get(name.partition(".")[0]), "__version__", "?")
        warnings.warn(f"interop could not register with {name} ({what}: "
                      f"{type(exc).__name__}: {exc}); {name} {version} imported without "
                      "interop's registration: please report it with the version",
                      InteropWarning, stacklevel=2)


class _AfterImport:
    """Runs ``then(module)`` right after ``name`` loads, then steps aside (a meta path finder:
    ``find_spec`` is all ``sys.meta_path`` asks of one; ``importlib.abc`` is not imported for
    its base class, which alone costs ``import interop`` 4 ms)."""

    def __init__(self, name: str, then: Callable[[Any], None]) -> None:
        self.name, self.then = name, then

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None:  # not installed (asked by find_spec, or an import that will fail)
            return None
        loader = getattr(spec, "loader", None)
        load = getattr(loader, "exec_module", None)

        def exec_module(module: Any) -> None:
            loader.exec_module = load  # once: a loader serving several modules loads them as before
            load(module)
            _run(name, self.then, module)
        try:
            if load is None:
                raise AttributeError("its loader has no exec_module")
            loader.exec_module = exec_module  # (the hook itself, on this spec's loader)
        except AttributeError as exc:  # the import goes on as it would without interop
            warn_changed(f"the import system's loaders taking exec_module ({exc})", "sys",
                         f"interop registers nothing with {name}")
        return spec


def when_imported(name: str, then: Callable[[Any], None]) -> None:
    """``then(module)`` for module ``name``: at once if it is loaded, else once it loads."""
    if name in sys.modules:
        _run(name, then, sys.modules[name])
    else:
        sys.meta_path.insert(0, _AfterImport(name, then))
