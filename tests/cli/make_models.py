#!/usr/bin/python3
"""Makes the tiny models of the CLI tests (committed; the tests never run this).

tiny_cnn.onnx: x[batch,3,8,8] -> Conv(4x3x3x3, pad 1) -> Relu ->
Reshape to [Shape(x)[0], -1] (the way PyTorch exports flatten) -> y,
declared [batch, 256].
"""
import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper

w = numpy_helper.from_array(np.zeros((4, 3, 3, 3), np.float32), 'conv.weight')
b = numpy_helper.from_array(np.zeros((4,), np.float32), 'conv.bias')
idx = numpy_helper.from_array(np.array(0, np.int64), 'zero')
minus1 = numpy_helper.from_array(np.array([-1], np.int64), 'minus_one')
axes = numpy_helper.from_array(np.array([0], np.int64), 'axes0')
nodes = [
    helper.make_node('Conv', ['x', 'conv.weight', 'conv.bias'], ['c'], name='/conv/Conv', pads=[1, 1, 1, 1]),
    helper.make_node('Relu', ['c'], ['r'], name='/relu/Relu'),
    helper.make_node('Shape', ['x'], ['s'], name='/Shape'),
    helper.make_node('Gather', ['s', 'zero'], ['n'], name='/Gather', axis=0),
    helper.make_node('Unsqueeze', ['n', 'axes0'], ['n1'], name='/Unsqueeze'),
    helper.make_node('Concat', ['n1', 'minus_one'], ['target'], name='/Concat', axis=0),
    helper.make_node('Reshape', ['r', 'target'], ['y'], name='/Reshape'),
]
g = helper.make_graph(nodes, 'tiny_cnn',
                      [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['batch', 3, 8, 8])],
                      [helper.make_tensor_value_info('y', TensorProto.FLOAT, ['batch', 256])],
                      [w, b, idx, minus1, axes])
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)], producer_name='nnscan-tests')
m.ir_version = 8
onnx.checker.check_model(m)
onnx.save(m, 'tiny_cnn.onnx')

# bad_names.onnx: a value name with a quote, a backslash, a newline, a
# control character and two bytes that are not UTF-8: the JSON must parse.
name = 'y"q\\\n\x01\u00e9'
n = helper.make_node('Relu', ['x'], [name], name='bad')
g = helper.make_graph([n], 'g', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [2])],
                      [helper.make_tensor_value_info(name, TensorProto.FLOAT, [2])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)])
m.ir_version = 8
with open('bad_names.onnx', 'wb') as f:
    f.write(m.SerializeToString().replace('\u00e9'.encode(), b'\xff\xfe'))
