#!/usr/bin/python3
"""Writes the tiny models test_ops_eltwise.c loads (eltwise_*.onnx).

Not needed by the test run: the .onnx files are committed. Rerun after
changing a model here:  /usr/bin/python3 tests/unit/models/make_eltwise.py
"""
import os
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def vi(name, dt, dims):
    return h.make_tensor_value_info(name, dt, dims)


def i64(name, vals, shape=None):
    a = np.array(vals, dtype=np.int64)
    return nh.from_array(a.reshape(shape) if shape else a, name)


def f32(name, vals, shape=None):
    a = np.array(vals, dtype=np.float32)
    return nh.from_array(a.reshape(shape) if shape else a, name)


def b8(name, vals, shape=None):
    a = np.array(vals, dtype=np.bool_)
    return nh.from_array(a.reshape(shape) if shape else a, name)


def save(stem, nodes, inputs, outputs, inits, opset):
    g = h.make_graph(nodes, stem, inputs, outputs, inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid('', opset)],
                     producer_name='make_eltwise')
    m.ir_version = 7
    onnx.save(m, os.path.join(HERE, stem + '.onnx'))


N = h.make_node

# Shape rules: broadcasting with symbols, bool outputs, variadic, Det,
# activations, reductions, TopK, ArgMax.
save('eltwise_shapes', [
    N('Add', ['x', 'y'], ['add']),
    N('Equal', ['x', 'y'], ['eq']),
    N('Where', ['cond', 'x', 'y'], ['where']),
    N('Max', ['x', 'y', 'z'], ['max']),
    N('Cast', ['x'], ['cast'], to=T.INT64),
    N('Det', ['m'], ['det']),
    N('PRelu', ['img', 'slope'], ['prelu']),
    N('Softmax', ['img'], ['softmax'], axis=1),
    N('Dropout', ['x'], ['drop', 'mask']),
    N('ReduceSum', ['img', 'axes13'], ['rsum'], keepdims=0),
    N('ReduceSum', ['img', 'axes_in'], ['rsum_dyn']),
    N('ReduceMean', ['img'], ['rmean'], axes=[-1, 1]),
    N('ReduceMax', ['img'], ['rmax_all'], keepdims=0),
    N('ArgMax', ['img'], ['argmax'], axis=2, keepdims=0),
    N('TopK', ['img', 'k3'], ['topv', 'topi'], axis=-1),
    N('TopK', ['img', 'k_in'], ['topv_dyn', 'topi_dyn'], axis=1),
], [vi('x', T.FLOAT, ['batch', 3, 1]), vi('y', T.FLOAT, [4]),
    vi('cond', T.BOOL, [1, 1, 4]), vi('z', T.FLOAT, [2, 1, 1, 1]),
    vi('m', T.FLOAT, ['batch', 5, 5]), vi('img', T.FLOAT, ['batch', 1, 8, 8]),
    vi('axes_in', T.INT64, [1]), vi('k_in', T.INT64, [1])],
   [vi('add', T.FLOAT, None)],
   [f32('slope', [0.1], [1, 1, 1]), i64('axes13', [1, 3]), i64('k3', [3])], 13)

# Folds on known values, shown through ConstantOfShape (its output dims are
# its input's values).
save('eltwise_fold', [
    # trunc(sqrt(16.0)) = 4; 7 / 2 = 3 (Div truncates); -7 / 2 = -3 -> Neg 3
    N('Cast', ['c16'], ['c16f'], to=T.FLOAT),
    N('Sqrt', ['c16f'], ['sq']),
    N('Cast', ['sq'], ['sqi'], to=T.INT64),
    N('Div', ['c7', 'c2'], ['d1']),
    N('Div', ['cm7', 'c2'], ['d2']),
    N('Neg', ['d2'], ['d2n']),
    N('Concat', ['sqi', 'd1', 'd2n'], ['v1'], axis=0),
    N('ConstantOfShape', ['v1'], ['o1']),
    # Mod(-7, 5) = 3 (sign of divisor); fmod(-7, 5) = -2 -> Abs 2;
    # Pow(2, 3) = 8; Max(3, 5, 4) = 5
    N('Mod', ['cm7', 'c5'], ['m1']),
    N('Mod', ['cm7', 'c5'], ['m2'], fmod=1),
    N('Abs', ['m2'], ['m2a']),
    N('Pow', ['c2', 'c3'], ['p']),
    N('Max', ['c3', 'c5', 'c4'], ['mx']),
    N('Concat', ['m1', 'm2a', 'p', 'mx'], ['v2'], axis=0),
    N('ConstantOfShape', ['v2'], ['o2']),
    # Round(2.5) = 2, Round(3.5) = 4 (half to even); Clip(30, 0, 7) = 7;
    # ReduceProd([[1,2,3],[1,1,2]]) over axis 1 = [6, 2]
    N('Round', ['f25_35'], ['rnd']),
    N('Cast', ['rnd'], ['rndi'], to=T.INT64),
    N('Clip', ['c30', 'c0s', 'c7s'], ['clip']),
    N('ReduceProd', ['c23'], ['rp'], axes=[1], keepdims=0),
    N('Concat', ['rndi', 'clip', 'rp'], ['v3'], axis=0),
    N('ConstantOfShape', ['v3'], ['o3']),
    # Where([T,F], [1,2], [9,9]) = [1, 9]; Less(2,3) = T -> Cast 1;
    # Relu(-4) = 0 -> + 5 = 5; ReduceSum([3,4]) = 7 (keepdims -> [7])
    N('Where', ['tf', 'c12', 'c99'], ['w']),
    N('Less', ['c2', 'c3'], ['lt']),
    N('Cast', ['lt'], ['lti'], to=T.INT64),
    N('Relu', ['cm4'], ['relu']),
    N('Add', ['relu', 'c5'], ['relu5']),
    N('ReduceSum', ['c34'], ['rs']),
    N('Concat', ['w', 'lti', 'relu5', 'rs'], ['v4'], axis=0),
    N('ConstantOfShape', ['v4'], ['o4']),
], [], [vi('o1', T.FLOAT, None)],
   [i64('c16', [16]), i64('c7', [7]), i64('c2', [2]), i64('cm7', [-7]),
    i64('c5', [5]), i64('c3', [3]), i64('c4', [4]), i64('c30', [30]),
    i64('c0s', 0), i64('c7s', 7), f32('f25_35', [2.5, 3.5]),
    i64('c23', [1, 2, 3, 1, 1, 2], [2, 3]), b8('tf', [True, False]),
    i64('c12', [1, 2]), i64('c99', [9, 9]), i64('cm4', [-4]),
    i64('c34', [3, 4])], 13)

# Symbols through shape arithmetic: Shape(x) = [batch, seq, 8].
save('eltwise_sym', [
    N('Shape', ['x'], ['s']),
    N('Mul', ['s', 'k211'], ['s_mul']),          # [2*batch, seq, 8]
    N('ConstantOfShape', ['s_mul'], ['o_mul']),
    N('Where', ['tft', 's', 'k777'], ['s_where']),  # [batch, 7, 8]
    N('ConstantOfShape', ['s_where'], ['o_where']),
    N('Cast', ['s'], ['s32'], to=T.INT32),
    N('Cast', ['s32'], ['s64'], to=T.INT64),      # [batch, seq, 8]
    N('ConstantOfShape', ['s64'], ['o_cast']),
    N('Max', ['s', 'k111'], ['s_max']),          # [?, ?, 8]
    N('ConstantOfShape', ['s_max'], ['o_max']),
    N('ReduceProd', ['s'], ['s_prod']),          # [8*batch*seq]
    N('ConstantOfShape', ['s_prod'], ['o_prod']),
    N('Sub', ['s', 's'], ['s_sub']),             # [0, 0, 0]
    N('ConstantOfShape', ['s_sub'], ['o_sub']),
    N('Equal', ['s', 's'], ['s_eq']),            # all true
    N('Where', ['s_eq', 's', 'k111'], ['s_eqw']),  # [batch, seq, 8]
    N('ConstantOfShape', ['s_eqw'], ['o_eqw']),
    N('Equal', ['s', 'k008'], ['s_ne']),         # batch == 0: unknown
    N('Where', ['s_ne', 's', 'k111'], ['s_new']),
    N('ConstantOfShape', ['s_new'], ['o_new']),  # rank 3, dims unknown
], [vi('x', T.FLOAT, ['batch', 'seq', 8])], [vi('o_mul', T.FLOAT, None)],
   [i64('k211', [2, 1, 1]), b8('tft', [True, False, True]),
    i64('k777', [7, 7, 7]), i64('k111', [1, 1, 1]), i64('k008', [0, 0, 8])],
   13)

# Opset 6: legacy broadcasting (B onto A from `axis`), shape and fold.
save('eltwise_legacy', [
    N('Add', ['a', 'b'], ['add_axis'], broadcast=1, axis=1),
    N('Mul', ['a', 'c'], ['mul_tail'], broadcast=1),
    N('Add', ['ca', 'cb'], ['cab'], broadcast=1, axis=0),
    N('ReduceMax', ['cab'], ['cmax'], axes=[1], keepdims=0),
    N('Reshape', ['x30', 'cmax'], ['r']),
], [vi('a', T.FLOAT, [2, 3, 4, 5]), vi('b', T.FLOAT, [3, 4]),
    vi('c', T.FLOAT, [5]), vi('x30', T.FLOAT, [30])],
   [vi('r', T.FLOAT, None)],
   # [[1,0],[1,1],[2,0]] + [1,2,3] along axis 0 = [[2,1],[3,3],[5,3]];
   # max over axis 1 = [2, 3, 5]
   [i64('ca', [1, 0, 1, 1, 2, 0], [3, 2]), i64('cb', [1, 2, 3])], 6)

# Errors, one model each (inference stops at the first).
save('eltwise_err_bcast', [N('Add', ['p', 'q'], ['o'])],
     [vi('p', T.FLOAT, [2, 3]), vi('q', T.FLOAT, [4])],
     [vi('o', T.FLOAT, None)], [], 13)
save('eltwise_err_legacy', [N('Add', ['p', 'q'], ['o'], broadcast=1)],
     [vi('p', T.FLOAT, [2, 3]), vi('q', T.FLOAT, [3, 4])],
     [vi('o', T.FLOAT, None)], [], 6)
save('eltwise_err_det', [N('Det', ['p'], ['o'])],
     [vi('p', T.FLOAT, [2, 3, 4])], [vi('o', T.FLOAT, None)], [], 13)
save('eltwise_err_topk', [N('TopK', ['p', 'k'], ['v', 'i'])],
     [vi('p', T.FLOAT, [3, 4])], [vi('v', T.FLOAT, None)], [i64('k', [5])],
     13)
save('eltwise_err_softmax', [N('Softmax', ['p'], ['o'], axis=2)],
     [vi('p', T.FLOAT, [3, 4])], [vi('o', T.FLOAT, None)], [], 13)
save('eltwise_err_cast', [N('Cast', ['p'], ['o'], to=99)],
     [vi('p', T.FLOAT, [3, 4])], [vi('o', T.FLOAT, None)], [], 13)
save('eltwise_err_reduce', [N('ReduceMean', ['p'], ['o'], axes=[2])],
     [vi('p', T.FLOAT, [3, 4])], [vi('o', T.FLOAT, None)], [], 13)
