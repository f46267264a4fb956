#!/usr/bin/python3
"""Writes ml5_ops.onnx and ml5_forms.onnx for test_ops_ml5.c: ai.onnx.ml opset 5's
TreeEnsemble and opset 4's LabelEncoder with tensor attributes.

Not needed by the test run: the .onnx file is committed. Rerun after
changing the model, with onnx 1.18 or newer (float8; the sid chroot's
1.20):  python3 tests/unit/models/make_ml5.py
Expected shapes and counts are worked out by hand in test_ops_ml5.c.
"""
import os
import onnx
from onnx import TensorProto as T, helper as h
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ML = 'ai.onnx.ml'


def t(name, dt, vals):
    return h.make_tensor(name, dt, [len(vals)], vals)


# Two trees over X [3, 2]: tree 0 is a root (node 0) whose true branch is
# node 1, both interior (depth 2); tree 1 is one interior node (node 2).
tree = h.make_node(
    'TreeEnsemble', ['x'], ['y'], name='tree', domain=ML,
    n_targets=1, aggregate_function=1, post_transform=0,
    tree_roots=[0, 2],
    nodes_featureids=[0, 1, 0],
    nodes_splits=t('s', T.FLOAT, [0.5, 0.5, 0.5]),
    nodes_modes=t('m', T.UINT8, [0, 0, 0]),
    nodes_truenodeids=[1, 0, 3], nodes_trueleafs=[0, 1, 1],
    nodes_falsenodeids=[2, 1, 4], nodes_falseleafs=[1, 1, 1],
    leaf_targetids=[0, 0, 0, 0, 0],
    leaf_weights=t('w', T.FLOAT, [1, 2, 3, 4, 5]))
enc = h.make_node(
    'LabelEncoder', ['ids'], ['labels'], name='enc', domain=ML,
    keys_tensor=t('k', T.INT64, [1, 2, 3]),
    values_tensor=t('v', T.INT16, [10, 20, 30]),
    default_tensor=h.make_tensor('d', T.INT16, [1], [0]))
g = h.make_graph([tree, enc], 'ml5',
                 [h.make_tensor_value_info('x', T.FLOAT, [3, 2]),
                  h.make_tensor_value_info('ids', T.INT64, [4])],
                 [h.make_tensor_value_info('y', T.UNDEFINED, None),
                  h.make_tensor_value_info('labels', T.UNDEFINED, None)])
m = h.make_model(g, opset_imports=[h.make_opsetid('', 21),
                                   h.make_opsetid(ML, 5)],
                 producer_name='make_ml5')
m.ir_version = 10
onnx.save(m, os.path.join(HERE, 'ml5_ops.onnx'))

# onnx 1.20's forms the conformance run found refused: a float8
# QuantizeLinear whose zero point is [1] on a 1-D x (default axis 1), and
# ReduceSum-18 whose axes input is bound to an empty tensor.
g = h.make_graph([
    h.make_node('QuantizeLinear', ['qx', 'qs', 'qz'], ['q8'], name='q8'),
    h.make_node('ReduceSum', ['rx', 'ax'], ['rsum'], name='rsum'),
], 'forms',
    [h.make_tensor_value_info('qx', T.FLOAT, [6]),
     h.make_tensor_value_info('rx', T.FLOAT, [2, 3]),
     h.make_tensor_value_info('ax', T.INT64, [None])],
    [h.make_tensor_value_info('q8', T.UNDEFINED, None),
     h.make_tensor_value_info('rsum', T.UNDEFINED, None)],
    [h.make_tensor('qs', T.FLOAT, [], [0.5]),
     h.make_tensor('qz', T.FLOAT8E4M3FN, [1], [0])])
m = h.make_model(g, opset_imports=[h.make_opsetid('', 21)],
                 producer_name='make_ml5')
m.ir_version = 10
onnx.save(m, os.path.join(HERE, 'ml5_forms.onnx'))
