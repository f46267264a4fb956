#!/usr/bin/python3
"""Writes the small hand-built models tests/unit/test_analyze.c and
tests/unit/test_custom_op.c load (analyze_*.onnx). Not needed by the test
run; rerun only to change them:

    /usr/bin/python3 tests/unit/models/make_analyze.py

Node names carry PyTorch-style scopes (/block/conv1/Conv) so that every op
is a layer of the module tree. Weights are zero-filled initializers (their
values never matter to the analysis: only dtypes and dims do). The expected
numbers are worked out by hand in the C tests.
"""
import json
import os

import numpy as np
import onnx
from onnx import TensorProto as TP, helper as h, numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
F, I64, I8 = TP.FLOAT, TP.INT64, TP.INT8


def zeros(name, shape, dtype=np.float32):
    return nh.from_array(np.zeros(shape, dtype=dtype), name)


def const(name, values, dtype):
    return nh.from_array(np.array(values, dtype=dtype), name)


def save(name, nodes, inputs, outputs, inits=(), opset=17, producer='pytorch',
         meta=None, domains=()):
    g = h.make_graph(nodes, name,
                     [h.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                     [h.make_tensor_value_info(n, 0, None) for n in outputs],
                     initializer=list(inits))
    ops = [h.make_opsetid('', opset)] + [h.make_opsetid(d, 1) for d in domains]
    m = h.make_model(g, opset_imports=ops, producer_name=producer)
    m.ir_version = 8
    for k, v in (meta or {}).items():
        p = m.metadata_props.add()
        p.key, p.value = k, v
    onnx.save(m, os.path.join(HERE, f'analyze_{name}.onnx'))


def conv(name, x, w, y, k, stride=1, pad=0, b=None):
    ins = [x, w] + ([b] if b else [])
    return h.make_node('Conv', ins, [y], name=name, kernel_shape=[k, k],
                       strides=[stride, stride], pads=[pad] * 4)


# Residual block: conv3x3 s2 -> conv3x3, plus a 1x1 s2 skip, Add, then a
# 3x3 head conv. Fields: conv1 3 (jump 2), conv2 3 + 2*2 = 7, skip 1,
# Add max(7, 1) = 7, head 7 + 2*2 = 11.
save('residual', [
    conv('/block/conv1/Conv', 'x', 'w1', 'c1', 3, stride=2, pad=1, b='b1'),
    conv('/block/conv2/Conv', 'c1', 'w2', 'c2', 3, pad=1, b='b2'),
    conv('/block/skip/Conv', 'x', 'ws', 's', 1, stride=2),
    h.make_node('Add', ['c2', 's'], ['a'], name='/block/Add'),
    conv('/head/Conv', 'a', 'wh', 'y', 3, pad=1),
], [('x', F, [1, 2, 16, 16])], ['y'],
    [zeros('w1', [4, 2, 3, 3]), zeros('b1', [4]), zeros('w2', [4, 4, 3, 3]),
     zeros('b2', [4]), zeros('ws', [4, 2, 1, 1]), zeros('wh', [4, 4, 3, 3])])

# Inception-like: 1x1, 3x3 (pad 1), 5x5 (pad 2) and maxpool 3x3 (pad 1)
# branches, Concat, then a 3x3 conv. Fields 1, 3, 5, 3; Concat 5; after
# 7.
save('inception', [
    conv('/b1/Conv', 'x', 'w1', 'y1', 1),
    conv('/b3/Conv', 'x', 'w3', 'y3', 3, pad=1),
    conv('/b5/Conv', 'x', 'w5', 'y5', 5, pad=2),
    h.make_node('MaxPool', ['x'], ['yp'], name='/pool/MaxPool',
                kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
    h.make_node('Concat', ['y1', 'y3', 'y5', 'yp'], ['c'], name='/cat/Concat',
                axis=1),
    conv('/out/Conv', 'c', 'wo', 'y', 3, pad=1),
], [('x', F, [1, 3, 8, 8])], ['y'],
    [zeros('w1', [2, 3, 1, 1]), zeros('w3', [2, 3, 3, 3]),
     zeros('w5', [2, 3, 5, 5]), zeros('wo', [2, 9, 3, 3])])

# Squeeze-excitation (issue 7): conv 3x3 s2 p1, then a gate -- global
# average pool, two 1x1 convs, Sigmoid -- multiplied back, then a 3x3 head.
# The gate's pool sees the whole input; the Mul keeps the stem's field (3,
# jump 2, padding 1) flagged global context; head 3 + 2*2 = 7, padding
# 1 + 1*2 = 3, still global context.
save('se', [
    conv('/stem/Conv', 'x', 'ws', 's', 3, stride=2, pad=1),
    h.make_node('GlobalAveragePool', ['s'], ['p'],
                name='/se/avgpool/GlobalAveragePool'),
    conv('/se/fc1/Conv', 'p', 'w1', 'f1', 1, b='b1'),
    h.make_node('Relu', ['f1'], ['r1'], name='/se/activation/Relu'),
    conv('/se/fc2/Conv', 'r1', 'w2', 'f2', 1, b='b2'),
    h.make_node('Sigmoid', ['f2'], ['gate'],
                name='/se/scale_activation/Sigmoid'),
    h.make_node('Mul', ['gate', 's'], ['e'], name='/se/Mul'),
    conv('/head/Conv', 'e', 'wh', 'y', 3, pad=1),
], [('x', F, [1, 2, 16, 16])], ['y'],
    [zeros('ws', [4, 2, 3, 3]), zeros('w1', [2, 4, 1, 1]), zeros('b1', [2]),
     zeros('w2', [4, 2, 1, 1]), zeros('b2', [4]), zeros('wh', [4, 4, 3, 3])])

# Channel shuffle (issue 7): conv 3x3 s2 p1 to [1,4,8,8], Reshape to
# [1,2,2,8,8], Transpose (0,2,1,3,4), Reshape back, depthwise 3x3 p1. H and
# W keep their field through the shuffle (3, jump 2, padding 1); the
# depthwise conv: 7, padding 3.
save('shuffle', [
    conv('/stem/Conv', 'x', 'ws', 's', 3, stride=2, pad=1),
    h.make_node('Reshape', ['s', 'shape5'], ['s5'], name='/shuffle/Reshape'),
    h.make_node('Transpose', ['s5'], ['t5'], name='/shuffle/Transpose',
                perm=[0, 2, 1, 3, 4]),
    h.make_node('Reshape', ['t5', 'shape4'], ['t'],
                name='/shuffle/Reshape_1'),
    h.make_node('Conv', ['t', 'wd'], ['y'], name='/dw/Conv',
                kernel_shape=[3, 3], pads=[1] * 4, group=4),
], [('x', F, [1, 2, 16, 16])], ['y'],
    [zeros('ws', [4, 2, 3, 3]), const('shape5', [1, 2, 2, 8, 8], np.int64),
     const('shape4', [1, 4, 8, 8], np.int64), zeros('wd', [4, 1, 3, 3])])

# A ConvNeXt block (issue 7): patchify conv 4x4 s4 (field 4, jump 4), a
# depthwise 7x7 p3 (4 + 6*4 = 28, padding 3*4 = 12), Transpose to NHWC,
# LayerNormalization and a Linear (MatMul + Add) over channels, Transpose
# back, Add of the block's input. Channels-last ops keep H and W's field;
# the Add unites [-12, 15] and [0, 3]: 28, padding 12.
save('channels_last', [
    conv('/stem/Conv', 'x', 'ws', 's', 4, stride=4),
    h.make_node('Conv', ['s', 'wd'], ['d'], name='/block/dwconv/Conv',
                kernel_shape=[7, 7], pads=[3] * 4, group=4),
    h.make_node('Transpose', ['d'], ['n'], name='/block/Transpose',
                perm=[0, 2, 3, 1]),
    h.make_node('LayerNormalization', ['n', 'g', 'beta'], ['ln'],
                name='/block/norm/LayerNormalization', axis=-1),
    h.make_node('MatMul', ['ln', 'wl'], ['mm'], name='/block/fc/MatMul'),
    h.make_node('Add', ['mm', 'bl'], ['fc'], name='/block/fc/Add'),
    h.make_node('Transpose', ['fc'], ['back'], name='/block/Transpose_1',
                perm=[0, 3, 1, 2]),
    h.make_node('Add', ['back', 's'], ['y'], name='/block/Add'),
], [('x', F, [1, 2, 32, 32])], ['y'],
    [zeros('ws', [4, 2, 4, 4]), zeros('wd', [4, 1, 7, 7]), zeros('g', [4]),
     zeros('beta', [4]), zeros('wl', [4, 4]), zeros('bl', [4])])

# A TensorFlow export (tf2onnx, issue 17): the input is NHWC
# [N, 76, 32, 1]; every Conv and MaxPool sits between a Transpose to NCHW
# and one back, the bias Add and Relu run in NHWC. conv 3x3 VALID (field
# 3, jump 1, padding 0), maxpool 2x2 s2 (3 + 1*1 = 4, jump 2), conv 3x3
# SAME (4 + 2*2 = 8, padding 0 + 1*2 = 2); the Flatten + MatMul head sees
# the whole input. The model's field is the last conv's: 8, stride 2,
# padding 2 on H and on W.
def nhwc(name, op, x, y, ins=(), **kw):
    return [
        h.make_node('Transpose', [x], [y + '_nchw'], perm=[0, 3, 1, 2],
                    name=f'model/{name}/{op}__in'),
        h.make_node(op, [y + '_nchw', *ins], [y + '_out'],
                    name=f'model/{name}/{op}', **kw),
        h.make_node('Transpose', [y + '_out'], [y], perm=[0, 2, 3, 1],
                    name=f'model/{name}/{op}__out'),
    ]


save('tf_nhwc', [
    *nhwc('conv2d', 'Conv', 'x', 'c1', ['w1'], kernel_shape=[3, 3]),
    h.make_node('Add', ['c1', 'b1'], ['a1'], name='model/conv2d/BiasAdd'),
    h.make_node('Relu', ['a1'], ['r1'], name='model/conv2d/Relu'),
    *nhwc('max_pooling2d', 'MaxPool', 'r1', 'p1', kernel_shape=[2, 2],
          strides=[2, 2]),
    *nhwc('conv2d_1', 'Conv', 'p1', 'c2', ['w2'], kernel_shape=[3, 3],
          pads=[1, 1, 1, 1]),
    h.make_node('Add', ['c2', 'b2'], ['a2'], name='model/conv2d_1/BiasAdd'),
    h.make_node('Relu', ['a2'], ['r2'], name='model/conv2d_1/Relu'),
    h.make_node('Reshape', ['r2', 'flat'], ['f'], name='model/flatten/Reshape'),
    h.make_node('MatMul', ['f', 'wd'], ['y'], name='model/dense/MatMul'),
], [('x', F, [1, 76, 32, 1])], ['y'],
    [zeros('w1', [8, 1, 3, 3]), zeros('b1', [8]), zeros('w2', [8, 8, 3, 3]),
     zeros('b2', [8]), const('flat', [1, 37 * 15 * 8], np.int64),
     zeros('wd', [37 * 15 * 8, 4])], opset=13, producer='tf2onnx')

# The same with the first Transpose written as the Reshape tf2onnx's
# optimizer makes of it (it only moves the size-1 channel dim):
# [1, 76, 32, 1] -> [1, 1, 76, 32]. Same fields.
save('tf_nhwc_reshape', [
    h.make_node('Reshape', ['x', 'nchw'], ['c1_nchw'],
                name='model/conv2d/Conv2D__6'),
    h.make_node('Conv', ['c1_nchw', 'w1'], ['c1_out'], kernel_shape=[3, 3],
                name='model/conv2d/Conv'),
    h.make_node('Transpose', ['c1_out'], ['c1'], perm=[0, 2, 3, 1],
                name='model/conv2d/Conv__out'),
    h.make_node('Add', ['c1', 'b1'], ['a1'], name='model/conv2d/BiasAdd'),
    h.make_node('Relu', ['a1'], ['r1'], name='model/conv2d/Relu'),
    *nhwc('max_pooling2d', 'MaxPool', 'r1', 'p1', kernel_shape=[2, 2],
          strides=[2, 2]),
    *nhwc('conv2d_1', 'Conv', 'p1', 'c2', ['w2'], kernel_shape=[3, 3],
          pads=[1, 1, 1, 1]),
    h.make_node('Add', ['c2', 'b2'], ['a2'], name='model/conv2d_1/BiasAdd'),
    h.make_node('Relu', ['a2'], ['r2'], name='model/conv2d_1/Relu'),
    h.make_node('Reshape', ['r2', 'flat'], ['f'], name='model/flatten/Reshape'),
    h.make_node('MatMul', ['f', 'wd'], ['y'], name='model/dense/MatMul'),
], [('x', F, [1, 76, 32, 1])], ['y'],
    [const('nchw', [1, 1, 76, 32], np.int64), zeros('w1', [8, 1, 3, 3]),
     zeros('b1', [8]), zeros('w2', [8, 8, 3, 3]), zeros('b2', [8]),
     const('flat', [1, 37 * 15 * 8], np.int64),
     zeros('wd', [37 * 15 * 8, 4])], opset=13, producer='tf2onnx')

# A Reshape that folds H and W into rows of another length (8x8 -> 4x16):
# no pixel keeps its neighbours, so the conv after it sees the whole input
# and no layer has a finite field; the footer must say why it still shows
# the input's own field (1) and the analysis warns at the Reshape.
save('rf_lost', [
    h.make_node('Reshape', ['x', 'rows'], ['t'], name='/fold/Reshape'),
    conv('/conv/Conv', 't', 'w', 'y', 3, pad=1),
], [('x', F, [1, 2, 8, 8])], ['y'],
    [const('rows', [1, 2, 4, 16], np.int64), zeros('w', [2, 2, 3, 3])])

# A node whose cost rule has no size to count (issue 17): x [1, n] is
# reshaped to a shape read from the graph input `s` (values unknown, length
# k), so the Relu after it has an unknown rank. Relu has a cost rule: the
# report must say the sizes were unknown (not "no cost rule") and give the
# --input options for x and s.
save('no_size', [
    h.make_node('Reshape', ['x', 's'], ['t'], name='/view/Reshape'),
    h.make_node('Relu', ['t'], ['y'], name='/act/Relu'),
], [('x', F, [1, 'n']), ('s', I64, ['k'])], ['y'])

# openWakeWord's embedding model (tf2onnx) ends in a conv whose output is
# 1x1, and moves it back to channels-last with a Reshape ([1, 8, 1, 1] ->
# [1, 1, 1, 8]) instead of a Transpose. By hand: conv 3x3 VALID on a 3x3
# input, r 3 on H and W; the Reshape only moves dims of 1, so the output
# keeps that field.
save('tf_nhwc_tail', [
    h.make_node('Transpose', ['x'], ['t'], perm=[0, 3, 1, 2],
                name='model/conv2d/Conv2D__in'),
    h.make_node('Conv', ['t', 'w'], ['c'], kernel_shape=[3, 3],
                name='model/conv2d/Conv2D'),
    h.make_node('Reshape', ['c', 'nhwc'], ['y'],
                name='model/conv2d/Conv2D__out'),
], [('x', F, ['n', 3, 3, 2])], ['y'],
    [zeros('w', [8, 2, 3, 3]), const('nhwc', [-1, 1, 1, 8], np.int64)],
    opset=13, producer='tf2onnx')

# The way Silero VAD v5 loses its sizes (issue 17): its decoder squeezes
# the time axis when it is 1 long (an If on Shape(x)[1] == 1: Squeeze, else
# Identity). With n symbolic the condition is unknown, the branches give
# ranks 1 and 2, so the If's output and the Relu after it have no shape.
# --input x=1x5 decides the If (Identity) and the Relu counts.
save('no_size_if', [
    h.make_node('Shape', ['x'], ['shp'], name='/dec/Shape'),
    h.make_node('Gather', ['shp', 'one'], ['len'], name='/dec/Gather', axis=0),
    h.make_node('Equal', ['len', 'one'], ['is1'], name='/dec/Equal'),
    h.make_node('If', ['is1'], ['t'], name='/dec/If',
                then_branch=h.make_graph(
                    [h.make_node('Squeeze', ['x', 'axes'], ['sq'],
                                 name='/dec/Squeeze')],
                    'then', [], [h.make_tensor_value_info('sq', F, None)]),
                else_branch=h.make_graph(
                    [h.make_node('Identity', ['x'], ['id'],
                                 name='/dec/Identity')],
                    'else', [], [h.make_tensor_value_info('id', F, None)])),
    h.make_node('Relu', ['t'], ['y'], name='/act/Relu'),
], [('x', F, [1, 'n'])], ['y'],
    [const('one', 1, np.int64), const('axes', [1], np.int64)])

# Strided Slice over H and W (issue 7; Swin's patch merging takes x[1::2]):
# conv 3x3 p1 (r 3, j 1, p 1), Slice starts 1, step 2 on dims 2 and 3
# (pixel i is input pixel 1 + 2i: p 1 - 1*1 = 0, j 2), conv 3x3 p1:
# r 3 + 2*2 = 7, p 0 + 1*2 = 2.
save('slice', [
    conv('/stem/Conv', 'x', 'ws', 's', 3, pad=1),
    h.make_node('Slice', ['s', 'starts', 'ends', 'axes', 'steps'], ['t'],
                name='/pick/Slice'),
    conv('/head/Conv', 't', 'wh', 'y', 3, pad=1),
], [('x', F, [1, 2, 16, 16])], ['y'],
    [zeros('ws', [4, 2, 3, 3]), const('starts', [1, 1], np.int64),
     const('ends', [16, 16], np.int64), const('axes', [2, 3], np.int64),
     const('steps', [2, 2], np.int64), zeros('wh', [4, 4, 3, 3])])

# Memory: peak activation and training estimate (worked out in
# test_analyze.c). Z is read by nobody.
save('memory', [
    h.make_node('Relu', ['x'], ['A'], name='/a/Relu'),
    h.make_node('Neg', ['A'], ['Z'], name='/z/Neg'),
    h.make_node('Concat', ['A', 'A'], ['B'], name='/cat/Concat', axis=1),
    h.make_node('Sigmoid', ['B'], ['C'], name='/sig/Sigmoid'),
    h.make_node('Add', ['C', 'B'], ['D'], name='/add/Add'),
    h.make_node('MatMul', ['D', 'W'], ['Y'], name='/fc/MatMul'),
    h.make_node('Add', ['Y', 'bias'], ['Y2'], name='/fc/Add'),
], [('x', F, [1, 100])], ['Y2'], [zeros('W', [200, 5]), zeros('bias', [5])])

# Parameters: an Identity copy used as a BatchNorm buffer, a weight tied
# between two scopes (Gather and a transposed MatMul), constants (a
# Reshape shape, a scalar divisor, a Pow exponent, quantization scale and
# zero point), an int8 weight behind DequantizeLinear, an unused
# initializer.
save('params', [
    h.make_node('Identity', ['w0'], ['bn.running_mean'], name='Identity_0'),
    h.make_node('BatchNormalization', ['X', 's', 'w0', 'bn.running_mean', 'v'],
                ['xb'], name='/bn/BatchNormalization'),
    h.make_node('Reshape', ['xb', 'shape'], ['xr'], name='/flat/Reshape'),
    h.make_node('Pow', ['xr', 'expo'], ['xp'], name='/pow/Pow'),
    h.make_node('DequantizeLinear', ['qw', 'qs', 'qz'], ['dq'],
                name='/dq/DequantizeLinear'),
    h.make_node('Add', ['xp', 'dq'], ['out1'], name='/dq/Add'),
    h.make_node('Gather', ['emb', 'ids'], ['e'], name='/embed/Gather'),
    h.make_node('Div', ['e', 'half'], ['ed'], name='/embed/Div'),
    h.make_node('Transpose', ['emb'], ['embT'], name='/head/Transpose',
                perm=[1, 0]),
    h.make_node('MatMul', ['ed', 'embT'], ['out2'], name='/head/MatMul'),
], [('X', F, [1, 4, 2, 2]), ('ids', I64, [1, 3])], ['out1', 'out2'],
    [zeros('w0', [4]), zeros('s', [4]), zeros('v', [4]),
     const('shape', [1, 16], np.int64), const('expo', [2.0], np.float32),
     zeros('qw', [16], np.int8), const('qs', 0.5, np.float32),
     const('qz', 0, np.int8), zeros('emb', [10, 4]),
     const('half', [2.0], np.float32), zeros('unused', [3])])

# Scopes: the naming schemes of PyTorch, HF optimum and tf2onnx in one
# PyTorch-produced graph (every node a Relu on the same activation), with
# module classes in the metadata.
relu_names = [
    '/layer1/relu/Relu', '/layer1/relu_1/Relu',       # second call of relu
    '/layer1/conv_1/Relu',                            # no `conv`: a module
    '/layer1/act/Relu', '/layer1/act_1/Relu',         # declared modules
    '/layer2/layer2.0/conv1/Relu', '/layer2/layer2.0/Relu',
    '/layer2/layer2.0/downsample/downsample.0/Relu',
    '/model/layers.0/self_attn/q_proj/Relu',
    'tf/block1/conv/Relu',
    'Relu_12', '',
]
nodes, prev = [], 'x'
for i, n in enumerate(relu_names):
    nodes.append(h.make_node('Relu', [prev], [f'r{i}'], name=n))
    prev = f'r{i}'
save('scopes', nodes, [('x', F, [1, 4])], [prev],
     meta={'nnscan.module_types': json.dumps(
         {'': 'Net', 'layer2.0': 'BasicBlock', 'layer1.act_1': 'ReLU',
          'layer2': 'Sequential'})})
# The same `_1` names from another producer are distinct layers (Keras
# names a second conv2d layer conv2d_1). Keras names a layer wrapping a TF
# function after it: tf.math.maximum_3 is one layer, not tf > math.
save('scopes_tf', [
    h.make_node('Relu', ['x'], ['a'], name='model/conv2d/Relu'),
    h.make_node('Relu', ['a'], ['b'], name='model/conv2d_1/Relu'),
    h.make_node('Relu', ['b'], ['c'], name='model/tf.math.maximum_3/Relu'),
], [('x', F, [1, 4])], ['c'], producer='tf2onnx')

# Custom ops: com.example.MyOp twice (x [2, 3] -> [2, 6] by the test's
# callback, attribute `k`), com.other.MyOp (same name, another domain), and
# an unregistered com.example.Unknown.
save('custom', [
    h.make_node('MyOp', ['x'], ['y'], name='/my/MyOp', domain='com.example',
                k=3),
    h.make_node('Relu', ['y'], ['z'], name='/act/Relu'),
    h.make_node('MyOp', ['z'], ['u'], name='/other/MyOp', domain='com.other'),
    h.make_node('Unknown', ['u'], ['w'], name='/unk/Unknown',
                domain='com.example'),
], [('x', F, [2, 3])], ['w'], domains=['com.example', 'com.other'])

# Hostile names: 200 nested scopes, and an 8 KB atom. The tree stops at
# depth 64 and at 4096-byte paths (with one warning); nothing is quadratic.
save('deepname', [
    h.make_node('Relu', ['x'], ['a'],
                name='/' + '/'.join(f's{i}' for i in range(200)) + '/Relu'),
    h.make_node('Relu', ['a'], ['b'], name='/' + 'x' * 8192 + '/Relu'),
], [('x', F, [1, 4])], ['b'])


# Windowed attention as Swin exports it (issue 7): a 3x3 stem (token t
# reads pixels t-1..t+1), channels-last, then two blocks over 16x16 tokens
# with windows of 4: b1 attends within windows [4m, 4m+3], b2 rolls by -2
# first and back after (shifted windows), and head is a 1x1 conv. Window
# partition and reverse are Reshape/Transpose/Reshape; the roll is Slice +
# Concat. Spans by hand in test_analyze.c.
def roll(p, x, y, k, tag):
    """torch.roll(x, (-k, -k), (1, 2)) on 16 positions, as exported: per
    axis Concat(x[k:16], x[0:k])."""
    nodes, src = [], x
    for ax, dst in ((1, f'{p}{tag}1'), (2, y)):
        nodes += [
            h.make_node('Slice', [src, f'i{k}', 'i16', f'ax{ax}'],
                        [f'{dst}a'], name=f'{p}/Slice_{tag}{ax}a'),
            h.make_node('Slice', [src, 'i0', f'i{k}', f'ax{ax}'],
                        [f'{dst}b'], name=f'{p}/Slice_{tag}{ax}b'),
            h.make_node('Concat', [f'{dst}a', f'{dst}b'], [dst],
                        name=f'{p}/Concat_{tag}{ax}', axis=ax)]
        src = dst
    return nodes


def window_block(p, x, y, c, shift):
    nodes = []
    if shift:  # roll by -2 before the windows
        nodes += roll(p, x, f'{p}r2', 2, 'r')
        x = f'{p}r2'
    nodes += [
        h.make_node('Reshape', [x, 'part'], [f'{p}w6'], name=f'{p}/Reshape'),
        h.make_node('Transpose', [f'{p}w6'], [f'{p}w6t'],
                    name=f'{p}/Transpose', perm=[0, 1, 3, 2, 4, 5]),
        h.make_node('Reshape', [f'{p}w6t', 'tokens'], [f'{p}t'],
                    name=f'{p}/Reshape_1'),
        h.make_node('MatMul', [f'{p}t', 'wq'], [f'{p}q'], name=f'{p}/q/MatMul'),
        h.make_node('MatMul', [f'{p}t', 'wk'], [f'{p}k'], name=f'{p}/k/MatMul'),
        h.make_node('MatMul', [f'{p}t', 'wv'], [f'{p}v'], name=f'{p}/v/MatMul'),
        h.make_node('Transpose', [f'{p}k'], [f'{p}kt'], name=f'{p}/Transpose_1',
                    perm=[0, 2, 1]),
        h.make_node('MatMul', [f'{p}q', f'{p}kt'], [f'{p}s'],
                    name=f'{p}/MatMul'),
        h.make_node('Softmax', [f'{p}s'], [f'{p}pr'], name=f'{p}/Softmax',
                    axis=-1),
        h.make_node('MatMul', [f'{p}pr', f'{p}v'], [f'{p}o'],
                    name=f'{p}/MatMul_1'),
        h.make_node('Reshape', [f'{p}o', 'part'], [f'{p}u6'],
                    name=f'{p}/Reshape_2'),
        h.make_node('Transpose', [f'{p}u6'], [f'{p}u6t'],
                    name=f'{p}/Transpose_2', perm=[0, 1, 3, 2, 4, 5]),
        h.make_node('Reshape', [f'{p}u6t', 'image'],
                    [y if not shift else f'{p}u'], name=f'{p}/Reshape_3')]
    if shift:  # and back by +2 (by -14 on 16 positions)
        nodes += roll(p, f'{p}u', y, 14, 'b')
    return nodes


def window_model(name, win, shifted):
    n, c = 16, 2
    nodes = [conv('/stem/Conv', 'x', 'ws', 's', 3, pad=1),
             h.make_node('Transpose', ['s'], ['sn'], name='/stem/Transpose',
                         perm=[0, 2, 3, 1])]
    nodes += window_block('/b1', 'sn', 'y1', c, False)
    last = 'y1'
    if shifted:
        nodes += window_block('/b2', 'y1', 'y2', c, True)
        last = 'y2'
    nodes += [h.make_node('Transpose', [last], ['hn'], name='/head/Transpose',
                          perm=[0, 3, 1, 2]),
              conv('/head/Conv', 'hn', 'wh', 'y', 1)]
    save(name, nodes, [('x', F, [1, c, n, n])], ['y'], [
        zeros('ws', [c, c, 3, 3]), zeros('wh', [c, c, 1, 1]),
        zeros('wq', [c, c]), zeros('wk', [c, c]), zeros('wv', [c, c]),
        const('part', [1, n // win, win, n // win, win, c], np.int64),
        const('tokens', [(n // win) ** 2, win * win, c], np.int64),
        const('image', [1, n, n, c], np.int64),
        const('i0', [0], np.int64), const('i2', [2], np.int64),
        const('i14', [14], np.int64), const('i16', [16], np.int64),
        const('ax1', [1], np.int64), const('ax2', [2], np.int64)])


window_model('window', 4, True)
# One window as large as the map: attention over every position (whole).
window_model('window_global', 16, False)
