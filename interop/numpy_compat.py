"""What the installed NumPy offers, asked once: the features interop uses that NumPy's
oldest declared version (pyproject.toml, docs/install.md "Supported versions") lacks.

Each flag names the feature, not a version, and says which NumPy release retires it: when
the floor reaches that release, the flag and the code that switches on it go.
"""

from __future__ import annotations

import numpy as np


class _ByProtocol:
    __slots__ = ()

    @property
    def __numpy_dtype__(self) -> np.dtype:
        return np.dtype(np.int8)


def _reads_numpy_dtype_protocol() -> bool:
    try:
        return np.dtype(_ByProtocol()) == np.int8
    except TypeError:
        return False


READS_NUMPY_DTYPE_PROTOCOL: bool = _reads_numpy_dtype_protocol()
"""``np.dtype(obj)`` reads ``obj.__numpy_dtype__`` (NumPy 2.4).  Before it NumPy reads only
the ``dtype`` attribute protocol (``obj.dtype``, a real dtype): ``interop.dtypes.DType``
answers that one too where this is False.  Retired when the floor reaches NumPy 2.4."""


FROM_DLPACK_KEEPS_WRITEABLE: bool = bool(np.from_dlpack(np.zeros(1)).flags.writeable)
"""``np.from_dlpack`` imports a writable producer's memory as writable (NumPy after 2.2, which
marks every import read-only): where this is False, ``backends/dlpack`` takes a CPU torch
tensor's memory through ``torch.Tensor.numpy()`` (shared, writable) instead.  Retired when
the floor leaves NumPy 2.2."""
