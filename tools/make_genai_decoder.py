#!/usr/bin/python3
"""Writes tests/fixtures/genai/decoder.onnx: one decoder layer as ONNX
Runtime GenAI's builder lays it out for a 4-bit model (none can be
downloaded here), from the com.microsoft ops it emits:

  x -> SimplifiedLayerNormalization -> MatMulNBits q, k, v
    -> RotaryEmbedding (q, k) -> GroupQueryAttention (KV cache in, present
    out) -> MatMulNBits o -> SkipSimplifiedLayerNormalization (+ x)
    -> MatMulNBits up -> MatMulNBits down -> Add (the residual sum)

hidden 32, 4 query heads of 8 over 2 key/value heads, feed-forward 64,
4-bit weights in blocks of 32. x is [1, sequence_length, 32] and the cache
[1, 2, past_sequence_length, 8], so `--input sequence_length=S --input
past_sequence_length=P` gives the prefill or the decode view.
test_ops_msft_llm.c counts it by hand.

  /usr/bin/python3 tools/make_genai_decoder.py
"""
import os
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                   'tests', 'fixtures', 'genai', 'decoder.onnx')
MS = 'com.microsoft'
N = h.make_node
D, HEADS, KV, HEAD, FF, BLOCK = 32, 4, 2, 8, 64, 32


def ones(name, shape, dtype=np.float32):
    return nh.from_array(np.ones(shape, dtype=dtype), name)


def nbits(name, a, out, k, n, inits):
    """A 4-bit MatMulNBits of k inputs to n outputs and its weights."""
    blocks = (k + BLOCK - 1) // BLOCK
    inits += [ones(name + '.qweight', [n, blocks, BLOCK // 2], np.uint8),
              ones(name + '.scales', [n * blocks])]
    return N('MatMulNBits', [a, name + '.qweight', name + '.scales'], [out],
             name='/model/layers.0/' + name + '/MatMul', domain=MS, K=k, N=n,
             bits=4, block_size=BLOCK)


inits = [ones('ln1.weight', [D]), ones('ln2.weight', [D]),
         ones('cos_cache', [64, HEAD // 2]),
         ones('sin_cache', [64, HEAD // 2])]
L = '/model/layers.0/'
nodes = [
    N('SimplifiedLayerNormalization', ['x', 'ln1.weight'], ['h1'],
      name=L + 'input_layernorm/LayerNorm', epsilon=1e-6),
    nbits('attn/q_proj', 'h1', 'q', D, HEADS * HEAD, inits),
    nbits('attn/k_proj', 'h1', 'k', D, KV * HEAD, inits),
    nbits('attn/v_proj', 'h1', 'v', D, KV * HEAD, inits),
    N('RotaryEmbedding', ['q', 'position_ids', 'cos_cache', 'sin_cache'],
      ['rq'], name=L + 'attn/q_rotary/RotaryEmbedding', domain=MS,
      num_heads=HEADS),
    N('RotaryEmbedding', ['k', 'position_ids', 'cos_cache', 'sin_cache'],
      ['rk'], name=L + 'attn/k_rotary/RotaryEmbedding', domain=MS,
      num_heads=KV),
    N('GroupQueryAttention', ['rq', 'rk', 'v', 'past_key_values.0.key',
                              'past_key_values.0.value', 'seqlens_k',
                              'total_sequence_length'],
      ['attn', 'present.0.key', 'present.0.value'],
      name=L + 'attn/GroupQueryAttention', domain=MS, num_heads=HEADS,
      kv_num_heads=KV),
    nbits('attn/o_proj', 'attn', 'o', HEADS * HEAD, D, inits),
    N('SkipSimplifiedLayerNormalization', ['o', 'x', 'ln2.weight'],
      ['h2', '', '', 'resid'], name=L + 'post_attention_layernorm/SkipLayerNorm',
      domain=MS, epsilon=1e-6),
    nbits('mlp/up_proj', 'h2', 'up', D, FF, inits),
    nbits('mlp/down_proj', 'up', 'down', FF, D, inits),
    N('Add', ['down', 'resid'], ['out'], name=L + 'residual/Add'),
]
seq, past = 'sequence_length', 'past_sequence_length'
inputs = [
    h.make_tensor_value_info('x', T.FLOAT, [1, seq, D]),
    h.make_tensor_value_info('position_ids', T.INT64, [1, seq]),
    h.make_tensor_value_info('past_key_values.0.key', T.FLOAT,
                             [1, KV, past, HEAD]),
    h.make_tensor_value_info('past_key_values.0.value', T.FLOAT,
                             [1, KV, past, HEAD]),
    h.make_tensor_value_info('seqlens_k', T.INT32, [1]),
    h.make_tensor_value_info('total_sequence_length', T.INT32, []),
]
outputs = [h.make_tensor_value_info(o, T.UNDEFINED, None)
           for o in ['out', 'present.0.key', 'present.0.value']]
g = h.make_graph(nodes, 'genai_decoder', inputs, outputs, inits)
m = h.make_model(g, opset_imports=[h.make_opsetid('', 21),
                                   h.make_opsetid(MS, 1)],
                 producer_name='make_genai_decoder')
m.ir_version = 10
onnx.save(m, OUT)
print('wrote', os.path.normpath(OUT))
