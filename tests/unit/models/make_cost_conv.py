#!/usr/bin/python3
"""Writes the tiny models tests/unit/test_cost_conv.c loads
(cost_conv_*.onnx): one node each, for the cost and receptive-field rules of
the conv, pool, gemm, norm, resize and rnn families. Not needed by the test
run; rerun only to change them:

    /usr/bin/python3 tests/unit/models/make_cost_conv.py

Inputs and weights are graph inputs with declared shapes (no weight data),
so the files stay a few hundred bytes; small constants (Resize scales) are
initializers. A dim given as a string is symbolic.
"""
import os
import onnx
from onnx import TensorProto as TP, helper as h

HERE = os.path.dirname(os.path.abspath(__file__))
F, I64, U8 = TP.FLOAT, TP.INT64, TP.UINT8


def model(name, op, inputs, outputs, opset=13, consts=(), **attrs):
    """inputs: [(name, dtype, shape)] ('' for an omitted optional input);
    consts: [(name, dtype, dims, vals)] become initializers."""
    node = h.make_node(op, [i[0] for i in inputs], outputs, name='n', **attrs)
    cnames = {c[0] for c in consts}
    g = h.make_graph(
        [node], name,
        [h.make_tensor_value_info(n, t, s) for n, t, s in inputs
         if n and n not in cnames],
        [h.make_tensor_value_info(o, 0, None) for o in outputs if o],
        initializer=[h.make_tensor(n, t, d, v) for n, t, d, v in consts])
    m = h.make_model(g, opset_imports=[h.make_opsetid('', opset)],
                     producer_name='make_cost_conv')
    m.ir_version = 8
    onnx.save(m, os.path.join(HERE, f'cost_conv_{name}.onnx'))


# Conv: groups, dilation, stride, bias.
model('group', 'Conv', [('x', F, [1, 4, 9, 9]), ('w', F, [6, 2, 3, 3]),
                        ('b', F, [6])], ['y'], group=2, dilations=[2, 2],
      strides=[2, 2], pads=[2, 2, 2, 2])
# Depthwise conv, no bias, batch 2.
model('depthwise', 'Conv', [('x', F, [2, 8, 10, 10]), ('w', F, [8, 1, 3, 3])],
      ['y'], group=8, pads=[1, 1, 1, 1])
# Symbolic batch.
model('sym', 'Conv', [('x', F, ['N', 3, 8, 8]), ('w', F, [4, 3, 3, 3])],
      ['y'], pads=[1, 1, 1, 1])
# Unknown input shape: not countable.
model('unknown', 'Conv', [('x', F, None), ('w', F, [4, 3, 3, 3])], ['y'])
# ConvTranspose with bias, stride 2, output_padding.
model('convt', 'ConvTranspose', [('x', F, [1, 4, 5, 5]),
                                 ('w', F, [4, 3, 3, 3]), ('b', F, [3])],
      ['y'], strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])
# Gemm: transB, alpha, beta, C broadcast; and a plain one without C.
model('gemm', 'Gemm', [('a', F, [4, 6]), ('b', F, [5, 6]), ('c', F, [5])],
      ['y'], transB=1, alpha=0.5, beta=2.0)
model('gemm_noc', 'Gemm', [('a', F, [2, 3]), ('b', F, [3, 4])], ['y'])
# MatMul: broadcast batch, 1-D A, 1-D both.
model('matmul_batch', 'MatMul', [('a', F, [2, 1, 3, 4]),
                                 ('b', F, [5, 4, 6])], ['y'])
model('matmul_vec', 'MatMul', [('a', F, [4]), ('b', F, [3, 4, 5])], ['y'])
model('matmul_dot', 'MatMul', [('a', F, [7]), ('b', F, [7])], ['y'])
model('matmul_int', 'MatMulInteger', [('a', U8, [2, 3]), ('b', U8, [3, 4]),
                                      ('az', U8, [])], ['y'])
# Einsum: batched product, diagonal, full sum, outer product.
model('einsum_bmm', 'Einsum', [('a', F, [2, 3, 4]), ('b', F, [2, 4, 5])],
      ['y'], equation='bij,bjk->bik')
model('einsum_diag', 'Einsum', [('a', F, [3, 3])], ['y'], equation='ii->i')
model('einsum_sum', 'Einsum', [('a', F, [3, 4])], ['y'], equation='ij->')
model('einsum_outer', 'Einsum', [('a', F, [3]), ('b', F, [4])], ['y'],
      equation='i,j->ij')
# BatchNormalization: inference, and training mode with running stats out.
bn_in = [('x', F, [2, 3, 4, 4]), ('s', F, [3]), ('bb', F, [3]),
         ('m', F, [3]), ('v', F, [3])]
model('bn', 'BatchNormalization', bn_in, ['y'])
model('bn_train', 'BatchNormalization', bn_in, ['y', 'rm', 'rv'], opset=14,
      training_mode=1)
# LayerNormalization, InstanceNormalization.
model('layernorm', 'LayerNormalization', [('x', F, [2, 5, 8]),
                                          ('s', F, [8]), ('b', F, [8])],
      ['y'], opset=17)
model('instnorm', 'InstanceNormalization', [('x', F, [1, 3, 4, 4]),
                                            ('s', F, [3]), ('b', F, [3])],
      ['y'])
# Pools: ceil_mode, padded average, SAME_LOWER, global.
model('maxpool_ceil', 'MaxPool', [('x', F, [1, 2, 5, 5])], ['y'], opset=12,
      kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)
model('avgpool', 'AveragePool', [('x', F, [1, 2, 7, 7])], ['y'], opset=11,
      kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
model('maxpool_same', 'MaxPool', [('x', F, [1, 1, 6, 6])], ['y'], opset=12,
      kernel_shape=[3, 3], strides=[2, 2], auto_pad='SAME_LOWER')
model('gap', 'GlobalAveragePool', [('x', F, [1, 3, 4, 5])], ['y'])
model('gmp', 'GlobalMaxPool', [('x', F, [1, 3, 4, 5])], ['y'])
# Resize by 2 on H and W: linear and nearest.
sc = [('scales', F, [4], [1.0, 1.0, 2.0, 2.0])]
model('resize_linear', 'Resize', [('x', F, [1, 2, 4, 4]), ('', F, None),
                                  ('scales', F, [4])], ['y'], consts=sc,
      mode='linear')
model('resize_nearest', 'Resize', [('x', F, [1, 2, 4, 4]), ('', F, None),
                                   ('scales', F, [4])], ['y'], consts=sc)
# Bidirectional LSTM over 5 steps, batch 2, input 3, hidden 4, with bias.
model('lstm', 'LSTM', [('x', F, [5, 2, 3]), ('w', F, [2, 16, 3]),
                       ('r', F, [2, 16, 4]), ('b', F, [2, 32])],
      ['y', 'yh', 'yc'], hidden_size=4, direction='bidirectional')
# ConvInteger with an x zero point; a GRU over a symbolic sequence length.
model('conv_int', 'ConvInteger', [('x', U8, [1, 2, 4, 4]),
                                  ('w', U8, [3, 2, 3, 3]), ('xz', U8, [])],
      ['y'])
model('gru_sym', 'GRU', [('x', F, ['T', 1, 2]), ('w', F, [1, 9, 2]),
                         ('r', F, [1, 9, 3])], ['y'], hidden_size=3)
# DepthToSpace and SpaceToDepth, blocksize 2.
model('d2s', 'DepthToSpace', [('x', F, [1, 8, 3, 3])], ['y'], blocksize=2)
model('s2d', 'SpaceToDepth', [('x', F, [1, 2, 4, 4])], ['y'], blocksize=2)
