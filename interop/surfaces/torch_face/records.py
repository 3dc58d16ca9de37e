"""The operation table's records as the adapters call them: each record's public callable
(the plain facade's fast paths, promotion and errors), made once per torch name."""

from __future__ import annotations

from collections.abc import Callable

from ...core.dispatch import make_public
from ...ops import TORCH_NAMES

_publics: dict[str, Callable] = {}


def record(torch_name: str) -> Callable:
    """The public callable of the record answering ``torch_name`` (made once)."""
    found = _publics.get(torch_name)
    if found is None:
        found = _publics[torch_name] = make_public(TORCH_NAMES[torch_name], torch_name,
                                                   torch_name)
    return found
