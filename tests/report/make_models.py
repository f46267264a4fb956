#!/usr/bin/python3
"""Makes the small models of the report tests (committed; the tests never
run this). Run: /usr/bin/python3 tests/report/make_models.py (needs
python3-onnx). The golden files are pinned from nnscan's output, so the
figures they hold were checked by hand once, against the calculations in
tests/report/README.md.

tiny_resnet.onnx: x[1,3,8,8] -> stem (conv 8x3x3x3+bias pad 1, BN, ReLU)
  -> block (conv1 8x8x3x3 pad 1, ReLU, conv2 8x8x3x3 pad 1, + stem output,
  ReLU) -> global average pool -> flatten -> fc (Gemm 10x8 + bias) -> y.
  PyTorch-style node names, so the module tree is stem/block/pool/fc.

tiny_tied.onnx: x[1,4] -> enc (MatMul by W[4,4]) -> dec (MatMul by the
  same W: a tied weight) -> act (com.example.MyOp, an op nnscan has no
  rule for) -> y[1,4]. Used for the shared-parameter flags, the "not
  counted" lines and --strict.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def init(name, shape):
    return numpy_helper.from_array(np.zeros(shape, np.float32), name)


def save(model, name):
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, name))


def tiny_resnet():
    inits = [
        init('stem.conv.weight', (8, 3, 3, 3)), init('stem.conv.bias', (8,)),
        init('stem.bn.weight', (8,)), init('stem.bn.bias', (8,)),
        init('stem.bn.running_mean', (8,)), init('stem.bn.running_var', (8,)),
        init('block.conv1.weight', (8, 8, 3, 3)),
        init('block.conv2.weight', (8, 8, 3, 3)),
        init('fc.weight', (10, 8)), init('fc.bias', (10,)),
    ]
    n = helper.make_node
    nodes = [
        n('Conv', ['x', 'stem.conv.weight', 'stem.conv.bias'], ['s0'],
          name='/stem/conv/Conv', kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        n('BatchNormalization', ['s0', 'stem.bn.weight', 'stem.bn.bias',
                                 'stem.bn.running_mean', 'stem.bn.running_var'],
          ['s1'], name='/stem/bn/BatchNormalization', epsilon=1e-5),
        n('Relu', ['s1'], ['s2'], name='/stem/relu/Relu'),
        n('Conv', ['s2', 'block.conv1.weight'], ['b0'], name='/block/conv1/Conv',
          kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        n('Relu', ['b0'], ['b1'], name='/block/relu/Relu'),
        n('Conv', ['b1', 'block.conv2.weight'], ['b2'], name='/block/conv2/Conv',
          kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        n('Add', ['b2', 's2'], ['b3'], name='/block/Add'),
        n('Relu', ['b3'], ['b4'], name='/block/relu_1/Relu'),
        n('GlobalAveragePool', ['b4'], ['p'], name='/pool/GlobalAveragePool'),
        n('Flatten', ['p'], ['f'], name='/Flatten', axis=1),
        n('Gemm', ['f', 'fc.weight', 'fc.bias'], ['y'], name='/fc/Gemm',
          transB=1),
    ]
    g = helper.make_graph(
        nodes, 'tiny_resnet',
        [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, 10])], inits)
    save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)],
                           producer_name='nnscan-tests'), 'tiny_resnet.onnx')


def tiny_tied():
    n = helper.make_node
    nodes = [
        n('MatMul', ['x', 'W'], ['h'], name='/enc/MatMul'),
        n('MatMul', ['h', 'W'], ['d'], name='/dec/MatMul'),
        n('MyOp', ['d'], ['y'], name='/act/MyOp', domain='com.example'),
    ]
    g = helper.make_graph(
        nodes, 'tiny_tied',
        [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, 4])],
        [init('W', (4, 4))])
    save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13),
                                             helper.make_opsetid('com.example', 1)],
                           producer_name='nnscan-tests'), 'tiny_tied.onnx')


tiny_resnet()
tiny_tied()
