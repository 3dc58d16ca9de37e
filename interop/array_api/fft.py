"""The Array API ``fft`` extension (2024.12) on interop tensors, generated from the backends'."""

from ._names import FFT, FFT_CREATION
from ._wrap import generate_all

globals().update(generate_all(FFT_CREATION + FFT, "fft"))
__all__ = list(FFT_CREATION + FFT)
