#!/usr/bin/python3
"""Writes the ONNX attention fixtures under tests/fixtures/attention/
(issue 40.2), with the onnx helper alone (onnx 1.12, no PyTorch):

    /usr/bin/python3 tools/make_attention_fixtures.py

causal_dyn.onnx: one attention block as torch.onnx.export spells a
decoder's causal mask, with both `batch` and `seq` dynamic: Q, K, V from
the input by MatMul with [D, D] weights, scores Q.K^T / sqrt(D), plus a
mask triu(full([seq, seq], -inf), 1) made from the input's shape
(Shape, Gather, Concat, ConstantOfShape, Trilu), Softmax, P.V. The mask
is folded from shapes once seq is fixed; batch may stay symbolic.
Weights are small random initializers (seed 0) so the file stands alone.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

D = 16
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "fixtures", "attention")


def causal_dyn():
    f = TensorProto.FLOAT
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(
        rng.standard_normal((D, D)).astype(np.float32), "w" + n)
        for n in "qkv"]
    inits += [
        numpy_helper.from_array(np.array(1.0 / np.sqrt(D), np.float32), "scale"),
        numpy_helper.from_array(np.array([1], np.int64), "axis1"),
        numpy_helper.from_array(np.array(1, np.int64), "one"),
    ]
    nodes = [helper.make_node("MatMul", ["x", "w" + n], [n]) for n in "qkv"]
    nodes += [
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Mul", ["s", "scale"], ["ss"]),
        # mask = triu(full([seq, seq], -inf), diagonal=1)
        helper.make_node("Shape", ["x"], ["xshape"]),
        helper.make_node("Gather", ["xshape", "axis1"], ["seq"], axis=0),
        helper.make_node("Concat", ["seq", "seq"], ["mshape"], axis=0),
        helper.make_node("ConstantOfShape", ["mshape"], ["full"],
                         value=helper.make_tensor("v", f, [1], [-np.inf])),
        helper.make_node("Trilu", ["full", "one"], ["mask"], upper=1),
        helper.make_node("Add", ["ss", "mask"], ["sm"]),
        helper.make_node("Softmax", ["sm"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["y"]),
    ]
    g = helper.make_graph(
        nodes, "causal_dyn",
        [helper.make_tensor_value_info("x", f, ["batch", "seq", D])],
        [helper.make_tensor_value_info("y", f, ["batch", "seq", D])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)],
                          producer_name="tools/make_attention_fixtures.py")
    onnx.checker.check_model(m)
    return m


def main():
    os.makedirs(OUT, exist_ok=True)
    onnx.save(causal_dyn(), os.path.join(OUT, "causal_dyn.onnx"))


if __name__ == "__main__":
    main()
