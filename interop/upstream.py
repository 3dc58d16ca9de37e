"""Other libraries' private names, looked up in one place (docs/architecture.md, "Other
libraries' insides"): where a release moved one, interop fails loudly, naming the name and
the release, never with an ``AttributeError`` deep inside interop, a fallback nobody sees or
a wrong value.  Nothing here imports another library until asked for one of its names."""

from __future__ import annotations

import functools
import importlib
import sys
import warnings
from typing import Any

from .errors import InteropWarning

_TABLE = "docs/architecture.md, \"Other libraries' insides\""


class UpstreamChangedError(RuntimeError):
    """A private name or behaviour of another library that interop relies on is not what it
    was (a ``RuntimeError``, so that code catching ``ImportError`` or ``AttributeError`` for
    an optional library does not take it for one that is absent)."""


def release(module: str) -> str:
    """``numpy 2.4.6``: the loaded top-level package of ``module`` and its version."""
    top = module.partition(".")[0]
    if top == "sys":
        return f"Python {sys.version.split()[0]}"
    return f"{top} {getattr(sys.modules.get(top), '__version__', '(version unknown)')}"


def changed(what: str, module: str, consequence: str = "") -> str:
    """The message for a private name or behaviour ``what`` of ``module``'s library that is
    not what interop relies on."""
    return (f"interop relies on {what}, which {release(module)} does not provide as before"
            f"{': ' + consequence if consequence else ''}; please report it with the version "
            f"({_TABLE})")


@functools.cache
def private(module: str, name: str) -> Any:
    """``module.name`` (``name`` may be dotted: ``Array._meta``), another library's private
    name interop relies on, looked up once; an ``UpstreamChangedError`` naming it where the
    loaded release lacks it."""
    try:
        found: Any = importlib.import_module(module)
        for part in name.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as exc:
        raise UpstreamChangedError(changed(f"{module}.{name}", module)) from exc
    return found


def warn_changed(what: str, module: str, consequence: str) -> None:
    """An ``InteropWarning`` for what interop cannot do as before with ``module``'s release
    (where refusing would break the user's import or program for less than a value)."""
    warnings.warn(changed(what, module, consequence), InteropWarning, stacklevel=3)
