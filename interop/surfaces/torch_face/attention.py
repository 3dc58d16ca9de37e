"""``aten._native_multi_head_attention``, the fused kernel ``nn.MultiheadAttention`` (and
torchvision's ``VisionTransformer``) calls in eval mode, and
``aten._transformer_encoder_layer_fwd`` (``nn.TransformerEncoderLayer``'s), written as the torch
calls they fuse: each of them then runs on the backend through the face.

The inputs are batch-first ``(batch, length, embed_dim)``; the mask is additive or boolean
(True: masked out), ``mask_type`` 1 a key-padding mask ``(batch, source)``, 2 one per head
``(batch, heads, target, source)``, otherwise ``(target, source)``.
"""

from __future__ import annotations

import math
from typing import Any


def native_multi_head_attention(query: Any, key: Any, value: Any, embed_dim: int,
                                num_head: int, qkv_weight: Any, qkv_bias: Any,
                                proj_weight: Any, proj_bias: Any, mask: Any = None,
                                need_weights: bool = True, average_attn_weights: bool = True,
                                mask_type: int | None = None) -> tuple:
    """(output, weights): weights averaged over the heads unless asked not to, None where
    ``need_weights`` is False, as torch's kernel gives them."""
    import torch
    import torch.nn.functional as F  # noqa: N812 - torch's spelling
    batch, target, source = query.shape[0], query.shape[1], key.shape[1]
    head_dim = embed_dim // num_head
    weights, biases = qkv_weight.chunk(3), qkv_bias.chunk(3)

    def heads(x: Any, i: int) -> Any:
        projected = F.linear(x, weights[i], biases[i])
        return projected.view(batch, x.shape[1], num_head, head_dim).transpose(1, 2)
    q, k, v = heads(query, 0), heads(key, 1), heads(value, 2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(head_dim)
    if mask is not None:
        mask = mask.view(batch, 1, 1, source) if mask_type == 1 else \
            mask if mask.dim() == 4 else mask.view(-1, 1, target, source) if mask.dim() == 3 \
            else mask.view(1, 1, target, source)
        scores = scores.masked_fill(mask, -math.inf) if mask.dtype == torch.bool else \
            scores + mask
    attention = torch.softmax(scores, dim=-1)
    out = (attention @ v).transpose(1, 2).reshape(batch, target, embed_dim)
    out = F.linear(out, proj_weight, proj_bias)
    if not need_weights:
        return out, None
    return out, attention.mean(dim=1) if average_attn_weights else attention


def transformer_encoder_layer(src: Any, embed_dim: int, num_heads: int, qkv_weight: Any,
                              qkv_bias: Any, proj_weight: Any, proj_bias: Any, use_gelu: bool,
                              norm_first: bool, eps: float, norm_weight_1: Any, norm_bias_1: Any,
                              norm_weight_2: Any, norm_bias_2: Any, ffn_weight_1: Any,
                              ffn_bias_1: Any, ffn_weight_2: Any, ffn_bias_2: Any,
                              mask: Any = None, mask_type: int | None = None) -> Any:
    """``aten._transformer_encoder_layer_fwd``: ``nn.TransformerEncoderLayer``'s eval fast
    path (self-attention and the feed-forward block, each with a residual and a layer norm)."""
    import torch.nn.functional as F  # noqa: N812 - torch's spelling

    def attend(x: Any) -> Any:
        return native_multi_head_attention(x, x, x, embed_dim, num_heads, qkv_weight, qkv_bias,
                                           proj_weight, proj_bias, mask, False, True,
                                           mask_type)[0]

    def feed_forward(x: Any) -> Any:
        hidden = F.linear(x, ffn_weight_1, ffn_bias_1)
        return F.linear(F.gelu(hidden) if use_gelu else F.relu(hidden), ffn_weight_2, ffn_bias_2)

    def norm(x: Any, weight: Any, bias: Any) -> Any:
        return F.layer_norm(x, (embed_dim,), weight, bias, eps)
    if norm_first:
        x = src + attend(norm(src, norm_weight_1, norm_bias_1))
        return x + feed_forward(norm(x, norm_weight_2, norm_bias_2))
    x = norm(src + attend(src), norm_weight_1, norm_bias_1)
    return norm(x + feed_forward(x), norm_weight_2, norm_bias_2)


DECOMPOSITIONS = {"aten._native_multi_head_attention.default": native_multi_head_attention,
                  "aten._transformer_encoder_layer_fwd.default": transformer_encoder_layer}
"""ATen overloads -> the face's own decompositions of them (torch code over TorchTensors)."""
