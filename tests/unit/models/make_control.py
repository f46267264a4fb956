#!/usr/bin/python3
"""Regenerates the tiny models of tests/unit/test_ops_control.c (control
flow, sequences, misc, quant, ai.onnx.ml and com.microsoft ops). Not needed
by the test run; the .onnx files are committed. Run from any folder:

    /usr/bin/python3 tests/unit/models/make_control.py
"""
import os
import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

OUT = os.path.dirname(os.path.abspath(__file__))
F, I64, B, S = T.FLOAT, T.INT64, T.BOOL, T.STRING


def vi(name, dt, shape):
    return h.make_tensor_value_info(name, dt, shape)


def init(name, arr):
    return nh.from_array(np.array(arr), name)


def save(name, nodes, inputs, outputs, inits=(), opsets=(("", 17),)):
    g = h.make_graph(nodes, name, inputs, outputs, list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid(d, v) for d, v in opsets],
                     producer_name="make_control")
    m.ir_version = 8
    onnx.save(m, os.path.join(OUT, f"control_{name}.onnx"))


# Loop: M = 4 (initializer), no cond; x [2,3] += 1 each iteration; y doubles
# its length (Concat(y, y)); scan output x_out.
body = h.make_graph(
    [h.make_node("Identity", ["c_in"], ["c_out"]),
     h.make_node("Add", ["x_in", "one"], ["x_out"]),
     h.make_node("Concat", ["y_in", "y_in"], ["y_out"], axis=0),
     h.make_node("Identity", ["x_out"], ["scan"])],
    "body",
    [vi("i", I64, []), vi("c_in", B, []), vi("x_in", F, [2, 3]),
     vi("y_in", F, [1])],
    [vi("c_out", B, []), vi("x_out", F, None), vi("y_out", F, None),
     vi("scan", F, None)])
save("loop", [h.make_node("Loop", ["M", "", "x", "y"], ["xf", "yf", "xs"],
                          body=body)],
     [vi("x", F, [2, 3]), vi("y", F, [1])],
     [vi("xf", F, None), vi("yf", F, None), vi("xs", F, None)],
     [init("M", np.array(4, dtype=np.int64)),
      init("one", np.array(1.0, dtype=np.float32))])

# Loop whose cond comes from the body (may stop early): scan length unknown.
body2 = h.make_graph(
    [h.make_node("Less", ["x_in", "lim"], ["c_out"]),
     h.make_node("Add", ["x_in", "one"], ["x_out"]),
     h.make_node("Identity", ["x_out"], ["scan"])],
    "body2",
    [vi("i", I64, []), vi("c_in", B, []), vi("x_in", F, [])],
    [vi("c_out", B, []), vi("x_out", F, None), vi("scan", F, None)])
save("loop_cond", [h.make_node("Loop", ["M", "c", "x"], ["xf", "xs"],
                               body=body2)],
     [vi("x", F, [])], [vi("xf", F, None), vi("xs", F, None)],
     [init("M", np.array(10, dtype=np.int64)), init("c", np.array(True)),
      init("one", np.array(1.0, dtype=np.float32)),
      init("lim", np.array(5.0, dtype=np.float32))])


# If: cond a graph input; then [2,3] / else [2,4] -> [2,?]; a second output
# of ranks 1 and 2 -> unknown rank. If2: cond an initializer (true).
def branch(name, shape_a, shape_b):
    return h.make_graph(
        [h.make_node("Constant", [], [name + "_a"],
                     value=nh.from_array(np.zeros(shape_a, np.float32))),
         h.make_node("Constant", [], [name + "_b"],
                     value=nh.from_array(np.zeros(shape_b, np.float32)))],
        name, [], [vi(name + "_a", F, None), vi(name + "_b", F, None)])


save("if", [h.make_node("If", ["c"], ["a", "b"],
                        then_branch=branch("t", [2, 3], [4]),
                        else_branch=branch("e", [2, 4], [4, 1]))],
     [vi("c", B, [])], [vi("a", F, None), vi("b", F, None)])
save("if_const", [h.make_node("If", ["c"], ["a", "b"],
                              then_branch=branch("t", [2, 3], [4]),
                              else_branch=branch("e", [2, 4], [4, 1]))],
     [], [vi("a", F, None), vi("b", F, None)], [init("c", np.array(True))])

# Scan-9: state s [3,2]; x [3,5,2] scanned on axis 1 (slices [3,2]); scan
# output stacked on axis -1 -> [3,2,5].
sbody = h.make_graph(
    [h.make_node("Add", ["s_in", "x_in"], ["s_out"]),
     h.make_node("Identity", ["s_out"], ["o"])],
    "sbody", [vi("s_in", F, None), vi("x_in", F, None)],
    [vi("s_out", F, None), vi("o", F, None)])
save("scan9", [h.make_node("Scan", ["s", "x"], ["sf", "ys"], body=sbody,
                           num_scan_inputs=1, scan_input_axes=[1],
                           scan_output_axes=[-1])],
     [vi("s", F, [3, 2]), vi("x", F, [3, 5, 2])],
     [vi("sf", F, None), vi("ys", F, None)])
# Scan-8: batch 2, state [2,4], x [2,7,4] -> [2,4], [2,7,4].
save("scan8", [h.make_node("Scan", ["", "s", "x"], ["sf", "ys"], body=sbody,
                           num_scan_inputs=1)],
     [vi("s", F, [2, 4]), vi("x", F, [2, 7, 4])],
     [vi("sf", F, None), vi("ys", F, None)], opsets=(("", 8),))

# Sequences.
save("seq", [
    h.make_node("SequenceConstruct", ["X", "Y"], ["s1"]),
    h.make_node("ConcatFromSequence", ["s1"], ["cat"], axis=1),
    h.make_node("ConcatFromSequence", ["s1"], ["stk"], axis=0, new_axis=1),
    h.make_node("SequenceAt", ["s1", "minus1"], ["last"]),
    h.make_node("SequenceLength", ["s1"], ["len"]),
    h.make_node("SplitToSequence", ["Z", "four"], ["s2"]),
    h.make_node("SequenceAt", ["s2", "one"], ["piece"]),
    h.make_node("ConcatFromSequence", ["s2"], ["back"], axis=0),
    h.make_node("SequenceEmpty", [], ["s3"]),
    h.make_node("SequenceInsert", ["s3", "Y"], ["s4"]),
    h.make_node("SequenceAt", ["s4", "zero"], ["only"]),
    h.make_node("Optional", ["X"], ["opt"]),
    h.make_node("OptionalHasElement", ["opt"], ["has"]),
    h.make_node("OptionalGetElement", ["opt"], ["got"])],
    [vi("X", F, [2, 3]), vi("Y", F, [2, 5]), vi("Z", F, [6, 4])],
    [vi(n, F, None) for n in ["cat", "last", "piece", "back", "only", "got"]]
    + [vi("len", I64, None), vi("has", B, None)],
    [init("minus1", np.array(-1, np.int64)), init("one", np.array(1, np.int64)),
     init("zero", np.array(0, np.int64)), init("four", np.array(4, np.int64))])

# Misc.
save("misc", [
    h.make_node("HannWindow", ["eight"], ["win"], periodic=1),
    h.make_node("Unique", ["u"], ["uy", "ui", "uinv", "uc"]),
    h.make_node("StringNormalizer", ["words"], ["norm"],
                case_change_action="UPPER", stopwords=["monday"]),
    h.make_node("NonMaxSuppression", ["boxes", "scores"], ["sel"]),
    h.make_node("DFT", ["sig", ""], ["spec"], axis=1, onesided=1),
    h.make_node("STFT", ["sig", "eight", "", "sixteen"], ["stft"]),
    h.make_node("SoftmaxCrossEntropyLoss", ["scores4", "labels"],
                ["loss", "logp"], reduction="none")],
    [vi("boxes", F, [1, 6, 4]), vi("scores", F, [1, 2, 6]),
     vi("sig", F, [3, 128, 1]), vi("scores4", F, [5, 3, 7]),
     vi("labels", I64, [5, 7])],
    [vi(n, F, None) for n in ["win", "spec", "stft", "loss", "logp"]]
    + [vi("uy", I64, None), vi("ui", I64, None), vi("uinv", I64, None),
       vi("uc", I64, None), vi("norm", S, None), vi("sel", I64, None)],
    [init("eight", np.array(8, np.int64)),
     init("sixteen", np.array(16, np.int64)),
     init("u", np.array([2, 1, 2, 1, 3], np.int64)),
     init("words", np.array([b"Monday", b"tuesday", b"monday"], dtype=object))])

# Quantization: int8 zero point; per-axis scale of the wrong length.
save("quant", [
    h.make_node("QuantizeLinear", ["x", "sc", "zp"], ["q"]),
    h.make_node("DequantizeLinear", ["q", "sc", "zp"], ["dq"]),
    h.make_node("DequantizeLinear", ["w8", "sc3", "zp3"], ["wf"], axis=0)],
    [vi("x", F, ["N", 3])], [vi("q", T.INT8, None), vi("dq", F, None),
                             vi("wf", F, None)],
    [init("sc", np.array(0.5, np.float32)), init("zp", np.array(1, np.int8)),
     init("w8", np.array([[1, 2], [3, 4], [5, 6]], np.int8)),
     init("sc3", np.array([1.0, 2.0, 4.0], np.float32)),
     init("zp3", np.array([0, 1, 2], np.int8))])
save("quant_bad", [h.make_node("DequantizeLinear", ["w8", "sc2"], ["wf"],
                               axis=0)],
     [], [vi("wf", F, None)],
     [init("w8", np.array([[1, 2], [3, 4], [5, 6]], np.int8)),
      init("sc2", np.array([1.0, 2.0], np.float32))])

# ai.onnx.ml
ML = "ai.onnx.ml"


def zipmap_out(name):
    """seq(map(int64, float)), built by hand (onnx 1.12 has no helper)."""
    t = onnx.TypeProto()
    m = t.sequence_type.elem_type.map_type
    m.key_type = I64
    m.value_type.tensor_type.elem_type = F
    return h.make_value_info(name, t)


save("ml", [
    h.make_node("LinearClassifier", ["X"], ["lab", "prob"], domain=ML,
                coefficients=[0.0] * 12, intercepts=[0.0] * 3,
                classlabels_ints=[0, 1, 2]),
    h.make_node("LinearClassifier", ["X"], ["lab2", "prob2"], domain=ML,
                coefficients=[0.0] * 4, intercepts=[0.0],
                classlabels_strings=["no", "yes"]),
    h.make_node("TreeEnsembleRegressor", ["X"], ["reg"], domain=ML,
                n_targets=2),
    h.make_node("OneHotEncoder", ["cats"], ["oh"], domain=ML,
                cats_int64s=[1, 2, 3, 4]),
    h.make_node("ZipMap", ["prob"], ["zm"], domain=ML,
                classlabels_int64s=[0, 1, 2]),
    h.make_node("FeatureVectorizer", ["X", "X"], ["fv"], domain=ML,
                inputdimensions=[4, 4])],
    [vi("X", F, ["N", 4]), vi("cats", I64, ["N", 2])],
    [vi("lab", I64, None), vi("prob", F, None), vi("lab2", S, None),
     vi("prob2", F, None), vi("reg", F, None), vi("oh", F, None),
     zipmap_out("zm"),
     vi("fv", F, None)],
    opsets=(("", 17), (ML, 3)))

# com.microsoft
MS = "com.microsoft"
save("msft", [
    h.make_node("Attention", ["x", "w", "b", "", "past"], ["att", "present"],
                domain=MS, num_heads=4),
    h.make_node("MultiHeadAttention", ["q", "k", "v"], ["mha"], domain=MS,
                num_heads=4),
    h.make_node("FusedMatMul", ["a", "bt"], ["mm"], domain=MS, transB=1),
    h.make_node("SkipLayerNormalization", ["x", "x", "g", "g"],
                ["sln", "mean", "isd", "sum"], domain=MS),
    h.make_node("FusedConv", ["img", "cw", "cb"], ["conv"], domain=MS,
                strides=[2, 2], pads=[1, 1, 1, 1], activation="Relu"),
    h.make_node("BiasGelu", ["x", "g"], ["bg"], domain=MS)],
    [vi("x", F, ["B", 8, 16]), vi("past", F, [2, "B", 4, "P", 4]),
     vi("q", F, [2, 8, 16]), vi("k", F, [2, 10, 16]), vi("v", F, [2, 10, 24]),
     vi("a", F, [3, 5, 7]), vi("bt", F, [9, 7]),
     vi("img", F, [1, 3, 32, 32])],
    [vi(n, F, None) for n in ["att", "present", "mha", "mm", "sln", "mean",
                              "isd", "sum", "conv", "bg"]],
    [init("w", np.zeros((16, 48), np.float32)),
     init("b", np.zeros(48, np.float32)), init("g", np.zeros(16, np.float32)),
     init("cw", np.zeros((8, 3, 3, 3), np.float32)),
     init("cb", np.zeros(8, np.float32))],
    opsets=(("", 17), (MS, 1)))
