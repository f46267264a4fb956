#!/usr/bin/python3
"""Writes the models test_ops_opset25.c loads (opset25_*.onnx): ops that
first exist above opset 17 and ops whose forms changed from 18 to 25.

Not needed by the test run: the .onnx files are committed. Rerun after
changing a model here:  /usr/bin/python3 tests/unit/models/make_opset25.py
(onnx's helper writes any opset number; no checker runs, so an onnx older
than 1.20 does). Expected shapes and counts are worked out by hand in
test_ops_opset25.c.
"""
import os
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
N = h.make_node


def vi(name, dt, dims):
    return h.make_tensor_value_info(name, dt, dims)


def f32(name, shape):
    return nh.from_array(np.ones(shape, dtype=np.float32), name)


def i64(name, vals):
    return nh.from_array(np.array(vals, dtype=np.int64), name)


def save(stem, nodes, inputs, outputs, inits, opset):
    g = h.make_graph(nodes, stem, inputs, outputs, inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid('', opset)],
                     producer_name='make_opset25')
    m.ir_version = 10
    onnx.save(m, os.path.join(HERE, stem + '.onnx'))


# x [2,4,3,5] = 120 elements; img [1,1,7,7]; ints a [2,3], b [3].
save('opset25_ops', [
    N('Gelu', ['x'], ['gelu'], name='gelu', approximate='tanh'),
    N('Mish', ['x'], ['mish'], name='mish'),
    N('Swish', ['x'], ['swish'], name='swish', alpha=0.5),
    N('BitwiseAnd', ['a', 'b'], ['band'], name='band'),
    N('BitwiseOr', ['a', 'b'], ['bor'], name='bor'),
    N('BitwiseXor', ['a', 'b'], ['bxor'], name='bxor'),
    N('BitwiseNot', ['a'], ['bnot'], name='bnot'),
    N('AveragePool', ['img'], ['avg'], name='avg', kernel_shape=[3, 3],
      dilations=[2, 2]),
    N('LpPool', ['img'], ['lp'], name='lp', kernel_shape=[2, 2],
      dilations=[3, 3], strides=[2, 2]),
    N('ReduceMean', ['x', 'ax1'], ['rmean'], name='rmean', keepdims=0),
    N('ReduceMax', ['x'], ['rmax'], name='rmax'),
    N('Cast', ['x'], ['cast'], name='cast', to=T.FLOAT16, saturate=0),
    N('GroupNormalization', ['x', 'gscale', 'gbias'], ['gn'], name='gn',
      num_groups=2),
    N('RMSNormalization', ['x', 'rscale'], ['rms'], name='rms'),
], [vi('x', T.FLOAT, [2, 4, 3, 5]), vi('img', T.FLOAT, [1, 1, 7, 7]),
    vi('a', T.INT32, [2, 3]), vi('b', T.INT32, [3])],
   [vi(o, T.UNDEFINED, None) for o in
    ['gelu', 'mish', 'swish', 'band', 'bor', 'bxor', 'bnot', 'avg', 'lp',
     'rmean', 'rmax', 'cast', 'gn', 'rms']],
   [i64('ax1', [1]), f32('gscale', [4]), f32('gbias', [4]),
    f32('rscale', [5])], 25)

# GroupNormalization-18: scale and bias per group.
save('opset25_gn18', [
    N('GroupNormalization', ['x', 'gscale', 'gbias'], ['gn'], name='gn',
      num_groups=2),
], [vi('x', T.FLOAT, [2, 4, 3, 5])], [vi('gn', T.UNDEFINED, None)],
   [f32('gscale', [2]), f32('gbias', [2])], 18)

# Attention-23. gqa: 3-D Q [2,4,32] (4 heads of 8), K/V [2,6,16] (2 heads
# of 8), past [2,2,3,8], causal. mha: 4-D Q [1,2,3,4], K [1,2,5,4],
# V [1,2,5,6], an additive mask [3,5] and the scores output.
save('opset25_attn', [
    N('Attention', ['q', 'k', 'v', '', 'pk', 'pv'], ['y', 'present_k',
      'present_v'], name='gqa', q_num_heads=4, kv_num_heads=2, is_causal=1),
    N('Attention', ['q4', 'k4', 'v4', 'mask'], ['y4', '', '', 'qk'],
      name='mha'),
], [vi('q', T.FLOAT, [2, 4, 32]), vi('k', T.FLOAT, [2, 6, 16]),
    vi('v', T.FLOAT, [2, 6, 16]), vi('pk', T.FLOAT, [2, 2, 3, 8]),
    vi('pv', T.FLOAT, [2, 2, 3, 8]), vi('q4', T.FLOAT, [1, 2, 3, 4]),
    vi('k4', T.FLOAT, [1, 2, 5, 4]), vi('v4', T.FLOAT, [1, 2, 5, 6]),
    vi('mask', T.FLOAT, [3, 5])],
   [vi(o, T.UNDEFINED, None) for o in ['y', 'present_k', 'present_v', 'y4',
                                       'qk']], [], 23)

# Sub-byte weights: a float4e2m1 [5,3] (15 elements, 8 bytes) and an int2
# [3,3] (9 elements, 3 bytes), each cast to float32 for a MatMul. The
# TensorProto is written by hand: onnx before 1.18 has no such types.
def packed(name, dt, dims, nbytes):
    t = onnx.TensorProto()
    t.name, t.data_type = name, dt
    t.dims.extend(dims)
    t.raw_data = bytes(range(1, nbytes + 1))
    return t


save('opset25_subbyte', [
    N('Cast', ['w4'], ['w4f'], name='cast4', to=T.FLOAT),
    N('MatMul', ['x', 'w4f'], ['h'], name='mm4'),
    N('DequantizeLinear', ['w2', 's16'], ['w2h'], name='dq2'),
    N('Cast', ['w2h'], ['w2f'], name='cast2', to=T.FLOAT),
    N('MatMul', ['h', 'w2f'], ['y'], name='mm2'),
    N('DequantizeLinear', ['w8', 's16'], ['w8h'], name='dq8'),
    N('Cast', ['y'], ['y8'], name='to_e8m0', to=24),
], [vi('x', T.FLOAT, [1, 5])],
   [vi('y8', T.UNDEFINED, None), vi('w8h', T.UNDEFINED, None)],
   [packed('w4', 23, [5, 3], 8), packed('w2', 26, [3, 3], 3),
    packed('w8', 17, [4], 4),
    nh.from_array(np.array(0.5, dtype=np.float16), 's16')], 25)

# RotaryEmbedding-23 on 4-D x [1,2,3,8] (rotary_embedding_dim 4 of 8),
# caches [10,2], positions [1,3]; TensorScatter-24 of a [2,2,3,8] update
# into a [2,2,16,8] cache at rows write_indices [2].
save('opset25_llm', [
    N('RotaryEmbedding', ['x', 'cos', 'sin', 'pos'], ['rx'], name='rope',
      rotary_embedding_dim=4),
    N('TensorScatter', ['cache', 'upd', 'widx'], ['present'], name='tscat'),
], [vi('x', T.FLOAT, [1, 2, 3, 8]), vi('cos', T.FLOAT, [10, 2]),
    vi('sin', T.FLOAT, [10, 2]), vi('pos', T.INT64, [1, 3]),
    vi('cache', T.FLOAT, [2, 2, 16, 8]), vi('upd', T.FLOAT, [2, 2, 3, 8]),
    vi('widx', T.INT64, [2])],
   [vi('rx', T.UNDEFINED, None), vi('present', T.UNDEFINED, None)], [], 25)

# The opset-20 string ops on s [2,3] and t [3]; ImageDecoder of bytes [100].
save('opset25_text', [
    N('RegexFullMatch', ['s'], ['match'], name='regex', pattern='a.*'),
    N('StringConcat', ['s', 't'], ['cat'], name='concat'),
    N('StringSplit', ['s'], ['parts', 'nparts'], name='split',
      delimiter=',', maxsplit=2),
    N('ImageDecoder', ['jpeg'], ['image'], name='decode',
      pixel_format='Grayscale'),
], [vi('s', T.STRING, [2, 3]), vi('t', T.STRING, [3]),
    vi('jpeg', T.UINT8, [100])],
   [vi(o, T.UNDEFINED, None) for o in ['match', 'cat', 'parts', 'nparts',
                                       'image']], [], 20)

# Split-18: dim 5 in num_outputs 2 is 3 + 2; dim 4 in 2 is 2 + 2; sizes
# given as an input as before.
save('opset25_split', [
    N('Split', ['x'], ['p0', 'p1'], name='uneven', axis=3, num_outputs=2),
    N('Split', ['x'], ['q0', 'q1'], name='even', axis=1, num_outputs=2),
    N('Split', ['x', 'sizes'], ['r0', 'r1'], name='sized', axis=3),
], [vi('x', T.FLOAT, [2, 4, 3, 5])],
   [vi(o, T.UNDEFINED, None) for o in ['p0', 'p1', 'q0', 'q1', 'r0', 'r1']],
   [i64('sizes', [1, 4])], 18)

# CenterCropPad-18 of x [2,4,3,5] to 6 on axis 1 and 2 on axis 3;
# AffineGrid-20 of theta [2,2,3] for size [2,3,4,5].
save('opset25_grid', [
    N('CenterCropPad', ['x', 'crop'], ['cropped'], name='ccp', axes=[1, 3]),
    N('AffineGrid', ['theta', 'size'], ['grid'], name='agrid'),
], [vi('x', T.FLOAT, [2, 4, 3, 5]), vi('theta', T.FLOAT, [2, 2, 3])],
   [vi('cropped', T.UNDEFINED, None), vi('grid', T.UNDEFINED, None)],
   [i64('crop', [6, 2]), i64('size', [2, 3, 4, 5])], 20)

# Pad-19: pads [1, 0, 2, 1] for axes [1, 3] (begins, then ends) of
# x [2,4,3,5] -> [2,7,3,6], and wrap mode.
save('opset25_pad', [
    N('Pad', ['x', 'pads', '', 'axes'], ['padded'], name='pad_axes'),
    N('Pad', ['x', 'pads', '', 'axes'], ['wrapped'], name='pad_wrap',
      mode='wrap'),
], [vi('x', T.FLOAT, [2, 4, 3, 5])],
   [vi('padded', T.UNDEFINED, None), vi('wrapped', T.UNDEFINED, None)],
   [i64('pads', [1, 0, 2, 1]), i64('axes', [1, 3])], 19)

# Optional*-18 on a plain tensor.
save('opset25_optional', [
    N('OptionalHasElement', ['x'], ['has'], name='has'),
    N('OptionalGetElement', ['x'], ['got'], name='get'),
], [vi('x', T.FLOAT, [2, 4, 3, 5])],
   [vi('has', T.UNDEFINED, None), vi('got', T.UNDEFINED, None)], [], 18)

# GridSample-20 in 3-D: x [1,2,4,5,6] at grid [1,3,3,3,3] (linear).
save('opset25_gridsample', [
    N('GridSample', ['x', 'grid'], ['y'], name='gs3d'),
], [vi('x', T.FLOAT, [1, 2, 4, 5, 6]), vi('grid', T.FLOAT, [1, 3, 3, 3, 3])],
   [vi('y', T.UNDEFINED, None)], [], 20)

# Resize-18 of img [1,3,10,20]: sizes [6, 8] for axes [2, 3], stretched,
# not_larger (scale 0.4) and not_smaller (0.6); scales [2, 0.5] for them.
def f32v(name, vals):
    return nh.from_array(np.array(vals, dtype=np.float32), name)


save('opset25_resize', [
    N('Resize', ['img', '', '', 'sz'], ['stretch'], name='stretch',
      axes=[2, 3]),
    N('Resize', ['img', '', '', 'sz'], ['nl'], name='nl', axes=[2, 3],
      keep_aspect_ratio_policy='not_larger'),
    N('Resize', ['img', '', '', 'sz'], ['ns'], name='ns', axes=[2, 3],
      keep_aspect_ratio_policy='not_smaller'),
    N('Resize', ['img', '', 'sc'], ['scaled'], name='scaled', axes=[2, 3]),
], [vi('img', T.FLOAT, [1, 3, 10, 20])],
   [vi(o, T.UNDEFINED, None) for o in ['stretch', 'nl', 'ns', 'scaled']],
   [i64('sz', [6, 8]), f32v('sc', [2.0, 0.5])], 19)

# DFT-20 of sig [2,8,1] along the default axis -2 (dim 1), onesided: 5
# bins; and with the axis given as an input.
save('opset25_dft', [
    N('DFT', ['sig'], ['spec'], name='dft', onesided=1),
    N('DFT', ['sig', '', 'ax'], ['spec2'], name='dft_ax'),
], [vi('sig', T.FLOAT, [2, 8, 1])],
   [vi('spec', T.UNDEFINED, None), vi('spec2', T.UNDEFINED, None)],
   [i64('ax', 1)], 20)

# Col2Im-18: columns [1, 2*2*2, 9] into image 4x4 with 2x2 blocks.
save('opset25_col2im', [
    N('Col2Im', ['cols', 'image_shape', 'block_shape'], ['im'], name='c2i'),
], [vi('cols', T.FLOAT, [1, 8, 9])], [vi('im', T.UNDEFINED, None)],
   [i64('image_shape', [4, 4]), i64('block_shape', [2, 2])], 18)

# DeformConv-19: x [1,2,5,5], w [3,2,3,3], offset [1,18,3,3].
save('opset25_deform', [
    N('DeformConv', ['x', 'w', 'off'], ['y'], name='dconv',
      kernel_shape=[3, 3]),
], [vi('x', T.FLOAT, [1, 2, 5, 5]), vi('off', T.FLOAT, [1, 18, 3, 3])],
   [vi('y', T.UNDEFINED, None)], [f32('w', [3, 2, 3, 3])], 19)
