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
    '_batch_norm_with_update': 'aten._batch_norm_with_update is not implemented by interop for the numpy backend; call it on a torch tensor (t',
    '_native_batch_norm_legit': 'torch._native_batch_norm_legit is not implemented by interop for the numpy backend; call it on a torch tensor ',
    '_upsample_bilinear2d_aa': 'aten._upsample_bilinear2d_aa is not implemented by interop for the numpy backend; call it on a torch tensor (t',
    'cauchy': "descriptor 'cauchy_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'cdouble': "descriptor 'cdouble' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'cfloat': "descriptor 'cfloat' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'exponential': "descriptor 'exponential_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'geometric': "descriptor 'geometric_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'geqrf': 'torch.geqrf is not implemented by interop for the numpy backend; call it on a torch tensor (torch.from_dlpack(',
    'grid_sampler_2d': 'torch.grid_sampler_2d is not implemented by interop for the numpy backend; call it on a torch tensor (torch.fr',
    'grid_sampler_3d': 'torch.grid_sampler_3d is not implemented by interop for the numpy backend; call it on a torch tensor (torch.fr',
    'item': "descriptor 'item' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'linalg.householder_product': 'torch.linalg.householder_product is not implemented by interop for the numpy backend; call it on a torch tenso',
    'linalg.ldl_factor': 'torch.linalg.ldl_factor is not implemented by interop for the numpy backend; call it on a torch tensor (torch.',
    'linalg.ldl_factor_ex': 'torch.linalg.ldl_factor_ex is not implemented by interop for the numpy backend; call it on a torch tensor (tor',
    'linalg.ldl_solve': 'torch.linalg.ldl_solve is not implemented by interop for the numpy backend; call it on a torch tensor (torch.f',
    'log_normal': "descriptor 'log_normal_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'matrix_exp': 'torch.matrix_exp is not implemented by interop for the numpy backend; call it on a torch tensor (torch.from_dl',
    'native_batch_norm': 'torch.native_batch_norm is not implemented by interop for the numpy backend; call it on a torch tensor (torch.',
    'nn.functional.ctc_loss': 'torch.ctc_loss is not implemented by interop for the numpy backend; call it on a torch tensor (torch.from_dlpa',
    'nn.functional.embedding_bag': 'torch.embedding_bag is not implemented by interop for the numpy backend; call it on a torch tensor (torch.from',
    'nn.functional.fractional_max_pool2d': 'torch.nn.functional.fractional_max_pool2d is not implemented by interop for the numpy backend; call it on a to',
    'nn.functional.fractional_max_pool3d': 'torch.nn.functional.fractional_max_pool3d is not implemented by interop for the numpy backend; call it on a to',
    'nn.functional.grid_sample': 'torch.grid_sampler is not implemented by interop for the numpy backend; call it on a torch tensor (torch.from_',
    'normal.in_place': "descriptor 'normal_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    'ormqr': 'torch.ormqr is not implemented by interop for the numpy backend; call it on a torch tensor (torch.from_dlpack(',
    'pca_lowrank': "torch documents singular vectors as unique only up to sign; torch's LAPACK (MKL) and NumPy's (OpenBLAS) choose differently; with torch's random draw, U, S and V equal torch's up to the columns' signs on every sample (tests/test_torch_opdb_ops.py)",
    'sparse.mm.reduce': "can't convert SparseCsr layout tensor to numpy. Use Tensor.to_dense() first.",
    'sparse.sampled_addmm': "can't convert SparseCsr layout tensor to numpy. Use Tensor.to_dense() first.",
    'stft': 'torch.stft is not implemented by interop for the numpy backend; call it on a torch tensor (torch.from_dlpack(t',
    'svd_lowrank': "torch documents singular vectors as unique only up to sign; torch's LAPACK (MKL) and NumPy's (OpenBLAS) choose differently; with torch's random draw, U, S and V equal torch's up to the columns' signs on every sample (tests/test_torch_opdb_ops.py)",
    'uniform': "descriptor 'uniform_' for 'torch._C.TensorBase' objects doesn't apply to a 'Tensor' object",
    # ---- AttributeError (4)
    'chalf': "'Tensor' object has no attribute 'chalf'",
    'to_sparse': "'Tensor' object has no attribute 'to_sparse'",
    # ---- NotImplementedError (8)
    'nn.functional.alpha_dropout': 'alpha_dropout(training=True) is not implemented by interop; models run in eval mode (model.eval()) use the ide',
    'nn.functional.dropout2d': 'dropout2d(training=True) is not implemented by interop; models run in eval mode (model.eval()) use the identit',
    'nn.functional.dropout3d': 'dropout3d(training=True) is not implemented by interop; models run in eval mode (model.eval()) use the identit',
    'nn.functional.embedding': 'embedding: max_norm renormalises the weight in place; interop does not implement it (renormalise the weight fi',
    'nn.functional.feature_alpha_dropout.with_train': 'feature_alpha_dropout(training=True) is not implemented by interop; models run in eval mode (model.eval()) use',
    'nn.functional.rrelu': 'rrelu(training=True) draws random slopes; interop implements the eval form only (training=False)',
    'nn.functional.scaled_dot_product_attention': 'scaled_dot_product_attention: dropout_p > 0 is not implemented by interop (pass 0.0 at inference)',
    # ---- AssertionError (8)
    'as_strided.partial_views': 'the samples take views of a larger tensor; the harness copies a view into an array of its own, so the storage around it that torch.as_strided reaches is gone',
    'linalg.eig': "torch documents eigenvectors as unique only up to a complex phase; torch's LAPACK (MKL) and NumPy's (OpenBLAS) choose differently on some samples and no rule on the values reproduces MKL's choice",
    'linalg.eigh': "torch documents eigenvectors as unique only up to sign; torch's LAPACK (MKL) and NumPy's (OpenBLAS) choose differently on some samples and no rule on the values reproduces MKL's choice",
    'linalg.lstsq': "linalg.lstsq[2]: shape () != torch's (0,)",
    'linalg.lstsq.grad_oriented': "linalg.lstsq[1]: shape (0,) != torch's (3,)",
    'linalg.svd': "torch documents singular vectors as unique only up to sign; torch's LAPACK (MKL) and NumPy's (OpenBLAS) choose differently on some samples and no rule on the values reproduces MKL's choice",
    'nn.functional.multi_head_attention_forward': '',
    'svd': "torch documents singular vectors as unique only up to sign; torch's LAPACK (MKL) and NumPy's (OpenBLAS) choose differently on some samples and no rule on the values reproduces MKL's choice",
    # ---- ShapeError (2)
    'linalg.matrix_rank': 'matrix_rank: operands could not be broadcast together with shapes (0,5) (0,0); the shapes must be broadcastabl',
    'nn.functional.pad.replicate_negative': "pad: can't extend empty axis 3 using modes other than 'constant' or 'empty'; check the arguments' shapes and v",
    # ---- ValueError (2)
    'nn.functional.linear_cross_entropy.chunked': "acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, torch.float64}, got dtype('float",
    'nn.functional.linear_cross_entropy.chunked_none': "acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, torch.float64}, got dtype('float",
    # ---- IndexError (1)
    'nn.functional.batch_norm': 'tuple index out of range',
}
