"""torchscan 0.2's closed-form FLOPs of nn.MultiheadAttention and of a
model that is an nn.Transformer: the one place where
nnscan.compat.torchscan counts a module by its peer's formula instead of
by the library's operator rules (docs/compat.md, "Drop-in modules", says
what native nnscan reports instead and why).

torchscan treats such a module as one metric leaf and prices it by a
closed form over its configuration and the shapes of its call; the
library counts the operators PyTorch actually ran (fused kernels, the
softmax's own rule, the residual adds), so the two differ. The formulas
here read call metadata only (shapes, which optional inputs were given,
as _calls.describe records them), never tensor values. A report's forward
runs in eval mode, so the dropout terms torchscan adds for a module in
training mode are always 0 and left out.
"""
import inspect
import math

import torch

nn = torch.nn


class FormulaError(NotImplementedError):
    """The module's configuration or call is outside the formula."""


def applies(module, is_model):
    """Whether torchscan 0.2 prices this call by one of these formulas:
    every nn.MultiheadAttention, and an nn.Transformer that is the
    crawled model itself (one nested deeper is crawled as a container)."""
    return isinstance(module, nn.MultiheadAttention) or \
        (is_model and isinstance(module, nn.Transformer))


def module_flops(module, call_input, call_output):
    """FLOPs of one call of `module` (applies() is true) from the
    describe_call() of its arguments and the describe() of its output;
    FormulaError where the formula has no answer."""
    bound = _bind(module, call_input)
    if isinstance(module, nn.MultiheadAttention):
        out = call_output or {}
        items = out.get("items") or []
        weights = len(items) > 1 and _shape(items[1]) is not None and \
            len(_shape(items[1])) == 3  # averaged weights: (N, L, S)
        masks = _given(bound, "key_padding_mask") + _given(bound, "attn_mask")
        return _attention(module, _need(bound, "query"), _need(bound, "key"),
                          _need(bound, "value"), masks, weights)
    return _transformer(module, bound)


# ---- call metadata ----

def _bind(module, call_input):
    """Argument name -> description, as the forward's signature binds the
    call's positional and keyword arguments."""
    args, kwargs = call_input["args"], call_input["kwargs"]
    try:
        return dict(inspect.signature(module.forward)
                    .bind_partial(*args, **kwargs).arguments)
    except (TypeError, ValueError) as e:
        raise FormulaError(f"cannot bind the call to "
                           f"{type(module).__name__}.forward: {e}") from e


def _shape(desc):
    if isinstance(desc, dict) and desc.get("kind") == "tensor":
        return tuple(desc["shape"])
    return None


def _need(bound, name):
    shape = _shape(bound.get(name))
    if shape is None:
        raise FormulaError(f"argument '{name}' is not a tensor")
    return shape


def _given(bound, name):
    """1 when the optional input `name` was passed (not None), else 0."""
    d = bound.get(name)
    return int(d is not None and d.get("kind") != "none")


def _rows(shape):
    return math.prod(shape[:-1])


# ---- the formulas ----

def _linear(lin, rows):
    """Each output element: in_features multiplies and in_features - 1
    adds, plus the bias add."""
    per_row = lin.out_features * (2 * lin.in_features - 1 +
                                  int(lin.bias is not None))
    return rows * per_row


def _layernorm(norm, shape):
    """Per element: 6 operations for the mean, variance and normalisation,
    2 per normalised row (the variance's epsilon add and its square
    root), and one each for the affine scale and shift."""
    n = math.prod(shape)
    rows = n // math.prod(norm.normalized_shape)
    affine = int(norm.weight is not None) + int(norm.bias is not None)
    return (6 + affine) * n + 2 * rows


def _attention(mha, q, k, v, masks, weights):
    """Scaled dot-product attention of query length L over source length S
    for N sequences and H heads of size D: the three input projections,
    the scaling (one reciprocal square root, then one multiply per query
    element), the L x S scores, one add per score for each mask given,
    the softmax (3S - 1 per row), the weighted sum of values, the output
    projection, and the head average of the returned weights."""
    if len(q) != 3 or len(k) != 3 or len(v) != 3:
        raise FormulaError("MultiheadAttention FLOPs need batched (3-D) "
                           "query, key and value")
    if mha.bias_k is not None or mha.bias_v is not None or mha.add_zero_attn:
        raise FormulaError("MultiheadAttention FLOPs do not cover "
                           "add_bias_kv or add_zero_attn")
    n_axis, l_axis = (0, 1) if mha.batch_first else (1, 0)
    n, length, src = q[n_axis], q[l_axis], k[l_axis]
    h, d, e = mha.num_heads, mha.head_dim, mha.embed_dim
    bias = int(mha.in_proj_bias is not None)
    heads_rows = n * h * length
    scores = heads_rows * src
    flops = sum(_rows(x) * e * (2 * x[-1] - 1 + bias) for x in (q, k, v))
    flops += 1 + heads_rows * d
    flops += scores * (2 * d - 1)
    flops += masks * scores
    flops += heads_rows * (3 * src - 1)
    flops += heads_rows * d * (2 * src - 1)
    flops += _linear(mha.out_proj, _rows(q))
    if weights:
        flops += scores
    return flops


def _feedforward(layer, shape):
    if layer.activation is not torch.nn.functional.relu:
        raise FormulaError("Transformer FLOPs cover the default ReLU "
                           "activation only")
    rows = _rows(shape)
    return _linear(layer.linear1, rows) + rows * layer.linear1.out_features \
        + _linear(layer.linear2, rows)


def _encoder_layer(layer, src, masks):
    """Self-attention, two residual adds, two LayerNorms, feed-forward."""
    return (_attention(layer.self_attn, src, src, src, masks, False)
            + 2 * math.prod(src) + _layernorm(layer.norm1, src)
            + _layernorm(layer.norm2, src) + _feedforward(layer, src))


def _decoder_layer(layer, tgt, memory, self_masks, cross_masks):
    """Self-attention over the target, attention over the memory, three
    residual adds, three LayerNorms, feed-forward."""
    return (_attention(layer.self_attn, tgt, tgt, tgt, self_masks, False)
            + _attention(layer.multihead_attn, tgt, memory, memory,
                         cross_masks, False)
            + 3 * math.prod(tgt) + _layernorm(layer.norm1, tgt)
            + _layernorm(layer.norm2, tgt) + _layernorm(layer.norm3, tgt)
            + _feedforward(layer, tgt))


def _transformer(model, bound):
    """Every encoder layer over the source, the encoder's final norm,
    every decoder layer over the target (its memory has the source's
    shape), the decoder's final norm."""
    if not isinstance(model.encoder, nn.TransformerEncoder) or \
            not isinstance(model.decoder, nn.TransformerDecoder):
        raise FormulaError("Transformer FLOPs cover the native encoder and "
                           "decoder stacks only")
    src, tgt = _need(bound, "src"), _need(bound, "tgt")
    enc_masks = _given(bound, "src_mask") + \
        _given(bound, "src_key_padding_mask")
    self_masks = _given(bound, "tgt_mask") + \
        _given(bound, "tgt_key_padding_mask")
    cross_masks = _given(bound, "memory_mask") + \
        _given(bound, "memory_key_padding_mask")
    flops = sum(_encoder_layer(layer, src, enc_masks)
                for layer in model.encoder.layers)
    flops += sum(_decoder_layer(layer, tgt, src, self_masks, cross_masks)
                 for layer in model.decoder.layers)
    for stack, shape in ((model.encoder, src), (model.decoder, tgt)):
        if isinstance(stack.norm, nn.LayerNorm):
            flops += _layernorm(stack.norm, shape)
    return flops
