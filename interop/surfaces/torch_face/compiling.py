"""TorchTensors under ``torch.compile``: Dynamo cannot trace a wrapper subclass whose data is
not torch's (there are no inner torch tensors to flatten), so it breaks the graph at each of
their operations and runs them eagerly; interop's own dispatch code is marked for Dynamo to
run, not trace (tracing it fails inside Dynamo: ``DLDeviceType`` constants, recompilations).

Marking a code object costs nothing when Dynamo is not running: the mark is read only by
Dynamo's frame hook, and it comes from ``torch._C``, so ``torch._dynamo`` is not imported.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ...errors import InteropWarning


def run_not_traced(fn: Callable[..., Any]) -> None:
    """Dynamo runs ``fn``, and everything it calls, as Python, never tracing them.

    The mark is torch's private ``torch._C._dynamo.eval_frame.set_code_exec_strategy`` (the
    public ``torch.compiler.disable`` wraps a function instead of marking its code, and the
    dispatch hook is looked up on the class by torch).  A torch without it gets an
    ``InteropWarning`` here: eager TorchTensors work as before, and ``torch.compile`` over
    them may fail inside Dynamo (loudly, as Dynamo does), never compute another value."""
    try:
        from torch._C._dynamo import eval_frame
        skip = eval_frame._FrameAction.SKIP
        strategy = eval_frame._FrameExecStrategy(skip, skip)
        mark = eval_frame.set_code_exec_strategy
    except (ImportError, AttributeError) as exc:
        import torch
        warnings.warn(f"torch {torch.__version__} has no torch._C._dynamo.eval_frame."
                      f"set_code_exec_strategy ({exc}): interop cannot keep Dynamo from tracing "
                      "its dispatch, so torch.compile over TorchTensors may fail (eager runs are "
                      "unaffected); please report it with the version", InteropWarning,
                      stacklevel=2)
        return
    mark(getattr(fn, "__func__", fn).__code__, strategy)
