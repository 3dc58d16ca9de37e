"""Recurrent kernels behind nn.RNN / nn.LSTM / nn.GRU (torch.rnn_tanh, rnn_relu, lstm, gru)
and packed sequences (torch._pack_padded_sequence, _pad_packed_sequence), from the backend's
matmul, slicing and elementwise calls, so NumPy, CuPy and Dask (lazily) all run them.

torch's modules call these through ``torch._VF`` with ``self._flat_weights``; ``_VF.lstm`` is
``torch.lstm``, which dispatches on its tensor arguments like any torch function, so an interop
input reaches this table with the module's own (torch) weights as operands.

The input projection of a whole layer is one matmul; then one step per time index updates the
hidden state.  A packed batch (sorted by length, ``batch_sizes[t]`` sequences alive at step
``t``) updates only its first ``batch_sizes[t]`` rows: the rows past them hold either a finished
sequence's last state (forward) or the initial state of one not started yet (reverse), which is
what torch returns and starts from.
"""

from __future__ import annotations

import sys
from typing import Any

from ...backends.registry import host_values
from ..registry import op

HOST_SIZES = {"torch.lstm": 1, "torch.gru": 1, "torch.rnn_tanh": 1, "torch.rnn_relu": 1,
              "torch._pack_padded_sequence": 1, "torch._pad_packed_sequence": 1,
              "torch.embedding_bag": 2}
"""torch functions and the position of their argument that, when an integer CPU torch tensor,
is sizes on the host (a packed sequence's ``batch_sizes`` or ``lengths``, embedding_bag's
``offsets``): read as ints before the operands are brought onto the input's backend, so a
Dask input computes nothing for them."""


def _sigmoid(be: Any, x: Any) -> Any:
    return 0.5 * (1 + be.np.tanh(0.5 * x))  # no overflow for large |x|, unlike 1 / (1 + exp(-x))


def _linear(be: Any, x: Any, weight: Any, bias: Any) -> Any:
    y = be.np.matmul(x, be.np.swapaxes(weight, -1, -2))
    return y if bias is None else y + bias


def _rnn_cell(nonlinearity: str):
    def cell(be: Any, gates_x: Any, state: tuple, w: dict) -> tuple:
        pre = gates_x + _linear(be, state[0], w["w_hh"], w["b_hh"])
        return (be.np.tanh(pre) if nonlinearity == "tanh" else be.np.maximum(pre, 0),)
    return cell


def _lstm_cell(be: Any, gates_x: Any, state: tuple, w: dict) -> tuple:
    h, c = state
    gates = gates_x + _linear(be, h, w["w_hh"], w["b_hh"])
    i, f, g, o = (gates[..., k * w["size"]:(k + 1) * w["size"]] for k in range(4))
    c = _sigmoid(be, f) * c + _sigmoid(be, i) * be.np.tanh(g)
    h = _sigmoid(be, o) * be.np.tanh(c)
    return (h if w["w_hr"] is None else _linear(be, h, w["w_hr"], None), c)


def _gru_cell(be: Any, gates_x: Any, state: tuple, w: dict) -> tuple:
    h, size = state[0], w["size"]
    gates_h = _linear(be, h, w["w_hh"], w["b_hh"])
    r = _sigmoid(be, gates_x[..., :size] + gates_h[..., :size])
    z = _sigmoid(be, gates_x[..., size:2 * size] + gates_h[..., size:2 * size])
    n = be.np.tanh(gates_x[..., 2 * size:] + r * gates_h[..., 2 * size:])
    return ((1 - z) * n + z * h,)


CELLS = {"rnn_tanh": (_rnn_cell("tanh"), 1), "rnn_relu": (_rnn_cell("relu"), 1),
         "lstm": (_lstm_cell, 4), "gru": (_gru_cell, 3)}
"""Per kernel: the step function and how many gates stack in its weights."""


def _weights(params: list, has_biases: bool, layers: int, directions: int, gates: int) -> list:
    """Per layer and direction (torch's order): w_ih, w_hh, b_ih, b_hh, w_hr (LSTM proj_size)."""
    stride = len(params) // (layers * directions)
    out = []
    for k in range(layers * directions):
        p = list(params[k * stride:(k + 1) * stride])
        w_ih, w_hh = p[:2]
        b_ih, b_hh = p[2:4] if has_biases else (None, None)
        w_hr = p[stride - 1] if stride - 2 - 2 * has_biases == 1 else None
        out.append({"w_ih": w_ih, "w_hh": w_hh, "b_ih": b_ih, "b_hh": b_hh, "w_hr": w_hr,
                    "size": w_ih.shape[0] // gates})
    return out


def _run_direction(be: Any, cell: Any, steps: list, state: tuple, w: dict, reverse: bool,
                   sizes: list[int] | None) -> tuple[list, tuple]:
    """Outputs per step (in time order) and the final state; ``steps`` are projected inputs."""
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    outputs: list = [None] * len(steps)
    for t in order:
        if sizes is None or sizes[t] == state[0].shape[0]:
            state = cell(be, steps[t], state, w)
            outputs[t] = state[0]
            continue
        n = sizes[t]  # a packed batch: rows past n keep their state
        new = cell(be, steps[t], tuple(s[:n] for s in state), w)
        state = tuple(be.np.concatenate([a, s[n:]], axis=0) for a, s in zip(new, state))
        outputs[t] = new[0]
    return outputs, state


def _layer_inputs(be: Any, x: Any, sizes: list[int] | None) -> list:
    """The inputs per time step: ``x[t]`` (T, B, F), or the rows of step t of packed data."""
    if sizes is None:
        return [x[t] for t in range(x.shape[0])]
    starts = [sum(sizes[:t]) for t in range(len(sizes))]
    return [x[s:s + n] for s, n in zip(starts, sizes)]


def _join_steps(be: Any, outputs: list, sizes: list[int] | None) -> Any:
    return be.np.stack(outputs) if sizes is None else be.np.concatenate(outputs, axis=0)


def _recurrent(be: Any, kind: str, x: Any, hx: tuple, params: list, has_biases: bool,
               num_layers: int, dropout: float, train: bool, bidirectional: bool,
               sizes: list[int] | None) -> tuple:
    """Output (time-major or packed) and the final states, each (layers * directions, B, H)."""
    if train and dropout > 0 and num_layers > 1:
        raise NotImplementedError(f"torch.{kind}: dropout between layers in training mode is not "
                                  "implemented by interop; call module.eval() for inference")
    cell, gates = CELLS[kind]
    directions = 2 if bidirectional else 1
    weights = _weights(params, has_biases, num_layers, directions, gates)
    finals: list[list] = [[] for _ in hx]
    for layer in range(num_layers):
        outs = []
        for d in range(directions):
            k = layer * directions + d
            w = weights[k]
            steps = _layer_inputs(be, _linear(be, x, w["w_ih"], w["b_ih"]), sizes)
            outputs, state = _run_direction(be, cell, steps, tuple(h[k] for h in hx), w,
                                            d == 1, sizes)
            outs.append(_join_steps(be, outputs, sizes))
            for f, s in zip(finals, state):
                f.append(s)
        x = outs[0] if directions == 1 else be.np.concatenate(outs, axis=-1)
    return (x, *(be.np.stack(f) for f in finals))


def _check_dtypes(kind: str, x: Any, params: list) -> None:
    if any(p.dtype != x.dtype for p in params):
        raise RuntimeError(f"torch.{kind}: input dtype {x.dtype} and weight dtypes "
                           f"{sorted({str(p.dtype) for p in params})} differ; convert the input "
                           "(x.to(weight.dtype)) or the module (module.to(x.dtype))")


def host_sizes(sizes: Any, why: str) -> list[int]:
    """Sizes as ints: given so (HOST_SIZES), or read from a tensor (a value read)."""
    if isinstance(sizes, (list, tuple)):
        return [int(s) for s in sizes]
    return [int(s) for s in host_values(sizes, why)]


def _kernel(kind: str):
    """torch.<kind>(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
    batch_first), or its packed form (data, batch_sizes, hx, params, ...)."""
    def run(be: Any, *args: Any) -> tuple:
        packed = isinstance(args[3], (list, tuple))
        if packed:
            data, batch_sizes, hx, params, *options = args
            sizes, batch_first = host_sizes(batch_sizes, "a packed sequence's batch_sizes"), False
        else:
            data, hx, params, *options, batch_first = args
            sizes = None
        hx = tuple(hx) if kind == "lstm" else (hx,)
        _check_dtypes(kind, data, params)
        x = be.np.swapaxes(data, 0, 1) if batch_first else data
        has_biases, layers, dropout, train, bidirectional = options
        out, *state = _recurrent(be, kind, x, hx, params, has_biases, layers, dropout, train,
                                 bidirectional, sizes=sizes)
        return (be.np.swapaxes(out, 0, 1) if batch_first else out, *state)
    run.__name__ = run.__qualname__ = kind
    run.__doc__ = f"torch.{kind}: the recurrence of nn.{kind.upper()} over a sequence or packed batch."
    return run


for _kind in CELLS:
    op(_kind, method=False, torch=(f"torch.{_kind}",))(_kernel(_kind))


def _host_int64(values: list[int]) -> Any:
    """Sizes as torch keeps them on every device: a CPU int64 torch tensor (these two kernels
    are reached from torch only, so torch is imported)."""
    return sys.modules["torch"].tensor(values, dtype=sys.modules["torch"].int64)


@op(function=False, method=False, torch=("torch._pack_padded_sequence",))
def _pack_padded_sequence(be: Any, input: Any, lengths: Any, batch_first: bool) -> tuple:
    """(data, batch_sizes) of sequences sorted by decreasing length: time-major rows."""
    lengths = host_sizes(lengths, "pack_padded_sequence's lengths")
    if any(a < b for a, b in zip(lengths, lengths[1:])):
        raise RuntimeError("_pack_padded_sequence: `lengths` array must be sorted in decreasing "
                           "order when `enforce_sorted` is True; pass enforce_sorted=False")
    if not lengths or lengths[-1] <= 0:
        raise RuntimeError("_pack_padded_sequence: Length of all samples has to be greater "
                           f"than 0, but found an element in 'lengths' that is <= 0: {lengths}")
    x = be.np.swapaxes(input, 0, 1) if batch_first else input
    sizes = [sum(n > t for n in lengths) for t in range(lengths[0])]
    data = be.np.concatenate([x[t, :n] for t, n in enumerate(sizes)], axis=0)
    return data, _host_int64(sizes)


@op(function=False, method=False, torch=("torch._pad_packed_sequence",))
def _pad_packed_sequence(be: Any, data: Any, batch_sizes: Any, batch_first: bool,
                         padding_value: float, total_length: int) -> tuple:
    """(padded, lengths): the packed rows back in a (T, B, *) tensor, ``padding_value`` past
    each sequence's end, T = ``total_length``."""
    sizes = host_sizes(batch_sizes, "a packed sequence's batch_sizes")
    batch = sizes[0]
    starts = [sum(sizes[:t]) for t in range(len(sizes))]
    fill = be.np.full((batch, *data.shape[1:]), padding_value, dtype=data.dtype)
    steps = [be.np.concatenate([data[s:s + n], fill[n:]], axis=0) for s, n in zip(starts, sizes)]
    steps += [fill] * (total_length - len(sizes))
    padded = be.np.stack(steps)
    lengths = _host_int64([sum(n > b for n in sizes) for b in range(batch)])
    return (be.np.swapaxes(padded, 0, 1) if batch_first else padded), lengths
