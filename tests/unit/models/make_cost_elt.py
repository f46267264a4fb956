#!/usr/bin/python3
"""Writes the tiny models test_cost_eltwise.c loads (cost_elt_*.onnx).

Not needed by the test run: the .onnx files are committed. Rerun after
changing a model here:  /usr/bin/python3 tests/unit/models/make_cost_elt.py
Every node is named after what the test checks; the expected counts are
worked out by hand in test_cost_eltwise.c.
"""
import os
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
N = h.make_node


def vi(name, dt, dims):
    return h.make_tensor_value_info(name, dt, dims)


def i64(name, vals, shape=None):
    a = np.array(vals, dtype=np.int64)
    return nh.from_array(a.reshape(shape) if shape is not None else a, name)


def f32(name, vals, shape=None):
    a = np.array(vals, dtype=np.float32)
    return nh.from_array(a.reshape(shape) if shape is not None else a, name)


def b8(name, vals, shape=None):
    a = np.array(vals, dtype=np.bool_)
    return nh.from_array(a.reshape(shape) if shape is not None else a, name)


def save(stem, nodes, inputs, outputs, inits, opset):
    g = h.make_graph(nodes, stem, inputs, outputs, inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid('', opset)],
                     producer_name='make_cost_elt')
    m.ir_version = 7
    onnx.save(m, os.path.join(HERE, stem + '.onnx'))


# x [2,3,4,5] = 120 elements throughout.
save('cost_elt_ops', [
    N('Add', ['x', 'b'], ['add'], name='add_bcast'),
    N('Relu', ['x'], ['relu'], name='relu'),
    N('Sigmoid', ['x'], ['sig'], name='sigmoid'),
    N('Tanh', ['x'], ['tanh'], name='tanh'),
    N('Elu', ['x'], ['elu'], name='elu'),
    N('Erf', ['x'], ['erf'], name='erf'),
    N('Softmax', ['x'], ['sm'], axis=-1, name='softmax'),
    N('ReduceMean', ['x'], ['rmean'], axes=[2, 3], keepdims=1,
      name='reduce_mean'),
    N('ReduceMean', ['x'], ['rmean_c'], axes=[1], keepdims=1,
      name='reduce_mean_c'),
    N('ReduceL2', ['x'], ['rl2'], axes=[3], keepdims=0, name='reduce_l2'),
    N('ArgMax', ['x'], ['amax'], axis=1, name='argmax_c'),
    N('Transpose', ['x'], ['tr'], perm=[0, 2, 3, 1], name='transpose'),
    N('Concat', ['x', 'x2'], ['cat'], axis=1, name='concat'),
    N('Gather', ['emb', 'ids'], ['tok'], axis=0, name='embedding'),
    N('Slice', ['x', 's_starts', 's_ends', 's_axes'], ['sl'], name='slice'),
    N('Reshape', ['x', 'r_shape'], ['rs'], name='reshape'),
    N('Flatten', ['x'], ['fl'], axis=1, name='flatten'),
    N('Clip', ['x', 'lo', 'hi'], ['clip'], name='clip'),
    N('Sum', ['x', 'x', 'x'], ['sum3'], name='sum3'),
    N('Mean', ['x', 'x'], ['mean2'], name='mean2'),
    N('Det', ['m'], ['det'], name='det'),
    N('TopK', ['x', 'k2'], ['topv', 'topi'], axis=-1, name='topk'),
    N('ScatterElements', ['d45', 'idx25', 'upd25'], ['scat'], axis=0,
      name='scatter'),
    N('Dropout', ['x'], ['drop'], name='dropout_eval'),
    N('Dropout', ['x', 'ratio', 'train'], ['drop_t', 'mask_t'],
      name='dropout_train'),
    N('Range', ['r0', 'r10', 'r1'], ['range'], name='range'),
    N('ConstantOfShape', ['cos_shape'], ['cos'], name='constant_of_shape'),
    N('Expand', ['b', 'e_shape'], ['exp'], name='expand'),
    N('Split', ['x', 'split'], ['sp0', 'sp1'], axis=1, name='split'),
], [vi('x', T.FLOAT, [2, 3, 4, 5]), vi('b', T.FLOAT, [5]),
    vi('x2', T.FLOAT, [2, 1, 4, 5]), vi('ids', T.INT64, [2, 7]),
    vi('m', T.FLOAT, [3, 3, 3]), vi('d45', T.FLOAT, [4, 5]),
    vi('idx25', T.INT64, [2, 5]), vi('upd25', T.FLOAT, [2, 5])],
   [vi('add', T.FLOAT, None)],
   [f32('emb', np.zeros(80), [10, 8]), i64('s_starts', [1]),
    i64('s_ends', [3]), i64('s_axes', [1]), i64('r_shape', [6, 20]),
    f32('lo', 0.0, []),
    f32('hi', 6.0, []), i64('k2', [2]), f32('ratio', 0.5, []),
    b8('train', True, []), i64('r0', 0, []), i64('r10', 10, []),
    i64('r1', 1, []), i64('cos_shape', [2, 3]), i64('e_shape', [3, 5]),
    i64('split', [1, 2])], 13)

# A symbolic batch; an unknown rank; dims whose product passes INT64_MAX.
save('cost_elt_sym', [
    N('Add', ['xs', 'ys'], ['add_s'], name='add_sym'),
    N('Relu', ['u'], ['relu_u'], name='relu_unknown'),
    N('ReduceSum', ['xs', 'axes_in'], ['rsum_dyn'], keepdims=0,
      name='reduce_dyn'),
    N('Relu', ['huge'], ['relu_h'], name='relu_huge'),
], [vi('xs', T.FLOAT, ['batch', 3, 4]), vi('ys', T.FLOAT, [4]),
    vi('u', T.FLOAT, None), vi('axes_in', T.INT64, [1]),
    vi('huge', T.FLOAT, [1 << 40, 1 << 40])],
   [vi('add_s', T.FLOAT, None)], [], 13)
