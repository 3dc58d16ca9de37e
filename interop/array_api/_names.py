"""The names of the 2025.12 Array API standard, grouped by how their backend is chosen.

A plain list, so that coverage is checked against the standard (and against
array-api-strict in the tests) rather than against what a backend happens to have.
"""

from __future__ import annotations

API_VERSION = "2025.12"
API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")

# Functions with no array operand: the backend comes from ``device=`` (else the default).
CREATION = (
    "arange", "empty", "eye", "from_dlpack", "full", "linspace", "ones", "zeros",
)

# Everything else: the backend of the array operands (the default backend if there are none).
ARRAY = (
    # creation from arrays
    "asarray", "empty_like", "full_like", "meshgrid", "ones_like", "tril", "triu", "zeros_like",
    # data types
    "astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
    # element-wise
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_invert", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "ceil", "clip", "conj", "copysign", "cos", "cosh", "divide", "equal", "exp", "expm1",
    "floor", "floor_divide", "greater", "greater_equal", "hypot", "imag", "isfinite", "isinf",
    "isnan", "less", "less_equal", "log", "log1p", "log2", "log10", "logaddexp", "logical_and",
    "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "multiply", "negative",
    "nextafter", "not_equal", "positive", "pow", "real", "reciprocal", "remainder", "round",
    "sign", "signbit", "sin", "sinh", "square", "sqrt", "subtract", "tan", "tanh", "trunc",
    # indexing
    "take", "take_along_axis",
    # linear algebra (main namespace)
    "matmul", "matrix_transpose", "tensordot", "vecdot",
    # manipulation
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis",
    "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack",
    # searching
    "argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where",
    # sets
    "isin", "unique_all", "unique_counts", "unique_inverse", "unique_values",
    # sorting
    "argsort", "sort",
    # statistics
    "cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var",
    # utility
    "all", "any", "diff",
)

LINALG = (
    "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matmul",
    "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet",
    "solve", "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
)

FFT_CREATION = ("fftfreq", "rfftfreq")
FFT = (
    "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
    "fftshift", "ifftshift",
)

DTYPES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
)

CONSTANTS = ("e", "inf", "nan", "newaxis", "pi")
