"""Functions about dtypes rather than data (torch.result_type, can_cast, promote_types).

They follow torch's promotion (``interop.dtypes``); the Array API namespace has
its own versions with the standard's rules.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from .registry import op


@op(method=False, creation=True, family="dtypes")
def result_type(be: Any, tensor1: Any, tensor2: Any) -> np.dtype:
    """The dtype torch gives an operation on these two tensors or numbers."""
    return dtypes.result_type(tensor1, tensor2)


@op(method=False, creation=True, family="dtypes")
def can_cast(be: Any, from_: Any, to: Any) -> bool:
    """True if casting ``from_`` to ``to`` keeps the category (torch.can_cast)."""
    return dtypes.can_cast(dtypes.as_dtype(from_), dtypes.as_dtype(to))


@op(method=False, creation=True, family="dtypes")
def promote_types(be: Any, type1: Any, type2: Any) -> np.dtype:
    """The smallest dtype both promote to, by torch's rules."""
    return dtypes.promote_types(dtypes.as_dtype(type1), dtypes.as_dtype(type2))
