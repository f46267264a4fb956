#!/usr/bin/python3
"""Writes the tiny one-node models tests/unit/test_ops_conv.c loads
(conv_*.onnx). Not needed by the test run; rerun only to change them:

    /usr/bin/python3 tests/unit/models/make_conv.py

Every graph input and weight is a graph input with a declared shape (no
initializer data), so the files stay a few hundred bytes. A dim given as a
string is symbolic.
"""
import os
import onnx
from onnx import TensorProto as TP, helper as h

HERE = os.path.dirname(os.path.abspath(__file__))
F, I64 = TP.FLOAT, TP.INT64


def model(name, op, inputs, outputs, opset=13, consts=(), **attrs):
    """inputs: [(name, dtype, shape)]; consts: [(name, dtype, dims, vals)]
    become initializers; outputs: names."""
    node = h.make_node(op, [i[0] for i in inputs], outputs, name='n', **attrs)
    g = h.make_graph(
        [node], name,
        [h.make_tensor_value_info(n, t, s) for n, t, s in inputs
         if n and n not in {c[0] for c in consts}],
        [h.make_tensor_value_info(o, 0, None) for o in outputs if o],
        initializer=[h.make_tensor(n, t, d, v) for n, t, d, v in consts])
    m = h.make_model(g, opset_imports=[h.make_opsetid('', opset)],
                     producer_name='make_conv')
    m.ir_version = 8
    onnx.save(m, os.path.join(HERE, f'conv_{name}.onnx'))


# Conv, SAME_UPPER with strides and dilations.
model('same_upper', 'Conv', [('x', F, [1, 2, 7, 9]), ('w', F, [4, 2, 3, 3])],
      ['y'], auto_pad='SAME_UPPER', strides=[2, 3], dilations=[2, 1])
# Conv over symbolic N, H, W: pads 1, stride 1 keeps H and W; stride 2.
model('sym', 'Conv', [('x', F, ['N', 3, 'H', 'W']), ('w', F, [8, 3, 3, 3]),
                      ('b', F, [8])], ['y'], pads=[1, 1, 1, 1])
model('sym_s2', 'Conv', [('x', F, ['N', 3, 'H', 'W']), ('w', F, [8, 3, 3, 3])],
      ['y'], pads=[1, 1, 1, 1], strides=[2, 2])
# Grouped conv, 1-D conv with kernel_shape from W.
model('group', 'Conv', [('x', F, [1, 4, 5, 5]), ('w', F, [6, 2, 3, 3])],
      ['y'], group=2)
model('conv1d', 'Conv', [('x', F, [2, 3, 10]), ('w', F, [5, 3, 4])], ['y'],
      strides=[3], pads=[2, 1])
# Errors.
model('bad_channels', 'Conv', [('x', F, [1, 5, 5, 5]), ('w', F, [6, 2, 3, 3])],
      ['y'], group=2)
model('bad_rank', 'Conv', [('x', F, [1, 2, 5, 5]), ('w', F, [6, 2, 3])], ['y'])
model('bad_bias', 'Conv', [('x', F, [1, 2, 5, 5]), ('w', F, [6, 2, 3, 3]),
                           ('b', F, [5])], ['y'])
model('bad_stride', 'Conv', [('x', F, [1, 2, 5, 5]), ('w', F, [6, 2, 3, 3])],
      ['y'], strides=[1, 0])
model('huge_dilation', 'Conv', [('x', F, [1, 2, 5, 5]),
                                ('w', F, [6, 2, 3, 3])], ['y'],
      dilations=[1, 2**62])
model('bad_kernel', 'Conv', [('x', F, [1, 2, 2, 5]), ('w', F, [6, 2, 3, 3])],
      ['y'])
# ConvTranspose: explicit output_padding, group; output_shape; SAME_LOWER.
model('convt', 'ConvTranspose', [('x', F, [1, 2, 3, 3]),
                                 ('w', F, [2, 3, 3, 3])], ['y'],
      strides=[3, 2], output_padding=[1, 1], group=2, pads=[1, 0, 0, 2])
model('convt_os', 'ConvTranspose', [('x', F, [1, 1, 3, 3]),
                                    ('w', F, [1, 2, 3, 3])], ['y'],
      strides=[3, 2], output_shape=[10, 8])
model('convt_same', 'ConvTranspose', [('x', F, ['N', 1, 'H', 5]),
                                      ('w', F, [1, 2, 3, 3])], ['y'],
      strides=[2, 2], auto_pad='SAME_LOWER')
# MaxPool ceil_mode: plain, and the dropped last window; Indices.
model('maxpool_ceil', 'MaxPool', [('x', F, [1, 1, 5, 5])], ['y', 'i'],
      opset=12, kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)
model('maxpool_drop', 'MaxPool', [('x', F, [1, 1, 5, 6])], ['y'], opset=12,
      kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1)
model('maxpool_sym_ceil', 'MaxPool', [('x', F, ['N', 3, 'H', 'W'])], ['y'],
      opset=12, kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
model('avgpool_same', 'AveragePool', [('x', F, ['N', 3, 'H', 11])], ['y'],
      opset=11, kernel_shape=[3, 3], strides=[2, 2], auto_pad='SAME_LOWER')
model('global', 'GlobalAveragePool', [('x', F, ['N', 7, 'H', 'W'])], ['y'])
model('unpool', 'MaxUnpool', [('x', F, [1, 3, 2, 3]), ('i', I64, [1, 3, 2, 3])],
      ['y'], opset=11, kernel_shape=[2, 2], strides=[2, 2], pads=[0, 1, 0, 0])
model('roialign', 'RoiAlign', [('x', F, [2, 8, 16, 16]), ('r', F, ['R', 4]),
                               ('bi', I64, ['R'])], ['y'], opset=16,
      output_height=5, output_width=4)
# Gemm, MatMul, Einsum.
model('gemm', 'Gemm', [('a', F, [4, 3]), ('b', F, [5, 4]), ('c', F, [5])],
      ['y'], transA=1, transB=1)
model('gemm_bad', 'Gemm', [('a', F, [4, 3]), ('b', F, [5, 4])], ['y'])
model('matmul_batch', 'MatMul', [('a', F, [2, 1, 3, 4]), ('b', F, [5, 4, 6])],
      ['y'])
model('matmul_vec', 'MatMul', [('a', F, [4]), ('b', F, ['B', 4, 6])], ['y'])
model('matmul_mv', 'MatMul', [('a', F, ['B', 3, 4]), ('b', F, [4])], ['y'])
model('matmul_bad', 'MatMul', [('a', F, [2, 3]), ('b', F, [4, 5])], ['y'])
model('einsum_ell', 'Einsum', [('a', F, [2, 1, 3, 4]), ('b', F, [5, 4, 6])],
      ['y'], opset=12, equation='...ij,...jk->...ik')
model('einsum_implicit', 'Einsum', [('a', F, ['S', 3]), ('b', F, [3, 7])],
      ['y'], opset=12, equation='bA,Ac')
model('einsum_diag', 'Einsum', [('a', F, [4, 4, 2])], ['y'], opset=12,
      equation='iij->ji')
model('einsum_bad', 'Einsum', [('a', F, [2, 3]), ('b', F, [4, 5])], ['y'],
      opset=12, equation='ij,jk->ik')
# Normalisations.
model('layernorm', 'LayerNormalization',
      [('x', F, ['N', 3, 4]), ('s', F, [3, 4]), ('b', F, [4])],
      ['y', 'mean', 'inv'], opset=17, axis=1)
model('batchnorm', 'BatchNormalization',
      [('x', F, ['N', 3, 4, 4]), ('s', F, [3]), ('b', F, [3]), ('m', F, [3]),
       ('v', F, [3])], ['y', 'rm', 'rv', 'sm', 'sv'], opset=9)
# Resize / Upsample / DepthToSpace / SpaceToDepth / GridSample.
model('resize_scales', 'Resize', [('x', F, ['N', 3, 4, 5]), ('', F, None),
                                  ('sc', F, [4])], ['y'], opset=13,
      consts=[('sc', F, [4], [1.0, 1.0, 2.0, 1.5])])
model('resize_sizes', 'Resize', [('x', F, [1, 3, 4, 5]), ('', F, None),
                                 ('', F, None), ('sz', I64, [4])], ['y'],
      opset=13, consts=[('sz', I64, [4], [1, 3, 9, 2])])
model('upsample7', 'Upsample', [('x', F, [1, 2, 3, 3])], ['y'], opset=7,
      scales=[1.0, 1.0, 2.0, 3.0])
model('d2s', 'DepthToSpace', [('x', F, ['N', 12, 2, 3])], ['y'], opset=13,
      blocksize=2, mode='CRD')
model('s2d_bad', 'SpaceToDepth', [('x', F, [1, 3, 4, 5])], ['y'], blocksize=2)
model('gridsample', 'GridSample', [('x', F, ['N', 3, 8, 8]),
                                   ('g', F, ['N', 5, 6, 2])], ['y'], opset=16)
# Recurrent.
model('lstm', 'LSTM', [('x', F, [2, 'S', 3]), ('w', F, [2, 28, 3]),
                       ('r', F, [2, 28, 7])], ['y', 'yh', 'yc'], opset=14,
      hidden_size=7, direction='bidirectional', layout=1)
model('gru', 'GRU', [('x', F, ['S', 'B', 3]), ('w', F, [1, 15, 3]),
                     ('r', F, [1, 15, 5])], ['', 'yh'], opset=7)
model('rnn_bad', 'RNN', [('x', F, [4, 2, 3]), ('w', F, [1, 6, 3]),
                         ('r', F, [1, 6, 6])], ['y'], hidden_size=5)
