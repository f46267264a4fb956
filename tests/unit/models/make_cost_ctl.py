#!/usr/bin/python3
"""Regenerates the tiny models of tests/unit/test_cost_control.c (costs of
control flow and of the quant / com.microsoft rules). Not needed by the
test run; the .onnx files are committed. Run from any folder:

    /usr/bin/python3 tests/unit/models/make_cost_ctl.py

Bodies use com.microsoft Gelu / BiasGelu (8 and 9 FLOPs per element,
docs/metrics.md) so that a body's cost is easy to work out by hand.
"""
import os
import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

OUT = os.path.dirname(os.path.abspath(__file__))
F, I64, B, U8 = T.FLOAT, T.INT64, T.BOOL, T.UINT8
MS = "com.microsoft"


def vi(name, dt, shape):
    return h.make_tensor_value_info(name, dt, shape)


def init(name, arr):
    return nh.from_array(np.array(arr), name)


def save(name, nodes, inputs, outputs, inits=()):
    g = h.make_graph(nodes, name, inputs, outputs, list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17),
                                       h.make_opsetid(MS, 1)],
                     producer_name="make_cost_ctl")
    m.ir_version = 8
    onnx.save(m, os.path.join(OUT, f"cost_ctl_{name}.onnx"))


def gelu(x, y):
    return h.make_node("Gelu", [x], [y], domain=MS)


# Loop, M = 3 (initializer), no cond: x [2,3] -> Gelu each iteration, and
# a scan output stacking x_out into [3, 2, 3].
body = h.make_graph(
    [h.make_node("Identity", ["c_in"], ["c_out"]), gelu("x_in", "x_out"),
     h.make_node("Identity", ["x_out"], ["scan"])],
    "body",
    [vi("i", I64, []), vi("c_in", B, []), vi("x_in", F, [2, 3])],
    [vi("c_out", B, []), vi("x_out", F, None), vi("scan", F, None)])
save("loop", [h.make_node("Loop", ["M", "", "x"], ["xf", "xs"], body=body)],
     [vi("x", F, [2, 3])], [vi("xf", F, None), vi("xs", F, None)],
     [init("M", np.array(3, dtype=np.int64))])

# Loop whose cond is a graph input: the trip count is not known.
body2 = h.make_graph(
    [h.make_node("Identity", ["c_in"], ["c_out"]), gelu("x_in", "x_out")],
    "body2",
    [vi("i", I64, []), vi("c_in", B, []), vi("x_in", F, [2, 3])],
    [vi("c_out", B, []), vi("x_out", F, None)])
save("loop_cond", [h.make_node("Loop", ["M", "c", "x"], ["xf"], body=body2)],
     [vi("c", B, []), vi("x", F, [2, 3])], [vi("xf", F, None)],
     [init("M", np.array(10, dtype=np.int64))])

# If on a graph input: then Gelu(x) (48 FLOPs, 0 MACs), else
# FusedMatMul(x [2,3], w [3,4]) (24 MACs): the else branch is larger.
then_b = h.make_graph([gelu("x", "t")], "then", [], [vi("t", F, None)])
else_b = h.make_graph(
    [h.make_node("FusedMatMul", ["x", "w"], ["e"], domain=MS)], "else", [],
    [vi("e", F, None)])
save("if", [h.make_node("If", ["c"], ["y"], then_branch=then_b,
                        else_branch=else_b)],
     [vi("c", B, []), vi("x", F, [2, 3])], [vi("y", F, None)],
     [init("w", np.ones((3, 4), np.float32))])

# Scan-9: state s [2], scan input xs [5, 2] (axis 0); body
# s_out = BiasGelu(s_in, x_t), scan output y_t = s_out -> ys [5, 2].
sbody = h.make_graph(
    [h.make_node("BiasGelu", ["s_in", "x_t"], ["s_out"], domain=MS),
     h.make_node("Identity", ["s_out"], ["y_t"])],
    "sbody", [vi("s_in", F, [2]), vi("x_t", F, [2])],
    [vi("s_out", F, None), vi("y_t", F, None)])
save("scan", [h.make_node("Scan", ["s", "xs"], ["sf", "ys"], body=sbody,
                          num_scan_inputs=1)],
     [vi("s", F, [2]), vi("xs", F, [5, 2])],
     [vi("sf", F, None), vi("ys", F, None)])

# com.microsoft Attention: input [2, 4, 8], weights [8, 24], bias [24],
# 2 heads; only the output.
save("attention", [h.make_node("Attention", ["x", "w", "b"], ["y"],
                               domain=MS, num_heads=2)],
     [vi("x", F, [2, 4, 8])], [vi("y", F, None)],
     [init("w", np.zeros((8, 24), np.float32)),
      init("b", np.zeros((24,), np.float32))])

# QuantizeLinear of x [2, 3, 4] with scalar scale and uint8 zero point.
save("quant", [h.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])],
     [vi("x", F, [2, 3, 4])], [vi("y", U8, None)],
     [init("s", np.array(0.5, np.float32)), init("z", np.array(3, np.uint8))])

# TreeEnsembleRegressor on X [5, 3], one target. Tree 0: node 0 branches
# to leaf 1 and branch 2, which branches to leaves 3 and 4 (longest path:
# 2 compares). Tree 1: node 0 branches to leaves 1 and 2 (1 compare).
ML = "ai.onnx.ml"
tree = h.make_node(
    "TreeEnsembleRegressor", ["x"], ["y"], domain=ML, n_targets=1,
    nodes_treeids=[0, 0, 0, 0, 0, 1, 1, 1],
    nodes_nodeids=[0, 1, 2, 3, 4, 0, 1, 2],
    nodes_featureids=[0, 0, 1, 0, 0, 2, 0, 0],
    nodes_modes=["BRANCH_LEQ", "LEAF", "BRANCH_LEQ", "LEAF", "LEAF",
                 "BRANCH_LEQ", "LEAF", "LEAF"],
    nodes_values=[0.5, 0, 0.5, 0, 0, 0.5, 0, 0],
    nodes_truenodeids=[1, 0, 3, 0, 0, 1, 0, 0],
    nodes_falsenodeids=[2, 0, 4, 0, 0, 2, 0, 0],
    target_ids=[0, 0, 0, 0, 0], target_nodeids=[1, 3, 4, 1, 2],
    target_treeids=[0, 0, 0, 1, 1], target_weights=[1.0] * 5)
g = h.make_graph([tree], "tree", [vi("x", F, [5, 3])], [vi("y", F, None)])
m = h.make_model(g, opset_imports=[h.make_opsetid("", 17),
                                   h.make_opsetid(ML, 3)],
                 producer_name="make_cost_ctl")
m.ir_version = 8
onnx.save(m, os.path.join(OUT, "cost_ctl_tree.onnx"))
