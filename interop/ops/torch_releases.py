"""Where the torch releases interop supports disagree (an error's condition, a removed name),
interop follows the torch loaded in the process, asked once by a probe; with none loaded, the
newest release's rule.  Nothing here imports torch."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

_ANSWERS: dict[str, bool] = {}  # question -> the loaded torch's answer


def loaded_torch_does(question: str, probe: Callable[[Any], bool], newest: bool) -> bool:
    """``probe(torch)`` for the torch in ``sys.modules`` (its answer kept), else ``newest``
    (not kept: torch may load later)."""
    answer = _ANSWERS.get(question)
    if answer is None:
        torch = sys.modules.get("torch")
        if torch is None:
            return newest
        answer = _ANSWERS[question] = bool(probe(torch))
    return answer
