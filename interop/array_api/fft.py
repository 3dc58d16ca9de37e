"""The Array API ``fft`` extension (2025.12) on interop tensors, generated from the backends'."""

from ._names import FFT, FFT_CREATION
from ._signatures import attach
from ._wrap import generate_all

globals().update(attach(generate_all(FFT_CREATION + FFT, "fft"), "fft"))
__all__ = list(FFT_CREATION + FFT)
