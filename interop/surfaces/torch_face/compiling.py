"""TorchTensors under ``torch.compile``: Dynamo cannot trace a wrapper subclass whose data is
not torch's (there are no inner torch tensors to flatten), so it breaks the graph at each of
their operations and runs them eagerly; interop's own dispatch code is marked for Dynamo to
run, not trace (tracing it fails inside Dynamo: ``DLDeviceType`` constants, recompilations).

Marking a code object costs nothing when Dynamo is not running: the mark is read only by
Dynamo's frame hook, and it comes from ``torch._C``, so ``torch._dynamo`` is not imported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def run_not_traced(fn: Callable[..., Any]) -> None:
    """Dynamo runs ``fn``, and everything it calls, as Python, never tracing them."""
    from torch._C._dynamo import eval_frame
    skip = eval_frame._FrameAction.SKIP
    code = getattr(fn, "__func__", fn).__code__
    eval_frame.set_code_exec_strategy(code, eval_frame._FrameExecStrategy(skip, skip))
