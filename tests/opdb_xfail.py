"""The op_db operators that fail at float32 on the NumPy backend, and why.

tests/test_torch_opdb.py runs every operator of torch's op_db and expects these to
fail (strictly: one that starts passing fails the run until its line is removed).
Each reason is the first failing sample's error, as measured by
``python -m tests.test_torch_opdb``; they are grouped by the class of that error.
"""

XFAIL: dict[str, str] = {
    # ---- TypeError (50)
    '__getitem__': "descriptor '__getitem__' requires a 'torch._C.TensorBase' object but received a 'Tensor'",
    '__radd__': "descriptor '__radd__' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    '__rmul__': "descriptor '__rmul__' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    '_chunk_cat': 'torch._chunk_cat is not implemented by interop for the numpy backend; call it on a torch tensor (torch.from_dl',
    '_segment_reduce.lengths': 'torch.segment_reduce is not implemented by interop for the numpy backend; call it on a torch tensor (torch.fro',
    '_segment_reduce.offsets': 'torch.segment_reduce is not implemented by interop for the numpy backend; call it on a torch tensor (torch.fro',
    'cauchy': "descriptor 'cauchy_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'cdouble': "descriptor 'cdouble' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'cfloat': "descriptor 'cfloat' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'exponential': "descriptor 'exponential_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'geometric': "descriptor 'geometric_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'hash_tensor': 'torch.hash_tensor is not implemented by interop for the numpy backend; call it on a torch tensor (torch.from_d',
    'item': "descriptor 'item' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'log_normal': "descriptor 'log_normal_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'max_pool2d_with_indices_backward': 'aten.max_pool2d_with_indices_backward.default is not implemented by interop for the numpy backend; call it on ',
    'nn.functional.embedding_bag': 'torch.embedding_bag is not implemented by interop for the numpy backend; call it on a torch tensor (torch.from',
    'nn.functional.fractional_max_pool2d': 'torch.nn.functional.fractional_max_pool2d is not implemented by interop for the numpy backend; call it on a to',
    'nn.functional.fractional_max_pool3d': 'torch.nn.functional.fractional_max_pool3d is not implemented by interop for the numpy backend; call it on a to',
    'nonzero_static': 'torch.nonzero_static is not implemented by interop for the numpy backend; call it on a torch tensor (torch.fro',
    'normal.in_place': "descriptor 'normal_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'pca_lowrank': "expected Tensor but got <class 'interop.tensor.Tensor'>",
    'resize_as_': 'torch.resize_as_ is not implemented by interop for the numpy backend; call it on a torch tensor (torch.from_dl',
    'slice': 'aten.slice.Tensor is not implemented by interop for the numpy backend; call it on a torch tensor (torch.from_d',
    'sparse.mm.reduce': "can't convert SparseCsr layout tensor to numpy. Use Tensor.to_dense() first.",
    'sparse.sampled_addmm': "can't convert SparseCsr layout tensor to numpy. Use Tensor.to_dense() first.",
    'svd_lowrank': "expected Tensor but got <class 'interop.tensor.Tensor'>",
    'uniform': "descriptor 'uniform_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    # ---- AttributeError (4)
    'bfloat16': "'Tensor' object has no attribute 'bfloat16'",
    'chalf': "'Tensor' object has no attribute 'chalf'",
    'resize_': "'Tensor' object has no attribute 'resize_'",
    'to_sparse': "'Tensor' object has no attribute 'to_sparse'",
    # ---- NotImplementedError (8)
    'nn.functional.rrelu': 'rrelu(training=True) draws random slopes; interop implements the eval form only (training=False)',
    'nn.functional.scaled_dot_product_attention': 'scaled_dot_product_attention: dropout_p > 0 is not implemented by interop (pass 0.0 at inference)',
    # ---- AssertionError (8)
    'as_strided.partial_views': 'the samples take views of a larger tensor; the harness copies a view into an array of its own, so the storage around it that torch.as_strided reaches is gone',
    'linalg.eig': "torch documents eigenvectors as unique only up to a complex phase; torch's LAPACK (MKL) and NumPy's (OpenBLAS) choose differently on some samples and no rule on the values reproduces MKL's choice",
    'linalg.eigh': "torch documents eigenvectors as unique only up to sign; torch's LAPACK (MKL) and NumPy's (OpenBLAS) choose differently on some samples and no rule on the values reproduces MKL's choice",
    'linalg.svd': "torch documents singular vectors as unique only up to sign; torch's LAPACK (MKL) and NumPy's (OpenBLAS) choose differently on some samples and no rule on the values reproduces MKL's choice",
    'svd': "torch documents singular vectors as unique only up to sign; torch's LAPACK (MKL) and NumPy's (OpenBLAS) choose differently on some samples and no rule on the values reproduces MKL's choice",
    # ---- ShapeError (2)
}
