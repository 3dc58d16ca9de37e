"""torch.nn.functional and torch's nn kernels on backend arrays, a module per family.

``common`` holds what they share (``NN``, the module's torch namespace; ``inplace=True``);
``activations`` the activations and softmax; ``functional`` normalisation, linear layers,
padding and attention; ``conv``, ``loss``, ``resize``, ``rnn``, ... each declare their
records; ``aten`` holds the aten-level kernels torch exposes (native_layer_norm,
constant_pad_nd, the backward kernels op_db calls), ``backward`` the gradients autograd needs
that torch has no decomposition of (convolution_backward).  Importing this package registers them all.
"""

from . import activations, functional  # noqa: F401  (first: the others build on them)

# isort: split
from . import (  # noqa: F401  # noqa: F401
               adaptive_max,
               aten,
               backward,
               batch_norm,
               conv,
               ctc,
               dropout,
               embedding,
               grid,
               loss,
               margin,
               resize,
               rnn,
               unpool,
)
