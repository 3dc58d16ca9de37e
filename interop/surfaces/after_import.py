"""Run a function once a given module is imported: now if it is loaded, else right after it
loads (a one-shot import hook), so that ``import interop`` imports no optional library and
interop still registers itself with the ones the user imports (einops' backends, torch's
DataLoader collation)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from typing import Any


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
        load = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            load(module)
            self.then(module)
        spec.loader.exec_module = exec_module  # type: ignore[method-assign]  # (the hook itself)
        return spec


def when_imported(name: str, then: Callable[[Any], None]) -> None:
    """``then(module)`` for module ``name``: at once if it is loaded, else once it loads."""
    if name in sys.modules:
        then(sys.modules[name])
    else:
        sys.meta_path.insert(0, _AfterImport(name, then))
