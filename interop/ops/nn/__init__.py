"""torch.nn.functional and torch's nn kernels on backend arrays, a module per family.

``functional`` holds the activations, softmax, normalisation, padding and the helpers
the others share (``NN``, the module's torch namespace); ``conv``, ``loss``, ``resize``,
``rnn``, ... each declare their records; ``aten`` holds the aten-level kernels torch
exposes (native_layer_norm, constant_pad_nd, the backward kernels op_db calls).  Importing this package registers them all.
"""

from . import functional  # noqa: F401  (first: the others build on it)
from . import adaptive_max, batch_norm, conv, ctc, dropout, embedding, grid, loss, margin, resize, rnn, unpool  # noqa: F401,E501
from . import aten  # noqa: F401
