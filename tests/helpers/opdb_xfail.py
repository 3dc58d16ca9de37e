"""The op_db operators that fail at float32 on the NumPy backend, and why.

tests/test_torch_opdb.py runs every operator of torch's op_db and expects these to
fail (strictly: one that starts passing fails the run until its line is removed).
Each reason is the first failing sample's error, as measured by
``python -m tests.test_torch_opdb``; they are grouped by the class of that error.
"""

XFAIL: dict[str, str] = {
    # ---- TypeError (17)
    '__getitem__': "descriptor '__getitem__' requires a 'torch._C.TensorBase' object but received a 'Tensor'",
    '__radd__': "descriptor '__radd__' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    '__rmul__': "descriptor '__rmul__' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'cauchy': "descriptor 'cauchy_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'cdouble': "descriptor 'cdouble' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'cfloat': "descriptor 'cfloat' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'exponential': "descriptor 'exponential_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'geometric': "descriptor 'geometric_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'item': "descriptor 'item' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'log_normal': "descriptor 'log_normal_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'nn.functional.embedding_bag': 'torch.embedding_bag is not implemented by interop for the numpy backend; call it on a torch tensor (torch.from',
    'nn.functional.fractional_max_pool2d': 'torch.nn.functional.fractional_max_pool2d is not implemented by interop for the numpy backend; call it on a to',
    'nn.functional.fractional_max_pool3d': 'torch.nn.functional.fractional_max_pool3d is not implemented by interop for the numpy backend; call it on a to',
    'normal.in_place': "descriptor 'normal_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'sparse.mm.reduce': "can't convert SparseCsr layout tensor to numpy. Use Tensor.to_dense() first.",
    'sparse.sampled_addmm': "can't convert SparseCsr layout tensor to numpy. Use Tensor.to_dense() first.",
    'uniform': "descriptor 'uniform_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    # ---- AttributeError (2)
    'chalf': "'Tensor' object has no attribute 'chalf'",
    'to_sparse': "'Tensor' object has no attribute 'to_sparse'",
    # ---- NotImplementedError (2)
    'nn.functional.rrelu': 'rrelu(training=True) draws random slopes; interop implements the eval form only (training=False)',
    'nn.functional.scaled_dot_product_attention': 'scaled_dot_product_attention: dropout_p > 0 is not implemented by interop (pass 0.0 at inference)',
    # ---- AssertionError (7)
    'as_strided.partial_views': 'the samples take views of a larger tensor; the harness copies a view into an array of its own, so the storage around it that torch.as_strided reaches is gone',
    'linalg.eig': "torch documents eigenvectors as unique only up to a complex phase; torch's LAPACK (MKL) and NumPy's (OpenBLAS) choose differently on some samples and no rule on the values reproduces MKL's choice",
    'linalg.eigh': "torch documents eigenvectors as unique only up to sign; torch's LAPACK (MKL) and NumPy's (OpenBLAS) choose differently on some samples and no rule on the values reproduces MKL's choice",
    'linalg.svd': "torch documents singular vectors as unique only up to sign; torch's LAPACK (MKL) and NumPy's (OpenBLAS) choose differently on some samples and no rule on the values reproduces MKL's choice",
    'pca_lowrank': "torch documents singular vectors as unique only up to sign; torch's LAPACK (MKL) and NumPy's (OpenBLAS) choose differently; with torch's random draw, U, S and V equal torch's up to the columns' signs on every sample (tests/test_torch_opdb_ops.py)",
    'svd_lowrank': "torch documents singular vectors as unique only up to sign; torch's LAPACK (MKL) and NumPy's (OpenBLAS) choose differently; with torch's random draw, U, S and V equal torch's up to the columns' signs on every sample (tests/test_torch_opdb_ops.py)",
    'svd': "torch documents singular vectors as unique only up to sign; torch's LAPACK (MKL) and NumPy's (OpenBLAS) choose differently on some samples and no rule on the values reproduces MKL's choice",
}
