#!/usr/bin/python3
"""Writes the models test_ops_msft_llm.c loads (msft_llm_*.onnx): ONNX
Runtime's com.microsoft LLM ops (GroupQueryAttention, MatMulNBits,
(Skip)SimplifiedLayerNormalization, RotaryEmbedding, MoE, QMoE) and
Attention-23 with a known boolean mask.

Not needed by the test run: the .onnx files are committed. Rerun after
changing a model here:  /usr/bin/python3 tests/unit/models/make_msft_llm.py
Expected shapes and counts are worked out by hand in test_ops_msft_llm.c.
"""
import os
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
N = h.make_node
MS = 'com.microsoft'


def vi(name, dt, dims):
    return h.make_tensor_value_info(name, dt, dims)


def arr(name, shape, dtype=np.float32):
    return nh.from_array(np.ones(shape, dtype=dtype), name)


def save(stem, nodes, inputs, outputs, inits, opset=21):
    g = h.make_graph(nodes, stem, inputs, outputs, inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid('', opset),
                                       h.make_opsetid(MS, 1)],
                     producer_name='make_msft_llm')
    m.ir_version = 10
    onnx.save(m, os.path.join(HERE, stem + '.onnx'))


# Normalisations, rotary, MatMulNBits, MoE and QMoE, one node each.
save('msft_llm_ops', [
    N('SimplifiedLayerNormalization', ['x', 'g8'], ['sln'], name='sln',
      epsilon=1e-6),
    N('SkipSimplifiedLayerNormalization', ['x', 'skip', 'g8', 'b8'],
      ['ssln', '', '', 'ssum'], name='ssln', domain=MS, epsilon=1e-6),
    N('RotaryEmbedding', ['xr', 'pos', 'cos', 'sin'], ['rot'], name='rot',
      domain=MS, num_heads=2),
    N('MatMulNBits', ['a', 'qb', 'qscale', '', '', 'qbias'], ['mnb'],
      name='mnb', domain=MS, K=64, N=16, bits=4, block_size=32),
    N('MoE', ['tok', 'router', 'fc1', '', 'fc2'], ['moe'], name='moe',
      domain=MS, k=2, activation_type='relu'),
    N('QMoE', ['tok', 'router', 'qfc1', 'qs1', '', 'qfc2', 'qs2'], ['qmoe'],
      name='qmoe', domain=MS, k=2, activation_type='relu',
      expert_weight_bits=4),
], [vi('x', T.FLOAT, [2, 3, 8]), vi('skip', T.FLOAT, [2, 3, 8]),
    vi('xr', T.FLOAT, [1, 4, 16]), vi('pos', T.INT64, [1, 4]),
    vi('a', T.FLOAT, [2, 3, 64]), vi('tok', T.FLOAT, [3, 8]),
    vi('router', T.FLOAT, [3, 4])],
   [vi(o, T.UNDEFINED, None) for o in
    ['sln', 'ssln', 'ssum', 'rot', 'mnb', 'moe', 'qmoe']],
   [arr('g8', [8]), arr('b8', [8]), arr('cos', [8, 4]), arr('sin', [8, 4]),
    arr('qb', [16, 2, 16], np.uint8), arr('qscale', [32]),
    arr('qbias', [16]), arr('fc1', [4, 16, 8]), arr('fc2', [4, 8, 16]),
    arr('qfc1', [4, 16, 4], np.uint8), arr('qs1', [4, 16]),
    arr('qfc2', [4, 8, 8], np.uint8), arr('qs2', [4, 8])])

# GroupQueryAttention prefill: query [1,4,32] (4 heads of 8), key/value
# [1,4,16] (2 kv heads), no past, total_sequence_length 4: causal.
save('msft_llm_gqa', [
    N('GroupQueryAttention', ['q', 'k', 'v', '', '', 'seqlens', 'total'],
      ['y', 'present_k', 'present_v'], name='gqa', domain=MS, num_heads=4,
      kv_num_heads=2),
], [vi('q', T.FLOAT, [1, 4, 32]), vi('k', T.FLOAT, [1, 4, 16]),
    vi('v', T.FLOAT, [1, 4, 16]), vi('seqlens', T.INT32, [1])],
   [vi(o, T.UNDEFINED, None) for o in ['y', 'present_k', 'present_v']],
   [nh.from_array(np.array(4, dtype=np.int32), 'total')])

# GroupQueryAttention decode: query [2,1,32], key/value [2,1,16], past
# [2,2,5,8], total_sequence_length 6, local_window_size 2.
save('msft_llm_gqa_window', [
    N('GroupQueryAttention', ['q', 'k', 'v', 'pk', 'pv', 'seqlens', 'total'],
      ['y', 'present_k', 'present_v'], name='gqa', domain=MS, num_heads=4,
      kv_num_heads=2, local_window_size=2),
], [vi('q', T.FLOAT, [2, 1, 32]), vi('k', T.FLOAT, [2, 1, 16]),
    vi('v', T.FLOAT, [2, 1, 16]), vi('pk', T.FLOAT, [2, 2, 5, 8]),
    vi('pv', T.FLOAT, [2, 2, 5, 8]), vi('seqlens', T.INT32, [2])],
   [vi(o, T.UNDEFINED, None) for o in ['y', 'present_k', 'present_v']],
   [nh.from_array(np.array(6, dtype=np.int32), 'total')])

# Attention-23 with a boolean mask [3,5] known from an initializer:
# Q [1,2,3,4], K and V [1,2,5,4]; rows allow 2, 3 and 0 keys.
mask = np.array([[1, 1, 0, 0, 0], [1, 1, 1, 0, 0], [0, 0, 0, 0, 0]],
                dtype=bool)
save('msft_llm_attn_mask', [
    N('Attention', ['q4', 'k4', 'v4', 'mask'], ['y4'], name='attn'),
], [vi('q4', T.FLOAT, [1, 2, 3, 4]), vi('k4', T.FLOAT, [1, 2, 5, 4]),
    vi('v4', T.FLOAT, [1, 2, 5, 4])],
   [vi('y4', T.UNDEFINED, None)], [nh.from_array(mask, 'mask')], 23)

# MultiHeadAttention, unidirectional: Q, K, V [1,3,8], 2 heads of 4.
save('msft_llm_mha', [
    N('MultiHeadAttention', ['q', 'k', 'v'], ['y'], name='mha', domain=MS,
      num_heads=2, unidirectional=1),
], [vi('q', T.FLOAT, [1, 3, 8]), vi('k', T.FLOAT, [1, 3, 8]),
    vi('v', T.FLOAT, [1, 3, 8])], [vi('y', T.UNDEFINED, None)], [])

# GroupQueryAttention, causal 0, an attention_bias known from an
# initializer [1,1,2,2] that masks query 0's second key: Q [1,2,8] (2
# heads of 4), K/V [1,2,4] (1 kv head), total_sequence_length 2.
save('msft_llm_gqa_bias', [
    N('GroupQueryAttention', ['q', 'k', 'v', '', '', 'seqlens', 'total', '',
                              '', '', 'bias'],
      ['y', 'present_k', 'present_v'], name='gqa', domain=MS, num_heads=2,
      kv_num_heads=1, causal=0),
], [vi('q', T.FLOAT, [1, 2, 8]), vi('k', T.FLOAT, [1, 2, 4]),
    vi('v', T.FLOAT, [1, 2, 4]), vi('seqlens', T.INT32, [1])],
   [vi(o, T.UNDEFINED, None) for o in ['y', 'present_k', 'present_v']],
   [nh.from_array(np.array(2, dtype=np.int32), 'total'),
    nh.from_array(np.array([[[[0, -np.inf], [0, 0]]]], dtype=np.float32),
                  'bias')])

# com.microsoft Attention, unidirectional: input [1,3,8], weights [8,24]
# (Q, K, V of 8), 2 heads.
save('msft_llm_ms_attn', [
    N('Attention', ['x', 'w'], ['y'], name='attn', domain=MS, num_heads=2,
      unidirectional=1),
], [vi('x', T.FLOAT, [1, 3, 8])], [vi('y', T.UNDEFINED, None)],
   [arr('w', [8, 24])])

# MultiHeadAttention with a key_padding_mask [2,3] known from an
# initializer (batch 1 pads its last key), then the same mask as a graph
# input (contents unknown): Q, K, V [2,3,8], 2 heads of 4.
QKV = [vi('q', T.FLOAT, [2, 3, 8]), vi('k', T.FLOAT, [2, 3, 8]),
       vi('v', T.FLOAT, [2, 3, 8])]
MHA = N('MultiHeadAttention', ['q', 'k', 'v', '', 'kpm'], ['y'], name='mha',
        domain=MS, num_heads=2)
save('msft_llm_mha_kpm', [MHA], QKV, [vi('y', T.UNDEFINED, None)],
     [nh.from_array(np.array([[1, 1, 1], [1, 1, 0]], np.int32), 'kpm')])
save('msft_llm_mha_kpm_in', [MHA], QKV + [vi('kpm', T.INT32, [2, 3])],
     [vi('y', T.UNDEFINED, None)], [])

# com.microsoft Attention with mask_index [2] key lengths (3 and 1) known
# from an initializer, then as a graph input: input [2,3,8], weights
# [8,24], 2 heads of 4.
ATT = N('Attention', ['x', 'w', '', 'mi'], ['y'], name='attn', domain=MS,
        num_heads=2)
save('msft_llm_ms_attn_len', [ATT], [vi('x', T.FLOAT, [2, 3, 8])],
     [vi('y', T.UNDEFINED, None)],
     [arr('w', [8, 24]), nh.from_array(np.array([3, 1], np.int32), 'mi')])
save('msft_llm_ms_attn_len_in', [ATT], [vi('x', T.FLOAT, [2, 3, 8]),
                                        vi('mi', T.INT32, [2])],
     [vi('y', T.UNDEFINED, None)], [arr('w', [8, 24])])

# A MatMul outside the experts, then MoE (fc1 with a bias) and QMoE (4-bit),
# k 2 of 4 experts, over `rows` tokens: params_active and
# weight_bytes_read.
def moe_model(stem, rows):
    save(stem, [
        N('MatMul', ['x', 'wd'], ['tok'], name='dense'),
        N('MoE', ['tok', 'router', 'fc1', 'b1', 'fc2'], ['moe'], name='moe',
          domain=MS, k=2, activation_type='relu'),
        N('QMoE', ['moe', 'router', 'qfc1', 'qs1', '', 'qfc2', 'qs2'],
          ['qmoe'], name='qmoe', domain=MS, k=2, activation_type='relu',
          expert_weight_bits=4),
    ], [vi('x', T.FLOAT, [rows, 8]), vi('router', T.FLOAT, [rows, 4])],
        [vi('qmoe', T.UNDEFINED, None)],
        [arr('wd', [8, 8]), arr('fc1', [4, 16, 8]), arr('b1', [4, 16]),
         arr('fc2', [4, 8, 16]), arr('qfc1', [4, 16, 4], np.uint8),
         arr('qs1', [4, 16]), arr('qfc2', [4, 8, 8], np.uint8),
         arr('qs2', [4, 8])])


moe_model('msft_llm_moe_prefill', 3)
moe_model('msft_llm_moe_decode', 1)


# Two MoE nodes sharing one fc1 and one fc2 (k 2 of 4 experts, one token):
# the shared initializers are reduced once in params_active and
# weight_bytes_read.
save('msft_llm_moe_shared', [
    N('MoE', ['tok', 'router', 'fc1', '', 'fc2'], ['m1'], name='moe1',
      domain=MS, k=2, activation_type='relu'),
    N('MoE', ['m1', 'router', 'fc1', '', 'fc2'], ['m2'], name='moe2',
      domain=MS, k=2, activation_type='relu'),
], [vi('tok', T.FLOAT, [1, 8]), vi('router', T.FLOAT, [1, 4])],
   [vi('m2', T.UNDEFINED, None)],
   [arr('fc1', [4, 16, 8]), arr('fc2', [4, 8, 16])])


# MoE and QMoE inside subgraphs, k 2 of 4 experts over one token: an If
# whose condition is a graph input (then: MoE on the outer fc1 and the
# branch's own fc2; else: QMoE, 4-bit, on the branch's weights) and a Loop
# of 2 trips whose body runs MoE on the body's weights.
def moe_subgraphs():
    moe_then = h.make_graph(
        [N('MoE', ['tok', 'router', 'fc1', '', 'tfc2'], ['ty'],
           name='then_moe', domain=MS, k=2, activation_type='relu')],
        'then_moe', [], [vi('ty', T.FLOAT, [1, 8])], [arr('tfc2', [4, 8, 16])])
    moe_else = h.make_graph(
        [N('QMoE', ['tok', 'router', 'eq1', 'es1', '', 'eq2', 'es2'], ['ey'],
           name='else_qmoe', domain=MS, k=2, activation_type='relu',
           expert_weight_bits=4)],
        'else_qmoe', [], [vi('ey', T.FLOAT, [1, 8])],
        [arr('eq1', [4, 16, 4], np.uint8), arr('es1', [4, 16]),
         arr('eq2', [4, 8, 8], np.uint8), arr('es2', [4, 8])])
    body = h.make_graph(
        [N('Identity', ['c'], ['c_out'], name='keep'),
         N('MoE', ['tok', 'router', 'lfc1', '', 'lfc2'], ['ly'],
           name='loop_moe', domain=MS, k=2, activation_type='relu')],
        'loop_body', [vi('i', T.INT64, []), vi('c', T.BOOL, [])],
        [vi('c_out', T.BOOL, []), vi('ly', T.FLOAT, [1, 8])],
        [arr('lfc1', [4, 16, 8]), arr('lfc2', [4, 8, 16])])
    save('msft_llm_moe_sub', [
        N('If', ['cond'], ['y_if'], name='branch', then_branch=moe_then,
          else_branch=moe_else),
        N('Loop', ['trips', ''], ['y_loop'], name='loop', body=body),
    ], [vi('tok', T.FLOAT, [1, 8]), vi('router', T.FLOAT, [1, 4]),
        vi('cond', T.BOOL, [])],
        [vi('y_if', T.UNDEFINED, None), vi('y_loop', T.UNDEFINED, None)],
        [arr('fc1', [4, 16, 8]),
         nh.from_array(np.array(2, dtype=np.int64), 'trips')])


moe_subgraphs()


# Counts a rule says are not exact, for the warnings naming them:
# GroupQueryAttention (causal) with its attention_bias a graph input
# (contents not known), and com.microsoft Attention with do_rotary (the
# rotation is not counted): input [1,3,8], weights [8,24], 2 heads.
save('msft_llm_gqa_bias_in', [
    N('GroupQueryAttention', ['q', 'k', 'v', '', '', 'seqlens', 'total', '',
                              '', '', 'bias'],
      ['y', 'present_k', 'present_v'], name='gqa', domain=MS, num_heads=2,
      kv_num_heads=1),
], [vi('q', T.FLOAT, [1, 2, 8]), vi('k', T.FLOAT, [1, 2, 4]),
    vi('v', T.FLOAT, [1, 2, 4]), vi('seqlens', T.INT32, [1]),
    vi('bias', T.FLOAT, [1, 1, 2, 2])],
   [vi(o, T.UNDEFINED, None) for o in ['y', 'present_k', 'present_v']],
   [nh.from_array(np.array(2, dtype=np.int32), 'total')])
save('msft_llm_ms_attn_rotary', [
    N('Attention', ['x', 'w'], ['y'], name='rot_attn', domain=MS,
      num_heads=2, do_rotary=1)],
     [vi('x', T.FLOAT, [1, 3, 8])], [vi('y', T.UNDEFINED, None)],
     [arr('w', [8, 24])])
# Attention-23 with its boolean mask a graph input (contents not known).
save('msft_llm_attn_mask_in', [
    N('Attention', ['q4', 'k4', 'v4', 'mask'], ['y4'], name='attn'),
], [vi('q4', T.FLOAT, [1, 2, 3, 4]), vi('k4', T.FLOAT, [1, 2, 5, 4]),
    vi('v4', T.FLOAT, [1, 2, 5, 4]), vi('mask', T.BOOL, [3, 5])],
   [vi('y4', T.UNDEFINED, None)], [], 23)
